// Node selection as 22.05's cons_tres _eval_nodes makes it (engine/policy/best_fit.h), on
// small hand-built clusters where first fit and best fit disagree.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "analyzer/hostlist.h"
#include "engine/bf_profile.h"
#include "engine/resources.h"
#include "tests/engine_test_util.h"

namespace sa {
namespace {

using test::find_job;
using test::job;
using test::SimSite;

const char* const kEight =
    "ClusterName=c\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"
    "NodeName=n[1-8] CPUs=8 RealMemory=8000\nPartitionName=p Nodes=n[1-8] Default=YES MaxTime=60\n";

std::string nodes_of(const SimSite& s, const engine::SimResult& r, std::uint32_t id) {
  return test::alloc_node_list(s.conf->config, r, find_job(r, id));
}

/// The job pinned to `node` (-w), to load a node before the job under test arrives.
engine::JobRequest pin(engine::JobRequest j, const char* node) {
  j.extra.edit().nodelist = node;
  return j;
}

TEST(EnginePlacement, AOneNodeJobTakesTheFullestNodeThatFits) {
  SimSite s(kEight);
  // n1 keeps 6 CPUs free, n2 2: a 2-CPU job goes to n2 (first fit would take n1).
  auto r = s.run(
      {pin(job(1, 0, 2, 600, 600, "p"), "n1"), pin(job(2, 0, 6, 600, 600, "p"), "n2"), job(3, 10, 2, 60, 60, "p")});
  EXPECT_EQ(nodes_of(s, r, 1), "n1");
  EXPECT_EQ(nodes_of(s, r, 2), "n2");
  EXPECT_EQ(nodes_of(s, r, 3), "n2");
}

TEST(EnginePlacement, NodesAreTakenInSlurmctldsNameOrderNotSlurmConfOrder) {
  // slurmctld sorts its node table by strnatcmp (read_config.c _sort_nodes_by_name): the
  // micro_cluster tutorial's real 20.02 run (n[1-4], m[1-4], g1, b1 in slurm.conf) put its
  // first 12-CPU job on b1, the first node by name; n10 sorts after n9.
  SimSite s(
      "ClusterName=c\nSelectType=select/cons_res\nSelectTypeParameters=CR_Core\n"
      "NodeName=n[9-10] CPUs=12 RealMemory=8000\nNodeName=m1 CPUs=12 RealMemory=8000\n"
      "NodeName=g1 CPUs=12 RealMemory=8000\nNodeName=b1 CPUs=12 RealMemory=8000\n"
      "PartitionName=p Nodes=n[9-10],m1,g1,b1 Default=YES MaxTime=60\n");
  auto r = s.run({job(1, 0, 12, 60, 60, "p"), job(2, 0, 12, 60, 60, "p"), job(3, 0, 12, 60, 60, "p"),
                  job(4, 0, 12, 60, 60, "p"), job(5, 0, 12, 60, 60, "p")});
  EXPECT_EQ(nodes_of(s, r, 1), "b1");
  EXPECT_EQ(nodes_of(s, r, 2), "g1");
  EXPECT_EQ(nodes_of(s, r, 3), "m1");
  EXPECT_EQ(nodes_of(s, r, 4), "n9");
  EXPECT_EQ(nodes_of(s, r, 5), "n10");
}

TEST(EnginePlacement, NaturalCompareIsSlurmsStrnatcmp) {
  using engine::natural_compare;
  EXPECT_LT(natural_compare("n2", "n10"), 0);
  EXPECT_GT(natural_compare("n10", "n9"), 0);
  EXPECT_LT(natural_compare("b1", "g1"), 0);
  EXPECT_EQ(natural_compare("n1", "n1"), 0);
  EXPECT_LT(natural_compare("n1", "n1a"), 0);
  // A run with a leading zero compares left-aligned (compare_left): "n010" < "n09".
  EXPECT_LT(natural_compare("n010", "n09"), 0);
  EXPECT_LT(natural_compare("n001", "n002"), 0);
  EXPECT_LT(natural_compare("A1", "a1"), 0);  // case matters (strnatcmp, not strnatcasecmp)
  // compare_left asks which run ends first before it compares digits: '5' is below 'a', but
  // "n05" has the longer run there, so it sorts after "n0a".
  EXPECT_GT(natural_compare("n05", "n0a"), 0);
  EXPECT_LT(natural_compare("n0a", "n05"), 0);
}

TEST(EnginePlacement, ATightSufficientRunOfNodesBeatsTheFirstOne) {
  SimSite s(kEight);
  engine::JobRequest busy = job(1, 0, 8, 600, 600, "p");
  busy.extra.edit().nodelist = "n3";
  // n3 busy splits the idle nodes into n[1-2] (16 CPUs) and n[4-8] (40): a 3-node job needs
  // the second set; a 16-CPU job fits the first exactly.
  engine::JobRequest three = job(2, 10, 24, 60, 60, "p");
  three.nodes = 3;
  auto r = s.run({busy, three, job(3, 20, 16, 60, 60, "p")});
  EXPECT_EQ(nodes_of(s, r, 2), "n[4-6]");
  EXPECT_EQ(nodes_of(s, r, 3), "n[1-2]");
}

TEST(EnginePlacement, ExcludedAndRequiredNodesAndTheMaxNodeCount) {
  SimSite s(kEight);
  engine::JobRequest x = job(1, 0, 8, 60, 60, "p");
  x.extra.edit().exclude = "n[1-7]";
  engine::JobRequest w = job(2, 0, 4, 60, 60, "p");
  w.extra.edit().nodelist = "n[2,5]";  // both listed nodes, though one node could hold the job
  engine::JobRequest capped = job(3, 0, 20, 60, 60, "p");
  capped.extra.edit().max_nodes = 2;  // -N 1-2 with 20 CPUs on 8-CPU nodes: never fits
  auto r = s.run({x, w, capped});
  EXPECT_EQ(nodes_of(s, r, 1), "n8");
  EXPECT_EQ(nodes_of(s, r, 2), "n[2,5]");
  EXPECT_EQ(find_job(r, 3).state, engine::JobState::kRejected);
  EXPECT_EQ(find_job(r, 3).rare.get().reject_error, engine::kNodeConfigUnavailable);
}

}  // namespace
}  // namespace sa

