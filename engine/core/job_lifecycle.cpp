// What happens to a job on the cluster: submission (job_allocate's checks and Reason),
// eligibility, start (resources taken, limits charged, end planned), end, requeue, and the
// main-loop triggers those events fire (job_sched_cnt, batch_sched_delay, the direct run at
// a completion). These are the only places a job's state and the pool's allocations change.
#include <algorithm>

#include <fmt/format.h>

#include "engine/policy/task_layout.h"
#include "engine/simulator.h"

namespace sa::engine {

namespace {

constexpr std::int64_t kYear = 525600LL * 60;  // backfill's plan for jobs without a limit

}  // namespace

void Simulator::on_submit(std::uint32_t j) {
  SimJob& job = jobs_[j];
  while (submit_cursor_ < jobs_.size() && jobs_[submit_cursor_].req.submit <= now_) ++submit_cursor_;
  if (job.state == JobState::kRejected) return;
  if (limits_.active()) {
    if (refuse_over_submit_limits(job)) return;
    limits_.add_submit(limit_key(job, job.recs.front()));
  }
  job.state = JobState::kPending;
  set_reason(job, kReasonNone);
  if (const std::int64_t at = job.req.extra.get().cancelled_at; at != kNoTime) {
    events_.push(std::max(at, now_), EventType::kCancel, j);
    ++future_cancels_;
  }
  // ACCRUE_ALWAYS counts age from submission, held or not; otherwise from its begin time.
  if (conf_.priority.flags.accrue_always) job.accrue = job.req.submit;
  active_.push_back(j);
  ++active_jobs_;
  compute_priority(job, false);
  if (hold_until_ready(j)) {  // a hold or a dependency: out of the queue until it clears
    bf_changed_ = true;
    return;
  }
  // job_allocate() runs job_independent() at submission, which sets begin_time and from it
  // accrue_time; the submit-time priority above was computed before that, with age 0.
  if (job.begin <= now_ && job.accrue == kNoTime) job.accrue = job.begin;
  if (job.begin <= now_) {
    if (job.resv >= 0 && !resv_->active(job.resv, now_)) {
      set_reason(job, kReasonReservation);  // job_independent(): reservation not active yet
    } else if (const SimJob* ahead = ahead_at_submit(job)) {
      set_reason(job, kReasonPriority,
                 explained(job) ? fmt::format("job {} (priority {}) was ahead at submission", job_label(ahead->req),
                                              ahead->recs.front().priority)
                                : std::string());
    }
    if (job.resv < 0) submit_select_reason(job);
    queue_insert(j);
    trigger_main();
  } else {
    // job_independent(): begin time in the future; a held job shows its hold until the
    // release the trace recorded as its eligible time.
    set_reason(job, job.req.hold ? reason_id("JobHeldUser") : std::uint16_t{kReasonBeginTime});
    events_.push(job.begin, EventType::kEligible, j);
    ++future_eligible_;
  }
  // A job whose every partition record is held shows the partition's reason (BadConstraints
  // only once the main loop reaches it). One that fails a partition limit (job_limits_check)
  // shows PartitionConfig until the next pass: job_allocate's _select_nodes_parts keeps its
  // initial ESLURM_REQUESTED_PART_CONFIG_UNAVAILABLE when the limits fail under
  // EnforcePartLimits=NO (22.05 and 24.05), and only build_job_queue's job_limits_check sets the
  // limit's own Reason (the max_mem_lax capture: PartitionConfig at +1 and +2, MaxMemPerLimit
  // from +3).
  if (std::all_of(job.recs.begin(), job.recs.end(), [](const SimRecord& r) {
        return r.hold_reason != HoldReason::kNone && r.hold_reason != HoldReason::kBadConstraints;
      })) {
    if (std::all_of(job.recs.begin(), job.recs.end(), [](const SimRecord& r) { return limit_hold(r.hold_reason); })) {
      set_reason(job, reason_id("PartitionConfig"));
      limit_reason_due_.push_back(j);
    } else {
      set_reason(job, reason_id(hold_reason_text(job, job.recs.front())));
    }
  }
  bf_changed_ = true;
}

void Simulator::on_eligible(std::uint32_t j) {
  if (jobs_[j].state != JobState::kPending) return;
  if (jobs_[j].accrue == kNoTime) jobs_[j].accrue = jobs_[j].begin;
  // BeginTime stays until a scheduling pass sets another Reason: job_independent() only
  // ever sets WAIT_TIME (the captured requeue shows BeginTime up to the restart). The release
  // of a held job clears its Reason (job_mgr.c _release_job_rec: WAIT_NO_REASON).
  if (jobs_[j].req.hold && jobs_[j].reason == reason_id("JobHeldUser")) set_reason(jobs_[j], kReasonNone);
  queue_insert(j);
  trigger_main();
  bf_changed_ = true;
}

void Simulator::on_end(std::uint32_t j) {
  SimJob& job = jobs_[j];
  // A run cut short by a DOWN node leaves its end event behind: it no longer applies.
  if (job.state != JobState::kRunning || job.planned_end != now_) return;
  // Cut short at a limit test while its preemption's grace runs out: the test preempts it
  // (job_time_limit's preempt_time branch), whatever path planned the end.
  if (job.rare.get().preempt_time != kNoTime && job.ran(now_) < job.req.run_time && now_ >= job.limit_end) {
    on_grace_end(j);
    return;
  }
  const std::int64_t cancelled_at = job.req.extra.get().cancelled_at;
  // A run cut short is TIMEOUT, and so is one whose own end comes after its end_time plus
  // OverTimeLimit (job_complete; a preempted job's end_time is its grace end: p2x jobs 3, 4).
  const std::uint32_t part = job.recs[static_cast<std::size_t>(job.run_rec)].part;
  const bool late = job.limit_end != kNoTime && now_ > job.limit_end + over_time(part);
  finish_job(j, cancelled_at != kNoTime && now_ >= cancelled_at ? EndState::kCancelled
                : job.ran(now_) < job.req.run_time || late      ? EndState::kTimeout
                                                                : EndState::kCompleted);
  trigger_direct();
  bf_changed_ = true;
}

// The load's recorded scancel of a job that never started there. Still pending here, it leaves
// the queue (the queue drops it at its next sort) with what it held: its submit-limit count,
// and the jobs that depend on it (afterok never, afternotok and afterany now, as slurmctld
// treats a cancelled job). A run started earlier here ends at the same time (start_job).
void Simulator::on_cancel(std::uint32_t j) {
  SimJob& job = jobs_[j];
  if (job.state != JobState::kPending) return;
  if (arrays_.any() && JobArrays::unsplit(job)) arrays_.cancelled_unstarted(j);
  job.state = JobState::kDone;
  job.end = now_;
  job.end_state = EndState::kCancelled;
  dependencies_moved(j);
  if (limits_.active()) limits_.remove_submit(limit_key(job, job.recs.front()));
  --active_jobs_;
  bf_changed_ = true;
}

void Simulator::finish_job(std::uint32_t j, EndState how) {
  // A running job leaves for good: its resources, its submit-limit count, and the jobs that
  // depend on it (which may start, or never).
  SimJob& job = jobs_[j];
  job.state = JobState::kDone;
  job.end = now_;
  job.end_state = how;
  stop_running(j);
  job.alloc.compact();  // it never runs again; the trace and reports read the runs
  dependencies_moved(j);
  if (limits_.active()) limits_.remove_submit(limit_key(job, job.recs.front()));
  --active_jobs_;
}

void Simulator::trigger_main() {
  // Submissions bump job_sched_cnt; slurmctld's background loop (every second) turns it
  // into a default-depth run once batch_sched_delay has passed since its last run, unless
  // a full sched_interval run comes first. sbatch jobs never start inside the submit call.
  if (conf_.scheduler.sched_interval < 0) return;
  ++sched_cnt_;
  if (main_pending_at_ != kNoTime) return;
  const std::int64_t at = std::max(now_ + 1, last_sched_ + conf_.scheduler.batch_sched_delay);
  main_pending_at_ = at;
  events_.push(at, EventType::kMain);
}

void Simulator::trigger_direct() {
  // A job's epilog completing calls schedule() directly: a default-depth run right away.
  if (conf_.scheduler.sched_interval < 0 || direct_pending_at_ == now_) return;
  direct_pending_at_ = now_;
  events_.push(now_, EventType::kMainDirect);
}

// A --cpus-per-task job keeps on each node the CPUs its tasks take there (task_layout.h), in
// Slurm's node order. Not in sharing mode, whose pieces hold units, nor where memory is per
// CPU: there each node's CPUs are whole tasks already (and its memory follows them).
void Simulator::lay_out_tasks(Allocation& alloc, const Demand& d) const {
  if (!d.task_cpus || d.whole_nodes || rows_ || (d.mem_tracked && d.mem_per_cpu) || alloc.pieces.size() == 0) return;
  std::vector<std::uint32_t> order(alloc.pieces.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return pool_.config_index(alloc.pieces[a].node) < pool_.config_index(alloc.pieces[b].node);
  });
  std::vector<TaskNode> nodes;
  for (std::uint32_t i : order) {
    const AllocPiece& p = alloc.pieces[i];
    nodes.push_back({p.cpus, conf_.nodes[pool_.config_index(p.node)].schedulable_threads(), 0});
  }
  const std::uint32_t ncpus =
      std::max<std::uint32_t>(d.cpus, static_cast<std::uint32_t>(nodes.size()) * d.cpus_per_node);
  engine::lay_out_tasks(nodes, ncpus, d.cpus_per_node);
  // A node no task reached keeps its CPUs (Slurm would hand it none; the engine selects no
  // node beyond the tasks).
  if (std::any_of(nodes.begin(), nodes.end(), [](const TaskNode& n) { return n.cpus == 0; })) return;
  for (std::size_t k = 0; k < order.size(); ++k) alloc.pieces[order[k]].cpus = nodes[k].cpus;
}

