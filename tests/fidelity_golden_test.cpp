// Issue 21's real-Slurm 22.05 captures (tests/golden/mini_slurm_fidelity): node selection as
// select/cons_tres makes it (best fit with memory binding, -N min-max, --ntasks-per-node,
// --exclusive, --mem=0) and --constraint (AND, OR, matching OR, counted features, refusals).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "analyzer/hostlist.h"
#include "analyzer/text_util.h"
#include "engine/simulator.h"
#include "report/queue_view.h"
#include "tests/engine_test_util.h"
#include "tests/fidelity_capture.h"
#include "tests/golden_capture.h"
#include "tests/reason_compare.h"

namespace sa {
namespace {

namespace fs = std::filesystem;
const fs::path kFidelity = fs::path(SA_SOURCE_DIR) / "tests" / "golden" / "mini_slurm_fidelity";

struct Real {
  std::string nodes, constraint, state;
};

/// sacct_text.tsv: JobIDRaw, State, Reason, NodeList, Constraints, SubmitLine, WorkDir.
std::map<std::uint32_t, Real> real_jobs(const fs::path& dir) {
  std::map<std::uint32_t, Real> out;
  for (const std::string& line : test::lines_of(dir / "extra" / "sacct_text.tsv")) {
    const std::vector<std::string> f = split(line, '\t');
    if (f.size() < 6 || f[0] == "JobIDRaw") continue;
    out[static_cast<std::uint32_t>(std::stoul(f[0]))] = Real{f[3], f[4], f[1]};
  }
  return out;
}

struct Replay : test::GoldenCapture {
  /// `no_mem`: jobs whose request gave no memory, though sacct's ReqMem names one (see below).
  explicit Replay(const char* scenario, const std::set<std::uint32_t>& no_mem = {})
      : GoldenCapture(kFidelity / scenario) {
    const fs::path trace =
        test::joined_trace(dir / "sacct.psv", dir / "extra" / "sacct_text.tsv", dir.filename().string());
    jobs = *engine::read_workload(trace.string(), sources, sink);
    fs::remove(trace);
    for (engine::JobRequest& j : jobs.jobs) {
      if (no_mem.count(j.id)) j.mem_set = false;
    }
    result = engine::Simulator(site, {}).run(jobs);
  }
  /// The same jobs on the same site read with config `c` (a copy of conf->config, edited).
  engine::SimResult rerun(const Config& c) const {
    engine::Site edited = site;
    edited.config = &c;
    return engine::Simulator(edited, {}).run(jobs);
  }
  /// The job ids a sprio at time t lists, in its order (the same jobs simulated up to t).
  std::vector<std::uint32_t> sprio_ids_at(std::int64_t t) const {
    engine::SimOptions at;
    at.snapshot_at = {t};
    const engine::SimResult snap = engine::Simulator(site, at).run(jobs);
    std::vector<std::uint32_t> ids;
    for (const engine::PendingSnapshot& s : snap.snapshots) {
      for (const engine::SprioRow& row : s.rows) ids.push_back(row.job_id);
    }
    return ids;
  }
  std::string nodes_of(const engine::SimJob& j) const {
    const std::string list = test::alloc_node_list(conf->config, result, j);
    return list.empty() ? "None assigned" : list;  // sacct's words for a job that never ran
  }
  engine::SimResult result;
};

// Every job of the replay on the nodes real Slurm chose, started within one scheduler tick; a
// job sbatch refused (sacct: "None assigned") refused with Slurm's message.
void expect_real_nodes_and_starts(const Replay& r, std::size_t jobs) {
  const auto real = real_jobs(r.dir);
  ASSERT_EQ(r.result.jobs.size(), jobs);
  for (const engine::SimJob& j : r.result.jobs) {
    SCOPED_TRACE("job " + std::to_string(j.req.id));
    ASSERT_TRUE(real.count(j.req.id));
    EXPECT_EQ(r.nodes_of(j), real.at(j.req.id).nodes);
    if (real.at(j.req.id).nodes == "None assigned") {
      EXPECT_EQ(j.state, engine::JobState::kRejected);
      EXPECT_EQ(j.rare.get().reject_error, engine::kNodeConfigUnavailable);
      continue;
    }
    EXPECT_LE(std::abs(j.start - j.req.extra.get().recorded_start), r.tick);
  }
}

// Every job's CPUs as sacct's AllocCPUS.
void expect_real_alloc_cpus(const Replay& r) {
  std::map<std::uint32_t, std::uint32_t> alloc_cpus;  // sacct.psv: JobIDRaw -> AllocCPUS
  std::size_t column = 0;
  for (const std::string& line : test::lines_of(r.dir / "sacct.psv")) {
    const std::vector<std::string> f = split(line, '|');
    if (f.empty()) continue;
    if (f[0] == "JobIDRaw") {
      column = static_cast<std::size_t>(std::find(f.begin(), f.end(), "AllocCPUS") - f.begin());
      continue;
    }
    if (column < f.size())
      alloc_cpus[static_cast<std::uint32_t>(std::stoul(f[0]))] = static_cast<std::uint32_t>(std::stoul(f[column]));
  }
  ASSERT_EQ(alloc_cpus.size(), r.result.jobs.size());
  for (const engine::SimJob& j : r.result.jobs) {
    std::uint32_t cpus = 0;
    for (const engine::AllocPiece& p : j.alloc.expanded()) cpus += p.cpus;
    EXPECT_EQ(cpus, alloc_cpus.at(j.req.id)) << "job " << j.req.id;
  }
}

// e.g. job 3 (-n 4 --mem=8000) on the nearly full n2 (best fit), job 6 (-N 1-2 -n 12) split
// over n[1,4] when no node has 12 CPUs and the memory left, job 7 (-N 2 --ntasks-per-node=2)
// on n[1-2].
TEST(FidelityGolden, PackingMemoryPlacesEveryJobOnTheNodesRealSlurmChose) {
  expect_real_nodes_and_starts(Replay("packing_memory"), 11);
}

// select/cons_tres CR_Core_Memory with no default memory (DefMemPerNode=0 after mini-slurm's
// DefMemPerCPU=1000: unlimited, as when neither is written): jobs 1-3 give no --mem, are given a
// node's whole memory (sacct ReqMem 62.50G, scontrol Mem=64000) and run one a node; 3 waits for
// 2's end, and 4 and 5 (--mem=1000, --mem-per-cpu=500) wait for 1's, then share n1 (CONF106).
TEST(FidelityGolden, NoDefaultMemoryGivesAJobWithoutMemAWholeNode) {
  Replay r("default_memory_none");
  EXPECT_FALSE(r.conf->config.select.def_mem_per_cpu_zero);
  expect_real_nodes_and_starts(r, 5);
}

// The same jobs under DefMemPerCPU=0 written: 0 MB a CPU, not "no default" (read_config.c keeps
// MEM_PER_CPU), so jobs 1-3 are given no memory (scontrol Mem=0) and all five start at once on
// n1. sacct still records ReqMem 62.50G for them, which replayed as a request would give each a
// node: the replay gives 1-3 the request they were submitted with (workload.txt: no --mem), as
// a recorded load cannot (a SubmitLine does not show a script's #SBATCH lines).
TEST(FidelityGolden, DefMemPerCpuZeroGivesJobsNoMemoryAndTheyShare) {
  Replay r("default_memory_zero", {1, 2, 3});
  EXPECT_TRUE(r.conf->config.select.def_mem_per_cpu_zero);
  expect_real_nodes_and_starts(r, 5);
}

// DefMemPerCPU=5000 on 16-CPU nodes of 64000 MB (CONF102's case): a node holds 12 default-sized
// CPUs. Real Slurm spread -n 16 over both nodes, refused -N 1 --exclusive and -N 1 -n 13 at
// submission ("Requested node configuration is not available"), and ran the 12-CPU jobs one a
// node once the two 16-CPU jobs (larger, so first by job size) had run.
TEST(FidelityGolden, ADefaultAboveANodesMemoryPerCpuSpreadsOrRefusesAsSlurmDid) {
  expect_real_nodes_and_starts(Replay("default_memory_over_node"), 6);
}

/// sacct.psv's AllocTRES cpu= and mem= (MB) by job.
std::map<std::uint32_t, std::pair<std::uint64_t, std::uint64_t>> real_alloc(const fs::path& dir) {
  std::map<std::uint32_t, std::pair<std::uint64_t, std::uint64_t>> out;
  std::size_t col = 0;
  for (const std::string& line : test::lines_of(dir / "sacct.psv")) {
    const std::vector<std::string> f = split(line, '|');
    if (f[0] == "JobIDRaw") {
      col = static_cast<std::size_t>(std::find(f.begin(), f.end(), "AllocTRES") - f.begin());
      continue;
    }
    std::uint64_t cpus = 0, mem = 0;
    for (const std::string& item : split(f.at(col), ',')) {
      if (item.rfind("cpu=", 0) == 0) cpus = std::stoull(item.substr(4));
      if (item.rfind("mem=", 0) == 0) mem = std::stoull(item.substr(4));  // "20000M"
    }
    out[static_cast<std::uint32_t>(std::stoul(f[0]))] = {cpus, mem};
  }
  return out;
}

// Every job of the replay holds the CPUs and memory sacct's AllocTRES records for it.
void expect_real_allocations(const Replay& r) {
  const auto real = real_alloc(r.dir);
  for (const engine::SimJob& j : r.result.jobs) {
    SCOPED_TRACE("job " + std::to_string(j.req.id));
    ASSERT_TRUE(real.count(j.req.id));
    EXPECT_EQ(j.alloc.cpus(), real.at(j.req.id).first);
    EXPECT_EQ(j.alloc.mem(), real.at(j.req.id).second);
  }
}

// 2 nodes x 16 CPUs x 64000 MB x 4 GPUs, DefMemPerCPU=1000 for the cluster and DefMemPerGPU=20000
// DefCpuPerGPU=3 on the partition (the docs call the first two mutually exclusive; slurmctld
// takes both). Real Slurm gave each --gres=gpu:N job without --mem 3 CPUs and 20000 MB a GPU
// (sacct AllocTRES); -c 2 kept its 2 CPUs (DefCpuPerGPU applies only without -c); -n 4 got
// DefMemPerCPU's 4000 MB; --mem=10000 got 10000 MB and 3 CPUs. Job 7 waited 40 s with a GPU
// free on each node, as neither had the GPU's 20000 MB free (slurmctld.log: "Insufficient
// memory for any GRES"), while job 9 (--mem-per-gpu=2000 --cpus-per-gpu=1, given 1 CPU and
// 2000 MB), submitted 20 s later, started at once on n1's free GPU and its 10000 MB. ReqMem records
// DefMemPerCPU's value for the GPU jobs, so the replay gives those submitted without --mem
// the request they were submitted with.
TEST(FidelityGolden, GpuDefaultsGiveEachGpuItsCpusAndMemoryAsSlurmDid) {
  Replay r("gpu_defaults", {1, 2, 3, 4, 6, 7, 8});
  expect_real_nodes_and_starts(r, 9);
  expect_real_allocations(r);
  const auto real = real_alloc(r.dir);
  EXPECT_EQ(real.at(2), (std::pair<std::uint64_t, std::uint64_t>{6, 40000}));
  EXPECT_EQ(real.at(5), (std::pair<std::uint64_t, std::uint64_t>{3, 10000}));
  EXPECT_EQ(real.at(9), (std::pair<std::uint64_t, std::uint64_t>{1, 2000}));
}

// The same cluster and defaults, other GPU shapes: -n 4 with one GPU kept its 4 CPUs (the
// larger of the tasks and the GPU's 3), -n 2 with two GPUs got 6; -N 2 --gpus-per-node=1 took
// one GPU (3 CPUs, 20000 MB) on each node once n1 had the memory; --gpus=3 for the job waited
// behind it (backfill kept n2 for it), then spread over both nodes, as neither had three GPUs'
// 60000 MB free beside them.
TEST(FidelityGolden, GpuShapesTakeTheirGpusCpusAndMemoryAsSlurmDid) {
  Replay r("gpu_shapes", {1, 2, 3, 4});
  expect_real_nodes_and_starts(r, 4);
  expect_real_allocations(r);
  for (const engine::SimJob& j : r.result.jobs) {
    EXPECT_EQ(j.alloc.gpus(), (std::array<std::uint32_t, 4>{1, 2, 2, 3}[j.req.id - 1])) << "job " << j.req.id;
  }
}

// TopologyPlugin=topology/tree with topology.conf beside slurm.conf (leaf1 n[1-3], leaf2 n[4-5],
// leaf3 n[6-8] under two spines): real Slurm put jobs 1-5 where flat best fit would not (n4,
// not n1; n[4-5], not n1; n[1-3,5], not n[5-8]; n[1,5], not n1; n[6,8] beside -w n8), the same
// in both runs; job 6 waited for job 2's end and spans the spines (n[4,7]).
TEST(FidelityGolden, TopologyTreePlacesEveryJobOnTheSwitchesRealSlurmChose) {
  Replay r("topology");
  ASSERT_EQ(r.conf->config.topology.switches.size(), 6u);
  for (const Diagnostic& d : r.conf->diagnostics.all()) EXPECT_NE(d.code, "CONF051") << d.message;
  expect_real_nodes_and_starts(r, 6);
}

// The topology capture's switches with GPUs on six nodes (n[1-3] 2 each, n[4-5] none, n[6-8] 4
// each): job 4 (--gpus=4, -N 1-2) went to n8 alone, the node with the most free GPUs, where
// the leaves' order (leaf1 first, n1 and n2 with 1 and 2 free) held only three GPUs on two
// nodes: cons_tres weighs a GPU job's nodes by the GPUs it could use there
// (NodeTaker::sched_weight). Before the engine did, it kept job 4 waiting 200 s for n[6-7],
// and job 5 (--gpus-per-node=2 -N 3) started 191 s early on n[2-3,8].
TEST(FidelityGolden, TopologyTreeWeighsGpuNodesByTheirFreeGpus) {
  Replay r("topology_gpu");
  ASSERT_EQ(r.conf->config.topology.switches.size(), 6u);
  expect_real_nodes_and_starts(r, 6);
}

// When cons_tres's _eval_nodes fails, choose_nodes drops the nodes with the fewest free CPUs
// (and GPUs), a count at a time, and evaluates again (engine/policy/choose_nodes.h). Job 3 (-N 2
// -n 32, 16-CPU nodes) found n1 with 2 free CPUs first and then no last node holding 30; with
// n1 and n2 dropped it started on n[3-4] at once, and job 4 (-N 2 -n 4) took n1 and n2's free
// CPUs. Before the engine modelled the retry, it kept job 3 waiting 198 s for n1 and n2 and
// backfilled job 4 onto n[3-4].
TEST(FidelityGolden, ChooseNodesRetriesWithoutTheNodesOfFewestFreeCpus) {
  expect_real_nodes_and_starts(Replay("node_retry"), 4);
}

// --cpus-per-task (engine NodePool::capacity, Demand::task_cpus): every node had 6 CPUs free.
// Real 22.05 kept job 5 (-n 1 -c 8) waiting 100 s for a node with 8, where the engine had put
// 6 + 2 on two nodes at once, and gave job 6 (-n 3 -c 4) 4 CPUs on each of n[1-3] (memory per
// CPU: cons_tres _can_job_run_on_node rounds a node's CPUs down to whole tasks) where the engine
// had taken 6 + 6 on two nodes. With --mem (memory per node) there is no rounding, and job 6
// took n[1-2] (cpus_per_task_mem_node; its 12 CPUs there became 6 + 4 when slurmctld laid out
// the tasks, which the engine does not do: it keeps 6 + 6).
// And the CPUs each job kept, as sacct's AllocCPUS: with memory per node, job 6's tasks were
// laid out 6 + 4 on n[1-2] (engine/policy/task_layout.h), its third task on the 2 CPUs n1
// had left, not 6 + 6.
TEST(FidelityGolden, CpusPerTaskTakesWholeTasksOnEachNode) {
  for (const char* scenario : {"cpus_per_task", "cpus_per_task_mem_node"}) {
    SCOPED_TRACE(scenario);
    const Replay r(scenario);
    expect_real_nodes_and_starts(r, 7);
    expect_real_alloc_cpus(r);
  }
}

// --ntasks-per-node: real 22.05 gave every node the job took its full count of tasks, even
// past -n: -n 5 --ntasks-per-node=2 ran 6 tasks on 6 CPUs of three nodes (NumTasks=6), -n 6
// --ntasks-per-node=4 8 on two; -N 2 --ntasks-per-node=3 -c 2 took 6 CPUs on each node (one
// of them n1, with only 6 free) and -n 3 --ntasks-per-node=1 one CPU on each of three.
TEST(FidelityGolden, NtasksPerNodeFillsEveryNodeItTakes) {
  const Replay r("ntasks_per_node");
  expect_real_nodes_and_starts(r, 6);
  expect_real_alloc_cpus(r);
}

// MaxMemPerCPU=2000 (capped, defover) and MaxMemPerNode=20000 (nodecap), a real 22.05:
// -n 2 --mem-per-cpu=5000 ran on 6 CPUs at 1667 MB, -n 1 -c 2 at 3000 MB on 4, -N 1 --mem=9000
// on 5 with ReqCPUS 1, defover's default of 3000 MB took -n 2 to 4 CPUs; two jobs over
// MaxMemPerNode were refused at submission (EnforcePartLimits=ALL) and are not in sacct. The
// replay asks what ReqTRES says the jobs asked (cpu=2 where ReqCPUS is 6) and the engine raises
// them as slurmctld did; their priorities are real Slurm's, which count the CPUs and memory
// asked (4604 for job 1, not the 4657 of 6 CPUs).
TEST(FidelityGolden, MaxMemPerCpuRaisesTheCpusOfAJobAboveIt) {
  Replay r("max_mem");
  expect_real_nodes_and_starts(r, 6);
  expect_real_alloc_cpus(r);
  const engine::SimJob& first = r.result.jobs[0];
  EXPECT_EQ(first.req.cpus, 2U);
  EXPECT_EQ(first.recs[0].demand.cpus, 6U);
  EXPECT_EQ(first.recs[0].demand.mem_per_cpu, 1667U);
  const std::map<std::uint32_t, std::uint32_t> real_priority = {{1, 4604}, {2, 4598}, {3, 4589},
                                                                {4, 4598}, {5, 4621}, {6, 4628}};
  for (const engine::SimJob& j : r.result.jobs) {
    SCOPED_TRACE("job " + std::to_string(j.req.id));
    EXPECT_EQ(j.recs[0].priority, real_priority.at(j.req.id));
  }
}

// The same maxima under EnforcePartLimits=NO (max_mem_lax, a real 22.05): --mem=30000 and -N 1
// -n 8 --mem-per-cpu=3000 over MaxMemPerNode=20000, and a partition's DefMemPerNode=30000 over
// it, were queued and pended with Reason MaxMemPerLimit from the first pass (squeue, +3 s; the
// submission's own PartitionConfig before it) until scancel; -N 1 --ntasks-per-node=2
// --mem=9000 under MaxMemPerCPU=2000 ran on 5 CPUs (pn_min_cpus), not 2 tasks of 3.
TEST(FidelityGolden, MemoryAboveMaxMemPerNodePendsWithMaxMemPerLimit) {
  Replay r("max_mem_lax");
  ASSERT_EQ(r.result.jobs.size(), 7U);
  const auto captured = test::captured_reasons(r.dir);
  const auto real = real_jobs(r.dir);
  const std::map<std::uint32_t, std::uint32_t> real_priority = {{1, 4622}, {2, 4706}, {3, 4622}, {4, 4621},
                                                                {5, 4591}, {6, 4603}, {7, 4604}};
  const std::map<std::uint32_t, std::uint32_t> real_cpus = {{4, 4}, {5, 1}, {6, 5}, {7, 6}};  // sacct AllocCPUS
  for (const engine::SimJob& j : r.result.jobs) {
    SCOPED_TRACE("job " + std::to_string(j.req.id));
    EXPECT_EQ(j.recs[0].priority, real_priority.at(j.req.id));
    if (j.req.id <= 3) {
      EXPECT_EQ(j.start, engine::kNoTime);
      EXPECT_EQ(j.recs[0].hold_reason, engine::HoldReason::kMaxMemPerLimit);
      EXPECT_EQ(r.result.reason_name(j.reason), "MaxMemPerLimit");
      const std::vector<test::Seen> seen = test::job_reasons(r.result, j, 0, j.end);
      ASSERT_GE(seen.size(), 2U);
      EXPECT_EQ(seen[seen.size() - 2].reason, "PartitionConfig");  // until the first pass
      EXPECT_EQ(seen.back().reason, "MaxMemPerLimit");
      EXPECT_TRUE(test::same_reasons(seen, captured.at(j.req.id)));
      continue;
    }
    EXPECT_EQ(r.nodes_of(j), real.at(j.req.id).nodes);
    EXPECT_LE(std::abs(j.start - j.req.extra.get().recorded_start), r.tick);
    EXPECT_EQ(j.alloc.cpus(), real_cpus.at(j.req.id));
  }
}

// QOS standby with Flags=NoReserve under preempt/qos CANCEL (no_reserve, a real 22.05): job 2
// (the whole cluster) was planned at job 1's limit; standby job 3 (-t 10 on half of n4, whose 10
// minutes cross that plan) was backfilled on n4 at +9 all the same, as backfill.c tests such a
// job with one minute, and job 2 preempted it at job 1's end; lowctl job 4, the same shape
// without the flag, waited for job 2. The replay takes job 3's recorded 114 s as its run,
// which ends before job 2 needs n4; run for the 300 s it was submitted with, it is preempted.
TEST(FidelityGolden, NoReserveStandbyJobsFillHolesAndArePreempted) {
  Replay r("no_reserve");
  expect_real_nodes_and_starts(r, 4);
  const engine::SimJob& standby = r.result.jobs[2];
  ASSERT_EQ(standby.req.id, 3U);
  EXPECT_EQ(standby.started_by, engine::StartedBy::kBackfill);
  EXPECT_EQ(r.result.jobs[3].started_by, engine::StartedBy::kMain);  // lowctl: after job 2
  EXPECT_GE(r.result.jobs[3].start, r.result.jobs[1].end);
  engine::Workload asked = r.jobs;
  asked.jobs[2].run_time = 300;  // sleep 300
  const engine::SimResult full = engine::Simulator(r.site, {}).run(asked);
  EXPECT_EQ(full.jobs[2].end_state, engine::EndState::kPreempted);
  EXPECT_EQ(full.jobs[2].end, full.jobs[1].start);
  EXPECT_LE(std::abs(full.jobs[1].start - full.jobs[0].end), 1);  // job 2 at job 1's end, not after job 3's
}

// The same switches under select/linear on 22.05 (select_linear.c _job_test_topo, which 24.05
// removed): whole nodes, the lowest switch with the job's CPUs and nodes, then its leaves by
// fewest CPUs. Real Slurm put job 1 on n4, job 2's four nodes on n[1-3,5] (spine1's leaves,
// leaf2 first), job 3 beside -w n8 on n[6,8], job 5 (-N 1-2) on both nodes of leaf2 and job 6
// on n[1-3,6-8]. From 24.05 the same config places flat: n1, then n[2-5].
TEST(FidelityGolden, LinearTopologyPlacesEveryJobOnTheSwitchesRealSlurmChose) {
  Replay r("topology_linear");
  ASSERT_EQ(r.conf->config.select.type, "select/linear");
  ASSERT_EQ(r.conf->config.topology.switches.size(), 6u);
  expect_real_nodes_and_starts(r, 6);
  Config flat = r.conf->config;
  flat.version = *SlurmVersion::parse("24.05");
  const engine::SimResult later = r.rerun(flat);
  EXPECT_EQ(test::alloc_node_list(flat, later, later.jobs[0]), "n1");
  EXPECT_EQ(test::alloc_node_list(flat, later, later.jobs[1]), "n[2-5]");
}

// The topology capture's load under select/cons_res (22.05 cons_res/job_test.c
// _eval_nodes_topo, engine/policy/cons_res_topology.h): every job on the nodes real Slurm chose,
// four of them not where cons_tres put the same jobs (n5, n[1-4], n1 and n[5,7] against
// n[4-5], n[1-3,5], n[1,5] and n[4,7]: the topology capture).
TEST(FidelityGolden, ConsResTopologyPlacesEveryJobOnTheSwitchesRealSlurmChose) {
  Replay r("topology_cons_res");
  ASSERT_EQ(r.conf->config.select.type, "select/cons_res");
  expect_real_nodes_and_starts(r, 6);
  Config tres = r.conf->config;
  tres.select.type = "select/cons_tres";
  const engine::SimResult other = r.rerun(tres);
  EXPECT_EQ(test::alloc_node_list(tres, other, other.jobs[1]), "n[4-5]");
  EXPECT_EQ(test::alloc_node_list(tres, other, other.jobs[2]), "n[1-3,5]");
}

// SchedulerParameters=pack_serial_at_end (engine/policy/serial_at_end.h) with n1, n3, n4 of
// Weight 1, n2 and n5 of 10, n6 of 20: real Slurm put the one-CPU jobs 2, 3 and 6 on n4 (the
// last weight-1 node), 5 (--mem=10000, which n4 no longer had) on n3, 10 (-N 1-2 -n 1: sbatch
// makes it one node) and 11 (weight 1 full) on n5, the last weight-10 node; the jobs of more
// CPUs kept best fit. Best fit alone would have put none of the serial jobs there, so the
// capture pins the option and not the order nodes happen to be offered in.
TEST(FidelityGolden, PackSerialAtEndPutsSerialJobsOnTheNodesRealSlurmChose) {
  Replay r("serial_at_end");
  ASSERT_TRUE(r.conf->config.scheduler.pack_serial_at_end);
  expect_real_nodes_and_starts(r, 12);
  Config best_fit = r.conf->config;
  best_fit.scheduler.pack_serial_at_end = false;
  const engine::SimResult flat = r.rerun(best_fit);
  const auto real = real_jobs(r.dir);
  std::size_t serial = 0;
  for (const engine::SimJob& j : flat.jobs) {
    if (j.req.cpus != 1) continue;
    SCOPED_TRACE("job " + std::to_string(j.req.id));
    ++serial;
    EXPECT_NE(test::alloc_node_list(best_fit, flat, j), real.at(j.req.id).nodes);
  }
  EXPECT_EQ(serial, 6u);
}

// sbatch --switches=1@MAX_TIME under topology/tree (cons_tres _eval_nodes_topo, job_mgr.c
// _max_switch_wait), with one free node on each leaf: job 4 (@3, three minutes) waited for job
// 3 to free leaf3 and took n[6-7] 59 s after its submission; job 5 (@0:40) found no leaf in time
// and took n[3,5], over two leaves, 44 s after its own. Without the option both would have
// started at once over two leaves.
TEST(FidelityGolden, SwitchesWaitForOneLeafAsRealSlurmDid) {
  Replay r("switches");
  expect_real_nodes_and_starts(r, 5);
  engine::Workload plain = r.jobs;
  for (engine::JobRequest& j : plain.jobs) j.extra.edit().switches = 0;
  const engine::SimResult flat = engine::Simulator(r.site, {}).run(plain);
  for (const engine::SimJob& j : flat.jobs) {
    if (j.req.id < 4) continue;
    SCOPED_TRACE("job " + std::to_string(j.req.id));
    EXPECT_LT(j.start, j.req.extra.get().recorded_start - 30);
  }
}

TEST(FidelityGolden, ConstraintsPlaceJobsOnlyOnNodesWithTheirFeatures) {
  Replay r("constraints");
  const auto real = real_jobs(r.dir);
  std::size_t started = 0, refused = 0, never_ran = 0;
  for (const engine::SimJob& j : r.result.jobs) {
    SCOPED_TRACE("job " + std::to_string(j.req.id) + " -C " + j.req.extra.get().constraint);
    ASSERT_TRUE(real.count(j.req.id));
    const Real& want = real.at(j.req.id);
    if (want.state.starts_with("CANCELLED")) {
      // Job 10 (--hold -C intel&amd): a held job skips job_allocate's node test, so Slurm
      // accepted it; released, it showed BadConstraints once the main loop reached it, and
      // pended until the scancel.
      EXPECT_TRUE(j.cancelled_pending());
      EXPECT_EQ(j.recs.front().hold_reason, engine::HoldReason::kBadConstraints);
      EXPECT_EQ(r.result.reason_name(j.reason), "BadConstraints");
      // squeue showed JobHeldUser, None at the release (+4 after submission), Priority (+5)
      // and BadConstraints from +50; the engine's spans fall on the same seconds.
      std::string seen;
      for (const engine::ReasonSpan& span : j.reasons)
        seen += fmt::format("{}+{}:{}", seen.empty() ? "" : " ", span.from - j.req.submit,
                            r.result.reason_name(span.reason));
      EXPECT_EQ(seen, "+0:None +0:JobHeldUser +4:None +5:Priority +50:BadConstraints");
      ++never_ran;
      continue;
    }
    if (want.nodes == "None assigned") {
      // Refused at submit: sbatch's error, as slurmctld answers it.
      ASSERT_EQ(j.state, engine::JobState::kRejected);
      EXPECT_EQ(j.rare.get().reject_error, engine::kNodeConfigUnavailable);
      ++refused;
      continue;
    }
    ++started;
    // [intel*1&amd*1] on one node of each (n[1,5]); [intel|amd] on nodes of one kind; amd|intel,
    // intel&bigmem and intel*2 as real Slurm placed them.
    EXPECT_EQ(r.nodes_of(j), want.nodes);
    Result<Constraint> c = parse_constraint(j.req.extra.get().constraint.view());
    ASSERT_TRUE(c);
    std::vector<CandidateNode> chosen;
    for (const engine::AllocPiece& p : j.alloc.expanded()) {
      const std::uint32_t n = r.result.config_node(p.node);
      chosen.push_back({n, &r.conf->config.nodes[n].active_features});
    }
    EXPECT_TRUE(nodes_satisfy(*c, chosen));
  }
  EXPECT_EQ(started, 9u);
  EXPECT_EQ(refused, 2u);
  EXPECT_EQ(never_ran, 1u);
}

TEST(FidelityGolden, AFeatureNoNodeHasIsAnInvalidFeatureSpecification) {
  Replay r("constraints");
  engine::JobRequest gpu = r.jobs.jobs.front();
  gpu.extra.edit().constraint = "gpu";  // job 11 of the capture: sbatch: error: Invalid feature specification
  engine::Simulator sim(r.site, {});
  EXPECT_EQ(sim.refusal(gpu), "Invalid feature specification: --constraint gpu in partition batch");
  gpu.extra.edit().constraint = "intel&&";
  EXPECT_NE(sim.refusal(gpu).find("Invalid feature specification: --constraint intel&&: character"), std::string::npos);
}

}  // namespace
}  // namespace sa

