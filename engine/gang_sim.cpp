// The simulator's side of CPU sharing, gang scheduling and preemption: placing jobs through
// the select plugin's rows, carrying out the gang scheduler's suspends and resumes with
// job_mgr.c's time bookkeeping, and preempting as node_scheduler.c's _preempt_jobs does.
#include <algorithm>

#include "engine/simulator.h"

namespace sa::engine {

NodeReq Simulator::node_req(const SimJob& job, const SimRecord& rec) const {
  return rows_ ? rows_->node_req(rec.part, job.req.oversubscribe) : NodeReq::kOneRow;
}

const Demand& Simulator::fit_demand(SimJob& job, const SimRecord& rec, Demand& copy) {
  // --switches has effect only through topology/tree placement (cons_tres _eval_nodes_topo,
  // select/linear _job_test_topo up to 23.11) and req_switch > 0.
  const RequestExtras& x = job.req.extra.get();
  if (x.switches == 0 || !pool_.by_topology()) return rec.demand;
  // cons_tres _eval_nodes_topo: the first evaluation starts the wait; time_waiting is the real
  // now's distance from it, in backfill's will-run tests of later times too.
  std::int64_t& waiting_since = job.rare.edit().wait4switch_start;
  if (waiting_since == kNoTime) waiting_since = now_;
  // job_mgr.c _max_switch_wait: the wait asked for (INFINITE when not), at most max_switch_wait.
  const std::int64_t most = conf_.scheduler.max_switch_wait;
  const std::int64_t wait4switch = x.switch_wait == kNoTime ? most : std::min(x.switch_wait, most);
  // _eval_nodes_topo's fini: time_waiting >= wait4switch accepts any placement (best_switch).
  if (now_ - waiting_since >= wait4switch) return rec.demand;
  copy = rec.demand;
  copy.max_leaf_switches = static_cast<std::uint16_t>(std::min<std::uint32_t>(x.switches, 0xFFFF));
  return copy;
}

bool Simulator::place(SimJob& job, const SimRecord& rec, const NodeBitset& allowed, Allocation* out,
                      bool qos_preemptor) {
  Demand copy;
  const Demand& d = fit_demand(job, rec, copy);
  auto on = [&](const NodeBitset& nodes) {
    if (!rows_) return pool_.fit(pool_.state(), d, nodes, out);
    return rows_->place(pool_.state(), rec.part, d, node_req(job, rec), qos_preemptor, nodes, out);
  };
  if (rec.alternatives.empty()) return on(allowed);
  // A matching OR (--constraint "[a|b]"): each alternative's nodes in turn, the first that fits.
  NodeBitset alt;
  for (std::int32_t a : rec.alternatives) {
    alt.assign_and(allowed, node_sets_[static_cast<std::size_t>(a)]);
    if (on(alt)) return true;
  }
  return false;
}

void Simulator::set_limit_end(std::uint32_t j, std::int64_t end) {
  // Resumes move ends all the time under gang: the list is rebuilt once, when backfill next
  // reads it, instead of on every move.
  jobs_[j].limit_end = end;
  ends_dirty_ = true;
}

void Simulator::sort_ends() {
  if (!ends_dirty_) return;
  ends_.clear();
  for (std::uint32_t j : running_) ends_.push_back(PlannedEnd{jobs_[j].expected_end(), jobs_[j].req.id, j});
  std::sort(ends_.begin(), ends_.end());
  ends_dirty_ = false;
}

void Simulator::schedule_end(std::uint32_t j) {
  if (gang_ && next_slice_at_ != kNoTime && jobs_[j].planned_end > next_slice_at_) {
    unscheduled_ends_.push({jobs_[j].planned_end, j});
    return;
  }
  events_.push(jobs_[j].planned_end, EventType::kEnd, j);
}

void Simulator::note_alloc(const SimJob& job, bool add) {
  const bool unbounded = job.run_rec >= 0 && job.recs[static_cast<std::size_t>(job.run_rec)].demand.mem_unknown &&
                         !job.recs[static_cast<std::size_t>(job.run_rec)].demand.mem_tracked;
  probes_.allocation(job, add, unbounded, now_);
}

void Simulator::on_timeslice() {
  counts_.timeslice();
  next_slice_at_ = now_ + std::max<std::uint32_t>(1, conf_.scheduler.time_slice);
  gang_->cycle();
  apply_gang_actions();
  events_.push(next_slice_at_, EventType::kTimeslice);
  // End events for the running jobs that end by the next slice; the rest wait. Entries of
  // jobs suspended (or ended) since are stale and dropped.
  while (!unscheduled_ends_.empty() && unscheduled_ends_.top().first <= next_slice_at_) {
    const auto [end, j] = unscheduled_ends_.top();
    unscheduled_ends_.pop();
    const SimJob& job = jobs_[j];
    if (job.state == JobState::kRunning && !job.rare.get().suspended && job.planned_end == end)
      events_.push(end, EventType::kEnd, j);
  }
}

void Simulator::suspend(std::uint32_t j) {
  SimJob& job = jobs_[j];
  if (job.state != JobState::kRunning || job.rare.get().suspended) return;
  const std::int64_t since = job.stretch_start();
  probes_.interval(job, since, now_, false);
  JobRare& r = job.rare.edit();
  // job_suspend(): the run so far is banked; end_time is left as it was.
  r.pre_sus_time += now_ - since;
  r.suspend_time = now_;
  r.suspended = true;
  job.planned_end = kNoTime;  // its end event no longer applies
  ++r.suspends;
  counts_.suspended();
  r.events.push_back({now_, JobEvent::Kind::kSuspend, 0});
  bf_changed_ = true;
}

void Simulator::resume(std::uint32_t j) {
  SimJob& job = jobs_[j];
  if (job.state != JobState::kRunning || !job.rare.get().suspended) return;
  JobRare& r = job.rare.edit();
  probes_.interval(job, r.suspend_time, now_, true);
  r.tot_sus_time += now_ - r.suspend_time;
  r.suspended = false;
  r.suspend_time = now_;
  const SimRecord& rec = job.recs[static_cast<std::size_t>(job.run_rec)];
  const std::int64_t limit = run_time_limit(job);
  // Suspended time does not count against the limit: end_time = now + limit - run so far
  // (unless a preemption's grace period set it).
  const bool graced = r.preempt_time != kNoTime;
  if (limit >= 0 && !graced) set_limit_end(j, now_ + limit - r.pre_sus_time);
  // A limit test stops a graced job once the grace period is over, with no OverTimeLimit (a
  // suspended job is skipped by the tests, so one whose grace ran out meanwhile goes at the next).
  job.planned_end = run_end(job.req.run_time - r.pre_sus_time, graced || limit >= 0 ? job.limit_end : kNoTime,
                            graced ? 0 : over_time(rec.part));
  schedule_end(j);
  counts_.resumed();
  r.events.push_back({now_, JobEvent::Kind::kResume, 0});
  bf_changed_ = true;
}

void Simulator::apply_gang_actions() {
  // Preemptions end jobs, which makes the gang scheduler decide again; those decisions are
  // appended and carried out by this same loop.
  if (!gang_ || applying_gang_) return;
  applying_gang_ = true;
  std::vector<Gang::Action>& acts = gang_->actions();
  for (std::size_t i = 0; i < acts.size(); ++i) {
    const Gang::Action a = acts[i];
    switch (a.kind) {
      case Gang::Action::Kind::kSuspend:
        suspend(a.job);
        break;
      case Gang::Action::Kind::kResume:
        resume(a.job);
        break;
      case Gang::Action::Kind::kPreempt:
        stop_preempted(a.job, 0);
        break;  // _preempt_job_dequeue: no grace
    }
  }
  acts.clear();
  applying_gang_ = false;
}

void Simulator::stop_preempted(std::uint32_t j, std::uint32_t by) {
  SimJob& job = jobs_[j];
  if (job.state != JobState::kRunning) return;
  const PreemptMode::Base mode = preempt_.mode(job.recs[static_cast<std::size_t>(job.run_rec)].part, job.qos);
  const double lost = static_cast<double>(job.alloc.cpus()) * static_cast<double>(job.ran(now_));
  counts_.preempted(mode == PreemptMode::Base::kRequeue, lost);
  if (mode == PreemptMode::Base::kRequeue) {
    job.rare.edit().events.push_back({now_, JobEvent::Kind::kPreemptRequeue, by});
    requeue(j);
  } else {
    // CANCEL (and a SUSPEND without gang, which Slurm can only kill): the job ends PREEMPTED.
    JobRare& r = job.rare.edit();
    r.events.push_back({now_, JobEvent::Kind::kPreemptCancel, by});
    r.lost_cpu_seconds += lost;  // (requeue() counts its own)
    finish_job(j, EndState::kPreempted);
  }
  trigger_direct();
  bf_changed_ = true;
}

void Simulator::preempt(std::uint32_t victim, std::uint32_t by, bool honour_grace) {
  SimJob& job = jobs_[victim];
  if (job.state != JobState::kRunning) return;
  if (job.rare.get().preempt_time != kNoTime) {
    // _job_check_grace: signalled before; a preemptor that comes back once the grace period
    // is over stops it (p2: jobs 3 and 4 at +42, ten seconds after their grace ended).
    if (now_ >= job.limit_end) stop_preempted(victim, by);
    return;
  }
  const std::int64_t grace =
      honour_grace ? preempt_.grace(job.recs[static_cast<std::size_t>(job.run_rec)].part, job.qos) : 0;
  if (grace <= 0) {
    stop_preempted(victim, by);
    return;
  }
  // _job_check_grace: SIGCONT + SIGTERM now, end_time cut to now + GraceTime; the job is
  // taken to keep working until then (one that exits on SIGTERM would free its CPUs sooner).
  JobRare& r = job.rare.edit();
  r.preempt_time = now_;
  r.events.push_back({now_, JobEvent::Kind::kPreemptGrace, by});
  if (r.suspended) resume(victim);  // SIGCONT
  set_limit_end(victim, std::min(job.limit_end, now_ + grace));
  // Nothing happens when the grace period ends: the next limit test stops the job, unless
  // its preemptor comes back first (above) or its own work ends before (then TIMEOUT: its
  // end_time has passed, on_end).
  const std::int64_t test_at = limit_check_at(job.limit_end);
  if (job.planned_end != kNoTime && job.planned_end > test_at) {
    job.planned_end = kNoTime;
    events_.push(test_at, EventType::kGraceEnd, victim);
  }
}

struct Simulator::PreemptCandidate {
  std::uint32_t job;
  std::uint32_t key;  // the policy's order key
  std::int64_t start;
};

bool Simulator::try_preempt(std::uint32_t j, std::uint32_t r, const NodeBitset& allowed, StartedBy by,
                            NodeBitset* chosen) {
  if (!preempt_.enabled()) return false;
  SimJob& job = jobs_[j];
  const SimRecord& rec = job.recs[r];
  const std::vector<PreemptCandidate> cands = preempt_candidates(job, rec);
  if (cands.empty()) return false;
  // _run_now: preempt/qos suspends through the extra row, shared with the preemptee; the
  // gang scheduler then timeslices them (same partition) or keeps the preemptee suspended.
  if (preempt_.kind() == PreemptPolicy::Kind::kQos &&
      running_preempt_mode(cands.front().job) == PreemptMode::Base::kSuspend) {
    Allocation alloc;
    if (!place(job, rec, allowed, &alloc, true)) return false;
    start_job(j, r, alloc, by);
    return true;
  }
  NodeBitset nodes(pool_.size());
  Demand copy;
  const std::optional<std::vector<std::uint32_t>> victims =
      preempt_victims(cands, fit_demand(job, rec, copy), allowed, nodes);
  if (!victims) return false;
  // A preemptor that signalled jobs less than KillWait + MessageTimeout ago waits for them.
  const std::int64_t last = job.rare.get().preempt_start;
  if (last != kNoTime && last > now_ - preempt_hold_) return false;
  job.rare.edit().preempt_start = now_;
  for (std::uint32_t k : *victims) preempt(k, job.req.id, true);
  if (chosen) *chosen = nodes;
  return false;
}

std::vector<Simulator::PreemptCandidate> Simulator::preempt_candidates(const SimJob& job, const SimRecord& rec) {
  std::vector<PreemptCandidate> cands;
  for (std::uint32_t k : running_) {
    const SimJob& other = jobs_[k];
    const SimRecord& orec = other.recs[static_cast<std::size_t>(other.run_rec)];
    if (!preempt_.can_preempt(rec.part, job.qos, rec.priority, orec.part, other.qos, orec.priority)) continue;
    if (now_ < other.start + preempt_.exempt_after(orec.qos1, orec.qos2)) continue;
    if (preempt_.priority_exempt(orec.priority)) continue;
    bool overlap = false;
    for (const AllocPiece& p : other.alloc.pieces) overlap = overlap || part_nodes_[rec.part].test(p.node);
    if (!overlap) continue;
    cands.push_back({k, preempt_.order_key(orec.part, other.qos, other.alloc.nodes()), other.start});
  }
  std::stable_sort(cands.begin(), cands.end(), [this](const PreemptCandidate& a, const PreemptCandidate& b) {
    if (preempt_.youngest_first()) {
      if (a.start != b.start) return a.start > b.start;
    } else if (a.key != b.key) {
      return a.key < b.key;
    }
    return jobs_[a.job].req.id < jobs_[b.job].req.id;
  });
  return cands;
}

std::optional<std::vector<std::uint32_t>> Simulator::preempt_victims(const std::vector<PreemptCandidate>& cands,
                                                                     const Demand& demand, const NodeBitset& allowed,
                                                                     NodeBitset& chosen) {
  PoolState scratch = pool_.state();
  std::vector<std::uint32_t> removed;
  Allocation alloc;
  bool fits = false;
  for (const PreemptCandidate& c : cands) {
    const PreemptMode::Base m = running_preempt_mode(c.job);
    if (m != PreemptMode::Base::kRequeue && m != PreemptMode::Base::kCancel) continue;
    scratch.give_back(jobs_[c.job].alloc);
    removed.push_back(c.job);
    if (pool_.fit(scratch, demand, allowed, &alloc)) {
      fits = true;
      break;
    }
  }
  if (!fits) return std::nullopt;
  for (const AllocPiece& p : alloc.pieces) chosen.set(p.node);
  std::vector<std::uint32_t> victims;
  for (std::uint32_t k : removed) {
    for (const AllocPiece& p : jobs_[k].alloc.pieces) {
      if (chosen.test(p.node)) {
        victims.push_back(k);
        break;
      }
    }
  }
  return victims;
}

PreemptMode::Base Simulator::running_preempt_mode(std::uint32_t k) {
  const SimJob& o = jobs_[k];
  return preempt_.mode(o.recs[static_cast<std::size_t>(o.run_rec)].part, o.qos);
}

}  // namespace sa::engine