namespace sa {
namespace {

TEST(EnginePlacement, LlnTakesTheLeastLoadedNodesOfTheLowestWeight) {
  // LLN=YES (or CR_LLN): the node with the greatest share of its CPUs free, within the lowest
  // weight; best fit would have put the 2-CPU job on the fuller n2.
  SimSite s(
      "ClusterName=c\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"
      "NodeName=n[1-3] CPUs=8 RealMemory=8000\nNodeName=n4 CPUs=8 RealMemory=8000 Weight=5\n"
      "PartitionName=p Nodes=n[1-4] Default=YES MaxTime=60 LLN=YES\n");
  auto r = s.run({pin(job(1, 0, 2, 600, 600, "p"), "n1"), pin(job(2, 0, 6, 600, 600, "p"), "n2"),
                  pin(job(3, 0, 1, 600, 600, "p"), "n3"), job(4, 10, 2, 60, 60, "p"), job(5, 10, 12, 60, 60, "p")});
  EXPECT_EQ(nodes_of(s, r, 4), "n3");  // 7 of 8 free beats n1's 6 and n2's 2; n4 weighs more
  // 12 CPUs: n1 (6 free, 75 %), then n3 (5 of 8 after job 4), then n2's last CPU; n4 (all
  // free, but a higher weight) is not reached.
  EXPECT_EQ(nodes_of(s, r, 5), "n[1-3]");
}

TEST(EnginePlacement, PackSerialAtEndPutsOneCpuJobsOnTheLastNodesOfTheLowestWeight) {
  // _eval_nodes_serial: a job of one CPU on one node takes the last node of the lowest weight
  // that gives anything (best fit would take the fuller n1); other jobs keep best fit.
  SimSite s(
      "ClusterName=c\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"
      "SchedulerParameters=pack_serial_at_end\n"
      "NodeName=n[1-3] CPUs=8 RealMemory=8000\nNodeName=n4 CPUs=8 RealMemory=8000 Weight=5\n"
      "PartitionName=p Nodes=n[1-4] Default=YES MaxTime=60\n");
  EXPECT_TRUE(s.conf->config.scheduler.pack_serial_at_end);
  auto r = s.run({pin(job(1, 0, 6, 600, 600, "p"), "n1"), pin(job(2, 0, 8, 600, 600, "p"), "n3"),
                  job(3, 10, 1, 60, 60, "p"), job(4, 10, 1, 60, 60, "p"), job(5, 10, 2, 60, 60, "p")});
  EXPECT_EQ(nodes_of(s, r, 3), "n2");  // n3 is full and n4 weighs more
  EXPECT_EQ(nodes_of(s, r, 4), "n2");
  EXPECT_EQ(nodes_of(s, r, 5), "n1");  // two CPUs: best fit, the fullest node that fits
}

}  // namespace
}  // namespace sa

