// The backfill scheduler (backfill.c _attempt_backfill with cons_tres's will-run test;
// algorithms.md §6). Running jobs are planned to end at start + time limit, never at their
// real run time. Pending jobs that cannot start now reserve whole nodes in a time-slotted
// availability map, rounded to bf_resolution, up to bf_window. A cycle is instantaneous on
// the simulated clock; its slurmctld cost is counted (SimOptions::bf_test_cost_us per
// will-run test) to apply bf_max_time and, without bf_continue, the end of the cycle at the
// first lock yield after which job or node state has changed.
#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "engine/bf_answers.h"
#include "engine/bf_profile.h"
#include "engine/bf_slots.h"
#include "engine/simulator.h"

namespace sa::engine {

namespace {

bool overlaps(const Allocation& a, const NodeBitset& nodes) {
  for (const AllocPiece& p : a.pieces) {
    if (nodes.test(p.node)) return true;
  }
  return false;
}

}  // namespace

void Simulator::backfill_cycle() {
  if (!bf_changed_) return;  // nothing changed since the last cycle
  bf_changed_ = false;
  ++result_.counters.bf_cycles;
  queue_sort();
  result_.counters.bf_queue_records += queue_.size();
  result_.bf_log.push_back({now_, static_cast<std::uint32_t>(queue_.size()), 0, 0, BackfillCycle::Stop::kEnd});
  if (queue_.empty()) return;  // nothing pending: nothing to plan
  const SchedulerSettings& s = conf_.scheduler;
  const std::int64_t res = std::max<std::int64_t>(1, s.bf_resolution);
  const std::int64_t window_end = (now_ + s.bf_window) / res * res;
  SlotMap slots(now_ / res * res, window_end, pool_.usable(), resv_ ? &resv_->windows() : nullptr);
  // Where CPUs may be shared, the will-run tests release jobs into a copy of the pool.
  PoolState scratch;
  if (rows_) scratch = pool_.state();

  std::int64_t next_change = kNoTime;
  for (std::uint32_t j : running_) {
    const SimJob& job = jobs_[j];
    if (job.planned_end > now_ && (next_change == kNoTime || job.planned_end < next_change))
      next_change = job.planned_end;
  }
  for (std::size_t i = submit_cursor_; i < jobs_.size(); ++i) {
    if (jobs_[i].req.submit > now_) {
      if (next_change == kNoTime || jobs_[i].req.submit < next_change) next_change = jobs_[i].req.submit;
      break;
    }
  }
  // ends_ is kept sorted by planned end.
  sort_ends();
  const std::vector<PlannedEnd>& ends = ends_;

  // The will-run test: current resources first, then running jobs released in batches
  // (release_in_batches). Without shared CPUs the node states after each release come from
  // the cycle's release profile, built once and again after each start; where CPUs may be
  // shared the scratch pool is released and taken back as the rows left it.
  ReleaseProfile profile;
  bool profile_stale = true;
  NodeBitset candidates;
  std::vector<std::uint32_t> released;
  auto will_run_shared = [&](const Demand& d, const NodeBitset& avail, std::int64_t& pred, Allocation& alloc) {
    // An aggregate of what the avail nodes can give (CPUs, nodes giving any) is kept as
    // jobs are released, so the node-by-node fit runs only when the totals allow it.
    // GPU demands always take the full fit. (The rows were asked about starting now.)
    std::int64_t total = 0;
    std::uint32_t giving = 0;
    candidates.assign_and(avail, d.whole_nodes ? scratch.idle : scratch.free);
    const std::uint32_t min_nodes = std::max<std::uint32_t>(1, d.min_nodes);
    auto may_fit = [&] { return d.gpus > 0 || (total >= d.cpus && giving >= min_nodes); };
    auto add_capacity = [&](std::uint32_t i, int sign) {
      const std::uint32_t c = pool_.capacity(scratch.nodes[i], d);
      total += sign * static_cast<std::int64_t>(c);
      giving = static_cast<std::uint32_t>(static_cast<std::int64_t>(giving) + sign * (c > 0));
    };
    candidates.for_each([&](std::size_t i) { add_capacity(static_cast<std::uint32_t>(i), 1); });
    released.clear();
    const bool ok = release_in_batches(
        ends, now_, s.bf_window_linear, [&](std::size_t k) { return overlaps(jobs_[ends[k].job].alloc, avail); },
        [&](std::size_t k) {
          const Allocation& a = jobs_[ends[k].job].alloc;
          for (const AllocPiece& p : a.pieces) {
            if (avail.test(p.node)) add_capacity(p.node, -1);
          }
          scratch.give_back(a);
          for (const AllocPiece& p : a.pieces) {
            if (avail.test(p.node)) add_capacity(p.node, 1);
          }
          released.push_back(ends[k].job);
        },
        [&](std::size_t) { return may_fit() && pool_.fit(scratch, d, avail, &alloc, s.bf_busy_nodes); }, pred);
    for (std::uint32_t j : released) scratch.take(jobs_[j].alloc);
    return ok;
  };
  WillRunAnswers answers;
  auto will_run_cached = [&](const Demand& d, const NodeBitset& av) -> WillRunAnswer& {
    return answers.get(d, av, [&](WillRunAnswer& w) {
      if (rows_) {
        w.ok = will_run_shared(d, av, w.pred, w.alloc);
        w.has_alloc = true;
        return;
      }
      if (profile_stale) {
        std::vector<ReleaseProfile::End> pe;
        pe.reserve(ends.size());
        for (const PlannedEnd& e : ends) pe.push_back({e.end, &jobs_[e.job].alloc});
        profile.build(pool_.state(), std::move(pe));
        profile_stale = false;
      }
      w.ok = profile.will_run(pool_, d, av, now_, s.bf_window_linear, s.bf_busy_nodes, w.pred, w.pos);
      w.has_alloc = false;
    });
  };
  // A matching-OR constraint: the alternative that can start soonest (backfill tries each
  // feature set, _attempt_backfill's feat_cnt loop); answers are found again by key, as the
  // list may reuse an entry between two alternatives.
  NodeBitset alt_avail, best_avail;
  auto will_run_best = [&](const SimRecord& rec, const NodeBitset& av) -> WillRunAnswer& {
    if (rec.alternatives.empty()) return will_run_cached(rec.demand, av);
    bool found = false, best_ok = false;
    std::int64_t best_pred = 0;
    for (std::int32_t a : rec.alternatives) {
      alt_avail.assign_and(av, node_sets_[static_cast<std::size_t>(a)]);
      const WillRunAnswer& w = will_run_cached(rec.demand, alt_avail);
      if (!found || (w.ok && (!best_ok || w.pred < best_pred))) {
        found = true;
        best_ok = w.ok;
        best_pred = w.pred;
        best_avail = alt_avail;
      }
    }
    return will_run_cached(rec.demand, best_avail);
  };
  auto alloc_of = [&](WillRunAnswer& w) -> const Allocation& {
    if (!w.has_alloc) profile.allocate(pool_, w.d, w.avail, w.pos, s.bf_busy_nodes, w.alloc);
    w.has_alloc = true;
    return w.alloc;
  };

  std::map<std::string, std::int64_t> per_user, per_assoc, per_user_part;
  std::vector<std::int64_t> per_part(conf_.partitions.size(), 0), resv_per_part(conf_.partitions.size(), 0);
  std::set<std::uint32_t> reserved_jobs;
  double elapsed_us = 0;
  double next_yield_us = static_cast<double>(s.bf_yield_interval_us);
  std::int64_t tests = 0, started = 0;
  const double max_time_us = static_cast<double>(s.bf_max_time) * 1e6;
  Allocation alloc;
  NodeBitset base, avail;

  for (std::size_t qi = 0; qi < queue_.size(); ++qi) {
    const QueueEntry e = queue_[qi];
    SimJob& job = jobs_[e.job];
    if (job.state != JobState::kPending) continue;
    const SimRecord& rec = job.recs[e.rec];
    if (elapsed_us >= max_time_us) {
      ++result_.counters.bf_stopped_by_max_time;
      result_.bf_log.back().stop = BackfillCycle::Stop::kMaxTime;
      break;
    }
    if (!s.bf_continue && elapsed_us >= next_yield_us) {
      // Locks are released for bf_yield_sleep; a job or node change meanwhile ends the cycle.
      elapsed_us += static_cast<double>(s.bf_yield_sleep_us);
      next_yield_us = elapsed_us + static_cast<double>(s.bf_yield_interval_us);
      const std::int64_t resume = now_ + static_cast<std::int64_t>(elapsed_us / 1e6 + 0.999999);
      if (next_change != kNoTime && next_change <= resume) {
        ++result_.counters.bf_stopped_by_yield;
        result_.bf_log.back().stop = BackfillCycle::Stop::kYield;
        bf_changed_ = true;
        break;
      }
    }
    // Jobs held by a job-count or wall limit are skipped and reserve nothing (without
    // assoc_limit_stop); TRES limits are checked once a start time is known, below.
    if (!s.assoc_limit_stop && !limits_allow(job, rec, LimitPhase::kPre)) continue;
    // Without bf_licenses backfill neither starts nor plans a job whose licences are taken.
    if (!job.req.licenses.empty() && !licenses_free(job)) continue;
    // Reserve nothing for jobs below bf_min_prio_reserve, younger than bf_min_age_reserve,
    // already reserved in another partition (bf_one_resv_per_job), or past the partition's
    // bf_job_part_count_reserve.
    bool test_now_only =
        (s.bf_min_prio_reserve > 0 && rec.priority < static_cast<std::uint64_t>(s.bf_min_prio_reserve)) ||
        (s.bf_min_age_reserve > 0 && now_ - job.begin < s.bf_min_age_reserve) ||
        (s.bf_one_resv_per_job && reserved_jobs.count(e.job)) ||
        (s.bf_job_part_count_reserve > 0 && resv_per_part[rec.part] >= s.bf_job_part_count_reserve);
    // Per-cycle record limits: they count records tested, not jobs started; records they
    // skip do not count towards bf_max_job_test.
    const std::string& user = job.req.user;
    const std::string part_key = user + "\n" + std::to_string(rec.part);
    const std::string assoc_key = std::to_string(job.assoc);
    if ((s.bf_max_job_user_part > 0 && per_user_part[part_key] >= s.bf_max_job_user_part) ||
        (s.bf_max_job_part > 0 && per_part[rec.part] >= s.bf_max_job_part) ||
        (s.bf_max_job_assoc > 0 && per_assoc[assoc_key] >= s.bf_max_job_assoc) ||
        (s.bf_max_job_assoc == 0 && s.bf_max_job_user > 0 && per_user[user] >= s.bf_max_job_user)) {
      ++result_.counters.bf_skipped_by_user_limit;
      continue;
    }
    if (s.bf_max_job_user_part > 0) ++per_user_part[part_key];
    if (s.bf_max_job_part > 0) ++per_part[rec.part];
    if (s.bf_max_job_assoc > 0)
      ++per_assoc[assoc_key];
    else if (s.bf_max_job_user > 0)
      ++per_user[user];

    if (job.resv >= 0) {
      // A reservation job can only start now, on its reservation's nodes; it plans nothing.
      base.assign_and(record_nodes(rec), pool_.usable());
      apply_reservations(job, rec, base);
      if (base.count_at_least(rec.demand.min_nodes) && place(job, rec, base, &alloc) &&
          limits_allow(job, rec, LimitPhase::kPost)) {
        // The answers stay (as in every cycle so far), so those still without their
        // allocation take it from the profile before the start changes the pool.
        answers.for_each_recent([&](WillRunAnswer& w) {
          if (w.ok) alloc_of(w);
        });
        start_job(e.job, e.rec, alloc, StartedBy::kBackfill);
        if (rows_) scratch = pool_.state();
        profile_stale = true;
        ++started;
      }
      continue;
    }
    const std::int64_t tl = plan_limit(rec);
    std::int64_t start_res = now_, pred = 0;
    bool counted = false, stop = false, start_now = false, plan = false;
    for (int attempt = 0; attempt < 1000; ++attempt) {
      if (start_res >= window_end && start_res > now_) break;
      const std::int64_t end_time = std::max(start_res, now_) + tl;
      base.assign_and(record_nodes(rec), pool_.usable());
      avail = base;
      const std::int64_t later_start = slots.narrow(start_res, end_time, base, avail);
      if (!avail.count_at_least(rec.demand.min_nodes)) {
        if (later_start) {
          start_res = later_start;
          continue;
        }
        break;
      }
      if (!counted) {
        if (s.bf_max_job_test > 0 && tests >= s.bf_max_job_test) {
          ++result_.counters.bf_stopped_by_max_job_test;
          result_.bf_log.back().stop = BackfillCycle::Stop::kMaxJobTest;
          stop = true;
          break;
        }
        ++tests;
        ++result_.counters.bf_tests;
        counted = true;
        job.bf_tested = true;
      }
      elapsed_us += opt_.bf_test_cost_us;
      // Where CPUs may be shared the select plugin's own passes decide whether it starts
      // now (oversubscription rows included); the future plan below stays count-based.
      if (rows_ && start_res <= now_ && place(job, rec, avail, &alloc)) {
        start_now = true;
        break;
      }
      WillRunAnswer& w = will_run_best(rec, avail);
      pred = w.pred;
      if (!w.ok) {
        if (later_start) {
          start_res = later_start;
          continue;
        }
        break;
      }
      pred = std::max(pred, start_res);
      if (pred <= now_) {
        alloc = alloc_of(w);
        start_now = true;
        break;
      }
      if (later_start && pred > later_start) {
        start_res = later_start;
        continue;
      }
      if (pred > now_ + s.bf_window) {
        ++result_.counters.bf_no_resv_beyond_window;
        break;
      }
      // The select plugin does not know pending reservations: a plan that runs into one
      // is retried from its predicted start.
      const std::int64_t r0 = pred / res * res, r1 = (pred + tl) / res * res;
      const Allocation& planned = alloc_of(w);
      if (slots.conflicts(r0, r1, planned)) {
        start_res = pred > start_res ? pred : start_res + res;
        continue;
      }
      alloc = planned;
      plan = true;
      break;
    }
    if (stop) break;
    // acct_policy_job_runnable_post_select: a job over a TRES limit neither starts nor
    // reserves.
    if ((start_now || plan) && !limits_allow(job, rec, start_now ? LimitPhase::kBoth : LimitPhase::kPost)) continue;
    if (start_now) {
      start_job(e.job, e.rec, alloc, StartedBy::kBackfill);  // also adds it to ends_
      answers.job_started();
      if (rows_) {
        // Shared CPUs are not a count: copy what the rows left on its nodes.
        for (const AllocPiece& p : alloc.pieces) scratch.nodes[p.node] = pool_.state().nodes[p.node];
        scratch.free = pool_.state().free;
        scratch.idle = pool_.state().idle;
      }
      profile_stale = true;
      if (job.planned_end > now_ && (next_change == kNoTime || job.planned_end < next_change))
        next_change = job.planned_end;
      ++started;
      if (s.bf_max_job_start > 0 && started >= s.bf_max_job_start) {
        ++result_.counters.bf_stopped_by_max_job_start;
        result_.bf_log.back().stop = BackfillCycle::Stop::kMaxJobStart;
        break;
      }
      continue;
    }
    if (!plan || test_now_only) continue;
    // Reserve the chosen nodes, whole, over [start, start + limit) rounded to bf_resolution.
    const std::int64_t r0 = pred / res * res;
    std::int64_t r1 = (pred + tl + res - 1) / res * res;
    if (r1 <= r0) r1 = r0 + res;
    NodeBitset nodes(conf_.nodes.size());
    for (const AllocPiece& p : alloc.pieces) nodes.set(p.node);
    slots.reserve(r0, r1, nodes);
    ++result_.counters.bf_reservations;
    ++resv_per_part[rec.part];
    reserved_jobs.insert(e.job);
    if (s.bf_node_space_size > 0 && static_cast<std::int64_t>(slots.size()) >= s.bf_node_space_size) {
      ++result_.counters.bf_stopped_by_node_space;
      result_.bf_log.back().stop = BackfillCycle::Stop::kNodeSpace;
      break;
    }
  }
  result_.bf_log.back().tested = static_cast<std::uint32_t>(tests);
  result_.bf_log.back().started = static_cast<std::uint32_t>(started);
}

}  // namespace sa::engine
