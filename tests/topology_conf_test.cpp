// topology.conf read beside slurm.conf when TopologyPlugin=topology/tree (analyzer/topology.h):
// switches, levels, parents and node sets as 22.05's topology_tree.c builds them, and every
// problem as a diagnostic at its line and column, never a crash.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "analyzer/analyze.h"
#include "analyzer/topology.h"
#include "tests/test_util.h"

namespace sa {
namespace {

const char* kSlurm =
    "ClusterName=c\nSlurmctldHost=h\nTopologyPlugin=topology/tree\n"
    "NodeName=n[1-8] CPUs=16 RealMemory=64000\nPartitionName=batch Nodes=n[1-8] Default=YES\n";

std::unique_ptr<Analysis> with_topology(const std::string& topology, const std::string& slurm = kSlurm,
                                        InputLimits limits = {}) {
  static std::map<std::string, std::string> tree;
  tree = {{"/site/topology.conf", topology}};
  AnalyzeOptions o;
  o.version = *SlurmVersion::parse("22.05");
  o.includes.memory_tree = &tree;
  o.limits = limits;
  return analyze_text("/site/slurm.conf", slurm, o);
}

const char* kTree =
    "SwitchName=leaf1 Nodes=n[1-3]\nSwitchName=leaf2 Nodes=n[4-5]\nSwitchName=leaf3 Nodes=n[6-8] LinkSpeed=10\n"
    "SwitchName=spine1 Switches=leaf[1-2]\nSwitchName=spine2 Switches=leaf3\nSwitchName=root Switches=spine[1-2]\n";

TEST(TopologyConf, ReadsLevelsParentsAndNodeSets) {
  auto a = with_topology(kTree);
  EXPECT_TRUE(a->diagnostics.all().empty()) << a->diagnostics.all()[0].message;
  const std::vector<Switch>& sw = a->config.topology.switches;
  ASSERT_EQ(sw.size(), 6u);
  EXPECT_EQ(sw[0].name, "leaf1");
  EXPECT_EQ(sw[0].nodes, (std::vector<std::uint32_t>{0, 1, 2}));
  EXPECT_EQ(sw[2].link_speed, 10u);
  EXPECT_EQ(sw[3].level, 1);
  EXPECT_EQ(sw[3].nodes, (std::vector<std::uint32_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(sw[5].level, 2);
  EXPECT_EQ(sw[5].nodes.size(), 8u);
  EXPECT_EQ(sw[0].parent, 3u);
  EXPECT_EQ(sw[2].parent, 4u);
  EXPECT_EQ(sw[3].parent, 5u);
  EXPECT_EQ(sw[5].parent, 0u);  // a root keeps Slurm's zero-filled parent
  EXPECT_FALSE(a->config.topology.optional);
}

TEST(TopologyConf, NotReadWithoutTheTreePlugin) {
  std::string slurm = kSlurm;
  slurm.replace(slurm.find("topology/tree"), 13, "topology/none");
  auto a = with_topology("SwitchName=broken\n", slurm);
  EXPECT_TRUE(a->config.topology.empty());
  EXPECT_EQ(test::count(*a, "CONF051"), 0);
}

TEST(TopologyConf, TopoOptionalIsKept) {
  auto a = with_topology(kTree, std::string(kSlurm) + "TopologyParam=TopoOptional\n");
  EXPECT_TRUE(a->config.topology.optional);
}

TEST(TopologyConf, UnknownNodeIsAWarningAtItsValue) {
  auto a = with_topology("SwitchName=leaf1 Nodes=n[1-8]\nSwitchName=leaf2 Nodes=gpu[1-2],n9\n");
  ASSERT_EQ(test::count(*a, "CONF051"), 2);  // and "switch 'leaf2' has no nodes"
  const Diagnostic* d = test::first(*a, "CONF051");
  EXPECT_EQ(d->severity, Severity::kWarning);
  EXPECT_EQ(d->loc.line, 2);
  EXPECT_EQ(d->loc.column, 24);
  EXPECT_NE(d->message.find("3 node(s) slurm.conf does not define: gpu[1-2],n9"), std::string::npos) << d->message;
  ASSERT_EQ(a->config.topology.switches.size(), 2u);  // Slurm starts: the topology is kept
  EXPECT_TRUE(a->config.topology.switches[1].nodes.empty());
}

TEST(TopologyConf, SwitchLoopIsFatal) {
  auto a = with_topology("SwitchName=leaf Nodes=n[1-8]\nSwitchName=a Switches=b,leaf\nSwitchName=b Switches=a\n");
  const Diagnostic* d = test::first(*a, "CONF051");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, Severity::kError);
  EXPECT_EQ(d->loc.line, 2);
  EXPECT_NE(d->message.find("not a tree"), std::string::npos) << d->message;
  EXPECT_TRUE(a->config.topology.empty());
}

TEST(TopologyConf, UnknownSelfOrDuplicateSwitchIsFatal) {
  for (const char* text : {"SwitchName=leaf Nodes=n1\nSwitchName=top Switches=leaf,ghost\n",
                           "SwitchName=leaf Nodes=n1\nSwitchName=top Switches=top\n",
                           "SwitchName=leaf Nodes=n1\nSwitchName=leaf Nodes=n2\n",
                           "SwitchName=both Nodes=n1 Switches=x\n", "SwitchName=neither LinkSpeed=3\n"}) {
    SCOPED_TRACE(text);
    auto a = with_topology(text);
    const Diagnostic* d = test::first(*a, "CONF051");
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->severity, Severity::kError);
    EXPECT_EQ(d->loc.line, d->message.find("exactly one") != std::string::npos ? 1 : 2);
    EXPECT_TRUE(a->config.topology.empty());
  }
}

TEST(TopologyConf, NodesOnNoLeafAreNamed) {
  auto a = with_topology("SwitchName=leaf1 Nodes=n[1-3]\nSwitchName=leaf2 Nodes=n[3-4]\n");
  std::vector<std::string> messages;
  for (const Diagnostic& d : a->diagnostics.all()) messages.push_back(d.message);
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_NE(messages[0].find("4 node(s) are on no leaf switch: n[5-8]"), std::string::npos) << messages[0];
  EXPECT_NE(messages[1].find("1 node(s) are on more than one leaf switch: n3"), std::string::npos) << messages[1];
  EXPECT_EQ(a->config.topology.switches.size(), 2u);
}

// slurmctld would stop; a warning, since a repository may hold slurm.conf without it.
TEST(TopologyConf, MissingFileIsAWarningAtThePlugin) {
  AnalyzeOptions o;
  std::map<std::string, std::string> empty;
  o.includes.memory_tree = &empty;
  auto a = analyze_text("/site/slurm.conf", kSlurm, o);
  const Diagnostic* d = test::first(*a, "CONF051");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, Severity::kWarning);
  EXPECT_EQ(d->loc.line, 3);
  EXPECT_NE(d->message.find("topology.conf beside slurm.conf"), std::string::npos);
  EXPECT_TRUE(a->config.topology.empty());
}

// Hostile inputs: a hostlist of a billion names, and Switches= lines that would copy a large
// leaf's node list many times over, stop at the limits with a diagnostic.
TEST(TopologyConf, HugeHostlistsStopAtTheLimits) {
  auto a = with_topology("SwitchName=leaf Nodes=n[1-999999999]\n");
  EXPECT_GE(test::count(*a, "CONF051") + test::count(*a, "CONF049"), 1);
  EXPECT_TRUE(a->config.topology.empty());
  std::string chain = "SwitchName=s0 Nodes=n[1-8]\n";
  for (int i = 1; i < 200; ++i) {
    chain += "SwitchName=s" + std::to_string(i) + " Switches=s" + std::to_string(i - 1) + "\n";
  }
  InputLimits limits;
  limits.hostlist_names = 500;
  auto b = with_topology(chain, kSlurm, limits);
  ASSERT_EQ(test::count(*b, "CONF049"), 1);
  EXPECT_NE(test::first(*b, "CONF049")->message.find("node memberships"), std::string::npos);
  EXPECT_TRUE(b->config.topology.empty());
  std::string many;
  for (std::size_t i = 0; i <= kMaxTopologySwitches; ++i) many += "SwitchName=x" + std::to_string(i) + " Nodes=n1\n";
  auto c = with_topology(many);
  EXPECT_EQ(test::count(*c, "CONF049"), 1);
  EXPECT_TRUE(c->config.topology.empty());
}

// An upper switch copies each distinct child's nodes once: Switches= naming a large leaf beside
// hundreds of one-node leaves, again and again, merged one child at a time cost the large list
// per child (seconds per line at 100,000 nodes). A child listed twice is kept twice, as Slurm
// keeps it, and adds nothing to the union.
TEST(TopologyConf, UpperSwitchesMergeEachDistinctChildOnce) {
  const std::string slurm = std::string(kSlurm) + "NodeName=big[1-20000] CPUs=16 RealMemory=64000\n";
  std::string topo = "SwitchName=L Nodes=big[1-20000],n[2-8]\n";
  for (int i = 1; i <= 500; ++i) topo += "SwitchName=s" + std::to_string(i) + " Nodes=n1\n";
  for (int k = 0; k < 40; ++k) topo += "SwitchName=u" + std::to_string(k) + " Switches=L,s[1-500],L\n";
  auto a = with_topology(topo, slurm);
  const std::vector<Switch>& sw = a->config.topology.switches;
  ASSERT_EQ(sw.size(), 541u);
  EXPECT_EQ(sw.back().children.size(), 502u);
  EXPECT_EQ(sw.back().nodes.size(), 20008u);
  EXPECT_EQ(sw.back().level, 1);
  EXPECT_EQ(test::count(*a, "CONF049"), 0);
}

// A topology.conf that is a symlink out of the include roots is refused like an Include.
TEST(TopologyConf, ConfinedLikeAnInclude) {
  std::map<std::string, std::string> tree{{"/elsewhere/topology.conf", kTree}};
  AnalyzeOptions o;
  o.includes.memory_tree = &tree;
  o.includes.maps = {{"/site", "/elsewhere"}};
  auto mapped = analyze_text("/site/slurm.conf", kSlurm, o);
  EXPECT_EQ(mapped->config.topology.switches.size(), 6u);
  std::map<std::string, std::string> include_out{{"/site/topology.conf", "Include /etc/secret.conf\n"},
                                                 {"/etc/secret.conf", "SwitchName=s Nodes=n1\n"}};
  o.includes.memory_tree = &include_out;
  o.includes.maps.clear();
  auto refused = analyze_text("/site/slurm.conf", kSlurm, o);
  EXPECT_EQ(test::count(*refused, "CONF048"), 1);
  EXPECT_TRUE(refused->config.topology.empty());
}

}  // namespace
}  // namespace sa
