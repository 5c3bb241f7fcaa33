// Checks added after the corpus review (tests/corpus_expectations.tsv): each pins one thing
// Slurm rejects or silently misreads.
#include <gtest/gtest.h>

#include "tests/test_util.h"

namespace sa {
namespace {

using test::analyze_body;

TEST(Checks, ReadingGoesOnAfterTemplateLines) {
  auto a = analyze_body("{% if gpu %}\nPartitionName=p Nodes=zz\n<%= @x %>\nCacheGroups=1\n");
  EXPECT_EQ(test::count(*a, "CONF001"), 2);
  EXPECT_EQ(test::count(*a, "CONF017"), 1);
  EXPECT_EQ(test::count(*a, "CONF004"), 1);
}

TEST(Checks, ExactOptionListsAreFatal) {
  auto a = analyze_body("TaskPluginParam=Sched\nPrologFlags=Alloc,Contian\n");
  EXPECT_EQ(test::count(*a, "CONF019"), 2);
  EXPECT_TRUE(a->diagnostics.has_errors());
  auto old_slurm =
      test::analyze("ClusterName=c\nSlurmctldHost=h\nNodeName=n RealMemory=9\nTaskPluginParam=Sched\n", "20.11");
  EXPECT_EQ(test::count(*old_slurm, "CONF019"), 0);
  // The word tables start at 20.11, so a word gone after it is said to be removed, not to
  // "exist in 20.11 to 20.11"; a word too new for the version checked says where it begins.
  const Diagnostic* sched = test::first(*a, "CONF019");
  ASSERT_TRUE(sched);
  EXPECT_NE(sched->message.find("'Sched' in Slurm 24.05 (it was removed after 20.11)"), std::string::npos)
      << sched->message;
  EXPECT_EQ(sched->hint, "remove 'Sched' from TaskPluginParam");
  auto newer =
      test::analyze("ClusterName=c\nSlurmctldHost=h\nNodeName=n RealMemory=9\nPrologFlags=RunInJob\n", "22.05");
  const Diagnostic* run_in_job = test::first(*newer, "CONF019");
  ASSERT_TRUE(run_in_job);
  EXPECT_NE(run_in_job->message.find("word 'RunInJob' in Slurm 22.05 (it is new in 24.05)"), std::string::npos)
      << run_in_job->message;
}

TEST(Checks, AccountingStorageEnforceBecameExactIn2108) {
  auto strict = analyze_body("AccountingStorageEnforce=associations,limit,qos\n");
  EXPECT_TRUE(strict->diagnostics.has_errors());
  auto lax = test::analyze(
      "ClusterName=c\nSlurmctldHost=h\nNodeName=n RealMemory=9\n"
      "AccountingStorageEnforce=associations,limit,qos\n",
      "20.11");
  // 20.11 searched for "limits" in the value, did not find it, and silently enforced no limits.
  EXPECT_FALSE(lax->diagnostics.has_errors());
  EXPECT_EQ(test::count(*lax, "CONF019"), 1);
}

TEST(Checks, NumericEnforceWordsSetWhatSlurmSets) {
  // read_config.c: 2 is limits (with associations), 1 is associations alone.
  auto two = analyze_body("AccountingStorageEnforce=2\n");
  EXPECT_TRUE(two->config.accounting.enforces("limits"));
  EXPECT_TRUE(two->config.accounting.enforces("associations"));
  EXPECT_FALSE(two->config.accounting.enforces("qos"));
  auto one = analyze_body("AccountingStorageEnforce=1\n");
  EXPECT_FALSE(one->config.accounting.enforces("limits"));
  EXPECT_TRUE(one->config.accounting.enforces("associations"));
  auto safe = analyze_body("AccountingStorageEnforce=Safe\n");
  EXPECT_TRUE(safe->config.accounting.enforces("limits"));
}

TEST(Checks, AFatalRemovedKeyWithoutAReplacementSaysRemoveIt) {
  auto a = analyze_body("AccountingStorageLoc=/var/log/slurm/accounting\n");
  const Diagnostic* loc = test::first(*a, "CONF004");
  ASSERT_TRUE(loc);
  EXPECT_NE(loc->message.find("is no longer accepted by Slurm 24.05"), std::string::npos) << loc->message;
  EXPECT_EQ(loc->hint, "remove it");
}

TEST(Checks, SubstringListsAcceptPlurals) {
  auto a = analyze_body("PrivateData=jobs,users,accounts\n");
  EXPECT_EQ(test::count(*a, "CONF019"), 0);
  auto b = analyze_body("PrivateData=cloud\n");  // gone after 22.05
  EXPECT_EQ(test::count(*b, "CONF019"), 1);
  EXPECT_FALSE(b->diagnostics.has_errors());
}

TEST(Checks, OctalLicensesAndShadowedAliases) {
  auto a = analyze_body(
      "HealthCheckInterval=03600\nLicenses=intel*2,matlab:3\n"
      "NodeName=n1 RealMemory=10 CPUs=4 Procs=2 Feature=a Features=b\n");
  const Diagnostic* octal = test::first(*a, "CONF046");
  ASSERT_TRUE(octal);
  EXPECT_NE(octal->message.find("1920, not 3600"), std::string::npos);
  const Diagnostic* lic = test::first(*a, "CONF009");
  ASSERT_TRUE(lic);
  EXPECT_EQ(lic->hint, "write intel:2");
  EXPECT_EQ(test::count(*a, "CONF010"), 2);
  EXPECT_EQ(a->config.nodes[0].cpus, 4u);
  EXPECT_EQ(a->config.nodes[0].features, std::vector<std::string>{"a"});
}

TEST(Checks, PluginSpecialCases) {
  auto route = analyze_body("RoutePlugin=route/topology\n");
  EXPECT_FALSE(route->diagnostics.has_errors());
  EXPECT_EQ(test::count(*route, "CONF020"), 1);
  auto mysql = analyze_body("AccountingStorageType=accounting_storage/mysql\n");
  EXPECT_TRUE(mysql->diagnostics.has_errors());
  auto site = analyze_body("JobSubmitPlugins=lua,my_site_plugin\n");
  EXPECT_FALSE(site->diagnostics.has_errors());
  EXPECT_EQ(test::count(*site, "CONF020"), 1);
}

TEST(Checks, NoNodesFrontendAndAddresses) {
  auto none = test::analyze("ClusterName=c\nSlurmctldHost=h\nPartitionName=p Nodes=ALL\n");
  EXPECT_EQ(test::count(*none, "CONF047"), 1);
  auto fe = analyze_body("FrontendName=fe1\n");
  EXPECT_TRUE(fe->diagnostics.has_errors());
  auto one_addr = analyze_body("NodeName=n[1-8] NodeAddr=sim RealMemory=10\n");
  EXPECT_FALSE(one_addr->diagnostics.has_errors());
  EXPECT_EQ(test::count(*one_addr, "CONF012"), 1);
  auto bcast = analyze_body("NodeName=n[1-8] BcastAddr=b[1-2] RealMemory=10\n");
  EXPECT_TRUE(bcast->diagnostics.has_errors());
}

TEST(Checks, HashRightAfterEquals) {
  auto a = analyze_body("SlurmctldPort=#PORT\n");
  const Diagnostic* d = test::first(*a, "CONF001");
  ASSERT_TRUE(d);
  EXPECT_NE(d->message.find("'#' starts a comment"), std::string::npos);
}

TEST(Checks, DebugLevels) {
  EXPECT_TRUE(analyze_body("SlurmctldDebug=loud\n")->diagnostics.has_errors());
  EXPECT_FALSE(analyze_body("SlurmctldDebug=debug3\nSlurmdDebug=info\n")->diagnostics.has_errors());
}

}  // namespace
}  // namespace sa
