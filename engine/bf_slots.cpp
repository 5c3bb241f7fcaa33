#include "engine/bf_slots.h"

#include <algorithm>

namespace sa::engine {

SlotMap::SlotMap(std::int64_t begin, std::int64_t window_end, const NodeBitset& usable,
                 const std::vector<ResvWindow>* windows)
    : window_end_(window_end), slots_{Slot{begin, window_end, usable}} {
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
  Slot tail{t, slots_[i].end, slots_[i].avail};
  slots_[i].end = t;
  slots_.insert(slots_.begin() + static_cast<std::ptrdiff_t>(i) + 1, std::move(tail));
}

void SlotMap::subtract_within(std::int64_t from, std::int64_t to, const NodeBitset& nodes) {
  for (std::size_t i = slot_at(from); i < slots_.size() && slots_[i].end <= to; ++i) {
    if (slots_[i].begin >= from) slots_[i].avail.subtract(nodes);
  }
}

std::int64_t SlotMap::narrow(std::int64_t start, std::int64_t end, const NodeBitset& base, NodeBitset& avail) const {
  // One pass narrows avail and, while no later start is known, asks whether the next slot
  // frees nodes. (A segment tree of slot ANDs was tried for the span after a later start is
  // known: rebuilding it after each reservation cost what it saved, at 150% load too.)
  std::int64_t later_start = 0;
  for (std::size_t k = slot_at(start); k < slots_.size(); ++k) {
    const Slot& sl = slots_[k];
    const bool ask = k + 1 < slots_.size() && later_start == 0;
    if (sl.begin > end) {
      if (ask && NodeBitset::any_gain(base, slots_[k + 1].avail, avail, sl.avail)) later_start = sl.end;
      break;
    }
    if (ask ? avail.and_gains(sl.avail, base, slots_[k + 1].avail) : (avail &= sl.avail, false)) {
      later_start = sl.end;
    }
  }
  return later_start;
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
