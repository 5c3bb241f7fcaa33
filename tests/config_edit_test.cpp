// A fix is an edit of what slurm.conf says, resolved again: derived values follow as Slurm
// derives them, and the edit wins over whatever spelling or DEFAULT line set the key before.
#include "analyzer/config_edit.h"

#include <gtest/gtest.h>

#include "tests/test_util.h"

namespace sa {
namespace {

using test::analyze;
using test::analyze_body;

TEST(ConfigEdit, SchedulerParameterReplacesEveryItemSlurmWouldReadAsIt) {
  EXPECT_EQ(with_scheduler_parameter("", "bf_window", "60"), "bf_window=60");
  EXPECT_EQ(with_scheduler_parameter("bf_continue,BF_WINDOW=10,bf_window=20", "bf_window", "60"),
            "bf_continue,bf_window=60");
  // bf_window_linear is another option, not a spelling of bf_window.
  EXPECT_EQ(with_scheduler_parameter("bf_window_linear=5", "bf_window", "60"), "bf_window_linear=5,bf_window=60");
  EXPECT_EQ(with_scheduler_parameter("bf_window=60", "bf_continue", ""), "bf_window=60,bf_continue");
}

TEST(ConfigEdit, DerivedValuesFollowTheEditedSetting) {
  auto a = analyze_body("SchedulerParameters=bf_interval=45\n");
  ASSERT_TRUE(a->raw);
  EXPECT_EQ(a->config.scheduler.bf_node_space_size, 500);
  auto edited = resolve_edited(*a, {ConfigEdit::scheduler_parameter("bf_max_job_test", "900")});
  EXPECT_EQ(edited->scheduler.bf_max_job_test, 900);
  EXPECT_EQ(edited->scheduler.bf_node_space_size, 900);  // follows bf_max_job_test when not written
  EXPECT_EQ(edited->scheduler.bf_max_time, 45);          // still follows bf_interval
  auto timeout = resolve_edited(*a, {ConfigEdit::setting("messagetimeout", "40")});
  EXPECT_EQ(timeout->scheduler.message_timeout, 40);
  EXPECT_EQ(timeout->settings.at("messagetimeout").key, "MessageTimeout");
  EXPECT_EQ(a->config.scheduler.bf_max_job_test, 500);  // the analysis itself is untouched
}

TEST(ConfigEdit, PartitionKeyBeatsTheDefaultLine) {
  auto a = analyze(
      "ClusterName=c\nSlurmctldHost=h\nNodeName=n[1-2] CPUs=4 RealMemory=1000\n"
      "PartitionName=DEFAULT PriorityTier=5\nPartitionName=a Nodes=n1\nPartitionName=b Nodes=n2\n");
  auto edited = resolve_edited(*a, {ConfigEdit::partition_key("b", "PriorityTier", "1"),
                                    ConfigEdit::partition_key("b", "OverSubscribe", "FORCE:1")});
  ASSERT_EQ(edited->partitions.size(), 2u);
  EXPECT_EQ(edited->partitions[0].priority_tier, 5);
  EXPECT_EQ(edited->partitions[1].priority_tier, 1);
  EXPECT_EQ(edited->partitions[1].oversubscribe.mode, OverSubscribe::Mode::kForce);
  EXPECT_EQ(edited->partitions[1].oversubscribe.count, 1u);
}

}  // namespace
}  // namespace sa
