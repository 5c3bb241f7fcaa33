// The backfill scheduler (backfill.c _attempt_backfill with cons_tres's will-run test;
// algorithms.md §6). Running jobs are planned to end at start + time limit, never at their
// real run time. Pending jobs that cannot start now reserve whole nodes in a time-slotted
// availability map, rounded to bf_resolution, up to bf_window. A cycle is instantaneous on
// the simulated clock; its slurmctld cost is counted (SimOptions::bf_test_cost_us per
// will-run test) to apply bf_max_time and, without bf_continue, the end of the cycle at the
// first lock yield after which job or node state has changed.
#include <algorithm>

#include "engine/backfill_pass.h"

namespace sa::engine {

void Simulator::backfill_cycle() {
  settle_limit_reasons();
  if (!bf_changed_) return;  // nothing changed since the last cycle
  bf_changed_ = false;
  queue_sort();
  steps_ += queue_.size() + running_.size() + 1;  // its release profile reads every running job
  const BackfillCycle cycle{now_, static_cast<std::uint32_t>(queue_records()), 0, 0, BackfillCycle::Stop::kEnd};
  // Nothing pending: nothing to plan, but the cycle ran.
  counts_.backfill(queue_.empty() ? BackfillTally{cycle} : BackfillPass(*this, cycle).run());
}

BackfillPass::BackfillPass(Simulator& sim, const BackfillCycle& cycle)
    : sim_(sim),
      s_(sim.conf_.scheduler),
      tally_{cycle},
      res_(std::max<std::int64_t>(1, s_.bf_resolution)),
      window_end_((sim.now_ + s_.bf_window) / res_ * res_),
      slots_(sim.now_ / res_ * res_, window_end_, sim.pool_.usable(), sim.resv_ ? &sim.resv_->windows() : nullptr),
      per_part_(sim.conf_.partitions.size(), 0),
      resv_per_part_(sim.conf_.partitions.size(), 0),
      next_yield_us_(static_cast<double>(s_.bf_yield_interval_us)),
      max_time_us_(static_cast<double>(s_.bf_max_time) * 1e6) {
  if (sim.rows_) scratch_ = sim.pool_.state();
  for (const Simulator::QueueEntry& e : sim.queue_) resv_jobs_ = resv_jobs_ || sim.jobs_[e.job].resv >= 0;
  // The next job or node change: an end, or a submission (which ends a cycle at a lock yield).
  for (std::uint32_t j : sim.running_) {
    const SimJob& job = sim.jobs_[j];
    if (job.planned_end > sim.now_ && (next_change_ == kNoTime || job.planned_end < next_change_))
      next_change_ = job.planned_end;
  }
  for (std::size_t i = sim.submit_cursor_; i < sim.jobs_.size(); ++i) {
    if (sim.jobs_[i].req.submit > sim.now_) {
      if (next_change_ == kNoTime || sim.jobs_[i].req.submit < next_change_) next_change_ = sim.jobs_[i].req.submit;
      break;
    }
  }
  sim.sort_ends();  // ends_ is kept sorted by planned end
}

BackfillTally BackfillPass::run() {
  ArrayWalk arrays(sim_.arrays_);
  for (std::size_t qi = 0; qi < sim_.queue_.size(); ++qi) {
    const Simulator::QueueEntry e = sim_.queue_[qi];
    SimJob& job = sim_.jobs_[e.job];
    if (!job.eligible_pending(sim_.now_)) continue;  // (requeued: see main_loop)
    ArrayWalk::Step as = ArrayWalk::Step::kNotArray;
    if (sim_.arrays_.any()) {
      std::uint16_t head_reason = kReasonNone;
      bool head_tested = false;
      as = arrays.step(job, e.job, job.recs[e.rec].part, head_reason, head_tested);
      if (as == ArrayWalk::Step::kSkip) {  // a task of a meta record this cycle has reached
        job.bf_tested = job.bf_tested || head_tested;
        continue;
      }
    }
    next_task_ = as == ArrayWalk::Step::kNextTask;
    reserved_now_ = false;
    const bool go_on = test_record(e, job, as != ArrayWalk::Step::kNotArray);
    if (as != ArrayWalk::Step::kNotArray) {
      arrays.outcome(job, job.state == JobState::kRunning, reserved_now_, reserved_now_ && next_array_task(e, job),
                     job.bf_tested);
    }
    if (!go_on) break;
  }
  tally_.cycle.tested = static_cast<std::uint32_t>(tests_);
  tally_.cycle.started = static_cast<std::uint32_t>(started_);
  return tally_;
}

// One queue record's test: start it, plan it, or pass it over; false ends the cycle. The
// meta record's next task (next_task_) is tested without the checks made when a record is
// taken from the queue (bf_max_time, bf_max_job_test), as backfill.c's goto next_task skips them.
bool BackfillPass::test_record(const Simulator::QueueEntry& e, SimJob& job, bool array_task) {
  const SimRecord& rec = job.recs[e.rec];
  if (!next_task_ && out_of_time()) return false;
  // job_array_start_test: --array's %N tasks already run. The record was reached: the
  // throttle held it, not bf_max_job_test or bf_max_time (never_reached_by_backfill).
  if (array_task && sim_.array_throttled(job)) {
    job.bf_tested = true;
    return true;
  }
  // part_policy_valid_qos skips a record its partition's QOS lists deny before any count; a
  // held job's impossible constraint gets no node from the will-run test, so no plan.
  if (rec.hold_reason == HoldReason::kQosNotAllowed || rec.hold_reason == HoldReason::kBadConstraints) return true;
  if (held_by_cycle_limits(job, rec)) return true;
  if (job.resv >= 0) {
    start_reservation_job(e, job, rec);
    return true;
  }
  // Reserve nothing for jobs below bf_min_prio_reserve, younger than bf_min_age_reserve,
  // already reserved in another partition (bf_one_resv_per_job), or past the partition's
  // bf_job_part_count_reserve.
  // A QOS with Flags=NoReserve (the job's) never plans either (backfill.c skips its
  // reservation after the test).
  const bool no_reserve = job.qos >= 0 && sim_.limits_.qos_table(job.qos).no_reserve;
  const bool test_now_only =
      no_reserve || (s_.bf_min_prio_reserve > 0 && rec.priority < static_cast<std::uint64_t>(s_.bf_min_prio_reserve)) ||
      (s_.bf_min_age_reserve > 0 && sim_.now_ - job.begin < s_.bf_min_age_reserve) ||
      (s_.bf_one_resv_per_job && reserved_jobs_.count(e.job)) ||
      (s_.bf_job_part_count_reserve > 0 && resv_per_part_[rec.part] >= s_.bf_job_part_count_reserve);
  // --time-min: the job is tested, planned and started with its minimum time. backfill.c
  // sets time_limit and comp_time_limit to time_min; "Set time limit as high as possible"
  // then sets comp_time_limit, and _reset_job_time_limit can only lower it, so a job backfill
  // starts runs with its --time-min as its limit (22.05 through 24.05; the time_min capture:
  // -t 10 --time-min=1 ran 1 minute where 2 fitted, TIMEOUT). The docs' "as high as possible"
  // is not what it does.
  const std::int64_t full = sim_.plan_limit(rec);
  const std::int64_t time_min = job.req.extra.get().time_min;
  const bool cut = time_min != kNoTime && time_min < full;
  // NoReserve under preemption: backfill.c tests the job with a one-minute limit, so it starts
  // in any hole open now however soon a plan claims the nodes (the preemptible standby job),
  // and then restores its own limit for the run (skip_start).
  const bool one_minute = no_reserve && sim_.conf_.preempt.mode_set();
  const std::int64_t tl = one_minute ? 60 : cut ? time_min : full;
  std::int64_t pred = 0;
  const Plan plan = plan_job(job, rec, tl, pred);
  if (plan == Plan::kStop) return false;
  // acct_policy_job_runnable_post_select: a job over a TRES limit neither starts nor
  // reserves.
  if (plan != Plan::kNone &&
      !sim_.limits_allow(job, rec, plan == Plan::kStartNow ? LimitPhase::kBoth : LimitPhase::kPost))
    return true;
  if (rec.hold_reason == HoldReason::kAccountNotAllowed || rec.hold_reason == HoldReason::kGroupNotAllowed) {
    // backfill.c tests no account or group list. When the will-run answers now, _start_job's
    // select_nodes refuses the job, and the failed start "drops through and reserves these
    // resources" from now over its time limit (start_time is now, so even a job that may
    // not reserve keeps them), every cycle, as a real 22.05 shows
    // (tests/golden/mini_slurm_fidelity/denied_account_backfill). A later plan reserves as
    // any job's does; select_nodes refuses the job before it would preempt.
    const bool now = plan == Plan::kStartNow;
    if (now || (plan == Plan::kReserve && !test_now_only)) return reserve(e, rec, now ? sim_.now_ : pred, tl);
    return true;
  }
  if (plan == Plan::kStartNow) return start(e, job, cut && !no_reserve ? time_min : kNoTime);
  if (now_tested_ && preempt_now(e, job, rec, tl)) return !stop_at_max_job_start();  // (a suspend-mode start counts)
  if (plan != Plan::kReserve || test_now_only) return true;
  return reserve(e, rec, pred, tl);
}

// After a meta record's task reserved: whether backfill tests the array's next task
// (backfill.c: fewer than bf_max_job_array_resv reservations for this array in a row, and
// fewer than the tasks left in the record; pend_run_tasks, which only a preemption in
// progress raises, stays under a %N throttle).
bool BackfillPass::next_array_task(const Simulator::QueueEntry& e, const SimJob& job) {
  if (!JobArrays::unsplit(job)) return false;  // a split task has no array_recs
  const std::uint32_t id = job.req.extra.get().array_job_id;
  if (test_array_id_ != id) {
    test_array_id_ = id;
    test_array_count_ = 1;
  } else {
    ++test_array_count_;
  }
  return test_array_count_ < s_.bf_max_job_array_resv &&
         test_array_count_ < static_cast<std::int64_t>(sim_.arrays_.unsplit_left(sim_.arrays_.group_of(e.job)));
}

// bf_max_time, and without bf_continue the lock yields: true when the cycle ends here.
bool BackfillPass::out_of_time() {
  if (elapsed_us_ >= max_time_us_) {
    set_stop(BackfillCycle::Stop::kMaxTime);
    return true;
  }
  if (!s_.bf_continue && elapsed_us_ >= next_yield_us_) {
    // Locks are released for bf_yield_sleep; a job or node change meanwhile ends the cycle.
    elapsed_us_ += static_cast<double>(s_.bf_yield_sleep_us);
    next_yield_us_ = elapsed_us_ + static_cast<double>(s_.bf_yield_interval_us);
    const std::int64_t resume = sim_.now_ + static_cast<std::int64_t>(elapsed_us_ / 1e6 + 0.999999);
    if (next_change_ != kNoTime && next_change_ <= resume) {
      set_stop(BackfillCycle::Stop::kYield);
      sim_.bf_changed_ = true;
      return true;
    }
  }
  return false;
}

// Limits that skip a record this cycle without testing it; the per-cycle record limits count
// records tested, not jobs started, and records they skip do not count towards bf_max_job_test.
bool BackfillPass::held_by_cycle_limits(SimJob& job, const SimRecord& rec) {
  // Jobs held by a job-count or wall limit are skipped and reserve nothing (without
  // assoc_limit_stop); TRES limits are checked once a start time is known.
  if (!s_.assoc_limit_stop && !sim_.limits_allow(job, rec, LimitPhase::kPre)) return true;
  // Without bf_licenses backfill neither starts nor plans a job whose licences are taken.
  if (!job.req.licenses.empty() && !sim_.licenses_free(job)) return true;
  // Without per-cycle record limits nothing below counts or skips: no keys are built.
  if (s_.bf_max_job_user_part <= 0 && s_.bf_max_job_part <= 0 && s_.bf_max_job_assoc <= 0 && s_.bf_max_job_user <= 0)
    return false;
  const std::string& user = job.req.user;
  const std::string part_key = user + "\n" + std::to_string(rec.part);
  const std::string assoc_key = std::to_string(job.assoc);
  if ((s_.bf_max_job_user_part > 0 && per_user_part_[part_key] >= s_.bf_max_job_user_part) ||
      (s_.bf_max_job_part > 0 && per_part_[rec.part] >= s_.bf_max_job_part) ||
      (s_.bf_max_job_assoc > 0 && per_assoc_[assoc_key] >= s_.bf_max_job_assoc) ||
      (s_.bf_max_job_assoc == 0 && s_.bf_max_job_user > 0 && per_user_[user] >= s_.bf_max_job_user)) {
    ++tally_.skipped_by_user_limit;
    return true;
  }
  if (s_.bf_max_job_user_part > 0) ++per_user_part_[part_key];
  if (s_.bf_max_job_part > 0) ++per_part_[rec.part];
  if (s_.bf_max_job_assoc > 0)
    ++per_assoc_[assoc_key];
  else if (s_.bf_max_job_user > 0)
    ++per_user_[user];
  return false;
}

// A reservation job can only start now, on its reservation's nodes; it plans nothing.
void BackfillPass::start_reservation_job(const Simulator::QueueEntry& e, SimJob& job, const SimRecord& rec) {
  base_.assign_and(sim_.record_nodes(rec), sim_.pool_.usable());
  sim_.apply_reservations(job, rec, base_);
  if (!base_.count_at_least(rec.demand.min_nodes) || !sim_.place(job, rec, base_, &alloc_) ||
      !sim_.limits_allow(job, rec, LimitPhase::kPost))
    return;
  // The answers stay (as in every cycle so far), so those still without their allocation take
  // it from the profile before the start changes the pool.
  answers_.for_each_recent([&](WillRunAnswer& w) {
    if (!w.known) will_run(w);
    if (w.ok) alloc_of(w);
  });
  sim_.start_job(e.job, e.rec, alloc_, StartedBy::kBackfill);
  pool_changed();
  ++started_;
}

// The pool changed under the cycle (a start, jobs preempted): the copies it plans on are redone.
void BackfillPass::pool_changed() {
  if (sim_.rows_) scratch_ = sim_.pool_.state();
  profile_stale_ = true;
  holds_stale_ = true;
}

// The start time and nodes of one record: now, at a later slot, or none within the window.
// Sets alloc_ (the nodes) and pred (the start) for kStartNow and kReserve.
BackfillPass::Plan BackfillPass::plan_job(SimJob& job, const SimRecord& rec, std::int64_t tl, std::int64_t& pred) {
  const std::int64_t now = sim_.now_;
  std::int64_t start_res = now;
  bool counted = false;
  base_.assign_and(sim_.record_nodes(rec), sim_.pool_.usable());
  scan_.reset();
  now_tested_ = false;
  for (int attempt = 0; attempt < 1000; ++attempt) {
    sim_.steps_ += sim_.step_words_;
    if (start_res >= window_end_ && start_res > now) {
      job.bf_beyond_window = true;
      break;
    }
    const std::int64_t end_time = std::max(start_res, now) + tl;
    std::size_t free_nodes = 0;
    const std::int64_t later_start = scan_.narrow(start_res, end_time, avail_, free_nodes);
    if (free_nodes < rec.demand.min_nodes) {
      if (!later_start) {
        // No slot up to the window's end frees enough of its nodes: no reservation, as for a
        // start past the window (unless its nodes could never hold it).
        if (base_.count_at_least(rec.demand.min_nodes)) job.bf_beyond_window = true;
        break;
      }
      start_res = later_start;
      continue;
    }
    if (!counted) {
      if (!next_task_ && s_.bf_max_job_test > 0 && tests_ >= s_.bf_max_job_test) {
        set_stop(BackfillCycle::Stop::kMaxJobTest);
        return Plan::kStop;
      }
      ++tests_;
      counted = true;
      job.bf_tested = true;
    }
    elapsed_us_ += sim_.opt_.bf_test_cost_us;
    if (start_res <= now && sim_.preempt_.enabled()) {
      now_avail_ = avail_;
      now_tested_ = true;
    }
    // Where CPUs may be shared the select plugin's own passes decide whether it starts
    // now (oversubscription rows included); the future plan below stays count-based.
    if (sim_.rows_ && start_res <= now && sim_.place(job, rec, avail_, &alloc_)) return Plan::kStartNow;
    // The will-run test is a select plugin call: --switches' wait starts here at the latest,
    // and its limit is part of the demand (so of the answer's key) while the wait lasts.
    Demand switch_copy;
    const Demand& d = sim_.fit_demand(job, rec, switch_copy);
    WillRunAnswer* const known = will_run_unless_later(rec, d, later_start);
    if (!known) {  // it cannot start by later_start: the try ends as a test would end it
      start_res = later_start;
      continue;
    }
    const Plan plan = judge(job, *known, tl, later_start, start_res, pred);
    if (plan != Plan::kRetry) return plan;
  }
  return Plan::kNone;
}

// What a try's will-run answer w makes of the plan (the rest of the start_res loop body):
// a start now, a reservation, no plan (kNone), or another try from the new start_res.
BackfillPass::Plan BackfillPass::judge(SimJob& job, WillRunAnswer& w, std::int64_t tl, std::int64_t later_start,
                                       std::int64_t& start_res, std::int64_t& pred) {
  const std::int64_t now = sim_.now_;
  pred = w.pred;
  if (!w.ok) {
    if (!later_start) return Plan::kNone;
    start_res = later_start;
    return Plan::kRetry;
  }
  pred = std::max(pred, start_res);
  if (pred <= now) {
    alloc_ = alloc_of(w);
    // The profile's answer and its node walk disagreeing would start a job on no node.
    return alloc_.pieces.empty() ? Plan::kNone : Plan::kStartNow;
  }
  if (later_start && pred > later_start) {
    start_res = later_start;
    return Plan::kRetry;
  }
  if (pred > now + s_.bf_window) {
    ++tally_.no_resv_beyond_window;
    job.bf_beyond_window = true;
    return Plan::kNone;
  }
  // The select plugin does not know pending reservations: a plan that runs into one
  // is retried from its predicted start.
  const std::int64_t r0 = pred / res_ * res_, r1 = (pred + tl) / res_ * res_;
  if (surely_conflicts(w, r0, r1) || slots_.conflicts(r0, r1, alloc_of(w))) {
    start_res = pred > start_res ? pred : start_res + res_;
    return Plan::kRetry;
  }
  alloc_ = alloc_of(w);
  return Plan::kReserve;
}

// Starts the job on alloc_; false when bf_max_job_start ends the cycle.
bool BackfillPass::start(const Simulator::QueueEntry& e, const SimJob& job, std::int64_t run_limit) {
  sim_.start_job(e.job, e.rec, alloc_, StartedBy::kBackfill, run_limit);  // also adds it to ends_
  after_start(job);
  return !stop_at_max_job_start();
}

// Whether bf_max_job_start ends the cycle now (counted and logged when it does).
bool BackfillPass::stop_at_max_job_start() {
  if (s_.bf_max_job_start <= 0 || started_ < s_.bf_max_job_start) return false;
  set_stop(BackfillCycle::Stop::kMaxJobStart);
  return true;
}

// What a start changes in the cycle's own picture of the machine.
void BackfillPass::after_start(const SimJob& job) {
  answers_.job_started();
  holds_stale_ = true;
  if (sim_.rows_) {
    // Shared CPUs are not a count: copy what the rows left on its nodes.
    for (const AllocPiece& p : job.alloc.pieces) scratch_.nodes[p.node] = sim_.pool_.state().nodes[p.node];
    scratch_.free = sim_.pool_.state().free;
    scratch_.idle = sim_.pool_.state().idle;
  }
  profile_stale_ = true;
  if (job.planned_end > sim_.now_ && (next_change_ == kNoTime || job.planned_end < next_change_))
    next_change_ = job.planned_end;
  ++started_;
}

// _try_sched hands the will-run test the jobs this one may preempt; cons_common's
// _will_run_test first tries with them gone and, if the job fits, answers "now", and
// _start_job's select_nodes preempts for it. The main loop never tries a job behind a failed
// partition, so this is where such a preemptor gets its nodes. A job preempt/qos starts at
// once (suspend) counts as a start; otherwise the victims are signalled and the nodes they
// leave are kept for the preemptor over its time limit (the failed start "drops through and
// reserves these resources"), so later jobs of this cycle cannot take them.
bool BackfillPass::preempt_now(const Simulator::QueueEntry& e, SimJob& job, const SimRecord& rec, std::int64_t tl) {
  if (!sim_.limits_allow(job, rec, LimitPhase::kBoth)) return false;
  NodeBitset chosen(sim_.conf_.nodes.size());
  if (sim_.try_preempt(e.job, e.rec, now_avail_, StartedBy::kBackfill, &chosen)) {
    after_start(job);
    return true;
  }
  if (chosen.none()) return false;
  // The victims are gone from the pool: the cycle's picture of it is rebuilt.
  answers_.job_started();
  pool_changed();
  reserve_nodes(e, sim_.now_, tl, chosen);
  return true;
}

// Reserves alloc_'s nodes, whole, over [start, start + limit) rounded to bf_resolution; false
// when bf_node_space_size ends the cycle.
bool BackfillPass::reserve(const Simulator::QueueEntry& e, const SimRecord& rec, std::int64_t pred, std::int64_t tl) {
  NodeBitset nodes(sim_.conf_.nodes.size());
  for (const AllocPiece& p : alloc_.pieces) nodes.set(p.node);
  reserve_nodes(e, pred, tl, nodes);
  ++resv_per_part_[rec.part];
  if (s_.bf_node_space_size > 0 && static_cast<std::int64_t>(slots_.size()) >= s_.bf_node_space_size) {
    set_stop(BackfillCycle::Stop::kNodeSpace);
    return false;
  }
  return true;
}

// Keeps `nodes` whole for the job over [start, start + limit), both ends rounded down to
// bf_resolution and at least one slot long, as backfill.c sets start_time and end_reserve
// (22.05 and 24.05 alike).
void BackfillPass::reserve_nodes(const Simulator::QueueEntry& e, std::int64_t start, std::int64_t tl,
                                 const NodeBitset& nodes) {
  const std::int64_t r0 = start / res_ * res_;
  std::int64_t r1 = (start + tl) / res_ * res_;
  if (r1 < r0 + res_) r1 = r0 + res_;
  slots_.reserve(r0, r1, nodes);
  reserved_now_ = true;
  ++tally_.reservations;
  reserved_jobs_.insert(e.job);
}

}  // namespace sa::engine
