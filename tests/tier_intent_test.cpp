// Which lower partitions are meant to lose to a higher tier (rules/analysis/queue_pairs.h):
// TIER001 and TIER003 stay quiet on these designs.
#include <gtest/gtest.h>

#include "rules/analysis/queue_pairs.h"
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

}  // namespace
