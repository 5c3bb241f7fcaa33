#include "engine/bf_slots.h"

#include <algorithm>

namespace sa::engine {

SlotMap::SlotMap(std::int64_t begin, std::int64_t window_end, const NodeBitset& usable,
                 const std::vector<ResvWindow>* windows)
    : usable_(usable), window_end_(window_end), slots_{Slot{begin, window_end, usable}} {
  if (!windows) return;
  for (const ResvWindow& w : *windows) {
    if (w.start >= window_end) break;
    if (w.end <= slots_.front().begin) continue;
    split_at(std::max(w.start, slots_.front().begin));
    split_at(std::min(w.end, window_end));
    subtract_within(w.start, w.end, w.nodes);
  }
}

std::size_t SlotMap::slot_at(std::int64_t t) const {
  return static_cast<std::size_t>(
      std::partition_point(slots_.begin(), slots_.end(), [t](const Slot& sl) { return sl.end <= t; }) - slots_.begin());
}

void SlotMap::split_at(std::int64_t t) {
  const std::size_t i = slot_at(t);
  if (i == slots_.size() || slots_[i].begin >= t) return;
  // Both halves hold the same nodes: the head gains nothing, the tail what the slot gained.
  Slot tail{t, slots_[i].end, slots_[i].avail, slots_[i].gains};
  slots_[i].end = t;
  slots_[i].gains = false;
  slots_.insert(slots_.begin() + static_cast<std::ptrdiff_t>(i) + 1, std::move(tail));
}

void SlotMap::subtract_within(std::int64_t from, std::int64_t to, const NodeBitset& nodes) {
  const std::size_t first = slot_at(from);
  std::size_t last = first;
  for (std::size_t i = first; i < slots_.size() && slots_[i].end <= to; ++i) {
    if (slots_[i].begin >= from) slots_[i].avail.subtract(nodes);
    last = i;
  }
  // A changed slot changes what it gains and what the slot before it gains.
  set_gains(first > 0 ? first - 1 : 0, last);
}

void SlotMap::set_gains(std::size_t first, std::size_t last) {
  for (std::size_t k = first; k <= last && k < slots_.size(); ++k) {
    slots_[k].gains = k + 1 < slots_.size() &&
                      NodeBitset::any_gain(slots_[k + 1].avail, slots_[k + 1].avail, slots_[k].avail, slots_[k].avail);
  }
}

std::int64_t SlotMap::Scan::narrow(std::int64_t start, std::int64_t end, NodeBitset& avail, std::size_t& count) {
  const std::vector<Slot>& slots = map_.slots_;
  if (start < start_ || end < end_) reset();  // not a later try: search from the first slot
  start_ = start;
  end_ = end;
  // The first slot open at start and the first beginning after end, walked on from the last
  // try's (both times only grow, so the walks cost a step per slot over the whole search).
  // A new search finds both by binary search: its first try may lie far into the map.
  std::size_t lo = hi_ ? lo_ : map_.slot_at(start);
  while (lo < slots.size() && slots[lo].end <= start) ++lo;
  std::size_t hi = std::max(hi_, lo);
  if (!hi_)
    hi = static_cast<std::size_t>(std::partition_point(slots.begin() + static_cast<std::ptrdiff_t>(lo), slots.end(),
                                                       [end](const Slot& sl) { return sl.begin <= end; }) -
                                  slots.begin());
  while (hi < slots.size() && slots[hi].begin <= end) ++hi;
  slide(lo, hi);
  if (lo_ < mid_ && mid_ < hi_) {
    count = avail.assign_and_count(base_, older_[lo_ - lo0_], newer_);
  } else if (lo_ < mid_) {
    count = avail.assign_and_count(base_, older_[lo_ - lo0_]);
  } else if (mid_ < hi_) {
    count = avail.assign_and_count(base_, newer_);
  } else {
    avail = base_;
    count = avail.count();
  }
  // The gain is asked of every slot of the span and of the first slot after it, while a next
  // slot exists.
  if (slots.size() < 2 || lo > slots.size() - 2) return 0;
  const std::size_t k = first_gain(lo, std::min(hi, slots.size() - 2));
  return k < slots.size() ? slots[k].end : 0;
}

void SlotMap::Scan::reset() {
  base_usable_ = base_ == map_.usable_;
  lo_ = mid_ = hi_ = 0;
  start_ = end_ = std::numeric_limits<std::int64_t>::min();
  gain_lo_ = std::numeric_limits<std::size_t>::max();
}

void SlotMap::Scan::slide(std::size_t lo, std::size_t hi) {
  if (lo >= hi_ || lo < lo_ || hi < hi_) {
    // A fresh window: the first try, or one past every slot the last try spanned.
    lo_ = lo;
    hi_ = hi;
    refill();
    return;
  }
  for (; hi_ < hi; ++hi_) {
    if (mid_ == hi_)
      newer_ = map_.slots_[hi_].avail;
    else
      newer_ &= map_.slots_[hi_].avail;
  }
  lo_ = lo;
  if (lo_ >= mid_) refill();
}

void SlotMap::Scan::refill() {
  const std::size_t n = hi_ - lo_;
  if (older_.size() < n) older_.resize(n);
  lo0_ = lo_;
  for (std::size_t k = hi_; k-- > lo_;) {
    NodeBitset& f = older_[k - lo0_];
    if (k + 1 == hi_)
      f = map_.slots_[k].avail;
    else
      f.assign_and(older_[k + 1 - lo0_], map_.slots_[k].avail);
  }
  mid_ = hi_;
}

std::size_t SlotMap::Scan::first_gain(std::size_t lo, std::size_t last) {
  const std::vector<Slot>& slots = map_.slots_;
  // The first gain from lo on is the first slot k >= lo whose next slot frees a node of base
  // that slot k itself lacks: a node missing from some slot of [lo, k] and free in slot k + 1
  // is missing from the last slot of [lo, k] that lacks it and free in the slot after that
  // one, a gain there. So no running AND is needed, lo only bounds the answer, and what a
  // search found for one start holds for every later start up to where it got.
  if (lo < gain_lo_ || lo > gain_k_) {
    gain_lo_ = gain_k_ = lo;
    gain_found_ = false;
  }
  // Slots [gain_lo_, gain_k_) gain nothing of base; gain_found_: slot gain_k_ does.
  while (!gain_found_ && gain_k_ <= last) {  // (last < slots.size() - 1: slot gain_k_ + 1 exists)
    gain_found_ = base_usable_ ? slots[gain_k_].gains
                               : NodeBitset::any_gain(base_, slots[gain_k_ + 1].avail, slots[gain_k_].avail,
                                                      slots[gain_k_].avail);
    if (!gain_found_) ++gain_k_;
  }
  return gain_found_ && gain_k_ <= last ? gain_k_ : slots.size();
}

bool SlotMap::conflicts(std::int64_t from, std::int64_t to, const Allocation& alloc) const {
  for (std::size_t k = slot_at(from); k < slots_.size() && slots_[k].begin < to; ++k) {
    for (const AllocPiece& p : alloc.pieces) {
      if (!slots_[k].avail.test(p.node)) return true;
    }
  }
  return false;
}

void SlotMap::reserve(std::int64_t from, std::int64_t to, const NodeBitset& nodes) {
  split_at(from);
  split_at(std::min(to, window_end_));
  subtract_within(from, to, nodes);
}

}  // namespace sa::engine