namespace sa {
namespace {

TEST(EnginePlacement, GpusPerNodeCountOnTheNodesANodeListAdds) {
  // -w n[1-2] makes two nodes; --gpus-per-node=1 then asks one GPU on each of them.
  SimSite s(
      "ClusterName=c\nGresTypes=gpu\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"
      "NodeName=n[1-4] CPUs=8 RealMemory=8000 Gres=gpu:1\nPartitionName=p Nodes=n[1-4] Default=YES MaxTime=60\n");
  engine::JobRequest j = job(1, 0, 2, 60, 60, "p");
  j.extra.edit().nodelist = "n[1-2]";
  j.extra.edit().gpus_per_node = 1;
  auto r = s.run({j});
  EXPECT_EQ(nodes_of(s, r, 1), "n[1-2]");
  EXPECT_EQ(find_job(r, 1).alloc.gpus(), 2u);
}

// A GPU job weighs nodes by the GPUs it could use there (cons_tres _can_job_run_on_node sets
// sched_weight's low byte to 0xff less them; NodeTaker::sched_weight): among nodes of one Weight,
// -N 2 --gpus=5 takes n3 and n4, four free GPUs each; in node order it would have taken n1 and
// n2, one free GPU each, and then n3. A job asking one GPU weighs every node with one alike
// (only the one it asks counts), so best fit's sets decide: n[1-2] and n4 (n3 has no GPU
// left), the tighter n4. The topology_gpu capture shows the same under topology/tree
// (FidelityGolden.TopologyTreeWeighsGpuNodesByTheirFreeGpus).
TEST(EnginePlacement, AGpuJobTriesTheNodesWithMoreFreeGpusFirst) {
  SimSite s(
      "ClusterName=c\nGresTypes=gpu\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"
      "NodeName=n[1-4] CPUs=8 RealMemory=8000 Gres=gpu:4\nPartitionName=p Nodes=n[1-4] Default=YES MaxTime=60\n");
  auto pinned = [](std::uint32_t id, const char* node) {
    engine::JobRequest j = pin(job(id, 0, 1, 600, 600, "p"), node);
    j.gpus = 3;
    return j;
  };
  engine::JobRequest five = job(3, 10, 2, 60, 60, "p");
  five.gpus = 5;
  five.nodes = 2;
  engine::JobRequest one = job(4, 20, 1, 60, 60, "p");
  one.gpus = 1;
  auto r = s.run({pinned(1, "n1"), pinned(2, "n2"), five, one});
  EXPECT_EQ(nodes_of(s, r, 3), "n[3-4]");
  EXPECT_LT(find_job(r, 3).start, 600);  // not after the jobs on n1 and n2
  EXPECT_EQ(find_job(r, 3).alloc.gpus(), 5u);
  EXPECT_EQ(nodes_of(s, r, 4), "n4");
  // select/cons_res has no such weight (its job_test.c never sets sched_weight): in node order
  // n1 and n2 come first, one free GPU each.
  SimSite res(
      "ClusterName=c\nGresTypes=gpu\nSelectType=select/cons_res\nSelectTypeParameters=CR_Core\n"
      "NodeName=n[1-4] CPUs=8 RealMemory=8000 Gres=gpu:4\nPartitionName=p Nodes=n[1-4] Default=YES MaxTime=60\n",
      "22.05");
  r = res.run({pinned(1, "n1"), pinned(2, "n2"), five});
  EXPECT_EQ(nodes_of(res, r, 3), "n[1-3]");
}

// choose_nodes (engine/policy/choose_nodes.h): -N 2 -n 32 on idle n[1-2] of 8 CPUs and n[3-4]
// of 16 takes n1 first in one pass of best fit, and then no node holds the other 24. Both
// consumable-resource plugins evaluate again without the nodes of fewest CPUs and start the job
// on n[3-4] at once (real 22.05 did the same with busy nodes: the node_retry capture). Without
// the node cap one pass takes n1, n2 and n3.
TEST(EnginePlacement, ACappedNodeCountDropsTheNodesOfFewestCpusAndTriesAgain) {
  for (const char* plugin : {"select/cons_tres", "select/cons_res"}) {
    SimSite s(fmt::format("ClusterName=c\nSelectType={}\nSelectTypeParameters=CR_Core\n"
                          "NodeName=n[1-2] CPUs=8 RealMemory=8000\nNodeName=n[3-4] CPUs=16 RealMemory=8000\n"
                          "PartitionName=p Nodes=n[1-4] Default=YES MaxTime=60\n",
                          plugin),
              "22.05");
    engine::JobRequest capped = job(1, 0, 32, 60, 60, "p");
    capped.nodes = 2;
    capped.extra.edit().max_nodes = 2;
    auto r = s.run({capped});
    EXPECT_EQ(nodes_of(s, r, 1), "n[3-4]") << plugin;
    EXPECT_EQ(find_job(r, 1).start, 1) << plugin;  // the first scheduling pass
    engine::JobRequest open = capped;
    open.extra.edit().max_nodes = 0;
    r = s.run({open});
    EXPECT_EQ(nodes_of(s, r, 1), "n[1-3]") << plugin;
    EXPECT_EQ(find_job(r, 1).start, 1) << plugin;
  }
}

// DefMemPerGPU and DefCPUPerGPU (cons_common _set_gpu_defaults, gres_select_filter_remove_unusable):
// a node gives only the GPUs its free memory and CPUs hold at the defaults' size each, so a
// 4-GPU job on nodes of 4 GPUs but 8000 MB takes 2 GPUs (4 CPUs, 6000 MB) on each of two nodes.
// With memory not consumable (CR_Core) the memory bounds nothing and one node holds the job,
// which still asks 3000 MB a GPU.
TEST(EnginePlacement, GpuDefaultsBoundTheGpusANodeGives) {
  const std::string rest =
      "NodeName=n[1-2] CPUs=8 RealMemory=8000 Gres=gpu:4\n"
      "PartitionName=p Nodes=n[1-2] Default=YES MaxTime=60 DefMemPerGPU=3000 DefCpuPerGPU=2\n";
  const std::string head = "ClusterName=c\nGresTypes=gpu\nSelectType=select/cons_tres\n";
  engine::JobRequest j = job(1, 0, 1, 60, 60, "p");
  j.gpus = 4;
  SimSite mem(head + "SelectTypeParameters=CR_Core_Memory\n" + rest);
  auto r = mem.run({j});
  EXPECT_EQ(nodes_of(mem, r, 1), "n[1-2]");
  for (const engine::AllocPiece& p : find_job(r, 1).alloc.expanded()) {
    EXPECT_EQ(p.gpus, 2u);
    EXPECT_EQ(p.cpus, 4u);
    EXPECT_EQ(p.mem, 6000u);
  }
  SimSite core(head + "SelectTypeParameters=CR_Core\n" + rest);
  r = core.run({j});
  EXPECT_EQ(nodes_of(core, r, 1), "n1");
  const auto pieces = find_job(r, 1).alloc.expanded();
  ASSERT_EQ(pieces.size(), 1u);
  EXPECT_EQ(pieces[0].gpus, 4u);
  EXPECT_EQ(pieces[0].cpus, 8u);
  EXPECT_EQ(pieces[0].mem, 0u);
  EXPECT_EQ(pieces[0].mem_req, 12000u);
}

// A GPU job held by the memory its GPU needs: explain says so, where the CPU count alone would
// read as if it could start (2 GPUs and 7 CPUs free, 2000 MB beside them, 3000 a GPU).
TEST(EnginePlacement, ExplainNamesTheGpusAndWhatEachNeeds) {
  SimSite s(
      "ClusterName=c\nGresTypes=gpu\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core_Memory\n"
      "NodeName=n1 CPUs=8 RealMemory=8000 Gres=gpu:4\n"
      "PartitionName=p Nodes=n1 Default=YES MaxTime=60 DefMemPerGPU=3000\n");
  engine::JobRequest a = job(1, 0, 1, 600, 600, "p"), b = job(2, 10, 1, 60, 60, "p");
  a.gpus = 2;
  b.gpus = 1;
  engine::SimOptions o;
  o.explain_jobs = {2};
  auto r = s.run({a, b}, o);
  const engine::SimJob& held = find_job(r, 2);
  EXPECT_EQ(held.start, find_job(r, 1).end);
  std::string detail;
  for (const engine::ReasonSpan& span : held.reasons) {
    if (r.reason_name(span.reason) == "Resources") detail = r.reason_detail(span);
  }
  EXPECT_EQ(detail,
            "needs 1 CPUs and 1 GPUs (3000 MB a GPU) on at least 1 node(s); partition p has 7 of 8 CPUs free, 2 of 4 "
            "GPUs free on 1 node(s) (0 of them with a GPU's 3000 MB free), 0 idle node(s)");
}

}  // namespace
}  // namespace sa