void Simulator::start_job(std::uint32_t j, std::uint32_t r, const Allocation& given, StartedBy by,
                          std::int64_t run_limit) {
  SimJob& job = jobs_[j];
  const SimRecord& rec = job.recs[r];
  if (arrays_.any()) arrays_.started(j, JobArrays::unsplit(job));
  job.state = JobState::kRunning;
  job.start = now_;
  job.run_rec = static_cast<std::int32_t>(r);
  if (run_limit != kNoTime || job.rare.get().run_limit != kNoTime) job.rare.edit().run_limit = run_limit;
  const std::int64_t limit = run_time_limit(job);
  job.alloc = given;
  lay_out_tasks(job.alloc, rec.demand);
  const Allocation& alloc = job.alloc;
  job.started_by = by;
  job.start_priority = rec.priority;
  set_reason(job, kReasonNone);
  job.reasons.shrink_to_fit();  // (a started job's Reason history is, in most runs, complete)
  new_run(job);
  if (rows_)
    rows_->add(rec.part, node_req(job, rec), job.alloc, pool_.state());
  else
    pool_.state().take(alloc);
  note_alloc(job, true);
  if (!job.req.licenses.empty()) take_licenses(job, true);
  // Billable TRES: the partition's TRESBillingWeights over the allocation, else its CPUs.
  const Partition& part = conf_.partitions[rec.part];
  TresCounts held{};
  held[kTresCpu] = alloc.cpus();
  held[kTresMem] = static_cast<std::int64_t>(alloc.mem());
  held[kTresNode] = alloc.nodes();
  held[kTresGpu] = alloc.gpus();
  job.billable = weighted_billing(conf_, part, held);
  // Jobs are killed by the first limit test past their limit plus OverTimeLimit, and by the
  // load's recorded scancel.
  std::int64_t run = job.req.run_time;
  if (const std::int64_t at = job.req.extra.get().cancelled_at; at != kNoTime) run = std::min(run, at - now_);
  if (limits_.active()) limits_.job_begin(limit_key(job, rec), alloc_tres(job), limit);
  if (!dependents_.empty() && !dependents_[j].empty()) dependencies_moved(j);  // after:J
  job.planned_end = run_end(run, limit >= 0 ? now_ + limit : kNoTime, over_time(rec.part));
  schedule_end(j);
  running_.push_back(j);
  job.limit_end = now_ + (limit < 0 ? kYear : limit);
  const PlannedEnd key{job.expected_end(), job.req.id, j};
  if (!ends_dirty_) ends_.insert(std::upper_bound(ends_.begin(), ends_.end(), key), key);
  bf_changed_ = true;
  counts_.started(by);
  if (gang_) {
    // gs_job_start: the gang scheduler may suspend it at once, or suspend (or preempt) the
    // lower-tier jobs it overlaps.
    const PreemptMode::Base mode = preempt_.mode(rec.part, job.qos);
    gang_->job_start(j, rec.part, &job.alloc,
                     preempt_.enabled() && (mode == PreemptMode::Base::kRequeue || mode == PreemptMode::Base::kCancel));
    apply_gang_actions();
  }
}

