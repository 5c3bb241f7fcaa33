// Which lower partitions are meant to lose to a higher tier (rules/analysis/queue_pairs.h):
// TIER001 and TIER003 stay quiet on these designs. And what TIER004 says of an owner
// partition above a shared one: who preempts whom, or how long the owners can wait.
#include <fstream>

#include <gtest/gtest.h>

#include "cli_util.h"
#include "engine/site_loader.h"
#include "rules/analysis/queue_pairs.h"
#include "rules/framework/lint.h"
#include "tests/test_util.h"

namespace {

constexpr const char* kNodes = "NodeName=n[1-4] CPUs=8 RealMemory=32000 State=UNKNOWN\n";

bool loses(const std::string& body, const sa::QosTable* qos = nullptr) {
  auto a = sa::test::analyze_body(std::string(kNodes) + body);
  const sa::Config& c = a->config;
  return sa::rules::meant_to_lose(c, *c.find_partition("high"), *c.find_partition("low"), qos);
}

sa::QosTable scavenger_table() {
  sa::QosTable t;
  sa::QosRecord normal, scavenger;
  normal.name = "normal";
  normal.preempt = {"scavenger"};
  scavenger.name = "scavenger";
  t.records = {normal, scavenger};
  return t;
}

TEST(TierIntent, PreemptibleScavengerAndOwnerDesignsAreMeantToLose) {
  const std::string parts = "PartitionName=high Nodes=n[1-4] PriorityTier=10\n";
  // No preemption, no restriction: the tier order is a choice to judge on its evidence.
  EXPECT_FALSE(loses(parts + "PartitionName=low Nodes=n[1-4] Default=YES\n"));
  // partition_prio with a PreemptMode: the higher tier preempts the lower one.
  EXPECT_TRUE(loses("PreemptType=preempt/partition_prio\nPreemptMode=REQUEUE\n" + parts +
                    "PartitionName=low Nodes=n[1-4] Default=YES\n"));
  EXPECT_FALSE(loses("PreemptType=preempt/partition_prio\nPreemptMode=REQUEUE\n" + parts +
                     "PartitionName=low Nodes=n[1-4] Default=YES PreemptMode=OFF\n"));
  // preempt/qos: the lower partition runs under a QOS another QOS preempts.
  const sa::QosTable qos = scavenger_table();
  EXPECT_TRUE(loses("PreemptType=preempt/qos\nPreemptMode=REQUEUE\n" + parts +
                        "PartitionName=low Nodes=n[1-4] Default=YES QOS=scavenger\n",
                    &qos));
  EXPECT_TRUE(loses("PreemptType=preempt/qos\nPreemptMode=REQUEUE\n" + parts +
                        "PartitionName=low Nodes=n[1-4] Default=YES AllowQos=scavenger\n",
                    &qos));
  EXPECT_FALSE(loses("PreemptType=preempt/qos\nPreemptMode=REQUEUE\n" + parts +
                         "PartitionName=low Nodes=n[1-4] Default=YES AllowQos=scavenger,normal\n",
                     &qos));
  EXPECT_FALSE(loses("PreemptType=preempt/qos\nPreemptMode=REQUEUE\n" + parts +
                     "PartitionName=low Nodes=n[1-4] Default=YES QOS=scavenger\n"));  // no QOS table: unknown
  // An owner partition above the shared one, and above another group's partition on its nodes
  // (CliMA's sunshine over tensorlab's dgxlo); not above one for its own accounts only.
  EXPECT_TRUE(
      loses("PartitionName=high Nodes=n[1-2] PriorityTier=10 AllowAccounts=chem\n"
            "PartitionName=low Nodes=n[1-4] Default=YES\n"));
  EXPECT_TRUE(
      loses("PartitionName=high Nodes=n[1-2] PriorityTier=10 AllowAccounts=chem\n"
            "PartitionName=low Nodes=n[1-2] Default=YES AllowAccounts=bio\n"));
  EXPECT_TRUE(
      loses("PartitionName=high Nodes=n[1-2] PriorityTier=10 AllowAccounts=chem,phys\n"
            "PartitionName=low Nodes=n[1-2] Default=YES AllowAccounts=chem,bio\n"));
  EXPECT_FALSE(
      loses("PartitionName=high Nodes=n[1-2] PriorityTier=10 AllowAccounts=chem,phys\n"
            "PartitionName=low Nodes=n[1-2] Default=YES AllowAccounts=CHEM\n"));
}

// Rule `code` alone on `body` (after kNodes), with `qos_psv` as the QOS table when given.
sa::rules::Finding only_finding(const char* code, const std::string& body, const std::string& qos_psv = {}) {
  sa::engine::SitePaths paths;
  paths.conf = sa::test::write_temp("tier004.conf", "ClusterName=c\nSlurmctldHost=h\n" + std::string(kNodes) + body);
  if (!qos_psv.empty()) paths.qos = sa::test::write_temp("tier004_qos.psv", qos_psv);
  auto site = sa::engine::load_site(paths);
  EXPECT_TRUE(site.ok()) << site.error();
  sa::rules::LintOptions options;
  options.simulate = false;
  options.only = {code};
  const auto report = sa::rules::run_lint(**site, options);
  EXPECT_EQ(report.findings.size(), 1u);
  return report.findings.empty() ? sa::rules::Finding{} : report.findings[0];
}

sa::rules::Finding tier004(const std::string& body, const std::string& qos_psv = {}) {
  return only_finding("TIER004", body, qos_psv);
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

constexpr const char* kCondo =
    "PartitionName=gpu Nodes=n[1-4] Default=YES MaxTime=10-16:00:00 QOS=shared\n"
    "PartitionName=gpu_priority Nodes=n[1-4] PriorityTier=2 AllowGroups=priority QOS=owners\n";

TEST(Tier004, WithoutPreemptionTheOwnersWaitOutTheSharedPartitionsMaxTime) {
  const auto f = tier004(kCondo);
  EXPECT_EQ(f.severity, sa::Severity::kInfo);
  EXPECT_TRUE(has(f.message, "gpu (tier 1, 4 shared nodes, MaxTime=10-16:00:00)")) << f.message;
  EXPECT_TRUE(has(f.message, "so this group can wait up to 10-16:00:00 for them")) << f.message;
  ASSERT_TRUE(f.fix);
  EXPECT_TRUE(has(f.fix->description, "PreemptType=preempt/partition_prio and PreemptMode=REQUEUE"))
      << f.fix->description;
  // Under preempt/qos lint cannot tell without the QOS table, and the fix is the QOS's list.
  const auto q = tier004("PreemptType=preempt/qos\nPreemptMode=REQUEUE\n" + std::string(kCondo));
  EXPECT_EQ(q.severity, sa::Severity::kInfo);
  EXPECT_TRUE(has(q.message, "which lint sees only with --qos")) << q.message;
  ASSERT_TRUE(q.fix);
  EXPECT_TRUE(has(q.fix->description, "sacctmgr modify qos owners set Preempt+=shared")) << q.fix->description;
}

TEST(Tier004, AQosThatPreemptsTheSharedOnesMakesItAWarning) {
  const std::string header =
      "Name|Priority|GraceTime|Preempt|PreemptExemptTime|PreemptMode|Flags|UsageThres|UsageFactor\n";
  const std::string conf = "PreemptType=preempt/qos\nPreemptMode=REQUEUE\n" + std::string(kCondo);
  const auto f = tier004(conf, header + "owners|0|00:00:00|shared||cluster|||1.0\nshared|0|00:00:00||||||1.0\n");
  EXPECT_EQ(f.severity, sa::Severity::kWarning);
  EXPECT_TRUE(has(f.message, "with PreemptType=preempt/qos its jobs requeue the shared partitions' jobs")) << f.message;
  // The shared partition covers no node the owners do not: no "take the private nodes out".
  ASSERT_TRUE(f.fix);
  EXPECT_FALSE(has(f.fix->description, "take the private nodes out")) << f.fix->description;
  // A table where no QOS preempts 'shared': the owners wait.
  const auto w = tier004(conf, header + "owners|0|00:00:00|||cluster|||1.0\nshared|0|00:00:00||||||1.0\n");
  EXPECT_EQ(w.severity, sa::Severity::kInfo);
  EXPECT_TRUE(has(w.message, "with no preemption, the tier puts its jobs first only for nodes that are free"))
      << w.message;
}

// A tier per partition: TIER002 names the eight highest tiers and counts the rest; the
// finding's places still list every tier.
TEST(Tier002, ManyTiersAreNamedUpToEightAndCounted) {
  std::string body = "PriorityType=priority/multifactor\nPriorityWeightPartition=1000\n";
  for (int k = 1; k <= 12; ++k) {
    body += "PartitionName=p" + std::to_string(k) + " Nodes=n[1-4] PriorityTier=" + std::to_string(k) +
            " PriorityJobFactor=" + std::to_string(k) + (k == 1 ? " Default=YES\n" : "\n");
  }
  const auto f = only_finding("TIER002", body);
  EXPECT_TRUE(has(f.message, "tier 12: PriorityJobFactor=12")) << f.message;
  EXPECT_TRUE(has(f.message, "tier 5: PriorityJobFactor=5")) << f.message;
  EXPECT_FALSE(has(f.message, "tier 4: ")) << f.message;
  EXPECT_TRUE(has(f.message, "; and 4 more tiers)")) << f.message;
  EXPECT_EQ(f.related.size(), 12u);
}

}  // namespace