namespace sa {
namespace {

TEST(FidelityGolden, DependenciesHoldsAndLicencesReplayAsRealSlurmRanThem) {
  Replay r("dependencies");
  std::map<std::uint32_t, const engine::SimJob*> by_id;
  for (const engine::SimJob& j : r.result.jobs) by_id[j.req.id] = &j;
  ASSERT_EQ(by_id.size(), 14u);  // job 5 (afterok on a failed job) was cancelled unstarted: not in sacct
  for (const auto& [id, j] : by_id) {
    SCOPED_TRACE("job " + std::to_string(id));
    EXPECT_LE(std::abs(j->start - j->req.extra.get().recorded_start), r.tick);
  }
  auto reasons = [&](std::uint32_t id) {
    std::vector<std::string> out;
    for (const engine::ReasonSpan& s : by_id.at(id)->reasons) out.push_back(r.result.reason_name(s.reason));
    return out;
  };
  auto shows = [&](std::uint32_t id, const std::string& reason) {
    const std::vector<std::string> all = reasons(id);
    return std::find(all.begin(), all.end(), reason) != all.end();
  };
  // afterok:1 waits for job 1's end (+30 s); afternotok:2 and afterany:2 for job 2's failure.
  EXPECT_TRUE(shows(3, "Dependency"));
  EXPECT_EQ(by_id.at(3)->start, by_id.at(1)->end);
  EXPECT_EQ(by_id.at(4)->start, by_id.at(2)->end);
  EXPECT_EQ(by_id.at(6)->start, by_id.at(2)->end);
  // afterok:1:11 waits for both; afterok:9999 (no such job) runs at once, as it did.
  EXPECT_EQ(by_id.at(14)->start, std::max(by_id.at(1)->end, by_id.at(11)->end));
  EXPECT_TRUE(shows(10, "JobHeldUser"));
  // singleton (-J single): job 8 waits for job 7, the earlier job of its user and name.
  EXPECT_EQ(by_id.at(8)->req.name, "single");
  EXPECT_TRUE(shows(8, "Dependency"));
  EXPECT_EQ(by_id.at(8)->start, by_id.at(7)->end);
  // Licenses=lic:2: the third -L lic:1 job waits for a licence.
  EXPECT_TRUE(shows(13, "Licenses"));
  EXPECT_EQ(by_id.at(13)->start, std::min(by_id.at(11)->end, by_id.at(12)->end));
  // sprio at +10 (snap_t10/sprio_l.txt) lists job 13 alone: the jobs waiting on a dependency
  // have no begin time yet, and the held job no priority.
  EXPECT_EQ(r.sprio_ids_at(1795635385), std::vector<std::uint32_t>{13});
}

TEST(FidelityGolden, SingletonJobsRunOneAtATimePerUserAndName) {
  Replay r("dependencies");
  engine::JobRequest base = r.jobs.jobs.front();
  base.dependencies.clear();
  base.licenses.clear();
  base.extra.edit().recorded_start = engine::kNoTime;
  base.submit = 0;
  base.run_time = 30;
  auto named = [&](std::uint32_t id, const char* name, bool singleton) {
    engine::JobRequest j = base;
    j.id = id;
    j.name = name;
    if (singleton) j.dependencies = {{engine::DependencyType::kSingleton, 0, 0}};
    return j;
  };
  engine::Workload w;
  // 1 runs; 2 and 3 (singleton, same name) follow it one at a time; 4 has another name.
  w.jobs = {named(1, "x", false), named(2, "x", true), named(3, "x", true), named(4, "y", true)};
  engine::SimResult res = engine::Simulator(r.site, {}).run(w);
  EXPECT_EQ(res.jobs[1].start, res.jobs[0].end);
  EXPECT_EQ(res.jobs[2].start, res.jobs[1].end);
  EXPECT_LT(res.jobs[3].start, res.jobs[0].end);
}

TEST(FidelityGolden, AFailedDependencyIsNeverSatisfiedAndUnknownLicencesAreRefused) {
  Replay r("dependencies");
  engine::Workload w;
  engine::JobRequest a = r.jobs.jobs.front();
  a.id = 1;
  a.submit = 0;
  a.run_time = 10;
  a.fails = true;
  a.dependencies.clear();
  a.licenses.clear();
  a.extra.edit().recorded_start = engine::kNoTime;
  engine::JobRequest ok = a, notok = a, lic = a;
  ok.id = 2;
  ok.fails = false;
  ok.dependencies = {{engine::DependencyType::kAfterOk, 1, 0}};
  notok.id = 3;
  notok.fails = false;
  notok.dependencies = {{engine::DependencyType::kAfterNotOk, 1, 60}};
  lic.id = 4;
  lic.fails = false;
  lic.licenses = {{"lic", 3}};  // more than Licenses=lic:2
  w.jobs = {a, ok, notok, lic};
  engine::SimResult res = engine::Simulator(r.site, {}).run(w);
  EXPECT_EQ(res.jobs[1].state, engine::JobState::kPending);
  EXPECT_EQ(res.reason_name(res.jobs[1].reason), "DependencyNeverSatisfied");
  EXPECT_EQ(res.jobs[2].state, engine::JobState::kDone);
  EXPECT_EQ(res.jobs[2].begin, res.jobs[0].end + 60);  // afternotok:1+1 (minutes)
  EXPECT_EQ(res.jobs[3].state, engine::JobState::kRejected);
  EXPECT_EQ(res.jobs[3].rare.get().reject_error, std::string("Invalid license specification"));
}

// --time-min (a real 22.05): with job 2 planned on every node at +182, backfill started job 3
// (-t 10 --time-min=2) and job 5 (-t 10 --time-min=1) at once with their minimum as their limit
// (sacct Timelimit 2 and 1; job 5 TIMEOUT), though 2 minutes fitted for job 5; job 4 (-t 10)
// waited. The replay asks for the SubmitLine's 10 minutes and cuts them as backfill did.
TEST(FidelityGolden, TimeMinJobsRunWithTheirMinimumAsTheirLimit) {
  const Replay r("time_min");
  expect_real_nodes_and_starts(r, 5);
  for (const engine::SimJob& j : r.result.jobs) {
    SCOPED_TRACE("job " + std::to_string(j.req.id));
    EXPECT_EQ(j.req.time_limit, j.req.id >= 3 ? 600 : j.req.id == 1 ? 180 : 300);
    if (j.req.id == 3 || j.req.id == 5) {
      EXPECT_EQ(j.started_by, engine::StartedBy::kBackfill);
      EXPECT_EQ(j.rare.get().run_limit, j.req.extra.get().time_min);
    } else {
      EXPECT_EQ(j.rare.get().run_limit, engine::kNoTime);
    }
    EXPECT_EQ(j.end_state, j.req.id == 5 ? engine::EndState::kTimeout : engine::EndState::kCompleted);
  }
  // slurmctld tested time limits 31 s after its boot second and every 30 s after (02:36:00,
  // 02:36:30, 02:37:00 in its log): job 5's minute, up to 02:36:40, ran to the test of
  // 02:37:00, 80 s of its 150 s of work, as sacct records. Replayed from slurmctld's start with
  // the work each job was given (sacct's ElapsedRaw would end it by itself), the engine's
  // tests fall on the same seconds.
  engine::Workload given = r.jobs;
  test::give_intended_work(given, r.dir / "extra" / "jobmap.tsv");
  engine::SimOptions from_boot;
  from_boot.start = test::boot_time(r.dir / "extra" / "scontrol_config_at_start.txt") - r.jobs.epoch_offset;
  const engine::SimResult b = engine::Simulator(r.site, from_boot).run(given);
  const engine::SimJob& j5 = test::find_job(b, 5);
  EXPECT_EQ(j5.req.run_time, 150);
  EXPECT_EQ(j5.end + r.jobs.epoch_offset, 1795919820);  // sacct's End
  EXPECT_EQ(j5.end_state, engine::EndState::kTimeout);
}

// OverTimeLimit=3 and KillWait=30 (a real 22.05): job 1 (n1, -t 1, 300 s of work) ran past its
// end_time (07:41:41) to the limit test of 07:45:08, the first at least 3 minutes past it
// (TIMEOUT after 267 s). Backfill planned the whole-cluster job 2 at that end_time, then, once
// it had passed, at end_time + KillWait + OverTimeLimit (07:45:11 in slurmctld's log:
// _guess_job_end), so the one-minute job 3 (n2, submitted at +75) was backfilled at once. The
// engine used to plan job 2 at now + 1 once job 1's end had passed, holding n2 for it (job 3
// then ran after job 2), and to kill job 1 exactly OverTimeLimit past its end_time.
TEST(FidelityGolden, OverTimeLimitRunsToTheLimitTestAndBackfillGuessesTheEnd) {
  // Replayed from slurmctld's start with the work each job was given: the limit tests then fall
  // on the real seconds (a replay from the first submission puts them 2 s earlier, and there
  // job 1, started a second early, meets the test before: killed 28 s early).
  const Replay r("over_time_limit");
  const auto real = real_jobs(r.dir);
  engine::Workload given = r.jobs;
  test::give_intended_work(given, r.dir / "extra" / "jobmap.tsv");
  engine::SimOptions from_boot;
  from_boot.start = test::boot_time(r.dir / "extra" / "scontrol_config_at_start.txt") - r.jobs.epoch_offset;
  const engine::SimResult b = engine::Simulator(r.site, from_boot).run(given);
  const std::int64_t at = r.jobs.epoch_offset;
  const engine::SimJob& j1 = test::find_job(b, 1);
  EXPECT_EQ(j1.req.run_time, 300);
  EXPECT_EQ(j1.end + at, 1795938308);  // sacct's End
  EXPECT_EQ(j1.end_state, engine::EndState::kTimeout);
  // Job 3 in the backfill cycle after its submission (07:41:58.07; the engine's cycles fall on
  // slurmctld's start + 5 k, a second earlier).
  const engine::SimJob& j3 = test::find_job(b, 3);
  EXPECT_LE(std::abs(j3.start + at - 1795938118), 1);
  EXPECT_EQ(j3.started_by, engine::StartedBy::kBackfill);
  EXPECT_EQ(test::find_job(b, 2).start, j1.end);
  for (const engine::SimJob& j : b.jobs) EXPECT_EQ(r.nodes_of(j), real.at(j.req.id).nodes) << "job " << j.req.id;
}

// Job arrays (engine/job_arrays.h), a real 22.05 with bf_max_job_array_resv=1: slurmctld keeps
// an array's unstarted tasks in one record. Backfill tested 3_* (two tasks of two whole nodes
// each) once a cycle and planned one task only; job 4 (8 CPUs for 5 minutes) started on n4 at
// once. The three tasks of 6_* started in one cycle (goto next_task after each start), and the
// tasks of 5_* (%1) one at a time, Reason JobArrayTaskLimit meanwhile, each in the first
// backfill cycle after its predecessor ended (the main loop never reached them: 3_* failed the
// partition ahead of them).
TEST(FidelityGolden, JobArraysAreOneRecordAndKeepTheirThrottle) {
  const Replay r("job_arrays");
  const auto real = real_jobs(r.dir);
  ASSERT_EQ(r.result.jobs.size(), 12U);
  std::vector<const engine::SimJob*> throttled;  // 5_1 .. 5_4
  for (const engine::SimJob& j : r.result.jobs) {
    SCOPED_TRACE("job " + std::to_string(j.req.id));
    EXPECT_EQ(r.nodes_of(j), real.at(j.req.id).nodes);
    const engine::RequestExtras& x = j.req.extra.get();
    if (x.array_job_id == 5) {
      EXPECT_EQ(x.array_max_run, 1U);
      throttled.push_back(&j);
      continue;
    }
    EXPECT_LE(std::abs(j.start - x.recorded_start), r.tick);
  }
  std::sort(throttled.begin(), throttled.end(), [](const engine::SimJob* a, const engine::SimJob* b) {
    return a->req.extra.get().array_task_id < b->req.extra.get().array_task_id;
  });
  ASSERT_EQ(throttled.size(), 4U);
  const std::int64_t bf_interval = r.conf->config.scheduler.bf_interval;
  for (std::size_t k = 1; k < throttled.size(); ++k) {
    SCOPED_TRACE("task " + std::to_string(k + 1));
    EXPECT_GE(throttled[k]->start, throttled[k - 1]->end);  // never two at once
    EXPECT_LE(throttled[k]->start, throttled[k - 1]->end + bf_interval);
    EXPECT_EQ(throttled[k]->started_by, engine::StartedBy::kBackfill);
    bool limit_shown = false;
    for (const engine::ReasonSpan& s : throttled[k]->reasons)
      limit_shown = limit_shown || r.result.reason_names.at(s.reason) == "JobArrayTaskLimit";
    EXPECT_TRUE(limit_shown);
  }
  // While 3_1 waited for n[1-2] and nothing else was pending, each cycle tested one record
  // (slurmctld: "completed testing 1(1) jobs"): 3_2 was neither tested nor planned.
  const engine::SimJob* first = nullptr;
  for (const engine::SimJob& j : r.result.jobs) {
    if (j.req.extra.get().array_job_id == 3 && j.req.extra.get().array_task_id == 1) first = &j;
  }
  ASSERT_NE(first, nullptr);
  std::size_t lone = 0;
  for (const engine::BackfillCycle& c : r.result.bf_log) {
    if (c.at < first->start && c.depth == 1) {
      ++lone;
      EXPECT_EQ(c.tested, 1U) << "cycle at " << c.at;
    }
  }
  EXPECT_GT(lone, 3U);
  // squeue lists each meta record once, as the capture's 1 Hz squeue poll shows at +16:
  // 3_[1-2] PENDING Resources and 5_[2-4%1] PENDING JobArrayTaskLimit.
  std::map<std::string, std::string> pending;  // squeue %i -> Reason
  for (const report::QueueRow& row : report::queue_at(r.result, r.site, 1795914995)) {
    if (row.state == "PENDING") pending[row.id.empty() ? std::to_string(row.job_id) : row.id] = row.reason;
  }
  EXPECT_EQ(pending,
            (std::map<std::string, std::string>{{"3_[1-2]", "Resources"}, {"5_[2-4%1]", "JobArrayTaskLimit"}}));
  // sprio at the same second (snap_t16/sprio_l.txt) lists the meta record 3 alone: one row under
  // the array's id, and none for 5_[2-4%1], whose begin time the throttle leaves unset.
  EXPECT_EQ(r.sprio_ids_at(1795914995), std::vector<std::uint32_t>{3});
}

}  // namespace
}  // namespace sa
