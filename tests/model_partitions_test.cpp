// PartitionName records: precedences of legacy keys, DEFAULT rules, node lists (formats.md §4.5).
#include <gtest/gtest.h>

#include "analyzer/partition_graph.h"
#include "tests/test_util.h"

namespace sa {
namespace {

using test::analyze_body;

TEST(Partitions, LegacyPriorityOverridesEvenFromDefault) {
  auto a = analyze_body("NodeName=n1\nPartitionName=DEFAULT Priority=7\nPartitionName=b Nodes=n1 PriorityTier=3\n");
  const Partition& p = a->config.partitions[0];
  EXPECT_EQ(p.priority_tier, 7);
  EXPECT_EQ(p.priority_job_factor, 7);
  EXPECT_EQ(test::count(*a, "CONF038"), 1);
}

TEST(Partitions, SharedLosesToAnyOverSubscribe) {
  auto a =
      analyze_body("NodeName=n1\nPartitionName=DEFAULT OverSubscribe=FORCE:2\nPartitionName=p Nodes=n1 Shared=YES\n");
  EXPECT_EQ(a->config.partitions[0].oversubscribe.mode, OverSubscribe::Mode::kForce);
  EXPECT_EQ(a->config.partitions[0].oversubscribe.count, 2u);
  auto b = analyze_body("NodeName=n1\nPartitionName=p Nodes=n1 Shared=EXCLUSIVE\n");
  EXPECT_EQ(b->config.partitions[0].oversubscribe.mode, OverSubscribe::Mode::kExclusive);
}

TEST(Partitions, OverSubscribeForms) {
  struct Case {
    const char* text;
    OverSubscribe::Mode mode;
    std::uint32_t count;
  };
  for (Case c : {Case{"NO", OverSubscribe::Mode::kNo, 1}, Case{"YES", OverSubscribe::Mode::kYes, 4},
                 Case{"yes:6", OverSubscribe::Mode::kYes, 6}, Case{"FORCE", OverSubscribe::Mode::kForce, 4},
                 Case{"Force:8", OverSubscribe::Mode::kForce, 8}, Case{"YES:1", OverSubscribe::Mode::kNo, 1}}) {
    auto a = analyze_body(std::string("NodeName=n1\nPartitionName=p Nodes=n1 OverSubscribe=") + c.text + "\n");
    EXPECT_EQ(a->config.partitions[0].oversubscribe.mode, c.mode) << c.text;
    EXPECT_EQ(a->config.partitions[0].oversubscribe.count, c.count) << c.text;
  }
  auto bad = analyze_body("NodeName=n1\nPartitionName=p Nodes=n1 OverSubscribe=MAYBE\n");
  EXPECT_TRUE(bad->diagnostics.has_errors());
}

TEST(Partitions, NeverInheritedKeysWarnOnDefault) {
  auto a = analyze_body("NodeName=n1\nPartitionName=DEFAULT ExclusiveUser=YES\nPartitionName=p Nodes=n1\n");
  EXPECT_FALSE(a->config.partitions[0].exclusive_user);
  EXPECT_EQ(test::count(*a, "CONF035"), 1);
}

TEST(Partitions, NodesAllNodeSetsAndDeduplication) {
  auto a = analyze_body(
      "NodeName=DEFAULT RealMemory=1000\nNodeName=c[1-4] Features=cpu\nNodeName=g[1-2] Features=gpu\n"
      "NodeSet=gpus Feature=gpu\n"
      "PartitionName=all Nodes=ALL\nPartitionName=mix Nodes=gpus,c1,g1\nPartitionName=q Nodes=\"c1 c2\"\n");
  ASSERT_EQ(a->config.partitions.size(), 3u);
  EXPECT_EQ(a->config.partitions[0].nodes.size(), 6u);
  EXPECT_EQ(a->config.partitions[1].nodes, (std::vector<std::uint32_t>{4, 5, 0}));
  EXPECT_EQ(a->config.partitions[2].nodes.size(), 2u);
  EXPECT_TRUE(a->diagnostics.all().empty());
}

TEST(Partitions, UndefinedNodesAndDuplicatePartitions) {
  auto a = analyze_body("NodeName=n[1-2]\nPartitionName=p Nodes=n[1-4]\nPartitionName=p Nodes=n1\n");
  const Diagnostic* d = test::first(*a, "CONF017");
  ASSERT_TRUE(d);
  EXPECT_NE(d->message.find("n[3-4]"), std::string::npos);
  EXPECT_EQ(test::count(*a, "CONF015"), 1);
}

TEST(Partitions, LastDefaultWinsWithAWarning) {
  auto a = analyze_body("NodeName=n1\nPartitionName=a Nodes=n1 Default=YES\nPartitionName=b Nodes=n1 Default=YES\n");
  EXPECT_EQ(a->config.default_partition()->name, "b");
  EXPECT_EQ(test::count(*a, "CONF016"), 1);
  EXPECT_EQ(test::first(*a, "CONF016")->hint, "keep Default=YES on the one partition jobs without -p should go to");
}

TEST(Partitions, EmptyValueSwallowingIsFlagged) {
  auto a = analyze_body("NodeName=n1\nPartitionName=p Nodes= Default=YES\n");
  EXPECT_EQ(test::count(*a, "CONF024"), 1);
  EXPECT_FALSE(a->config.partitions[0].is_default);
}

TEST(Partitions, TimesAndDefaultTimeAboveMaxTime) {
  auto a = analyze_body(
      "NodeName=n1\nPartitionName=p Nodes=n1 MaxTime=1:00:00 DefaultTime=2:00:00\n"
      "PartitionName=q Nodes=n1 MaxTime=0-6 DefaultTime=30:15\n");
  EXPECT_EQ(a->config.partitions[0].max_time, 3600);
  EXPECT_FALSE(a->config.partitions[0].default_time_set);
  EXPECT_EQ(test::count(*a, "CONF027"), 1);
  EXPECT_EQ(test::first(*a, "CONF027")->hint,
            "give partition 'p' a DefaultTime of at most 01:00:00 (jobs without --time get it)");
  EXPECT_EQ(a->config.partitions[1].max_time, 6 * 3600);
  EXPECT_EQ(a->config.partitions[1].default_time, 31 * 60);  // rounded up to whole minutes
  auto bad = analyze_body("NodeName=n1\nPartitionName=p Nodes=n1 MaxTime=2h\n");
  EXPECT_EQ(test::count(*bad, "CONF008"), 1);
}

TEST(Partitions, AccessListsAndMemory) {
  auto a = analyze_body(
      "NodeName=n1\nPartitionName=p Nodes=n1 AllowAccounts=Chem,PHYS DenyAccounts=bio AllowQos=ALL "
      "DefMemPerNode=1000 DefMemPerCPU=100 QOS=part_qos\n");
  const Partition& p = a->config.partitions[0];
  EXPECT_EQ(p.allow_accounts, (std::vector<std::string>{"chem", "phys"}));
  EXPECT_TRUE(p.deny_accounts.empty());
  EXPECT_TRUE(p.allow_qos.empty());
  EXPECT_EQ(p.def_mem_per_node, 1000u);
  EXPECT_EQ(p.def_mem_per_cpu, 0u);
  EXPECT_EQ(p.qos, "part_qos");
  EXPECT_EQ(test::count(*a, "CONF036"), 1);
  EXPECT_EQ(test::first(*a, "CONF036")->hint,
            "keep one list: remove DenyAccounts, or AllowAccounts if the deny list was meant");
  EXPECT_EQ(test::count(*a, "CONF037"), 1);
  EXPECT_EQ(test::first(*a, "CONF037")->hint, "keep one: remove DefMemPerCPU, or DefMemPerNode if per-CPU was meant");
}

TEST(Partitions, PreemptModeOnPartition) {
  auto a = analyze_body(
      "NodeName=n1\nPartitionName=p Nodes=n1 PreemptMode=REQUEUE\nPartitionName=q Nodes=n1 PreemptMode=SUSPEND,GANG\n");
  ASSERT_TRUE(a->config.partitions[0].preempt_mode);
  EXPECT_EQ(a->config.partitions[0].preempt_mode->base, PreemptMode::Base::kRequeue);
  EXPECT_FALSE(a->config.partitions[1].preempt_mode->gang);  // GANG ignored on partitions
  EXPECT_EQ(test::count(*a, "CONF021"), 1);
}

TEST(PartitionGraph, OverlapsAndGroups) {
  auto a = analyze_body(
      "NodeName=n[1-6]\nPartitionName=a Nodes=n[1-4]\nPartitionName=b Nodes=n[3-6]\n"
      "PartitionName=c Nodes=n6\nPartitionName=d Nodes=\"\"\n");
  auto overlaps = partition_overlaps(a->config);
  ASSERT_EQ(overlaps.size(), 2u);
  EXPECT_EQ(overlaps[0].first, 0u);
  EXPECT_EQ(overlaps[0].second, 1u);
  EXPECT_EQ(overlaps[0].shared_nodes, 2u);
  EXPECT_EQ(overlaps[1].first, 1u);
  EXPECT_EQ(overlaps[1].second, 2u);
  auto groups = partition_groups(a->config);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0], (std::vector<std::uint32_t>{0, 1, 2}));
  EXPECT_EQ(groups[1], (std::vector<std::uint32_t>{3}));
}

}  // namespace
}  // namespace sa