namespace sa {
namespace {

// A partition's own SelectTypeParameters (cons_common _setup_cr_type): CR_Core under the
// cluster's CR_Core_Memory drops CR_Memory for that partition's jobs, so they take no memory
// from the node and are not held back by it; the cluster's partition still is.
TEST(EnginePlacement, APartitionsOwnCrCoreLeavesItsJobsMemoryUncounted) {
  SimSite s(
      "ClusterName=c\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core_Memory\n"
      "NodeName=n1 CPUs=8 RealMemory=1000\n"
      "PartitionName=mem Nodes=n1 Default=YES MaxTime=60\n"
      "PartitionName=nomem Nodes=n1 MaxTime=60 SelectTypeParameters=CR_Core\n");
  ASSERT_TRUE(s.conf->config.partitions[1].select_own);
  EXPECT_FALSE(s.conf->config.partitions[1].select_memory);
  auto with_mem = [](engine::JobRequest j) {
    j.mem_mb = 800;
    j.mem_set = true;
    return j;
  };
  // 1 takes 800 of n1's 1000 MB; 2 (the same partition) must wait for it, 3 (CR_Core) need not.
  auto r = s.run({with_mem(job(1, 0, 1, 600, 600, "mem")), with_mem(job(2, 10, 1, 60, 60, "mem")),
                  with_mem(job(3, 20, 1, 60, 60, "nomem"))});
  EXPECT_EQ(find_job(r, 2).start, find_job(r, 1).end);
  EXPECT_LT(find_job(r, 3).start, find_job(r, 1).end);
  EXPECT_EQ(find_job(r, 3).alloc.expanded()[0].mem, 0u);        // nothing taken from the node
  EXPECT_EQ(find_job(r, 3).alloc.expanded()[0].mem_req, 800u);  // but the request is kept
}

// CR_Socket on one partition of a CR_Core cluster: its jobs get whole sockets (a 1-CPU job
// holds a 4-core socket), the other partition's jobs single cores.
TEST(EnginePlacement, APartitionsOwnCrSocketAllocatesWholeSockets) {
  SimSite s(
      "ClusterName=c\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"
      "NodeName=n1 CPUs=8 Sockets=2 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=8000\n"
      "PartitionName=core Nodes=n1 Default=YES MaxTime=60\n"
      "PartitionName=sock Nodes=n1 MaxTime=60 SelectTypeParameters=CR_Socket\n");
  auto r = s.run({job(1, 0, 1, 600, 600, "sock"), job(2, 10, 1, 600, 600, "sock"), job(3, 20, 1, 60, 60, "sock"),
                  job(4, 30, 1, 60, 60, "core")});
  EXPECT_EQ(find_job(r, 1).alloc.cpus(), 4u);
  EXPECT_EQ(find_job(r, 2).alloc.cpus(), 4u);
  EXPECT_GE(find_job(r, 3).start, find_job(r, 1).end);  // both sockets held until then
  EXPECT_GE(find_job(r, 4).start, find_job(r, 1).end);
  SimSite plain(
      "ClusterName=c\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"
      "NodeName=n1 CPUs=8 Sockets=2 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=8000\n"
      "PartitionName=core Nodes=n1 Default=YES MaxTime=60\n");
  EXPECT_EQ(find_job(plain.run({job(1, 0, 1, 600, 600, "core")}), 1).alloc.cpus(), 1u);
}

// slurmctld uses a partition's SelectTypeParameters only when the cluster's are CR_Core or
// CR_Socket: under CR_CPU_Memory the partition's CR_Core changes nothing.
TEST(EnginePlacement, APartitionsOwnSelectTypeParametersNeedCoresOrSocketsOnTheCluster) {
  SimSite s(
      "ClusterName=c\nSelectType=select/cons_tres\nSelectTypeParameters=CR_CPU_Memory\n"
      "NodeName=n1 CPUs=8 RealMemory=1000\n"
      "PartitionName=p Nodes=n1 Default=YES MaxTime=60 SelectTypeParameters=CR_Core\n");
  auto with_mem = [](engine::JobRequest j) {
    j.mem_mb = 800;
    j.mem_set = true;
    return j;
  };
  auto r = s.run({with_mem(job(1, 0, 1, 600, 600, "p")), with_mem(job(2, 10, 1, 60, 60, "p"))});
  EXPECT_EQ(find_job(r, 2).start, find_job(r, 1).end);  // memory still counted
}

// fit_best_alike (backfill's plans on alike idle nodes) must choose exactly what fit_best
// does: random candidate sets over 76 alike nodes in three Weights, with slurm.conf lines out
// of name order, and demands of one to 40 nodes, whole or by CPUs.
TEST(EnginePlacement, BestFitOnAlikeNodesMatchesTheNodeByNodeWalk) {
  SimSite s(
      "ClusterName=c\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"
      "NodeName=b[01-24] CPUs=8 RealMemory=8000 Weight=1\nNodeName=a[01-20] CPUs=8 RealMemory=8000 Weight=1\n"
      "NodeName=c[01-20] CPUs=8 RealMemory=8000 Weight=5\nNodeName=d[01-12] CPUs=8 RealMemory=8000 Weight=3\n"
      "PartitionName=p Nodes=ALL Default=YES\n");
  const engine::NodePool pool(s.conf->config);
  ASSERT_TRUE(pool.sets_follow_numbering());
  // Internal order (Weight, then name) a01..a20, b01..b24, d01..d12, c01..c20: a set breaks
  // where a slurm.conf line or a Weight does.
  EXPECT_TRUE(pool.set_breaks().test(0));
  EXPECT_FALSE(pool.set_breaks().test(1));
  EXPECT_TRUE(pool.set_breaks().test(20));
  EXPECT_TRUE(pool.set_breaks().test(44));
  EXPECT_EQ(pool.set_breaks().find_next(1), 20U);
  const engine::PoolState& st = pool.state();
  auto node = [&](std::uint32_t i) -> const engine::NodeResources& { return st.nodes[i]; };
  auto free_cpus = [](std::uint32_t, const engine::NodeResources& n) { return n.cpus_free; };
  std::uint64_t seed = 12345;
  auto next = [&seed] {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::uint32_t>(seed >> 33);
  };
  int fitted = 0;
  for (int round = 0; round < 3000; ++round) {
    engine::NodeBitset cand(pool.size());
    const std::uint32_t density = 1 + next() % 9;
    for (std::uint32_t i = 0; i < pool.size(); ++i) {
      if (next() % 10 < density) cand.set(i);
    }
    engine::Demand d;
    d.min_nodes = 1 + next() % 40;
    d.whole_nodes = next() % 2 == 0;
    d.cpus = d.whole_nodes ? d.min_nodes * 8 : d.min_nodes + next() % (d.min_nodes * 8);
    engine::Allocation walk, alike;
    const bool ok = pool.fit_nodes(node, d, cand, false, &walk, free_cpus);
    engine::NodeTaker<decltype(node), decltype(free_cpus)> taker(pool, node, d, &alike, free_cpus);
    const std::uint32_t cap = pool.capacity(st.nodes[0], d);
    ASSERT_EQ(engine::fit_best_alike(pool, taker, cand, cap), ok) << "round " << round;
    ASSERT_EQ(alike.pieces.size(), walk.pieces.size()) << "round " << round;
    for (std::size_t k = 0; k < walk.pieces.size(); ++k) {
      EXPECT_EQ(alike.pieces[k].node, walk.pieces[k].node) << "round " << round;
      EXPECT_EQ(alike.pieces[k].cpus, walk.pieces[k].cpus) << "round " << round;
      EXPECT_EQ(alike.pieces[k].mem, walk.pieces[k].mem) << "round " << round;
    }
    fitted += ok;
  }
  EXPECT_GT(fitted, 1000);  // both outcomes are exercised
  EXPECT_LT(fitted, 2500);
}

// A slurm.conf order that interleaves the name order lets best fit join two nodes with a
// node between them into one set (a1 then c1 in slurm.conf, b1 between them by name): the
// run-based walk does not apply there.
TEST(EnginePlacement, SetsFollowTheNumberingOnlyWhenSlurmConfOrderAllowsIt) {
  SimSite s(
      "ClusterName=c\nNodeName=a1 CPUs=8 RealMemory=8000\nNodeName=c1 CPUs=8 RealMemory=8000\n"
      "NodeName=b1 CPUs=8 RealMemory=8000\nPartitionName=p Nodes=ALL Default=YES\n");
  EXPECT_FALSE(engine::NodePool(s.conf->config).sets_follow_numbering());
}

TEST(EngineBitset, FindNextAndFindNextZeroCrossWords) {
  engine::NodeBitset b(130);
  b.set(3);
  b.set(64);
  b.set(65);
  b.set(129);
  EXPECT_EQ(b.find_next(0), 3U);
  EXPECT_EQ(b.find_next(4), 64U);
  EXPECT_EQ(b.find_next(66), 129U);
  EXPECT_EQ(b.find_next(130), 130U);
  EXPECT_EQ(b.find_next_zero(64), 66U);
  EXPECT_EQ(b.find_next_zero(129), 130U);  // past the last bit: size()
  engine::NodeBitset full(128, true);
  EXPECT_EQ(full.find_next_zero(5), 128U);
}

// bit_super_set as the topology selections, -w checks and maintenance windows ask it.
TEST(EngineBitset, IsSubsetOfComparesEveryWord) {
  engine::NodeBitset a(130), b(130);
  EXPECT_TRUE(a.is_subset_of(b));  // empty in empty
  a.set(3);
  a.set(129);
  b.set(3);
  EXPECT_FALSE(a.is_subset_of(b));  // 129, in the last word, is missing
  b.set(129);
  b.set(64);
  EXPECT_TRUE(a.is_subset_of(b));
  EXPECT_FALSE(b.is_subset_of(a));
}

// Two overlapping OverSubscribe=YES partitions, jobs without --oversubscribe: from 23.11.7 a
// job of one partition may take the free cores of a node a job of the other holds, as long as
// no job there shares (-s, FORCE); until then the other partition's job kept it off the node
// (cons_tres/job_test.c _is_node_busy).
TEST(EnginePlacement, OverlappingYesPartitionsShareANodeFrom23_11_7) {
  const std::string conf =
      "ClusterName=c\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"
      "NodeName=n1 CPUs=8 RealMemory=8000\n"
      "PartitionName=a Nodes=n1 Default=YES MaxTime=60 OverSubscribe=YES:4\n"
      "PartitionName=b Nodes=n1 MaxTime=60 OverSubscribe=YES:4\n";
  const std::vector<engine::JobRequest> jobs = {job(1, 0, 4, 3000, 3600, "a"), job(2, 10, 4, 600, 3600, "b")};
  const SimSite now(conf);
  const engine::SimResult r = now.run(jobs);
  EXPECT_EQ(find_job(r, 2).start, 11) << "job 2 takes the four free cores beside job 1 at the next pass";
  const SimSite before(conf, "23.02");
  const engine::SimResult o = before.run(jobs);
  EXPECT_EQ(find_job(o, 2).start, find_job(o, 1).end) << "job 2 waits for job 1 to leave the node";
  // A sharing job (--oversubscribe) on the node keeps the other partition's job off it again.
  std::vector<engine::JobRequest> shared = jobs;
  shared[0].oversubscribe = true;
  const engine::SimResult sr = now.run(shared);
  EXPECT_EQ(find_job(sr, 2).start, find_job(sr, 1).end);
}

// -w naming more nodes than -N: from 23.02 the list is a set to choose -N nodes from; 22.05
// made every listed node required (so a 1-node job listing four ran on all four).
TEST(EnginePlacement, ANodelistLongerThanTheNodeCountIsASetToChooseFrom) {
  engine::JobRequest j = pin(job(1, 0, 8, 100, 600, "p"), "n[1-4]");
  j.nodes = 1;
  const SimSite now(kEight);
  const engine::SimResult r = now.run({j});
  EXPECT_EQ(find_job(r, 1).alloc.nodes(), 1u);
  EXPECT_EQ(nodes_of(now, r, 1), "n1");
  const SimSite before(kEight, "22.05");
  const engine::SimResult o = before.run({j});
  EXPECT_EQ(nodes_of(before, o, 1), "n[1-4]");
}

}  // namespace
}  // namespace sa

