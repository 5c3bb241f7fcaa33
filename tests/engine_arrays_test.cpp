// Job arrays in the engine (engine/job_arrays.h): an array's unstarted tasks are one queue
// record, backfill plans at most bf_max_job_array_resv of them, %N throttles them, and they
// are ordered by the array's id and task id (tests/golden/mini_slurm_fidelity/job_arrays is
// the real 22.05 run behind these rules). All weights are 0: priorities come from nice.
#include <gtest/gtest.h>

#include "tests/engine_test_util.h"

namespace sa {
namespace {

using test::find_job;
using test::job;

const std::string kSite =
    "NodeName=n[1-4] CPUs=4 RealMemory=4000\nSelectTypeParameters=CR_Core\n"
    "PartitionName=p Nodes=n[1-4] Default=YES MaxTime=UNLIMITED\n";

engine::JobRequest task(std::uint32_t id, std::uint32_t array, std::uint32_t task_id, std::int64_t submit,
                        std::uint32_t cpus, std::int64_t run, std::int64_t limit, std::int32_t nice = 0,
                        std::uint32_t max_run = 0) {
  engine::JobRequest j = job(id, submit, cpus, run, limit, "p", nice);
  engine::RequestExtras& x = j.extra.edit();
  x.array_job_id = array;
  x.array_task_id = task_id;
  x.array_max_run = max_run;
  return j;
}

// Job 1 holds n[1-2] until 1200 by its limit, job 2 n3 until 1800; n4 is free. Array 100's
// tasks want two whole nodes for 1200 s: task 1 is planned on n[1-2] at 1200, task 2 on
// n[3-4] at 1800. Job 10 (4 CPUs, limit 2000) fits on n4 now only if task 2 has no plan
// there: with bf_max_job_array_resv=1 it starts in the first cycle; with the default 20 it
// waits until the array's tasks have run.
TEST(EngineArrays, BackfillPlansAtMostBfMaxJobArrayResvTasks) {
  std::vector<engine::JobRequest> jobs = {
      job(1, 0, 8, 1100, 1200, "p"),           job(2, 0, 4, 1700, 1800, "p"),
      task(20, 100, 1, 5, 8, 100, 1200, -100), task(21, 100, 2, 5, 8, 100, 1200, -100),
      task(22, 100, 3, 5, 8, 100, 1200, -100), job(10, 5, 4, 100, 2000, "p", -1)};
  for (engine::JobRequest& j : jobs) j.nodes = j.cpus / 4;
  test::SimSite one(kSite + "SchedulerParameters=bf_interval=30,bf_resolution=60,bf_max_job_array_resv=1\n");
  const auto r1 = one.run(jobs);
  EXPECT_EQ(find_job(r1, 10).start, 30);
  EXPECT_EQ(find_job(r1, 10).started_by, engine::StartedBy::kBackfill);
  test::SimSite twenty(kSite + "SchedulerParameters=bf_interval=30,bf_resolution=60\n");
  const auto r20 = twenty.run(jobs);
  EXPECT_GT(find_job(r20, 10).start, 1100);
  // The array is one record of the queue, tested once a cycle with one plan (resv=1) or a
  // test and a plan per task (resv=20: three).
  for (const engine::BackfillCycle& c : r1.bf_log) {
    if (c.at < 30) continue;
    EXPECT_EQ(c.depth, 2U) << c.at;
    break;
  }
  EXPECT_LT(r1.counters.bf_tests, r20.counters.bf_tests);
}

// --array=1-4%2: two tasks run at a time, the others show JobArrayTaskLimit; each starts when
// one ends. Raw ids follow the split order (the last task keeps the array's id), but tasks
// start in task order.
TEST(EngineArrays, TheThrottleRunsNTasksAtATimeInTaskOrder) {
  test::SimSite s(kSite + "SchedulerParameters=bf_interval=30\n");
  const auto r = s.run({task(5, 5, 4, 0, 1, 100, 600, 0, 2), task(6, 5, 1, 0, 1, 100, 600, 0, 2),
                        task(7, 5, 2, 0, 1, 100, 600, 0, 2), task(8, 5, 3, 0, 1, 100, 600, 0, 2)});
  EXPECT_EQ(find_job(r, 6).start, 1);  // task 1
  EXPECT_EQ(find_job(r, 7).start, 1);  // task 2
  EXPECT_EQ(find_job(r, 8).start, find_job(r, 6).end);
  EXPECT_EQ(find_job(r, 5).start, find_job(r, 7).end);
  bool shown = false;
  for (const engine::ReasonSpan& sp : find_job(r, 5).reasons)
    shown = shown || r.reason_name(sp.reason) == "JobArrayTaskLimit";
  EXPECT_TRUE(shown);
  // Backfill reached the waiting tasks' record (the throttle held it, not bf_max_job_test):
  // they do not count as never reached by backfill.
  EXPECT_TRUE(find_job(r, 5).bf_tested);
  EXPECT_TRUE(find_job(r, 8).bf_tested);
  // explain's detail says which array and limit.
  engine::SimOptions explain;
  explain.explain_jobs = {5};
  const auto e = s.run({task(5, 5, 4, 0, 1, 100, 600, 0, 2), task(6, 5, 1, 0, 1, 100, 600, 0, 2),
                        task(7, 5, 2, 0, 1, 100, 600, 0, 2), task(8, 5, 3, 0, 1, 100, 600, 0, 2)},
                       explain);
  std::string detail;
  for (const engine::ReasonSpan& sp : find_job(e, 5).reasons) {
    if (e.reason_name(sp.reason) == "JobArrayTaskLimit") detail = e.reason_detail(sp);
  }
  EXPECT_EQ(detail, "array 5 runs 2 task(s), its --array limit (%2)");
}

// Without a throttle every task that fits starts in the same pass, in task order: with room
// for two, tasks 1 and 2 (raw ids 7 and 8) start and task 3 (raw id 6) waits.
TEST(EngineArrays, TasksStartInTaskOrderNotRawIdOrder) {
  test::SimSite s(kSite);
  const auto r = s.run({job(1, 0, 8, 500, 600, "p"), task(6, 6, 3, 10, 4, 100, 600), task(7, 6, 1, 10, 4, 100, 600),
                        task(8, 6, 2, 10, 4, 100, 600)});
  EXPECT_EQ(find_job(r, 7).start, find_job(r, 8).start);
  EXPECT_LT(find_job(r, 7).start, 100);
  EXPECT_GE(find_job(r, 6).start, find_job(r, 7).end);
}

// A job that is no array task orders as before: by job id when priority and submit tie.
TEST(EngineArrays, PlainJobsKeepTheirIdOrderBesideArrays) {
  test::SimSite s(kSite);
  const auto r = s.run({job(1, 0, 16, 500, 600, "p"), job(3, 10, 16, 100, 600, "p"), job(2, 10, 16, 100, 600, "p"),
                        task(9, 9, 1, 20, 16, 100, 600)});
  EXPECT_EQ(find_job(r, 2).start, find_job(r, 1).end);
  EXPECT_EQ(find_job(r, 3).start, find_job(r, 2).end);
  EXPECT_EQ(find_job(r, 9).start, find_job(r, 3).end);
}

}  // namespace
}  // namespace sa
