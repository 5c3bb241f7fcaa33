// The backfill cycle's will-run test (cons_tres _will_run_test) and its answers: what the
// scheduling steps of backfill.cpp ask of the select plugin, kept apart from those steps.
#include <algorithm>
#include <bit>

#include "engine/backfill_pass.h"

namespace sa::engine {

namespace {

// Calls f(node, unit) for every allocation unit `a` holds, units numbered as UnitLayout's
// words * 64 + bit.
template <class F>
void for_each_unit(const UnitLayout& layout, const Allocation& a, F&& f) {
  for (const AllocPiece& p : a.pieces) {
    const std::uint32_t off = layout.offset(p.node);
    for (std::uint32_t w = 0; w < layout.words(p.node) && p.unit_word + w < a.units.size(); ++w) {
      for (std::uint64_t bits = a.units[p.unit_word + w] & layout.valid(p.node, w); bits; bits &= bits - 1)
        f(p.node, std::size_t{off + w} * 64 + static_cast<std::uint32_t>(std::countr_zero(bits)));
    }
  }
}

bool overlaps(const Allocation& a, const NodeBitset& nodes) {
  for (const AllocPiece& p : a.pieces) {
    if (nodes.test(p.node)) return true;
  }
  return false;
}

}  // namespace

// The will-run test where CPUs may be shared: running jobs are released into the scratch pool
// and taken back as the rows left them. An aggregate of what the avail nodes can give (CPUs,
// nodes giving any) is kept as jobs are released, so the node-by-node fit runs only when the
// totals allow it. GPU demands always take the full fit. (The rows were asked about now.)
bool BackfillPass::will_run_shared(const Demand& d, const NodeBitset& avail, std::int64_t& pred, Allocation& alloc) {
  const std::vector<PlannedEnd>& ends = sim_.ends_;
  std::int64_t total = 0;
  std::uint32_t giving = 0;
  candidates_.assign_and(avail, d.whole_nodes ? scratch_.idle : scratch_.free);
  const std::uint32_t min_nodes = std::max<std::uint32_t>(1, d.min_nodes);
  auto may_fit = [&] { return d.gpus > 0 || (total >= d.cpus && giving >= min_nodes); };
  auto add_capacity = [&](std::uint32_t i, int sign) {
    const std::uint32_t c = sim_.pool_.capacity(scratch_.nodes[i], d);
    total += sign * static_cast<std::int64_t>(c);
    giving = static_cast<std::uint32_t>(static_cast<std::int64_t>(giving) + sign * (c > 0));
  };
  candidates_.for_each([&](std::size_t i) { add_capacity(static_cast<std::uint32_t>(i), 1); });
  released_.clear();
  count_unit_holds();
  const bool ok = release_in_batches(
      ends, sim_.now_, s_.bf_window_linear,
      [&](std::size_t k) { return overlaps(sim_.jobs_[ends[k].job].alloc, avail); },
      [&](std::size_t k) {
        const Allocation& a = sim_.jobs_[ends[k].job].alloc;
        for (const AllocPiece& p : a.pieces) {
          if (avail.test(p.node)) add_capacity(p.node, -1);
        }
        release_into_scratch(a);
        for (const AllocPiece& p : a.pieces) {
          if (avail.test(p.node)) add_capacity(p.node, 1);
        }
        released_.push_back(ends[k].job);
      },
      [&](std::size_t) { return may_fit() && sim_.pool_.fit(scratch_, d, avail, &alloc, s_.bf_busy_nodes); },
      [&](std::size_t k) { return sim_.overdue_end(ends[k]); }, pred);
  // The scratch was the pool before the walk: its released nodes are copied back.
  for (std::uint32_t j : released_) restore_scratch(sim_.jobs_[j].alloc);
  return ok;
}

// The holds of every running job's units (suspended jobs included), counted once per picture
// of the pool.
void BackfillPass::count_unit_holds() {
  if (!holds_stale_) return;
  holds_stale_ = false;
  const CoreRows& rows = *sim_.rows_;
  if (rows.linear()) return;  // select/linear: a node is free when no job holds it
  unit_holds_.assign(rows.layout().total_words() * 64, 0);
  held_units_.assign(sim_.pool_.size(), 0);
  for (std::uint32_t j : sim_.running_) hold_units(sim_.jobs_[j].alloc);
}

void BackfillPass::hold_units(const Allocation& a) {
  for_each_unit(sim_.rows_->layout(), a, [&](std::uint32_t node, std::size_t unit) {
    if (unit_holds_[unit]++ == 0) ++held_units_[node];
  });
}

// Gives a running job's allocation back to the scratch pool, its units free only where no
// other job holds them (the rows' union, as CoreRows::refresh_node counts it).
void BackfillPass::release_into_scratch(const Allocation& a) {
  const CoreRows& rows = *sim_.rows_;
  scratch_.give_back(a);
  if (rows.linear()) {
    for (const AllocPiece& p : a.pieces) {
      NodeResources& n = scratch_.nodes[p.node];
      if (n.jobs > 0) n.cpus_free = 0;  // another job still holds the whole node
      if (n.cpus_free == 0) scratch_.free.reset(p.node);
    }
    return;
  }
  for_each_unit(rows.layout(), a, [&](std::uint32_t node, std::size_t unit) {
    if (--unit_holds_[unit] == 0) --held_units_[node];
  });
  for (const AllocPiece& p : a.pieces) {
    NodeResources& n = scratch_.nodes[p.node];
    const std::uint32_t units = rows.layout().units(p.node);
    n.cpus_free = std::min(n.cpus_total, (units - std::min(held_units_[p.node], units)) * n.unit);
    if (n.cpus_free == 0) scratch_.free.reset(p.node);
  }
}

// Undoes release_into_scratch: the released nodes as the pool has them, their units held again.
void BackfillPass::restore_scratch(const Allocation& a) {
  const PoolState& pool = sim_.pool_.state();
  for (const AllocPiece& p : a.pieces) {
    scratch_.nodes[p.node] = pool.nodes[p.node];
    scratch_.free.assign(p.node, pool.free.test(p.node));
    scratch_.idle.assign(p.node, pool.idle.test(p.node));
  }
  if (!sim_.rows_->linear()) {
    hold_units(a);
    return;
  }
  for (const AllocPiece& p : a.pieces) {
    if (scratch_.nodes[p.node].cpus_free == 0) scratch_.free.reset(p.node);
  }
}

// The release profile of the pool as it is now: built once per cycle and after each start.
void BackfillPass::fresh_profile() {
  if (!profile_stale_) return;
  std::vector<ReleaseProfile::End> pe;
  pe.reserve(sim_.ends_.size());
  for (const PlannedEnd& e : sim_.ends_) pe.push_back({e.end, &sim_.jobs_[e.job].alloc, sim_.overdue_end(e)});
  profile_.build(sim_.pool_.state(), std::move(pe));
  profile_stale_ = false;
}

// The will-run test (cons_tres _will_run_test): current resources first, then running jobs
// released in batches (release_in_batches). Without shared CPUs the node states after each
// release come from the cycle's release profile.
void BackfillPass::will_run(WillRunAnswer& w) {
  w.known = true;
  if (sim_.rows_) {
    w.ok = will_run_shared(w.d, w.avail, w.pred, w.alloc);
    w.has_alloc = true;
    return;
  }
  fresh_profile();
  w.ok = profile_.will_run(sim_.pool_, w.d, w.avail, sim_.now_, s_.bf_window_linear, s_.bf_busy_nodes, w.pred, w.pos);
  w.has_alloc = false;
}

WillRunAnswer& BackfillPass::will_run_cached(const Demand& d, const NodeBitset& av) {
  WillRunAnswer& w = answers_.entry(d, av);
  if (!w.known) will_run(w);
  return w;
}

// The try's will-run answer on avail_, or nullptr when counting the nodes free by later_start
// proves that the test would fail or predict a start after it (most tries of a deep queue).
// An answer in the list is then the same as a new one, unless a reservation job's start
// may leave it stale: where the queue has such jobs the entry is added all the same (the
// list then holds what it always did) and left to be computed when it is needed.
WillRunAnswer* BackfillPass::will_run_unless_later(const SimRecord& rec, const Demand& d, std::int64_t later_start) {
  if (!later_start || sim_.rows_ || !rec.alternatives.empty()) return &will_run_best(rec, d, avail_);
  fresh_profile();
  if (!resv_jobs_) {
    if (profile_.cannot_start_by(sim_.pool_, d, avail_, sim_.now_, later_start)) return nullptr;
    return &will_run_cached(d, avail_);
  }
  WillRunAnswer& w = answers_.entry(d, avail_);
  if (w.known) return &w;
  if (profile_.cannot_start_by(sim_.pool_, w.d, w.avail, sim_.now_, later_start)) return nullptr;
  will_run(w);
  return &w;
}

// Whether the plan of answer w surely runs into a reservation over [r0, r1) without its
// nodes being chosen: its fit takes at least nodes_needed of the candidates, and fewer are
// free in the slot open at r0 (which SlotMap::conflicts reads when r1 > r0).
bool BackfillPass::surely_conflicts(const WillRunAnswer& w, std::int64_t r0, std::int64_t r1) {
  if (w.has_alloc || sim_.rows_ || r1 <= r0) return false;
  const NodeBitset* slot = slots_.avail_at(r0);
  return slot && profile_.too_few_within(sim_.pool_, w.d, w.avail, w.pos, *slot);
}

// A matching-OR constraint: the alternative that can start soonest (backfill tries each
// feature set, _attempt_backfill's feat_cnt loop); answers are found again by key, as the
// list may reuse an entry between two alternatives.
WillRunAnswer& BackfillPass::will_run_best(const SimRecord& rec, const Demand& d, const NodeBitset& av) {
  if (rec.alternatives.empty()) return will_run_cached(d, av);
  bool found = false, best_ok = false;
  std::int64_t best_pred = 0;
  for (std::int32_t a : rec.alternatives) {
    alt_avail_.assign_and(av, sim_.node_sets_[static_cast<std::size_t>(a)]);
    const WillRunAnswer& w = will_run_cached(d, alt_avail_);
    if (!found || (w.ok && (!best_ok || w.pred < best_pred))) {
      found = true;
      best_ok = w.ok;
      best_pred = w.pred;
      best_avail_ = alt_avail_;
    }
  }
  return will_run_cached(d, best_avail_);
}

const Allocation& BackfillPass::alloc_of(WillRunAnswer& w) {
  if (!w.has_alloc) profile_.allocate(sim_.pool_, w.d, w.avail, w.pos, s_.bf_busy_nodes, w.alloc);
  w.has_alloc = true;
  return w.alloc;
}

}  // namespace sa::engine
