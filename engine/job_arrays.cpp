#include "engine/job_arrays.h"

#include <algorithm>
#include <map>

namespace sa::engine {

namespace {
constexpr std::uint32_t kNoTask = 0xfffffffe;  // NO_VAL: the meta record's (and a plain job's) array_task_id
}  // namespace

void JobArrays::bind(std::vector<SimJob>& jobs) {
  std::map<std::uint32_t, std::int32_t> by_id;  // (ordered: group indices follow the load, not a hash)
  for (std::uint32_t j = 0; j < jobs.size(); ++j) {
    const RequestExtras& x = jobs[j].req.extra.get();
    if (x.array_job_id == 0) continue;
    if (group_.empty()) group_.assign(jobs.size(), -1);
    auto [it, added] = by_id.try_emplace(x.array_job_id, static_cast<std::int32_t>(groups_.size()));
    if (added) groups_.push_back(Group{x.array_job_id, 0, 0, 0});
    Group& g = groups_[static_cast<std::size_t>(it->second)];
    // Every task's row carries the SubmitLine; one without it leaves the throttle others gave.
    if (g.max_run == 0) g.max_run = x.array_max_run;
    if (jobs[j].state != JobState::kRejected) ++g.unsplit;
    group_[j] = it->second;
  }
  // A throttled task's recorded Eligible is when an earlier task made room for it
  // (job_array_start_test clears its begin time): the throttle decides that here.
  for (std::uint32_t j = 0; j < group_.size(); ++j) {
    SimJob& job = jobs[j];
    if (group_[j] >= 0 && groups_[static_cast<std::size_t>(group_[j])].max_run != 0 && !job.req.begin_set)
      job.begin = job.req.submit;
  }
}

std::uint64_t JobArrays::order_key(const SimJob& job) const {
  const RequestExtras& x = job.req.extra.get();
  if (x.array_job_id == 0) return std::uint64_t{job.req.id} << 32 | kNoTask;
  // sort_job_queue2 compares the array's id, then the record's task id: a split task's own,
  // NO_VAL for the meta record. The meta record's tasks stand in task order behind it, so
  // the first is the one slurmctld would split off (bit_ffs of the task bitmap).
  const std::uint32_t task = unsplit(job) ? kNoTask : x.array_task_id;
  return std::uint64_t{x.array_job_id} << 32 | task;
}

void JobArrays::started(std::uint32_t j, bool first) {
  const std::int32_t g = group_of(j);
  if (g < 0) return;
  Group& a = groups_[static_cast<std::size_t>(g)];
  ++a.running;
  if (first && a.unsplit > 0) --a.unsplit;
}

void JobArrays::stopped(std::uint32_t j) {
  const std::int32_t g = group_of(j);
  if (g >= 0 && groups_[static_cast<std::size_t>(g)].running > 0) --groups_[static_cast<std::size_t>(g)].running;
}

void JobArrays::cancelled_unstarted(std::uint32_t j) {
  const std::int32_t g = group_of(j);
  if (g >= 0 && groups_[static_cast<std::size_t>(g)].unsplit > 0) --groups_[static_cast<std::size_t>(g)].unsplit;
}

ArrayWalk::Step ArrayWalk::step(const SimJob& job, std::uint32_t j, std::uint32_t part, std::uint16_t& head_reason,
                                bool& head_tested) {
  const std::int32_t g = arrays_.group_of(j);
  if (g < 0) return Step::kNotArray;
  const bool rejected = reject_group_ == g && reject_part_ == part;
  if (JobArrays::unsplit(job)) {
    if (meta_group_ == g && meta_part_ == part) {
      // A later task of the meta record being walked: tested only as its next task.
      if (meta_open_) {
        meta_open_ = false;
        tested_meta_ = true;
        reject_group_ = g;  // (the start or reservation cleared it; next_task sets it again)
        reject_part_ = part;
        return Step::kNextTask;
      }
      head_reason = meta_reason_;
      head_tested = meta_tested_;
      return Step::kSkip;
    }
    // The meta record itself, popped from the queue.
    meta_group_ = g;
    meta_part_ = part;
    meta_open_ = false;
    meta_tested_ = false;
    if (rejected) {  // another record of the array failed in this partition
      meta_reason_ = head_reason = reject_reason_;
      head_tested = false;
      return Step::kSkip;
    }
  } else if (rejected) {
    head_reason = reject_reason_;
    head_tested = false;
    return Step::kSkip;
  }
  // "assume reject whole array for now, clear if OK"
  reject_group_ = g;
  reject_part_ = part;
  tested_meta_ = JobArrays::unsplit(job);
  return Step::kRecord;
}

void ArrayWalk::outcome(const SimJob& job, bool started, bool reserved, bool next_allowed, bool tested) {
  // A start, or a reservation, clears the assumed reject; anything else leaves it, and the
  // array's later records in the partition show this one's Reason (fill_array_reasons).
  if (started || reserved)
    reject_group_ = -1;
  else
    reject_reason_ = job.reason;
  meta_open_ = tested_meta_ && (started || (reserved && next_allowed));
  meta_reason_ = job.reason;
  meta_tested_ = meta_tested_ || tested;
}

}  // namespace sa::engine
