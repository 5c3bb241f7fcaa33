// topology/tree placement (engine/policy/topology_tree.h, 22.05 cons_tres _eval_nodes_topo) on
// small clusters where the leaf-switch choice and flat best fit (_eval_nodes) disagree.
#include <gtest/gtest.h>

#include <map>

#include "tests/engine_test_util.h"

namespace sa {
namespace {

using test::find_job;
using test::job;

const char* const kNodes =
    "ClusterName=c\nSlurmctldHost=h\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"
    "NodeName=n[1-8] CPUs=8 RealMemory=8000\nPartitionName=p Nodes=n[1-8] Default=YES MaxTime=60\n";
// leaf1 n[1-3], leaf2 n[4-5], leaf3 n[6-8]; spine1 over leaf1 and leaf2, spine2 over leaf3.
const char* const kTree =
    "SwitchName=leaf1 Nodes=n[1-3]\nSwitchName=leaf2 Nodes=n[4-5]\nSwitchName=leaf3 Nodes=n[6-8]\n"
    "SwitchName=spine1 Switches=leaf[1-2]\nSwitchName=spine2 Switches=leaf3\nSwitchName=root Switches=spine[1-2]\n";

// A site whose slurm.conf (kNodes + `extra`) sits beside `topology`.
struct TopoSite {
  std::map<std::string, std::string> files;
  std::unique_ptr<Analysis> conf;
  engine::Site site;
  TopoSite(const std::string& extra, const std::string& topology, const char* version = "22.05",
           const char* nodes = kNodes)
      : files{{"/site/topology.conf", topology}} {
    AnalyzeOptions o;
    o.version = *SlurmVersion::parse(version);
    o.includes.memory_tree = &files;
    conf = analyze_text("/site/slurm.conf", std::string(nodes) + extra, o);
    site.config = &conf->config;
  }
  engine::SimResult run(std::vector<engine::JobRequest> jobs) const {
    engine::Workload w;
    w.jobs = std::move(jobs);
    return engine::Simulator(site, {}).run(w);
  }
  std::string nodes(const engine::SimResult& r, std::uint32_t id) const {
    return test::alloc_node_list(conf->config, r, find_job(r, id));
  }
};

engine::JobRequest sized(engine::JobRequest j, std::uint32_t nodes, const char* nodelist = "") {
  j.nodes = nodes;
  j.extra.edit().nodelist = nodelist;
  return j;
}

// The capture's first four jobs on 8-CPU nodes: each lands where real Slurm put its 16-CPU
// counterpart (tests/golden/mini_slurm_fidelity/topology), and flat best fit differs each time.
std::vector<engine::JobRequest> four_jobs() {
  return {job(1, 0, 2, 600, 600, "p"), job(2, 3, 8, 600, 600, "p"), sized(job(3, 6, 4, 600, 600, "p"), 4),
          job(4, 9, 6, 600, 600, "p"), sized(job(5, 12, 2, 600, 600, "p"), 2, "n8")};
}

// TopologyParam=SwitchAsNodeRank (23.02+): slurmctld numbers its nodes by leaf switch in
// topology.conf order, so with n[5-8]'s leaf written first a job the flat best fit places
// (TopoOptional: no --switches) takes n5 on an idle cluster, not n1. 22.05 ranks nothing.
TEST(EngineTopology, SwitchAsNodeRankOrdersNodesByLeafSwitch) {
  const char* tree = "SwitchName=b Nodes=n[5-8]\nSwitchName=a Nodes=n[1-4]\nSwitchName=top Switches=a,b\n";
  const std::string param = "TopologyPlugin=topology/tree\nTopologyParam=SwitchAsNodeRank,TopoOptional\n";
  TopoSite ranked(param, tree, "23.02");
  ASSERT_TRUE(ranked.conf->config.topology.switch_as_node_rank);
  auto r = ranked.run({job(1, 0, 1, 600, 600, "p")});
  EXPECT_EQ(ranked.nodes(r, 1), "n5");
  TopoSite old(param, tree, "22.05");
  EXPECT_FALSE(old.conf->config.topology.switch_as_node_rank);
  auto o = old.run({job(1, 0, 1, 600, 600, "p")});
  EXPECT_EQ(old.nodes(o, 1), "n1");
}

TEST(EngineTopology, LeafBestFitAndFlatBestFitDisagree) {
  TopoSite topo("TopologyPlugin=topology/tree\n", kTree);
  ASSERT_EQ(topo.conf->config.topology.switches.size(), 6u);
  auto r = topo.run(four_jobs());
  EXPECT_EQ(topo.nodes(r, 1), "n4");        // leaf2 has the fewest usable nodes
  EXPECT_EQ(topo.nodes(r, 2), "n[4-5]");    // n4's 6 free CPUs, then n5, in node order
  EXPECT_EQ(topo.nodes(r, 3), "n[1-3,5]");  // no leaf has 4 nodes: leaf1, then the nearest leaf2
  EXPECT_EQ(topo.nodes(r, 4), "n[1,5]");    // leaf2's last node (5 free), one CPU from leaf1
  EXPECT_EQ(topo.nodes(r, 5), "n[6,8]");    // -w n8: the rest from n8's own leaf
  TopoSite flat("", kTree);
  EXPECT_TRUE(flat.conf->config.topology.empty());
  auto f = flat.run(four_jobs());
  EXPECT_EQ(flat.nodes(f, 1), "n1");
  EXPECT_EQ(flat.nodes(f, 2), "n2");
  EXPECT_EQ(flat.nodes(f, 3), "n[3-6]");  // the first run of consecutive nodes with 4 of them
}

// -N min-max: Slurm's rem_nodes starts at the max (lowered to the task count), so a job is
// spread over that many nodes when a leaf has them; a real run (same topology, 16-CPU nodes)
// gave -N 1-2 -n 4 n[4-5], -N 2-3 -n 2 (sbatch lowers the max to 2) n[4-5], then -N 1 n4.
TEST(EngineTopology, ANodeRangeGetsItsMaximumWhereALeafHasIt) {
  TopoSite topo("TopologyPlugin=topology/tree\n", kTree);
  engine::JobRequest one_two = sized(job(1, 0, 4, 600, 600, "p"), 1);
  one_two.extra.edit().max_nodes = 2;
  engine::JobRequest two_three = sized(job(2, 3, 2, 600, 600, "p"), 2);
  two_three.extra.edit().max_nodes = 3;
  auto r = topo.run({one_two, two_three, sized(job(3, 6, 2, 600, 600, "p"), 1)});
  EXPECT_EQ(topo.nodes(r, 1), "n[4-5]");
  EXPECT_EQ(topo.nodes(r, 2), "n[4-5]");
  EXPECT_EQ(topo.nodes(r, 3), "n4");
  // Spread over its nodes, not added to: AllocCPUS 4 and 2 in the real run.
  EXPECT_EQ(find_job(r, 1).alloc.cpus(), 4u);
  EXPECT_EQ(find_job(r, 2).alloc.cpus(), 2u);
  for (std::uint32_t id : {1u, 2u}) {
    for (const engine::AllocPiece& p : find_job(r, id).alloc.expanded()) EXPECT_GE(p.cpus, 1u) << "job " << id;
  }
  // Job 1 as cons_tres lays it out: _cpus_to_use gives n4 all 4 CPUs and n5 its minimum of 1,
  // then dist_tasks_compute_c_b places the 4 tasks one per node and the rest on n4: 3 + 1.
  std::vector<std::uint32_t> cpus;
  for (const engine::AllocPiece& p : find_job(r, 1).alloc.expanded()) cpus.push_back(p.cpus);
  EXPECT_EQ(cpus, (std::vector<std::uint32_t>{3, 1}));
}

// With GPUs per job (--gpus) a node range starts from its minimum (cons_tres _eval_nodes_topo:
// rem_nodes = MIN(min_nodes, req_nodes) when gres_sched_init finds GPUs per job): -N 1-2 -n 2
// --gpus=1 stops at n4, which holds its CPUs and GPU, where the same job without GPUs, or with
// one GPU per node, takes both of leaf2's nodes.
TEST(EngineTopology, AGpusPerJobNodeRangeStopsAtItsMinimum) {
  const char* gpu_nodes =
      "ClusterName=c\nSlurmctldHost=h\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core\nGresTypes=gpu\n"
      "NodeName=n[1-8] CPUs=8 RealMemory=8000 Gres=gpu:2\nPartitionName=p Nodes=n[1-8] Default=YES MaxTime=60\n";
  TopoSite topo("TopologyPlugin=topology/tree\n", kTree, "22.05", gpu_nodes);
  auto ranged = [](std::uint32_t id) {
    engine::JobRequest j = sized(job(id, 0, 2, 600, 600, "p"), 1);
    j.extra.edit().max_nodes = 2;
    return j;
  };
  engine::JobRequest per_job = ranged(1);
  per_job.gpus = 1;
  engine::JobRequest per_node = ranged(2);
  per_node.extra.edit().gpus_per_node = 1;
  auto r = topo.run({per_job});
  EXPECT_EQ(topo.nodes(r, 1), "n4");
  r = topo.run({per_node});
  EXPECT_EQ(topo.nodes(r, 2), "n[4-5]");
  r = topo.run({ranged(3)});
  EXPECT_EQ(topo.nodes(r, 3), "n[4-5]");
}

TEST(EngineTopology, TopoOptionalPlacesAsWithoutTopology) {
  TopoSite optional("TopologyPlugin=topology/tree\nTopologyParam=TopoOptional\n", kTree);
  EXPECT_TRUE(optional.conf->config.topology.optional);
  auto r = optional.run(four_jobs());
  EXPECT_EQ(optional.nodes(r, 1), "n1");
}

TEST(EngineTopology, NodesOnNoSwitchAreNeverUsed) {
  TopoSite s("TopologyPlugin=topology/tree\n", "SwitchName=leaf Nodes=n[1-2]\n");
  // Two 8-CPU nodes under the only switch: a 24-CPU job can never run, the 16-CPU ones wait
  // for each other although n[3-8] are idle.
  auto r = s.run({job(1, 0, 16, 100, 100, "p"), job(2, 0, 16, 100, 100, "p"), job(3, 0, 24, 100, 100, "p")});
  EXPECT_EQ(s.nodes(r, 1), "n[1-2]");
  EXPECT_EQ(s.nodes(r, 2), "n[1-2]");
  EXPECT_EQ(find_job(r, 2).start, find_job(r, 1).end);
  EXPECT_EQ(find_job(r, 3).state, engine::JobState::kRejected);
}

TEST(EngineTopology, AJobSpansOnlyOneTree) {
  // Two roots of four nodes each and no switch over both: 5 nodes never fit.
  TopoSite s("TopologyPlugin=topology/tree\n", "SwitchName=a Nodes=n[1-4]\nSwitchName=b Nodes=n[5-8]\n");
  auto r = s.run({sized(job(1, 0, 5, 100, 100, "p"), 5), sized(job(2, 0, 4, 100, 100, "p"), 4)});
  EXPECT_EQ(find_job(r, 1).state, engine::JobState::kRejected);
  // The last root with enough nodes is the top switch (ties go to the later one: `>=`).
  EXPECT_EQ(s.nodes(r, 2), "n[5-8]");
}

// --switches=1 on a 2-node job: n3 (leaf1) and n5 (leaf2) are free, every other node is busy
// until `leaf1_free` (n[1-2]) or t=3000. Jobs of 8 CPUs fill an 8-CPU node.
std::vector<engine::JobRequest> switch_load(std::int64_t leaf1_free, std::uint32_t switches, std::int64_t switch_wait) {
  engine::JobRequest wanting = sized(job(9, 10, 16, 600, 600, "p"), 2);
  wanting.extra.edit().switches = switches;
  wanting.extra.edit().switch_wait = switch_wait;
  return {sized(job(1, 0, 16, leaf1_free, 3600, "p"), 2, "n[1-2]"), sized(job(2, 0, 8, 3000, 3600, "p"), 1, "n4"),
          sized(job(3, 0, 24, 3000, 3600, "p"), 3, "n[6-8]"), wanting};
}

// cons_tres _eval_nodes_topo: within its wait4switch a placement over more leaf switches
// than --switches asks fails; once time_waiting >= wait4switch any placement is taken.
TEST(EngineTopology, SwitchesWaitForOneLeafUntilTheirWaitEnds) {
  TopoSite topo("TopologyPlugin=topology/tree\n", kTree);
  // @1:00 (time_str2secs: one minute): no leaf frees up, so it takes n3 and n5 once 60 s
  // have passed since the select plugin first tried it, at the next full main-loop run
  // (sched_interval 60 s; backfill cycles skip while nothing changes).
  auto r = topo.run(switch_load(3000, 1, 60));
  const engine::SimJob& waited = find_job(r, 9);
  ASSERT_NE(waited.rare.get().wait4switch_start, engine::kNoTime);
  EXPECT_GE(waited.rare.get().wait4switch_start, 10);
  EXPECT_GE(waited.start, waited.rare.get().wait4switch_start + 60);
  EXPECT_LE(waited.start, waited.rare.get().wait4switch_start + 60 + 60);
  EXPECT_EQ(topo.nodes(r, 9), "n[3,5]");
  // Without @: max_switch_wait (300 s by default) bounds the wait; a smaller one cuts @1:00 short.
  auto d = topo.run(switch_load(3000, 1, engine::kNoTime));
  EXPECT_GE(find_job(d, 9).start, find_job(d, 9).rare.get().wait4switch_start + 300);
  EXPECT_LE(find_job(d, 9).start, find_job(d, 9).rare.get().wait4switch_start + 300 + 60);
  TopoSite capped("TopologyPlugin=topology/tree\nSchedulerParameters=max_switch_wait=20\n", kTree);
  auto c = capped.run(switch_load(3000, 1, 60));
  EXPECT_GE(find_job(c, 9).start, find_job(c, 9).rare.get().wait4switch_start + 20);
  EXPECT_LT(find_job(c, 9).start, find_job(c, 9).rare.get().wait4switch_start + 60);
  // leaf1 frees n[1-2] 50 s after they started, within the wait: the job starts then, on that
  // one leaf.
  auto early = topo.run(switch_load(50, 1, 60));
  const std::int64_t freed = find_job(early, 1).end;
  EXPECT_LT(freed, find_job(early, 9).rare.get().wait4switch_start + 60);
  EXPECT_GE(find_job(early, 9).start, freed);
  EXPECT_LE(find_job(early, 9).start, freed + 1);  // the run the job end triggers
  EXPECT_EQ(topo.nodes(early, 9), "n[1-2]");
  // Two switches allowed: n3 and n5 at once.
  auto two = topo.run(switch_load(3000, 2, 60));
  EXPECT_EQ(find_job(two, 9).start, find_job(two, 9).rare.get().wait4switch_start);
  EXPECT_EQ(topo.nodes(two, 9), "n[3,5]");
}

// switch_load's job of --switches=1@1:00 on `site`: it waits out its minute, then takes n3
// and n5 on two leaves.
void expect_waited_then_two_leaves(const TopoSite& site) {
  auto r = site.run(switch_load(3000, 1, 60));
  const engine::SimJob& waited = find_job(r, 9);
  ASSERT_NE(waited.rare.get().wait4switch_start, engine::kNoTime);
  EXPECT_GE(waited.start, waited.rare.get().wait4switch_start + 60);
  EXPECT_EQ(site.nodes(r, 9), "n[3,5]");
}

// select/linear up to 23.11 has its own topology selection (_job_test_topo,
// engine/policy/linear_topology.h) and the same --switches rule: its leaves counted against
// the limit fail the placement within the wait. From 24.05 linear ignores the switches.
TEST(EngineTopology, LinearSwitchesWaitUpTo2311AndNotFrom2405) {
  TopoSite linear("SelectType=select/linear\nTopologyPlugin=topology/tree\n", kTree, "23.11");
  ASSERT_EQ(linear.conf->config.select.type, "select/linear");
  expect_waited_then_two_leaves(linear);
  TopoSite later("SelectType=select/linear\nTopologyPlugin=topology/tree\n", kTree, "24.05");
  auto flat = later.run(switch_load(3000, 1, 60));
  EXPECT_LE(find_job(flat, 9).start, 11);  // at its first try
  EXPECT_EQ(find_job(flat, 9).rare.get().wait4switch_start, engine::kNoTime);
}

// select/cons_res (22.05, engine/policy/cons_res_topology.h) counts the leaves it takes against
// --switches the same way: n3 and n5 only once the wait is over. A -w node on leaf3 keeps the
// job on that leaf: n8 and the best-fit node beside it, n6 (the first of equals).
TEST(EngineTopology, ConsResSwitchesWaitAndRequiredNodesKeepTheirLeaf) {
  TopoSite cons_res("SelectType=select/cons_res\nTopologyPlugin=topology/tree\n", kTree);
  ASSERT_EQ(cons_res.conf->config.select.type, "select/cons_res");
  expect_waited_then_two_leaves(cons_res);
  auto w = cons_res.run({sized(job(1, 0, 2, 600, 600, "p"), 2, "n8")});
  EXPECT_EQ(cons_res.nodes(w, 1), "n[6,8]");
}

// --switches acts only through _eval_nodes_topo: without topology/tree it changes nothing.
TEST(EngineTopology, SwitchesChangeNothingWithoutTopologyTree) {
  TopoSite flat("", kTree);
  auto with = flat.run(switch_load(3000, 1, 60));
  auto without = flat.run(switch_load(3000, 0, engine::kNoTime));
  EXPECT_LE(find_job(with, 9).start, 11);  // at its first try
  EXPECT_EQ(find_job(with, 9).start, find_job(without, 9).start);
  EXPECT_EQ(flat.nodes(with, 9), flat.nodes(without, 9));
  EXPECT_EQ(find_job(with, 9).rare.get().wait4switch_start, engine::kNoTime);
}

}  // namespace
}  // namespace sa