std::int64_t Simulator::run_time_limit(const SimJob& job) const {
  const std::int64_t cut = job.rare.get().run_limit;
  return cut != kNoTime ? cut : job.recs[static_cast<std::size_t>(job.run_rec)].time_limit;
}

std::int64_t Simulator::plan_limit(const SimRecord& rec) const {
  if (rec.time_limit >= 0) return rec.time_limit;
  const std::int64_t max_time = conf_.partitions[rec.part].max_time;
  return max_time >= 0 ? max_time : kYear;
}

void Simulator::stop_running(std::uint32_t j) {
  SimJob& job = jobs_[j];
  if (arrays_.any()) arrays_.stopped(j);
  if (last_decay_ != kNoTime) charge_usage(job, std::max(last_decay_, job.start), now_);
  if (limits_.active()) {
    // Release the TRES-run-seconds the decay ticks have not consumed yet.
    const std::int64_t limit = run_time_limit(job);
    const double left = (limit < 0 ? 0xFFFFFFFFLL * 60.0 : static_cast<double>(limit)) - job.rare.get().run_secs_done;
    limits_.job_fini(limit_key(job, job.recs[static_cast<std::size_t>(job.run_rec)]), alloc_tres(job),
                     std::max(0.0, left));
  }
  const JobRare& rare = job.rare.get();
  probes_.interval(job, job.stretch_start(), now_, rare.suspended);
  if (rare.suspended) job.rare.edit().tot_sus_time += now_ - rare.suspend_time;
  const NodeReq req = rows_ ? node_req(job, job.recs[static_cast<std::size_t>(job.run_rec)]) : NodeReq::kOneRow;
  if (rows_)
    rows_->remove(job.recs[static_cast<std::size_t>(job.run_rec)].part, req, job.alloc, pool_.state());
  else
    pool_.state().give_back(job.alloc);
  note_alloc(job, false);
  if (!job.req.licenses.empty()) take_licenses(job, false);
  running_.erase(std::find(running_.begin(), running_.end(), j));
  const PlannedEnd key{job.expected_end(), job.req.id, j};
  if (!ends_dirty_) {  // (a dirty list is rebuilt from running_ anyway)
    auto it = std::lower_bound(ends_.begin(), ends_.end(), key);
    if (it != ends_.end() && it->job == j) ends_.erase(it);
  }
  if (gang_) {
    // gs_job_fini: the rows are rebuilt; jobs it held suspended may resume now.
    gang_->job_fini(j);
    apply_gang_actions();
  }
}

