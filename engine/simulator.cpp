#include "engine/simulator.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "analyzer/hostlist.h"
#include "analyzer/text_util.h"
#include "analyzer/values.h"

namespace sa::engine {

namespace {

std::int64_t horizon_guess(const std::vector<SimJob>& jobs, std::int64_t start) {
  std::int64_t last = start;
  for (const SimJob& j : jobs) last = std::max(last, j.req.submit);
  return last - start;
}

}  // namespace

std::int64_t SimJob::ran(std::int64_t now) const {
  if (start == kNoTime) return 0;
  const JobRare& r = rare.get();
  if (r.suspended) return r.pre_sus_time;
  return r.pre_sus_time + now - stretch_start();
}

const char* job_event_name(JobEvent::Kind kind) {
  switch (kind) {
    case JobEvent::Kind::kSuspend:
      return "suspend";
    case JobEvent::Kind::kResume:
      return "resume";
    case JobEvent::Kind::kPreemptRequeue:
      return "preempt-requeue";
    case JobEvent::Kind::kPreemptCancel:
      return "preempt-cancel";
    case JobEvent::Kind::kPreemptGrace:
      return "preempt-signal";
  }
  return "?";
}

Simulator::Simulator(const Site& site, SimOptions options)
    : site_(site),
      conf_(*site.config),
      opt_(std::move(options)),
      prio_(*site.config, site.tree, site.qos),
      limits_(*site.config, site.tree, site.qos),
      pool_(*site.config),
      preempt_(*site.config, site_.qos) {
  for (const char* name : {"None", "Priority", "Resources", "BeginTime", kNodesUnavailableText, "Reservation",
                           "ReqNodeNotAvail, Reserved for maintenance"}) {
    reason_id(name);
  }
  for (const LimitBlock& b : opt_.lift_limits) limits_.lift(b);
  for (const Partition& p : conf_.partitions) {
    NodeBitset b(conf_.nodes.size());
    for (std::uint32_t n : p.nodes) b.set(pool_.internal_index(n));
    part_nodes_.push_back(std::move(b));
  }
  if (CoreRows::needed(conf_)) {
    rows_.emplace(conf_, pool_, part_nodes_);
    result_.sharing = true;
  }
  if (conf_.preempt.mode.gang)
    gang_.emplace(conf_, pool_.state(), rows_ && !rows_->linear() ? &rows_->layout() : nullptr);
  // Both resolved as Slurm's uint16 (a value the analyzer refused keeps the default).
  preempt_hold_ = std::int64_t{conf_.scheduler.kill_wait} + conf_.scheduler.message_timeout;
  probes_.size_nodes(pool_.size());
  step_words_ = 1 + (pool_.size() + 63) / 64;
  step_nodes_ = 1 + pool_.size();
  if (site_.tree) {
    const std::size_t n = site_.tree->assocs.size();
    fair_share_.emplace(*site_.tree, FairShareSettings::from(conf_.priority));
    usage_.assign(n, 0.0L);
    for (std::size_t i = 0; i < n && i < site_.initial_usage.size(); ++i) usage_[i] = site_.initial_usage[i];
    fs_factor_.assign(n, 0.0);
    assoc_prio_.assign(n, 0);
    for (std::uint32_t a : site_.tree->hierarchical_order()) {
      if (site_.tree->assocs[a].is_user()) tree_users_.push_back(a);
    }
    for (std::uint32_t id = 0; id < n; ++id) {
      // An association without its own Priority inherits its parent's.
      for (std::uint32_t a = id; a != kNoAssoc; a = site_.tree->assocs[a].parent) {
        if (site_.tree->assocs[a].priority) {
          const std::uint32_t p = *site_.tree->assocs[a].priority;
          assoc_prio_[id] = p == 0xFFFFFFFFU ? 0 : p;
          break;
        }
      }
    }
  }
}

std::int64_t reservation_horizon(const Workload& workload, std::int64_t until) {
  if (until != kNoTime) return until;
  std::int64_t last = 0;
  for (const JobRequest& r : workload.jobs) last = std::max(last, r.submit);
  return last + 60 * 86400;
}

SimResult Simulator::run(const Workload& workload) { return run_events(start_clock(workload)); }

SimResult Simulator::run(Workload&& workload) { return run_events(start_clock(workload, &workload.jobs)); }

SimResult Simulator::run_events(std::int64_t start) {
  const std::int64_t span_guess = jobs_.empty() ? 1 : std::max<std::int64_t>(1, jobs_.back().req.submit - start);
  std::uint64_t tick = 0;
  const std::uint64_t still_limit =
      opt_.still_events ? opt_.still_events
                        : std::max<std::uint64_t>(4'000'000, 8 * (jobs_.size() + site_.node_events.size()));
  std::int64_t still_at = kNoTime;
  std::uint64_t still = 0;
  while (!events_.empty()) {
    const Event ev = events_.top();
    if (!worth_running(ev)) break;
    if (ev.time != still_at) {
      still_at = ev.time;
      still = 0;
    } else if (++still >= still_limit) {
      result_.step_limit = result_.stalled = true;
      break;
    }
    events_.pop();
    now_ = ev.time;
    counts_.event();
    ++steps_;
    dispatch(ev);
    if (steps_ >= static_cast<std::uint64_t>(site_.max_sim_steps)) {
      result_.step_limit = true;
      break;
    }
    if ((++tick & 0xFFF) != 0) continue;
    if (opt_.cancel && opt_.cancel->load(std::memory_order_relaxed)) {
      result_.cancelled = true;
      break;
    }
    if (opt_.progress && (tick & 0xFFFF) == 0) {
      opt_.progress(std::min(1.0, static_cast<double>(now_ - start) / static_cast<double>(span_guess)));
    }
  }
  finish(start);
  if (opt_.progress) opt_.progress(1.0);
  return std::move(result_);
}

std::int64_t Simulator::start_clock(const Workload& workload, std::vector<JobRequest>* take) {
  const std::int64_t horizon = reservation_horizon(workload, opt_.until);
  if (!site_.reservations.empty())
    resv_.emplace(site_.reservations, conf_, pool_, horizon, site_.max_reservation_windows);
  bind(workload, /*replay_dependencies=*/true, take);
  result_.epoch_offset = workload.epoch_offset;
  std::int64_t first = jobs_.empty() ? 0 : jobs_.front().req.submit;
  for (const SimJob& j : jobs_) first = std::min(first, j.req.submit);
  const std::int64_t start = opt_.start != kNoTime ? opt_.start : first;
  now_ = start;
  result_.start = start;
  {
    std::vector<std::int64_t> times;
    std::vector<std::uint32_t> arrivals;
    for (std::uint32_t i = 0; i < jobs_.size(); ++i) {
      if (jobs_[i].req.submit < start) continue;  // before the clock starts: not replayed
      times.push_back(jobs_[i].req.submit);
      arrivals.push_back(i);
    }
    future_submits_ += arrivals.size();
    events_.set_arrivals(times, arrivals);
  }
  const SchedulerSettings& s = conf_.scheduler;
  if (prio_.multifactor()) events_.push(start, EventType::kPriority);
  if (s.sched_interval > 0) events_.push(start + s.sched_interval, EventType::kMainFull);
  if (s.type == "sched/backfill" && s.bf_interval > 0) events_.push(start + s.bf_interval, EventType::kBackfill);
  for (std::int64_t t : opt_.snapshot_at) events_.push(t, EventType::kSnapshot);
  snapshots_left_ = opt_.snapshot_at.size();
  // The timeslicer thread wakes every SchedulerTimeSlice from slurmctld's start.
  if (gang_) {
    next_slice_at_ = start + std::max<std::uint32_t>(1, conf_.scheduler.time_slice);
    events_.push(next_slice_at_, EventType::kTimeslice);
  }
  {
    // Timeline buckets: about 500 over the submit span plus the longest run, whole minutes.
    std::int64_t longest = 0;
    for (const SimJob& j : jobs_) longest = std::max(longest, j.req.run_time);
    const std::int64_t span = std::max<std::int64_t>(1, horizon_guess(jobs_, start) + longest);
    probes_.start(start, std::max<std::int64_t>(60, (span / 500 + 59) / 60 * 60), conf_.partitions.size());
  }
  node_down_.assign(pool_.size(), 0);
  node_drain_.assign(pool_.size(), 0);
  for (std::uint32_t e = 0; e < site_.node_events.size(); ++e) {
    const NodeEvent& ne = site_.node_events[e];
    node_changes_.push_back({e, true});
    events_.push(std::max(ne.start, start), EventType::kNodeEvent,
                 static_cast<std::uint32_t>(node_changes_.size() - 1));
    ++future_node_changes_;
    if (ne.end != kOpenEnd) {
      node_changes_.push_back({e, false});
      events_.push(std::max(ne.end, start), EventType::kNodeEvent,
                   static_cast<std::uint32_t>(node_changes_.size() - 1));
      ++future_node_changes_;
    }
  }
  return start;
}

bool Simulator::worth_running(const Event& ev) {
  if (opt_.until != kNoTime && ev.time > opt_.until) return false;
  // Everything has run and nothing more arrives: only periodic events are left.
  if (future_submits_ == 0 && active_jobs_ == 0 && snapshots_left_ == 0 && ev.type != EventType::kEnd) return false;
  // Jobs left pending with nothing running and nothing more to come can only be held by
  // limits; once the scheduler has had its chances (and decaying usage its time), stop.
  if (future_submits_ == 0 && snapshots_left_ == 0 && running_.empty() && future_eligible_ == 0 &&
      future_node_changes_ == 0 && future_cancels_ == 0 && !(resv_ && resv_->changes_after(ev.time)) &&
      ev.type != EventType::kEnd) {
    if (stuck_since_ == kNoTime) stuck_since_ = ev.time;
    if (ev.time - stuck_since_ > stuck_horizon()) return false;
  } else {
    stuck_since_ = kNoTime;
  }
  return true;
}

void Simulator::dispatch(const Event& ev) {
  const SchedulerSettings& s = conf_.scheduler;
  switch (ev.type) {
    case EventType::kSubmit:
      --future_submits_;
      on_submit(ev.job);
      break;
    case EventType::kEligible:
      --future_eligible_;
      on_eligible(ev.job);
      break;
    case EventType::kEnd:
      on_end(ev.job);
      break;
    case EventType::kPriority:
      priority_pass();
      events_.push(now_ + std::max<std::int64_t>(60, conf_.priority.calc_period), EventType::kPriority);
      break;
    case EventType::kMain:
      main_pending_at_ = kNoTime;
      if (sched_cnt_ == 0) break;  // a full run took the events first
      if (now_ - last_sched_ < s.batch_sched_delay) {
        trigger_main();
        break;
      }
      sched_cnt_ = 0;
      last_sched_ = now_;
      main_loop(false);
      break;
    case EventType::kMainDirect:
      direct_pending_at_ = kNoTime;
      main_loop(false);
      break;
    case EventType::kMainFull:
      sched_cnt_ = 0;
      last_sched_ = now_;
      main_loop(true);
      events_.push(now_ + s.sched_interval, EventType::kMainFull);
      break;
    case EventType::kBackfill:
      backfill_cycle();
      events_.push(now_ + s.bf_interval, EventType::kBackfill);
      break;
    case EventType::kSnapshot:
      --snapshots_left_;
      take_snapshot();
      break;
    case EventType::kNodeEvent:
      --future_node_changes_;
      on_node_event(ev.job);
      break;
    case EventType::kTimeslice:
      on_timeslice();
      break;
    case EventType::kGraceEnd:
      on_grace_end(ev.job);
      break;
    case EventType::kCancel:
      --future_cancels_;
      on_cancel(ev.job);
      break;
  }
}

void Simulator::finish(std::int64_t start) {
  result_.end = now_;
  result_.steps = steps_;
  account_unavailable(start);
  for (std::uint32_t j : running_) {
    const SimJob& job = jobs_[j];
    probes_.interval(job, job.stretch_start(), now_, job.rare.get().suspended);
  }
  probes_.finish(pool_, conf_.nodes.size(), result_);
  counts_.finish(result_);
  result_.jobs = std::move(jobs_);
  for (std::uint32_t i = 0; i < pool_.size(); ++i) result_.node_config_index.push_back(pool_.config_index(i));
  if (site_.tree) {
    result_.usage = usage_;
    for (std::uint32_t id = 0; id < site_.tree->assocs.size(); ++id)
      result_.target_share.push_back(fair_share_->target_share(id));
  }
}

PendingSnapshot Simulator::queue_snapshot(const Workload& workload, std::int64_t at, std::int64_t calc_at) {
  // A snapshot prices the queue as recorded: no run resolves dependencies, so each job keeps
  // the Eligible time the trace gives it (age counts from there).
  bind(workload, /*replay_dependencies=*/false);
  result_.epoch_offset = workload.epoch_offset;
  if (calc_at == kNoTime || calc_at > at) calc_at = at;
  if (site_.tree) {
    std::vector<AssocShare> shares = fair_share_->compute(usage_);
    for (std::size_t i = 0; i < shares.size(); ++i) fs_factor_[i] = shares[i].fs_factor;
  }
  last_decay_ = at;
  for (SimJob& job : jobs_) {
    const RequestExtras& x = job.req.extra.get();
    const bool started = x.recorded_start != kNoTime && x.recorded_start <= at;
    const bool cancelled = x.cancelled_at != kNoTime && x.cancelled_at <= at;
    if (job.state == JobState::kRejected || job.req.submit > at || started || cancelled) continue;
    job.state = JobState::kPending;
    active_.push_back(static_cast<std::uint32_t>(&job - jobs_.data()));
    if (conf_.priority.flags.accrue_always)
      job.accrue = job.req.submit;
    else if (job.begin <= calc_at)
      job.accrue = job.begin;
    // Priced at the last pass, or at submission if it came after that pass.
    now_ = job.req.submit >= calc_at && calc_at < at ? job.req.submit : calc_at;
    if (now_ == job.req.submit && calc_at < at) job.accrue = conf_.priority.flags.accrue_always ? job.accrue : kNoTime;
    compute_priority(job, false);
  }
  now_ = at;
  take_snapshot();
  return std::move(result_.snapshots.back());
}

}  // namespace sa::engine
