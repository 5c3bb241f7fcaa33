// slurmctld's periodic time-limit test (controller.c _slurmctld_background, every
// PERIODIC_TIMEOUT = 30 s, calling job_mgr.c job_time_limit): a running job past its limit
// (plus OverTimeLimit) is killed at the first test that finds it so, not at the limit, and a
// preempted job whose GraceTime is over is stopped there at the latest. Real runs show it:
// the time_min capture's 60-s job ran 80 s (TIMEOUT at the test of 02:37:00), p2's job 2 was
// requeued 0.5 s after its grace ended because a test fell there.
#include <algorithm>

#include "engine/simulator.h"

namespace sa::engine {

namespace {

// The background thread starts in the second after slurmctld's boot and tests limits once 30 s
// have passed since: every capture shows its first test 31 s after the boot second (p2 at
// 21:52:08.475 for a boot at 21:51:37.549, time_min at 02:36:00.672 for 02:35:29.798), then
// every 30 s (the loop's few ms of drift a test are not modelled). The engine's clock starts
// where slurmctld's would.
constexpr std::int64_t kFirstTest = 31;
constexpr std::int64_t kPeriod = 30;
constexpr std::int64_t kInfinite16 = 0xFFFF;  // OverTimeLimit=UNLIMITED
constexpr std::int64_t kYearSeconds = 365LL * 24 * 3600;

}  // namespace

std::int64_t Simulator::limit_check_at(std::int64_t t) const {
  const std::int64_t first = result_.start + kFirstTest;
  if (t <= first) return first;
  return first + (t - first + kPeriod - 1) / kPeriod * kPeriod;
}

std::int64_t Simulator::over_time(std::uint32_t part) const {
  const std::int64_t minutes = conf_.partitions[part].over_time_limit.value_or(conf_.over_time_limit);
  // job_time_limit: UNLIMITED puts the kill a year out.
  return minutes >= kInfinite16 ? kYearSeconds : minutes * 60;
}

std::int64_t Simulator::run_end(std::int64_t left, std::int64_t limit_end, std::int64_t over) const {
  const std::int64_t own = now_ + std::max<std::int64_t>(left, 0);
  if (limit_end == kNoTime) return own;
  // job_time_limit kills a job once end_time <= now - OverTimeLimit (a preempted job once its
  // grace end has passed), at the first test from now on (one resumed past it goes at the next).
  return std::min(own, limit_check_at(std::max(limit_end + over, now_)));
}

std::int64_t Simulator::overdue_end(const PlannedEnd& e) const {
  const SimJob& job = jobs_[e.job];
  const std::uint32_t part = job.recs[static_cast<std::size_t>(job.run_rec)].part;
  const std::int64_t over = over_time(part);
  if (over >= kYearSeconds) {
    // No idea when it ends: its limit from now, else a year.
    const std::int64_t limit = run_time_limit(job);
    return now_ + (limit > 0 ? limit : kYearSeconds);
  }
  return e.end + conf_.scheduler.kill_wait + over;
}

void Simulator::on_grace_end(std::uint32_t j) {
  // A limit test after the grace period: slurm_job_preempt() on a job whose preempt_time is
  // set stops it once its end_time (PreemptTime + GraceTime) has passed.
  SimJob& job = jobs_[j];
  if (job.state != JobState::kRunning || job.rare.get().preempt_time == kNoTime || now_ < job.limit_end) return;
  // job_time_limit skips a suspended job: gang suspended it over its grace end, and the
  // test after its resume stops it (Simulator::resume plans that end, on_end acts on it).
  if (job.rare.get().suspended) return;
  std::uint32_t by = 0;
  const RareVec<JobEvent>& events = job.rare.get().events;
  for (auto it = events.rbegin(); it != events.rend(); ++it) {
    if (it->kind == JobEvent::Kind::kPreemptGrace) {
      by = it->by;
      break;
    }
  }
  stop_preempted(j, by);
}

}  // namespace sa::engine