namespace sa {
namespace {

// A GPU job's node order: the counting sort within each Weight gives what a stable sort of the
// whole list gives, on lists in Weight order and (its fallback) on one that is not.
TEST(WeightOrder, CountingSortWithinWeightsEqualsAStableSort) {
  std::uint64_t x = 0x2545F4914F6CDD1DULL;
  auto next = [&x] {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  };
  for (int round = 0; round < 500; ++round) {
    std::vector<engine::WeightedNode> nodes;
    std::uint64_t weight = next() % 4;
    const std::size_t n = 1 + next() % 300;
    for (std::size_t k = 0; k < n; ++k) {
      if (next() % 16 == 0) weight += 1 + next() % 3;  // the next Weight, heavier
      const std::uint64_t low = round % 5 == 0 ? 0xff : 0xf0 + next() % 16;
      nodes.push_back({static_cast<std::uint32_t>(k), weight << 8 | low});
    }
    if (round % 7 == 0) std::swap(nodes.front(), nodes.back());  // out of Weight order
    std::vector<engine::WeightedNode> expected = nodes;
    std::stable_sort(expected.begin(), expected.end(),
                     [](const engine::WeightedNode& a, const engine::WeightedNode& b) { return a.weight < b.weight; });
    engine::sort_low_byte_within_weights(nodes);
    ASSERT_EQ(nodes.size(), expected.size());
    for (std::size_t k = 0; k < n; ++k) {
      ASSERT_EQ(nodes[k].node, expected[k].node) << "round " << round << " at " << k;
      ASSERT_EQ(nodes[k].weight, expected[k].weight) << "round " << round << " at " << k;
    }
  }
}

// The release profile's walks leave out nodes that give a demand nothing (ReleaseProfile::
// skip_dead, kept per demand shape from one test to the next while the profile stands) and
// LLN weighs only nodes that give something: both must answer as the plain walk over every
// candidate does. Random running jobs on GPU nodes of three sizes with memory counted,
// released in batches as release_in_batches does, against a copy of the pool given each
// allocation back (PoolState::give_back) and fitted over every allowed free node.
TEST(EnginePlacement, ReleaseProfileAnswersAsThePlainWalk) {
  SimSite s(
      "ClusterName=c\nGresTypes=gpu\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core_Memory,CR_LLN\n"
      "NodeName=g[01-24] CPUs=32 RealMemory=64000 Gres=gpu:4\nNodeName=h[01-16] CPUs=16 RealMemory=32000 "
      "Gres=gpu:2\nNodeName=c[01-40] CPUs=48 RealMemory=96000\nPartitionName=p Nodes=ALL Default=YES\n");
  engine::NodePool pool(s.conf->config);
  std::uint64_t seed = 2026;
  auto next = [&seed] {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::uint32_t>(seed >> 33);
  };
  auto demand = [&] {
    engine::Demand d;
    d.least_loaded = next() % 4 != 0;
    d.cpus = 1 + next() % 40;
    d.mem_per_cpu = 500 + 500 * (next() % 8);
    if (next() % 2) {
      d.gpus = 1 + next() % 6;
      d.gpu_rules = d.gpu_weight = true;
      d.cpus_per_gpu = static_cast<std::uint16_t>(next() % 3 * 2);
    }
    return d;
  };
  auto free_cpus = [](std::uint32_t, const engine::NodeResources& n) { return n.cpus_free; };
  int answers = 0, later = 0, placed = 0;
  for (int round = 0; round < 40; ++round) {
    // Running jobs: fitted one by one on the pool as it fills, each with its planned end.
    engine::PoolState base = pool.state();
    std::vector<engine::Allocation> allocs(60 + next() % 60);
    std::vector<engine::ReleaseProfile::End> ends;
    for (engine::Allocation& a : allocs) {
      engine::Demand d = demand();
      d.least_loaded = false;
      if (!pool.fit(base, d, pool.usable(), &a, false)) continue;
      base.take(a);
      const std::int64_t end = 1000 + 30 * static_cast<std::int64_t>(next() % 400);
      ends.push_back({end, &a, end + 60});
    }
    std::stable_sort(ends.begin(), ends.end(), [](const auto& x, const auto& y) { return x.end < y.end; });
    engine::ReleaseProfile profile;  // one profile for the round: its per-shape memory is used
    profile.build(base, ends);
    for (int q = 0; q < 60; ++q) {
      const engine::Demand d = demand();
      engine::NodeBitset avail(pool.size());
      const std::uint32_t density = 5 + next() % 6;
      for (std::uint32_t i = 0; i < pool.size(); ++i) {
        if (next() % 10 < density) avail.set(i);
      }
      std::int64_t pred = 0;
      std::size_t pos = 0;
      const bool ok = profile.will_run(pool, d, avail, 1000, 0, false, pred, pos);
      // The plain walk: a pool copy given the ends back batch by batch.
      engine::PoolState state = base;
      std::size_t released = 0;
      auto fits_now = [&](engine::Allocation* out) {
        engine::NodeBitset cand = avail;
        cand &= state.free;
        auto node = [&](std::uint32_t i) -> const engine::NodeResources& { return state.nodes[i]; };
        return pool.fit_nodes(node, d, cand, false, out, free_cpus);
      };
      std::int64_t want_pred = 1000;
      bool want_ok = fits_now(nullptr);
      if (!want_ok) {
        want_ok = engine::release_in_batches(
            ends, 1000, 0,
            [&](std::size_t k) {
              for (const engine::AllocPiece& piece : ends[k].alloc->pieces) {
                if (avail.test(piece.node)) return true;
              }
              return false;
            },
            [&](std::size_t k) {
              for (; released <= k; ++released) state.give_back(*ends[released].alloc);
            },
            [&](std::size_t) { return fits_now(nullptr); }, [&](std::size_t k) { return ends[k].overdue; }, want_pred);
      }
      ASSERT_EQ(ok, want_ok) << "round " << round << " query " << q;
      ++answers;
      if (!ok) continue;
      ASSERT_EQ(pred, want_pred) << "round " << round << " query " << q;
      later += pred > 1000;
      // The allocation at pos, against the plain fit on the pool as it stands there.
      engine::Allocation got, want;
      profile.allocate(pool, d, avail, pos, false, got);
      for (; released < pos; ++released) state.give_back(*ends[released].alloc);
      // (A strategy's own choice can still fail where the walk fitted, as in Slurm, and
      // judge() plans nothing then: both sides must take the same pieces either way.)
      const bool want_fit = fits_now(&want);
      ASSERT_EQ(got.pieces.size(), want.pieces.size()) << "round " << round << " query " << q;
      for (std::size_t i = 0; i < got.pieces.size(); ++i) {
        EXPECT_EQ(got.pieces[i].node, want.pieces[i].node);
        EXPECT_EQ(got.pieces[i].cpus, want.pieces[i].cpus);
        EXPECT_EQ(got.pieces[i].gpus, want.pieces[i].gpus);
      }
      placed += want_fit;
    }
  }
  EXPECT_GT(answers, 2000);
  EXPECT_GT(later, 200);  // most of the work is the releases
  EXPECT_GT(placed, 1000);
}

}  // namespace
}  // namespace sa