namespace sa {
namespace {

// A partition's own SelectTypeParameters (cons_common _setup_cr_type): read into the model,
// a warning when slurmctld ignores them (the cluster's are not CR_Core/CR_Socket) and when
// they leave memory uncounted for the partition's jobs; CR_Socket_Memory under CR_Core_Memory
// is a plain choice and says nothing.
TEST(Partitions, OwnSelectTypeParametersAreReadAndJudged) {
  const std::string nodes = "NodeName=n1 CPUs=8 RealMemory=8000\n";
  auto a = test::analyze_body("SelectTypeParameters=CR_Core_Memory\n" + nodes +
                              "PartitionName=p Nodes=n1 SelectTypeParameters=cr_socket_memory\n");
  const Partition& p = a->config.partitions[0];
  EXPECT_TRUE(p.select_own);
  EXPECT_TRUE(p.select_socket);
  EXPECT_TRUE(p.select_memory);
  EXPECT_EQ(test::count(*a, "CONF053"), 0);
  auto b = test::analyze_body("SelectTypeParameters=CR_Core_Memory\n" + nodes +
                              "PartitionName=p Nodes=n1 SelectTypeParameters=CR_Core\n");
  EXPECT_FALSE(b->config.partitions[0].select_memory);
  EXPECT_EQ(test::count(*b, "CONF053"), 1);
  auto c = test::analyze_body("SelectTypeParameters=CR_CPU\n" + nodes +
                              "PartitionName=p Nodes=n1 SelectTypeParameters=CR_Core_Memory\n");
  EXPECT_EQ(test::count(*c, "CONF053"), 1);
  auto d = test::analyze_body("SelectTypeParameters=CR_Core\n" + nodes + "PartitionName=p Nodes=n1\n");
  EXPECT_FALSE(d->config.partitions[0].select_own);
  EXPECT_EQ(test::count(*d, "CONF053"), 0);
}

}  // namespace
}  // namespace sa
