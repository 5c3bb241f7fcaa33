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

#include "engine/simulator.h"

namespace sa::engine {

namespace {

struct Slot {
  std::int64_t begin, end;
  NodeBitset avail;
};

bool overlaps(const Allocation& a, const NodeBitset& nodes) {
  for (const AllocPiece& p : a.pieces) {
    if (nodes.test(p.node)) return true;
  }
  return false;
}

/// Splits the slot containing `t` so that a slot boundary falls on `t`.
void split_at(std::vector<Slot>& slots, std::int64_t t) {
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (slots[i].begin < t && t < slots[i].end) {
      Slot tail{t, slots[i].end, slots[i].avail};
      slots[i].end = t;
      slots.insert(slots.begin() + static_cast<std::ptrdiff_t>(i) + 1, std::move(tail));
      return;
    }
  }
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
  std::vector<Slot> slots{Slot{now_ / res * res, window_end, pool_.usable()}};
  // Advanced reservations take their nodes out of the map for their windows, so a job
  // without one is planned around them exactly as job_test_resv keeps it off them.
  if (resv_) {
    for (const ResvWindow& w : resv_->windows()) {
      if (w.start >= window_end) break;
      if (w.end <= slots.front().begin) continue;
      split_at(slots, std::max(w.start, slots.front().begin));
      split_at(slots, std::min(w.end, window_end));
      for (Slot& sl : slots) {
        if (sl.begin >= w.start && sl.end <= w.end) sl.avail.subtract(w.nodes);
      }
    }
  }
  PoolState scratch = pool_.state();

  std::int64_t next_change = kNoTime;
  for (std::uint32_t j : running_) {
    const SimJob& job = jobs_[j];
    if (job.planned_end > now_ && (next_change == kNoTime || job.planned_end < next_change)) next_change = job.planned_end;
  }
  for (std::size_t i = submit_cursor_; i < jobs_.size(); ++i) {
    if (jobs_[i].req.submit > now_) {
      if (next_change == kNoTime || jobs_[i].req.submit < next_change) next_change = jobs_[i].req.submit;
      break;
    }
  }
  // ends_ is kept sorted by planned end; jobs past it (OverTimeLimit) count as ending now + 1.
  sort_ends();
  const std::vector<PlannedEnd>& ends = ends_;
  auto end_of = [this](const PlannedEnd& e) { return std::max(now_ + 1, e.end); };

  // The will-run test: current resources first, then running jobs removed in batches of
  // growing time windows (30 s, doubling, or +bf_window_linear); the predicted start is
  // the end of the last job removed.
  std::vector<std::uint32_t> released;
  NodeBitset candidates;
  auto will_run = [&](const Demand& d, const NodeBitset& avail, std::int64_t& pred, Allocation& alloc) {
    // An aggregate of what the avail nodes can give (CPUs, nodes giving any) is kept as
    // jobs are released, so the node-by-node fit runs only when the totals allow it.
    // GPU demands always take the full fit.
    std::int64_t total = 0;
    std::uint32_t giving = 0;
    candidates.assign_and(avail, d.whole_nodes ? scratch.idle : scratch.free);
    const std::uint32_t min_nodes = std::max<std::uint32_t>(1, d.min_nodes);
    auto may_fit = [&] { return d.gpus > 0 || (total >= d.cpus && giving >= min_nodes); };
    // The sum stops as soon as it says the job may fit now (capacities are never negative);
    // it is completed only if the immediate fit fails and running jobs must be released.
    bool partial = false;
    candidates.for_each_until([&](std::size_t i) {
      const std::uint32_t c = pool_.capacity(scratch.nodes[i], d);
      total += c;
      giving += c > 0;
      return partial = may_fit();
    });
    // (Where CPUs may be shared the caller has already asked the rows about starting now.)
    if (!rows_ && may_fit() && pool_.fit(scratch, d, avail, &alloc, s.bf_busy_nodes)) {
      pred = now_;
      return true;
    }
    if (partial) {
      total = 0;
      giving = 0;
      candidates.for_each([&](std::size_t i) {
        const std::uint32_t c = pool_.capacity(scratch.nodes[i], d);
        total += c;
        giving += c > 0;
      });
    }
    released.clear();
    std::int64_t window = 30, end_time = 0;
    std::size_t it = 0;
    bool more = true, ok = false;
    while (more && !ok) {
      std::int64_t last = -1;
      bool skip_test = false;
      int removed = 0;
      while (true) {
        if (it == ends.size()) {
          more = false;
          break;
        }
        const PlannedEnd& e = ends[it++];
        const Allocation& a = jobs_[e.job].alloc;
        if (!overlaps(a, avail)) continue;
        const std::int64_t e_end = end_of(e);
        if (!end_time) end_time = e_end + (30 - e_end % 30);
        last = static_cast<std::int64_t>(it - 1);
        for (const AllocPiece& p : a.pieces) {
          if (!avail.test(p.node)) continue;
          const std::uint32_t c = pool_.capacity(scratch.nodes[p.node], d);
          total -= c;
          giving -= c > 0;
        }
        scratch.give_back(a);
        for (const AllocPiece& p : a.pieces) {
          if (!avail.test(p.node)) continue;
          const std::uint32_t c = pool_.capacity(scratch.nodes[p.node], d);
          total += c;
          giving += c > 0;
        }
        released.push_back(e.job);
        if (it == ends.size()) {
          more = false;
          break;
        }
        if (end_of(ends[it]) > end_time + window) break;
        if (removed++ > 200) {
          skip_test = true;
          break;
        }
      }
      if (last < 0) break;
      if (skip_test) continue;
      do {
        window = s.bf_window_linear > 0 ? window + s.bf_window_linear : window * 2;
      } while (it < ends.size() && end_of(ends[it]) > end_time + window);
      if (may_fit() && pool_.fit(scratch, d, avail, &alloc, s.bf_busy_nodes)) {
        const std::int64_t e = end_of(ends[static_cast<std::size_t>(last)]);
        pred = e <= now_ ? now_ + 1 : e;
        ok = true;
      }
    }
    for (std::uint32_t j : released) scratch.take(jobs_[j].alloc);
    return ok;
  };

