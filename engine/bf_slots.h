#pragma once
// Backfill's availability map over time (backfill.c's node_space): contiguous slots from the
// cycle start to the end of bf_window, each with the nodes free of reservations in it. Built
// once per cycle with the advanced reservations taken out; each planned job takes its nodes
// out of the slots it spans. Slots are found by a binary search on time.
#include <cstdint>
#include <vector>

#include "engine/bitset.h"
#include "engine/reservations.h"
#include "engine/resources.h"

namespace sa::engine {

class SlotMap {
 public:
  /// One slot over [begin, window_end) with `usable` nodes, less the advanced reservations'
  /// nodes over their windows (job_test_resv keeps a job without one off them).
  SlotMap(std::int64_t begin, std::int64_t window_end, const NodeBitset& usable,
          const std::vector<ResvWindow>* windows);

  /// Narrows `avail` (the job's nodes on entry) to the nodes free in every slot from the one
  /// open at `start` through the first that begins after `end`; returns the end of the
  /// first of those slots whose next slot frees some of `base`'s nodes (0 if none): a later
  /// start is worth trying only there.
  std::int64_t narrow(std::int64_t start, std::int64_t end, const NodeBitset& base, NodeBitset& avail) const;
  /// Whether a node of `alloc` is reserved in a slot overlapping [from, to).
  bool conflicts(std::int64_t from, std::int64_t to, const Allocation& alloc) const;
  /// Takes `nodes` out of [from, to), splitting slots at both ends.
  void reserve(std::int64_t from, std::int64_t to, const NodeBitset& nodes);
  std::size_t size() const { return slots_.size(); }

 private:
  struct Slot {
    std::int64_t begin, end;
    NodeBitset avail;
  };
  /// The first slot still open at `t`.
  std::size_t slot_at(std::int64_t t) const;
  /// Splits the slot containing `t` so that a slot boundary falls on `t`.
  void split_at(std::int64_t t);
  /// Takes `nodes` out of every slot lying within [from, to).
  void subtract_within(std::int64_t from, std::int64_t to, const NodeBitset& nodes);
  std::int64_t window_end_;
  std::vector<Slot> slots_;
};

}  // namespace sa::engine