// The suspend and preemption bookkeeping of one run starts afresh (a job that never had any
// keeps no JobRare).
void Simulator::new_run(SimJob& job) {
  if (!job.rare.allocated()) return;
  JobRare& r = job.rare.edit();
  r.run_secs_done = 0;
  r.suspended = false;
  r.suspend_time = kNoTime;
  r.pre_sus_time = 0;
  r.preempt_time = kNoTime;
}

void Simulator::requeue(std::uint32_t j) {
  SimJob& job = jobs_[j];
  job.rare.edit().lost_cpu_seconds += static_cast<double>(job.alloc.cpus()) * static_cast<double>(job.ran(now_));
  ++job.rare.edit().requeues;
  stop_running(j);
  // Back to pending, eligible again after the credential lifetime (cred_expire 120 s + 1),
  // as the captures show: BeginTime for 121 s.
  job.state = JobState::kPending;
  job.start = job.planned_end = kNoTime;
  job.run_rec = -1;
  job.alloc = Allocation{};
  job.started_by = StartedBy::kNone;
  new_run(job);
  job.limit_end = kNoTime;
  job.begin = now_ + 121;
  job.accrue = kNoTime;
  set_reason(job, kReasonBeginTime);
  events_.push(job.begin, EventType::kEligible, j);
  ++future_eligible_;
}

}  // namespace sa::engine