  // Will-run answers depend only on the demand, the nodes allowed and the scratch state,
  // which changes only when a job starts; queues are full of jobs of the same shape, so
  // one answer serves them all until then. (The test still counts for each job: bf_tests
  // and the bf_max_time cost model see every job, as slurmctld would.)
  struct WillRun {
    Demand d;
    NodeBitset avail;
    bool ok;
    std::int64_t pred;
    Allocation alloc;
  };
  std::vector<WillRun> answers;
  auto will_run_cached = [&](const Demand& d, const NodeBitset& av, std::int64_t& pred, Allocation& out) {
    for (const WillRun& w : answers) {
      if (w.d == d && w.avail == av) {
        pred = w.pred;
        out = w.alloc;
        return w.ok;
      }
    }
    const bool ok = will_run(d, av, pred, out);
    if (answers.size() >= 64) answers.clear();
    answers.push_back({d, av, ok, pred, out});
    return ok;
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
    // Reserve nothing for jobs below bf_min_prio_reserve, younger than bf_min_age_reserve,
    // already reserved in another partition (bf_one_resv_per_job), or past the partition's
    // bf_job_part_count_reserve.
    bool test_now_only = (s.bf_min_prio_reserve > 0 && rec.priority < static_cast<std::uint64_t>(s.bf_min_prio_reserve)) ||
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
    if (s.bf_max_job_assoc > 0) ++per_assoc[assoc_key];
    else if (s.bf_max_job_user > 0) ++per_user[user];

    if (job.resv >= 0) {
      // A reservation job can only start now, on its reservation's nodes; it plans nothing.
      base.assign_and(part_nodes_[rec.part], pool_.usable());
      apply_reservations(job, rec, base);
      if (base.count_at_least(rec.demand.min_nodes) && place(job, rec, base, &alloc) &&
          limits_allow(job, rec, LimitPhase::kPost)) {
        start_job(e.job, e.rec, alloc, StartedBy::kBackfill);
        scratch = pool_.state();
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
      base.assign_and(part_nodes_[rec.part], pool_.usable());
      avail = base;
      std::int64_t later_start = 0;
      // Slots are contiguous and sorted: start at the first one still open at start_res.
      const auto first = std::partition_point(slots.begin(), slots.end(),
                                              [&](const Slot& sl) { return sl.end <= start_res; });
      for (std::size_t k = static_cast<std::size_t>(first - slots.begin()); k < slots.size(); ++k) {
        const Slot& sl = slots[k];
        // A later start is worth trying only if the next slot frees nodes.
        if (sl.end > start_res && k + 1 < slots.size() && later_start == 0 &&
            NodeBitset::any_gain(base, slots[k + 1].avail, avail, sl.avail)) {
          later_start = sl.end;
        }
        if (sl.end <= start_res) continue;
        if (sl.begin > end_time) break;
        avail &= sl.avail;
      }
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
      if (!will_run_cached(rec.demand, avail, pred, alloc)) {
        if (later_start) {
          start_res = later_start;
          continue;
        }
        break;
      }
      pred = std::max(pred, start_res);
      if (pred <= now_) {
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
      bool conflict = false;
      for (const Slot& sl : slots) {
        if (sl.end > r0 && sl.begin < r1) {
          for (const AllocPiece& p : alloc.pieces) {
            if (!sl.avail.test(p.node)) conflict = true;
          }
        }
        if (conflict) break;
      }
      if (conflict) {
        start_res = pred > start_res ? pred : start_res + res;
        continue;
      }
      plan = true;
      break;
    }
    if (stop) break;
    // acct_policy_job_runnable_post_select: a job over a TRES limit neither starts nor
    // reserves.
    if ((start_now || plan) && !limits_allow(job, rec, start_now ? LimitPhase::kBoth : LimitPhase::kPost)) continue;
    if (start_now) {
      start_job(e.job, e.rec, alloc, StartedBy::kBackfill);  // also adds it to ends_
      answers.clear();
      if (rows_) {
        // Shared CPUs are not a count: copy what the rows left on its nodes.
        for (const AllocPiece& p : alloc.pieces) scratch.nodes[p.node] = pool_.state().nodes[p.node];
        scratch.free = pool_.state().free;
        scratch.idle = pool_.state().idle;
      } else {
        scratch.take(alloc);
      }
      if (job.planned_end > now_ && (next_change == kNoTime || job.planned_end < next_change)) next_change = job.planned_end;
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
    split_at(slots, r0);
    split_at(slots, std::min(r1, window_end));
    NodeBitset nodes(conf_.nodes.size());
    for (const AllocPiece& p : alloc.pieces) nodes.set(p.node);
    for (Slot& sl : slots) {
      if (sl.begin >= r0 && sl.end <= r1) sl.avail.subtract(nodes);
    }
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
