// NodeName records: DEFAULT cascading, aliases and Slurm's layout rules (formats.md §1.6, §4.6).
#include <gtest/gtest.h>

#include "tests/test_util.h"

namespace sa {
namespace {

using test::analyze_body;

TEST(Nodes, DefaultsCascadeOnlyForward) {
  auto a = analyze_body(
      "NodeName=early\n"
      "NodeName=DEFAULT CPUs=8 RealMemory=4000\n"
      "NodeName=mid\n"
      "NodeName=DEFAULT RealMemory=8000\n"  // merged: CPUs=8 kept
      "NodeName=late Weight=5\n");
  ASSERT_EQ(a->config.nodes.size(), 3u);
  EXPECT_EQ(a->config.nodes[0].cpus, 1u);
  EXPECT_EQ(a->config.nodes[0].real_memory_mb, 1u);
  EXPECT_EQ(a->config.nodes[1].cpus, 8u);
  EXPECT_EQ(a->config.nodes[1].real_memory_mb, 4000u);
  EXPECT_EQ(a->config.nodes[2].cpus, 8u);
  EXPECT_EQ(a->config.nodes[2].real_memory_mb, 8000u);
  EXPECT_EQ(a->config.nodes[2].weight, 5u);
}

TEST(Nodes, FeaturesAndActiveFeatures) {
  auto a = analyze_body(
      "NodeName=bare\n"
      "NodeName=DEFAULT Features=intel,ib\n"
      "NodeName=c[1-2] CPUs=8\n"
      "NodeName=g1 Features=amd,gpu,,a100\n");
  ASSERT_EQ(a->config.nodes.size(), 4u);
  EXPECT_EQ(a->config.nodes[2].features, (std::vector<std::string>{"intel", "ib"}));
  EXPECT_EQ(a->config.nodes[3].features, (std::vector<std::string>{"amd", "gpu", "a100"}));
  // slurm.conf has no ActiveFeatures key: slurmctld starts them as a copy of Features.
  EXPECT_EQ(a->config.nodes[3].active_features, a->config.nodes[3].features);
  EXPECT_EQ(a->config.nodes[1].active_features, (std::vector<std::string>{"intel", "ib"}));
  EXPECT_TRUE(a->config.nodes[0].active_features.empty());
  auto b = analyze_body("NodeName=n1 ActiveFeatures=x\n");
  EXPECT_EQ(test::count(*b, "CONF003"), 1);  // Slurm stops at the unknown key
}

TEST(Nodes, CpusAloneGivesOneCorePerSocket) {
  auto a = analyze_body("NodeName=x CPUs=8\n");
  const Node& n = a->config.nodes[0];
  EXPECT_EQ(n.sockets, 8u);
  EXPECT_EQ(n.cores_per_socket, 1u);
  EXPECT_EQ(n.cpus, 8u);
}

TEST(Nodes, CpusInferredFromLayout) {
  auto a = analyze_body("NodeName=x Sockets=2 CoresPerSocket=24 ThreadsPerCore=2\n");
  EXPECT_EQ(a->config.nodes[0].cpus, 96u);
  auto b = analyze_body("NodeName=x Boards=2 SocketsPerBoard=2 CoresPerSocket=4\n");
  EXPECT_EQ(b->config.nodes[0].sockets, 4u);
  EXPECT_EQ(b->config.nodes[0].cpus, 16u);
}

TEST(Nodes, InconsistentCpusAreResetWithAWarning) {
  // The corpus case: Procs=24 with 1 socket x 12 cores x 2 threads is fine; 20 is not.
  auto ok = analyze_body("NodeName=x Procs=24 Sockets=1 CoresPerSocket=12 ThreadsPerCore=2\n");
  EXPECT_EQ(ok->config.nodes[0].cpus, 24u);
  EXPECT_EQ(test::count(*ok, "CONF025"), 0);
  auto bad = analyze_body("NodeName=x CPUs=20 Sockets=1 CoresPerSocket=12 ThreadsPerCore=2\n");
  EXPECT_EQ(bad->config.nodes[0].cpus, 24u);
  EXPECT_EQ(test::count(*bad, "CONF025"), 1);
}

TEST(Nodes, CpusWinsOverProcsFromAnywhere) {
  auto a = analyze_body("NodeName=DEFAULT CPUs=4\nNodeName=x Procs=8\n");
  EXPECT_EQ(a->config.nodes[0].cpus, 4u);  // CPUs from DEFAULT beats Procs on the line
}

TEST(Nodes, ZeroCountsAreReset) {
  auto a = analyze_body("NodeName=x CoresPerSocket=0 ThreadsPerCore=0\n");
  EXPECT_EQ(a->config.nodes[0].cores_per_socket, 1u);
  EXPECT_EQ(a->config.nodes[0].threads_per_core, 1u);
  EXPECT_EQ(test::count(*a, "CONF025"), 2);
}

TEST(Nodes, WeightInfiniteAndMemoryUnits) {
  auto a = analyze_body("NodeName=x Weight=INFINITE RealMemory=64G\n");
  EXPECT_EQ(a->config.nodes[0].weight, 0xFFFFFFFEu);
  const Diagnostic* d = test::first(*a, "CONF006");
  ASSERT_TRUE(d);
  EXPECT_NE(d->hint.find("RealMemory=65536"), std::string::npos);
}

TEST(Nodes, DuplicateNamesAreFatal) {
  auto a = analyze_body("NodeName=n[1-2],n[2-3]\nNodeName=n1\n");
  EXPECT_EQ(test::count(*a, "CONF014"), 2);
  EXPECT_EQ(a->config.nodes.size(), 3u);
}

TEST(Nodes, AllIsReservedAndAddressesRestrictedOnDefault) {
  auto a = analyze_body("NodeName=ALL CPUs=2\nNodeName=DEFAULT NodeAddr=10.0.0.1\n");
  EXPECT_EQ(test::count(*a, "CONF034"), 1);
  EXPECT_EQ(test::count(*a, "CONF035"), 1);
  auto b = analyze_body("NodeName=n[1-3] NodeAddr=10.0.0.[1-2]\n");
  EXPECT_EQ(test::count(*b, "CONF012"), 1);
}

TEST(Nodes, GresFeaturesAndState) {
  auto a = analyze_body("GresTypes=gpu\nNodeName=g1 Gres=gpu:a100:4,gpu:v100:2(S:0-1) Features=ib,avx2 State=DRAIN\n");
  const Node& n = a->config.nodes[0];
  ASSERT_EQ(n.gres.size(), 2u);
  EXPECT_EQ(n.gres[0].type, "a100");
  EXPECT_EQ(n.gres[0].count, 4u);
  EXPECT_EQ(n.gres[1].count, 2u);
  EXPECT_EQ(n.features, (std::vector<std::string>{"ib", "avx2"}));
  EXPECT_EQ(n.state, NodeState::kDrain);
  EXPECT_FALSE(n.usable());
  auto b = analyze_body("NodeName=g1 Gres=gpu:2 State=BROKEN\n");
  EXPECT_EQ(test::count(*b, "CONF044"), 1);  // gpu not in GresTypes
  EXPECT_EQ(test::count(*b, "CONF009"), 1);  // invalid state
}

TEST(Nodes, DownNodesApplyInOrder) {
  auto a = analyze_body("NodeName=n[1-3]\nDownNodes=n[1-2] State=DRAIN Reason=\"rack 4\"\nDownNodes=n2 State=DOWN\n");
  EXPECT_EQ(a->config.nodes[0].state, NodeState::kDrain);
  EXPECT_EQ(a->config.nodes[0].reason, "rack 4");
  EXPECT_EQ(a->config.nodes[1].state, NodeState::kDown);
  EXPECT_EQ(a->config.nodes[2].state, NodeState::kUnknown);
}

TEST(Nodes, NodeKeyOnTopLevelAndTopKeyOnNodeLine) {
  auto a = analyze_body("CPUs=4\nNodeName=n1 SchedulerType=sched/backfill\n");
  EXPECT_EQ(test::count(*a, "CONF003"), 2);
}

// node_conf.c's tpc: CPUs equal to the cores means one schedulable thread per core; CR_Core
// then allocates one CPU at a time there and two on a node whose CPUs count threads, CR_Socket
// a socket's worth, CR_CPU always one; a partition's own SelectTypeParameters apply.
TEST(Nodes, SchedulableThreadsAndTheCpusAJobIsGivenAtATime) {
  auto a = analyze_body(
      "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core_Memory\n"
      "NodeName=cores CPUs=8 Sockets=1 CoresPerSocket=8 ThreadsPerCore=2 RealMemory=1000\n"
      "NodeName=threads CPUs=8 Sockets=1 CoresPerSocket=4 ThreadsPerCore=2 RealMemory=1000\n"
      "NodeName=two Sockets=2 CoresPerSocket=4 ThreadsPerCore=2 RealMemory=1000\n"
      "PartitionName=p Nodes=ALL\nPartitionName=s Nodes=ALL SelectTypeParameters=CR_Socket_Memory\n");
  const Config& c = a->config;
  ASSERT_EQ(c.nodes.size(), 3u);
  EXPECT_EQ(c.nodes[0].schedulable_threads(), 1u);
  EXPECT_EQ(c.nodes[1].schedulable_threads(), 2u);
  EXPECT_EQ(c.nodes[2].cpus, 16u);
  const Partition& p = c.partitions[0];
  const Partition& s = c.partitions[1];
  EXPECT_EQ(c.cpu_unit(p, c.nodes[0]), 1u);
  EXPECT_EQ(c.cpu_unit(p, c.nodes[1]), 2u);
  EXPECT_EQ(c.cpu_unit(s, c.nodes[2]), 8u);  // 4 cores of 2 threads
  auto cpu = analyze_body(
      "SelectType=select/cons_tres\nSelectTypeParameters=CR_CPU_Memory\n"
      "NodeName=threads CPUs=8 Sockets=1 CoresPerSocket=4 ThreadsPerCore=2 RealMemory=1000\nPartitionName=p "
      "Nodes=ALL\n");
  EXPECT_EQ(cpu->config.cpu_unit(cpu->config.partitions[0], cpu->config.nodes[0]), 1u);
}

}  // namespace
}  // namespace sa
