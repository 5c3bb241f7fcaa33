// slurmctld's periodic time-limit test (engine/core/limit_check.cpp) and what backfill's
// will-run test guesses for a job past its planned end (release_in_batches' overdue ends).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "engine/bf_profile.h"
#include "engine_test_util.h"

namespace sa {
namespace {

using test::find_job;
using test::job;

const std::string kSite =
    "NodeName=n[1-4] CPUs=4 RealMemory=4000\nSchedulerType=sched/builtin\n"
    "PartitionName=p Nodes=n[1-4] Default=YES MaxTime=UNLIMITED\n";

// The clock starts at the first submission (0): limit tests at 31, 61, ..., 301, 331. The jobs
// start at 1 (the main loop the submissions trigger), so a 290-s limit ends at 291.
TEST(EngineLimitCheck, AJobPastItsLimitRunsToTheNextLimitTest) {
  test::SimSite s(kSite);
  auto r = s.run({job(1, 0, 4, 500, 290, "p"), job(2, 0, 4, 295, 290, "p"), job(3, 0, 4, 290, 290, "p")});
  ASSERT_EQ(find_job(r, 1).start, 1);
  // Killed by the test at 301, the first at or after its end_time (291).
  EXPECT_EQ(find_job(r, 1).end, 301);
  EXPECT_EQ(find_job(r, 1).end_state, engine::EndState::kTimeout);
  // Its own work ends before that test but after end_time: job_complete records TIMEOUT.
  EXPECT_EQ(find_job(r, 2).end, 296);
  EXPECT_EQ(find_job(r, 2).end_state, engine::EndState::kTimeout);
  // Ending exactly at its limit is a completion.
  EXPECT_EQ(find_job(r, 3).end, 291);
  EXPECT_EQ(find_job(r, 3).end_state, engine::EndState::kCompleted);
}

TEST(EngineLimitCheck, OverTimeLimitMovesTheKillToTheTestAfterItsEnd) {
  // OverTimeLimit=1: killed once end_time (291) <= now - 60, so at the test of 361; a run that
  // ends by 351 is within its allowance and completes.
  test::SimSite s(kSite + "OverTimeLimit=1\n");
  auto r = s.run({job(1, 0, 4, 500, 290, "p"), job(2, 0, 4, 340, 290, "p")});
  EXPECT_EQ(find_job(r, 1).end, 361);
  EXPECT_EQ(find_job(r, 1).end_state, engine::EndState::kTimeout);
  EXPECT_EQ(find_job(r, 2).end, 341);
  EXPECT_EQ(find_job(r, 2).end_state, engine::EndState::kCompleted);
}

struct End {
  std::int64_t end;
  std::int64_t overdue;
};

/// release_in_batches over `ends` (every end touches the job) where the job fits once the
/// first `needed` ends are released; the predicted start, or -1 when it never fits.
std::int64_t predicted(const std::vector<End>& ends, std::int64_t now, std::size_t needed) {
  std::int64_t pred = -1;
  const bool ok = engine::release_in_batches(
      ends, now, 0, [](std::size_t) { return true; }, [](std::size_t) {},
      [needed](std::size_t p) { return p >= needed; }, [&](std::size_t k) { return ends[k].overdue; }, pred);
  return ok ? pred : -1;
}

TEST(EngineLimitCheck, BatchesFollowThePlannedEndsEvenWhenTheyHavePassed) {
  // A job suspended by gang keeps the end_time it had (job_suspend), so its planned end may
  // lie hours back; _will_run_test aligns its windows on it all the same. From 32,400 the
  // first window closes at 32,430 and doubles to 3,840 s before the next end (36,100) fits
  // in it, so that end and 36,200 are released together and the start is the later one.
  // (Windows starting from now would have released 36,100 alone and predicted it.)
  const std::int64_t now = 36000;
  EXPECT_EQ(predicted({{32400, 32430}, {36100, 0}, {36200, 0}}, now, 2), 36200);
}

TEST(EngineLimitCheck, AnEndThatHasPassedIsGuessedWithKillWaitAndOverTimeLimit) {
  // _guess_job_end: end_time + KillWait (+ OverTimeLimit), at least now + 1.
  const std::int64_t now = 1000;
  EXPECT_EQ(predicted({{990, 990 + 30}}, now, 1), 1020);
  EXPECT_EQ(predicted({{900, 900 + 30}}, now, 1), 1001);
  EXPECT_EQ(predicted({{1200, 1230}}, now, 1), 1200);  // not passed: its own end
}

}  // namespace
}  // namespace sa
