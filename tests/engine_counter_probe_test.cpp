// The counter probe: what a backfill cycle, a main-loop run and a preemption report becomes
// in SimResult's counters and backfill log.
#include <gtest/gtest.h>

#include "engine/probe/counter_probe.h"

namespace sa {
namespace {

using engine::BackfillCycle;
using engine::BackfillTally;

TEST(CounterProbe, ABackfillCycleIsLoggedAndCountedByItsStop) {
  engine::CounterProbe probe;
  BackfillTally first{BackfillCycle{30, 12, 5, 2, BackfillCycle::Stop::kMaxTime}};
  first.reservations = 3;
  first.skipped_by_user_limit = 1;
  probe.backfill(first);
  probe.backfill(BackfillTally{BackfillCycle{60, 4, 0, 0, BackfillCycle::Stop::kEnd}});
  engine::SimResult r;
  probe.finish(r);
  EXPECT_EQ(r.counters.bf_cycles, 2U);
  EXPECT_EQ(r.counters.bf_queue_records, 16U);
  EXPECT_EQ(r.counters.bf_tests, 5U);
  EXPECT_EQ(r.counters.bf_reservations, 3U);
  EXPECT_EQ(r.counters.bf_skipped_by_user_limit, 1U);
  EXPECT_EQ(r.counters.bf_stopped_by_max_time, 1U);
  EXPECT_EQ(r.counters.bf_stopped_by_max_job_test, 0U);
  ASSERT_EQ(r.bf_log.size(), 2U);
  EXPECT_EQ(r.bf_log[0].at, 30);
  EXPECT_EQ(r.bf_log[0].started, 2U);
  EXPECT_EQ(r.bf_log[1].stop, BackfillCycle::Stop::kEnd);
}

TEST(CounterProbe, MainRunsStartsAndPreemptionsAreCounted) {
  engine::CounterProbe probe;
  probe.main_run(engine::MainStop::kEnd);
  probe.main_run(engine::MainStop::kQueueDepth);
  probe.main_run(engine::MainStop::kMaxSchedTime);
  probe.started(engine::StartedBy::kMain);
  probe.started(engine::StartedBy::kBackfill);
  probe.started(engine::StartedBy::kBackfill);
  probe.preempted(true, 100.0);
  probe.preempted(false, 50.0);
  probe.mapped(engine::MappedName::kQos);
  engine::SimResult r;
  probe.finish(r);
  EXPECT_EQ(r.counters.main_runs, 3U);
  EXPECT_EQ(r.counters.main_stopped_by_depth, 1U);
  EXPECT_EQ(r.counters.main_stopped_by_time, 1U);
  EXPECT_EQ(r.counters.main_starts, 1U);
  EXPECT_EQ(r.counters.bf_starts, 2U);
  EXPECT_EQ(r.counters.preempt_requeues, 1U);
  EXPECT_EQ(r.counters.preempt_cancels, 1U);
  EXPECT_DOUBLE_EQ(r.preempt_lost_cpu_seconds, 150.0);
  EXPECT_EQ(r.counters.mapped_qos, 1U);
  EXPECT_EQ(r.counters.mapped_users, 0U);
}

}  // namespace
}  // namespace sa
