#include "engine/bf_profile.h"

#include <algorithm>
#include <bit>
#include <limits>

namespace sa::engine {

namespace {

/// A fit needs at least this many candidate nodes: min_nodes, and enough nodes to give the
/// CPUs at the most one node can give. Counting candidates rules a fit out without trying it.
std::size_t nodes_needed(const NodePool& pool, const Demand& d) {
  const std::size_t min_nodes = std::max<std::uint32_t>(1, d.min_nodes);
  const std::uint32_t per_node = std::min<std::uint32_t>(pool.max_node_cpus(), d.max_cpus_per_node);
  if (d.cpus == 0) return min_nodes;
  if (per_node == 0) return std::numeric_limits<std::size_t>::max();
  return std::max<std::size_t>(min_nodes, (d.cpus + per_node - 1) / per_node);
}

}  // namespace

std::size_t ReleaseProfile::NeededMemo::get(const NodePool& p, const Demand& d) {
  if (pool != &p || cpus != d.cpus || min_nodes != d.min_nodes || max_cpus_per_node != d.max_cpus_per_node) {
    pool = &p;
    cpus = d.cpus;
    min_nodes = d.min_nodes;
    max_cpus_per_node = d.max_cpus_per_node;
    need = nodes_needed(p, d);
  }
  return need;
}

void ReleaseProfile::build(const PoolState& base, std::vector<End> ends) {
  base_ = &base;
  ends_ = std::move(ends);
  dead_at_start_.clear();
  dead_at_start_next_ = 0;
  touched_rows_.clear();
  const std::size_t n = base.nodes.size();
  uniform_ = true;
  for (const NodeResources& r : base.nodes) {
    const NodeResources& r0 = base.nodes.front();
    if (r.cpus_total != r0.cpus_total || r.mem_total != r0.mem_total || r.gpus_total != r0.gpus_total ||
        r.unit != r0.unit || r.alt_unit != r0.alt_unit) {
      uniform_ = false;
      break;
    }
  }
  first_.assign(n + 1, 0);
  spans_.clear();
  std::uint32_t span_words = 0;
  for (const End& e : ends_) {
    Span sp;
    if (!e.alloc->pieces.empty()) {
      std::uint32_t lo = e.alloc->pieces.front().node, hi = lo;
      for (const AllocPiece& p : e.alloc->pieces) {
        ++first_[p.node + 1];
        lo = std::min(lo, p.node);
        hi = std::max(hi, p.node);
      }
      sp = Span{lo / 64, hi / 64 - lo / 64 + 1, span_words};
      span_words += sp.words;
    }
    spans_.push_back(sp);
  }
  for (std::size_t i = 0; i < n; ++i) first_[i + 1] += first_[i];
  fill_.assign(first_.begin(), first_.end() - 1);
  steps_.resize(first_[n]);
  node_bits_.assign(span_words, 0);
  freed_bits_.assign(span_words, 0);
  idled_bits_.assign(span_words, 0);
  free_now_ = base.free;
  idle_now_ = base.idle;
  words_ = (n + 63) / 64;
  open_free_.assign(base.free.data(), base.free.data() + words_);
  open_idle_.assign(base.idle.data(), base.idle.data() + words_);
  for (std::uint32_t k = 0; k < ends_.size(); ++k) {
    const Span& sp = spans_[k];
    for (const AllocPiece& p : ends_[k].alloc->pieces) {
      const std::uint32_t i = p.node;
      const std::uint32_t s = fill_[i]++;
      NodeResources after = s == first_[i] ? base.nodes[i] : steps_[s - 1].after;
      release_piece(after, p);
      steps_[s] = Step{k, after};
      const std::size_t w = sp.bits + i / 64 - sp.first_word;
      const std::uint64_t bit = std::uint64_t{1} << (i % 64);
      node_bits_[w] |= bit;
      // The bits PoolState::give_back sets; no release clears them.
      if (after.cpus_free > 0 && !free_now_.test(i)) {
        free_now_.set(i);
        freed_bits_[w] |= bit;
      }
      if (after.jobs == 0 && !idle_now_.test(i)) {
        idle_now_.set(i);
        idled_bits_[w] |= bit;
      }
    }
  }
}

bool ReleaseProfile::touches(std::size_t k, const std::uint64_t* nodes) const {
  // Most walks test many ends that hold no allowed node: raw words, and no bound checks.
  const Span& sp = spans_[k];
  const std::uint64_t* mine = node_bits_.data() + sp.bits;
  nodes += sp.first_word;
  for (std::uint32_t w = 0; w < sp.words; ++w) {
    if (nodes[w] & mine[w]) return true;
  }
  return false;
}

std::size_t ReleaseProfile::open(std::size_t k, bool idle, const NodeBitset& allowed, NodeBitset& cand) const {
  const Span& sp = spans_[k];
  const std::vector<std::uint64_t>& opened = idle ? idled_bits_ : freed_bits_;
  std::size_t added = 0;
  for (std::uint32_t w = 0; w < sp.words; ++w) {
    const std::size_t at = sp.first_word + w;
    const std::uint64_t bits = opened[sp.bits + w] & allowed.word(at) & ~cand.word(at);
    cand.or_word(at, bits);
    added += static_cast<std::size_t>(std::popcount(bits));
  }
  return added;
}

std::size_t ReleaseProfile::candidates_at(std::size_t p, bool idle, const NodeBitset& allowed, NodeBitset& cand) {
  if (words_ == 0) {
    cand.assign_and(allowed, idle ? base_->idle : base_->free);
    return 0;
  }
  cand.assign_and(allowed, open_at(p, idle));
  return cand.count();
}

bool ReleaseProfile::idle_capacity(const NodePool& pool, const Demand& d, std::uint32_t& cap) const {
  // Only CPU counts decide then: no GPUs to find, no fixed CPUs per node (fit_pass takes
  // what it needs from each node in turn, so the count of nodes and their capacity do).
  // Under topology/tree the switches decide too (nodes must share a switch), so the nodes
  // are walked.
  if (!uniform_ || base_->nodes.empty() || d.gpus > 0 || d.cpus_per_node > 0 || d.max_nodes > 0 || d.required ||
      d.counted || pool.by_topology())
    return false;
  NodeResources idle = base_->nodes.front();
  idle.cpus_free = idle.cpus_total;
  idle.mem_free = idle.mem_total;
  idle.gpus_free = idle.gpus_total;
  idle.jobs = 0;
  cap = pool.capacity(idle, d);
  return true;
}

bool ReleaseProfile::will_run(const NodePool& pool, const Demand& d, const NodeBitset& avail, std::int64_t now,
                              std::int64_t window_linear, bool prefer_busy, std::int64_t& pred, std::size_t& pos) {
  // Even with every running job gone too few nodes are allowed: no release can help.
  const std::size_t need = nodes_needed(pool, d);
  if (!avail.count_at_least(need)) return false;
  std::size_t count = candidates_at(0, d.whole_nodes, avail, cand_);
  // When every candidate is idle on a pool of alike nodes (a machine of whole-node jobs),
  // each gives the same capacity and the fit is decided by counting; idle candidates are
  // counted beside the others for that.
  std::uint32_t idle_cap = 0;
  const bool by_count = idle_capacity(pool, d, idle_cap);
  std::size_t idle_count = by_count && !d.whole_nodes ? candidates_at(0, true, avail, cand_idle_) : 0;
  const bool skip = may_skip_dead(pool, d);
  DeadAtStart* start = skip ? &start_dead(d) : nullptr;
  auto fits = [&](std::size_t p) {
    if (count < need) return false;
    if (by_count && (d.whole_nodes || (idle_count == count && cand_idle_ == cand_))) {
      if (idle_cap == 0 || static_cast<std::uint64_t>(count) * idle_cap < d.cpus) return false;
    } else {
      if (skip) skip_dead(pool, d, p);
      if (!pool.fit_nodes([&](std::uint32_t i) -> const NodeResources& { return node_at(i, p); }, d,
                          skip ? walk_ : cand_, prefer_busy, nullptr,
                          [](std::uint32_t, const NodeResources& n) { return n.cpus_free; }))
        return false;
    }
    pos = p;
    return true;
  };
  const bool now_fits = fits(0);
  if (start) {
    start->checked = checked_;
    start->dead = dead_;
  }
  if (now_fits) {
    pred = now;
    return true;
  }
  return release_in_batches(
      ends_, now, window_linear, [&, words = avail.data()](std::size_t k) { return touches(k, words); },
      [&](std::size_t k) {
        count += open(k, d.whole_nodes, avail, cand_);
        if (by_count && !d.whole_nodes) idle_count += open(k, true, avail, cand_idle_);
        if (skip) forget_dead(k);
      },
      fits, [&](std::size_t k) { return ends_[k].overdue; }, pred);
}

bool ReleaseProfile::may_skip_dead(const NodePool& pool, const Demand& d) {
  // NodePool::eval_nodes answers a question without an allocation and without a cap on the
  // node count by fit_in_order, and NodeTaker::offer returns at once, changing nothing, for a
  // node of capacity 0: leaving such nodes out of the walk gives the same answer.
  return d.max_nodes == 0 && !d.required && !d.counted && !pool.by_topology();
}

ReleaseProfile::DeadAtStart& ReleaseProfile::start_dead(const Demand& d) {
  for (DeadAtStart& e : dead_at_start_) {
    if (e.d == d) {
      checked_ = e.checked;
      dead_ = e.dead;
      return e;
    }
  }
  constexpr std::size_t kShapes = 16;
  if (dead_at_start_.size() < kShapes) dead_at_start_.emplace_back();
  DeadAtStart& e = dead_at_start_[dead_at_start_next_++ % dead_at_start_.size()];
  e.d = d;
  checked_.assign_empty(cand_.size());
  dead_ = checked_;
  return e;
}

void ReleaseProfile::skip_dead(const NodePool& pool, const Demand& d, std::size_t p) {
  unchecked_.assign_and_not(cand_, checked_);
  unchecked_.for_each([&](std::size_t idx) {
    const auto i = static_cast<std::uint32_t>(idx);
    const NodeResources& n = node_at(i, p);
    checked_.set(i);
    if (pool.capacity(n, d, n.cpus_free) == 0) dead_.set(i);  // as the walk's NodeTaker::offer asks it
  });
  walk_.assign_and_not(cand_, dead_);
}

void ReleaseProfile::forget_dead(std::size_t k) {
  const Span& sp = spans_[k];
  for (std::uint32_t w = 0; w < sp.words; ++w) {
    const std::uint64_t held = node_bits_[sp.bits + w];
    checked_.clear_word_bits(sp.first_word + w, held);
    dead_.clear_word_bits(sp.first_word + w, held);
  }
}

const std::uint64_t* ReleaseProfile::open_at(std::size_t p, bool idle) {
  return grown_row(idle ? open_idle_ : open_free_, idle ? idled_bits_ : freed_bits_, p);
}

const std::uint64_t* ReleaseProfile::grown_row(std::vector<std::uint64_t>& rows, const std::vector<std::uint64_t>& bits,
                                               std::size_t p) const {
  for (std::size_t have = rows.size() / words_; have <= p; ++have) {
    rows.resize(rows.size() + words_);
    std::uint64_t* row = rows.data() + have * words_;
    std::copy_n(row - words_, words_, row);
    const Span& sp = spans_[have - 1];
    for (std::uint32_t w = 0; w < sp.words; ++w) row[sp.first_word + w] |= bits[sp.bits + w];
  }
  return rows.data() + p * words_;
}

bool ReleaseProfile::cannot_start_by(const NodePool& pool, const Demand& d, const NodeBitset& avail, std::int64_t now,
                                     std::int64_t t) {
  if (t <= now || words_ == 0) return false;  // (ends count as ending at now + 1 at the earliest)
  const std::size_t need = needed_.get(pool, d);
  const auto after_t =
      std::partition_point(ends_.begin(), ends_.end(), [t](const End& e) { return e.end <= t; }) - ends_.begin();
  const std::uint64_t* open = open_at(static_cast<std::size_t>(after_t), d.whole_nodes);
  const std::uint64_t* mine = avail.data();
  std::size_t count = 0;
  for (std::size_t w = 0; w < words_; ++w) count += static_cast<std::size_t>(std::popcount(open[w] & mine[w]));
  return count < need;
}

bool ReleaseProfile::too_few_within(const NodePool& pool, const Demand& d, const NodeBitset& avail, std::size_t pos,
                                    const NodeBitset& also) {
  if (words_ == 0) return false;
  const std::uint64_t* open = open_at(pos, d.whole_nodes);
  const std::uint64_t *mine = avail.data(), *other = also.data();
  std::size_t count = 0;
  for (std::size_t w = 0; w < words_; ++w)
    count += static_cast<std::size_t>(std::popcount(open[w] & mine[w] & other[w]));
  return count < needed_.get(pool, d);
}

void ReleaseProfile::allocate(const NodePool& pool, const Demand& d, const NodeBitset& avail, std::size_t pos,
                              bool prefer_busy, Allocation& out) {
  candidates_at(pos, d.whole_nodes, avail, cand_);
  auto node = [&](std::uint32_t i) -> const NodeResources& { return node_at(i, pos); };
  auto free_cpus = [](std::uint32_t, const NodeResources& n) { return n.cpus_free; };
  // Where will_run() decided by counting (alike idle candidates), best fit's sets are runs
  // of candidates and every node gives the same: fit_best_alike finds the same nodes without
  // reading each candidate's state (most plans of a deep queue on a whole-node machine).
  std::uint32_t cap = 0;
  if (!prefer_busy && pool.placement() == Placement::kBestFit && !d.least_loaded && !d.serial_at_end &&
      pool.sets_follow_numbering() && words_ > 0 && idle_capacity(pool, d, cap) && cap > 0 &&
      (d.whole_nodes || all_idle(pos, cand_))) {
    NodeTaker<decltype(node), decltype(free_cpus)> taker(pool, node, d, &out, free_cpus);
    fit_best_alike(pool, taker, cand_, cap);
    return;
  }
  // LLN and bf_busy_nodes pass over a node that gives nothing without a trace, as will_run's
  // walks do: what those walks found dead is left out (fit_least_loaded would weigh it first).
  const bool skip = words_ > 0 && (d.least_loaded || prefer_busy) && may_skip_dead(pool, d) && skip_dead_at(d, pos);
  pool.fit_nodes(node, d, skip ? walk_ : cand_, prefer_busy, &out, free_cpus);
}

bool ReleaseProfile::skip_dead_at(const Demand& d, std::size_t pos) {
  const auto e =
      std::find_if(dead_at_start_.begin(), dead_at_start_.end(), [&](const DeadAtStart& s) { return s.d == d; });
  if (e == dead_at_start_.end()) return false;
  const std::uint64_t* touched = touched_by(pos);
  walk_ = cand_;
  for (std::size_t w = 0; w < words_; ++w) walk_.clear_word_bits(w, e->dead.word(w) & ~touched[w]);
  return true;
}

const std::uint64_t* ReleaseProfile::touched_by(std::size_t p) {
  if (touched_rows_.empty()) touched_rows_.assign(words_, 0);
  return grown_row(touched_rows_, node_bits_, p);
}

bool ReleaseProfile::all_idle(std::size_t pos, const NodeBitset& nodes) {
  const std::uint64_t* idle = open_at(pos, true);
  for (std::size_t w = 0; w < words_; ++w) {
    if (nodes.word(w) & ~idle[w]) return false;
  }
  return true;
}

}  // namespace sa::engine
