// The pending queue in scheduling order (sort_job_queue2: preemptors, reservation jobs,
// PriorityTier, priority, submit time, job id), kept sorted across runs and re-sorted only
// after a priority pass; under preempt/qos re-sorted whole, as slurmctld does each pass.
#include <algorithm>

#include <fmt/format.h>

#include "engine/core/list_sort.h"
#include "engine/simulator.h"

namespace sa::engine {

bool Simulator::queue_less(const QueueEntry& a, const QueueEntry& b) const {
  const SimJob& ja = jobs_[a.job];
  const SimJob& jb = jobs_[b.job];
  const SimRecord& ra = ja.recs[a.rec];
  const SimRecord& rb = jb.recs[b.rec];
  // A job before one it may preempt (preempt_g_job_preempt_check; partition_prio's is the
  // tier order below), then jobs with a reservation. The preempt/qos test is pairwise and not
  // transitive (high may preempt low while normal preempts neither), hence list_order().
  if (pairwise_queue()) {
    if (preempt_.can_preempt(ra.part, ja.qos, ra.priority, rb.part, jb.qos, rb.priority)) return true;
    if (preempt_.can_preempt(rb.part, jb.qos, rb.priority, ra.part, ja.qos, ra.priority)) return false;
  }
  if ((ja.resv >= 0) != (jb.resv >= 0)) return ja.resv >= 0;
  const std::uint16_t ta = conf_.partitions[ra.part].priority_tier, tb = conf_.partitions[rb.part].priority_tier;
  if (ta != tb) return ta > tb;
  if (ra.priority != rb.priority) return ra.priority > rb.priority;
  if (ja.req.submit != jb.req.submit) return ja.req.submit < jb.req.submit;
  if (arrays_.any()) {
    // An array's tasks by the array's id and then task id (the meta record's behind its split tasks).
    const std::uint64_t ka = arrays_.order_key(ja), kb = arrays_.order_key(jb);
    if (ka != kb) return ka < kb;
    const std::uint32_t xa = ja.req.extra.get().array_task_id, xb = jb.req.extra.get().array_task_id;
    if (xa != xb) return xa < xb;
  } else if (ja.req.id != jb.req.id) {
    return ja.req.id < jb.req.id;
  }
  return a.rec < b.rec;
}

void Simulator::queue_insert(std::uint32_t j) {
  for (std::uint32_t r = 0; r < jobs_[j].recs.size(); ++r) {
    // A partition limit keeps the record out of the queue (_job_runnable_test2's
    // job_limits_check); an access list does not: slurmctld queues a record it denies and
    // only select_nodes refuses it, pass after pass (main_try, BackfillPass::run).
    const HoldReason hold = jobs_[j].recs[r].hold_reason;
    if (hold != HoldReason::kNone && !never_runs(hold)) continue;
    QueueEntry e{j, r};
    if (queue_dirty_ || pairwise_queue()) {
      queue_dirty_ = true;
      queue_.push_back(e);
    } else {
      auto at = std::upper_bound(queue_.begin(), queue_.end(), e,
                                 [this](const QueueEntry& x, const QueueEntry& y) { return queue_less(x, y); });
      queue_.insert(at, e);
    }
  }
}

void Simulator::queue_sort() {
  // Started and ended, or requeued (back at its BeginTime, on_eligible queues it again).
  std::erase_if(queue_, [this](const QueueEntry& e) { return !jobs_[e.job].eligible_pending(now_); });
  if (!queue_dirty_) return;
  auto before = [this](const QueueEntry& x, const QueueEntry& y) { return queue_less(x, y); };
  if (pairwise_queue()) {
    slurm_list_sort(queue_, before);  // slurmctld sorts its whole queue each pass
  } else if (!std::is_sorted(queue_.begin(), queue_.end(), before)) {
    // queue_less is a total order (job id and record break every tie), so a queue already in
    // it is the sort's one result: a priority pass that moved no job (a site without weights,
    // thousands queued) costs a walk instead of a sort.
    std::sort(queue_.begin(), queue_.end(), before);
  }
  queue_dirty_ = false;
}

std::size_t Simulator::queue_records() const {
  if (!arrays_.any()) return queue_.size();
  // A meta record's tasks after its first (they stand together, in task order) are not records.
  std::size_t n = 0;
  std::int32_t last_group = -1;
  std::uint32_t last_part = 0;
  for (const QueueEntry& e : queue_) {
    const SimJob& job = jobs_[e.job];
    const std::int32_t g = JobArrays::unsplit(job) ? arrays_.group_of(e.job) : -1;
    const std::uint32_t part = job.recs[e.rec].part;
    if (g < 0 || g != last_group || part != last_part) ++n;
    last_group = g;
    last_part = part;
  }
  return n;
}

bool Simulator::array_throttled(SimJob& job) {
  const std::int32_t g = arrays_.group_of(static_cast<std::uint32_t>(&job - jobs_.data()));
  if (g < 0 || !arrays_.throttled(g)) return false;
  set_reason(job, reason_id("JobArrayTaskLimit"),
             explained(job) ? fmt::format("array {} runs {} task(s), its --array limit (%{})", arrays_.id(g),
                                          arrays_.running(g), arrays_.max_run(g))
                            : std::string());
  return true;
}

const SimJob* Simulator::ahead_at_submit(const SimJob& job) const {
  // _top_priority() at submission: any other eligible pending job (not held by a limit or
  // a partition rule) outside reservations with a strictly higher priority makes the new
  // job show "Priority" from the start. Partitions do not enter into it: the same-
  // reservation test (both without one) comes first and decides.
  const std::uint32_t mine = job.recs.front().priority;
  if (mine >= priority_bound_) return nullptr;
  for (const QueueEntry& e : queue_) {
    const SimJob& other = jobs_[e.job];
    if (&other == &job || other.state != JobState::kPending || limit_reason_[other.reason]) continue;
    if (other.recs.front().priority > mine) return &other;
  }
  return nullptr;
}

}  // namespace sa::engine
