#pragma once
// Backfill's availability map over time (backfill.c's node_space): contiguous slots from the
// cycle start to the end of bf_window, each with the nodes free of reservations in it. Built
// once per cycle with the advanced reservations taken out; each planned job takes its nodes
// out of the slots it spans. Slots are found by a binary search on time; a job's search for its
// start walks them forward instead (SlotMap::Scan).
#include <cstdint>
#include <limits>
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

  class Scan;
  /// Whether a node of `alloc` is reserved in a slot overlapping [from, to).
  bool conflicts(std::int64_t from, std::int64_t to, const Allocation& alloc) const;
  /// Takes `nodes` out of [from, to), splitting slots at both ends.
  void reserve(std::int64_t from, std::int64_t to, const NodeBitset& nodes);
  std::size_t size() const { return slots_.size(); }
  /// The nodes free in the slot open at `t`, or nullptr past the window.
  const NodeBitset* avail_at(std::int64_t t) const {
    const std::size_t k = slot_at(t);
    return k < slots_.size() ? &slots_[k].avail : nullptr;
  }

 private:
  struct Slot {
    std::int64_t begin, end;
    NodeBitset avail;
    // The next slot has a node this one lacks: Scan::first_gain's question for a job that
    // may use every usable node, asked once here.
    bool gains = false;
  };
  /// The first slot still open at `t`.
  std::size_t slot_at(std::int64_t t) const;
  /// Splits the slot containing `t` so that a slot boundary falls on `t`.
  void split_at(std::int64_t t);
  /// Takes `nodes` out of every slot lying within [from, to).
  void subtract_within(std::int64_t from, std::int64_t to, const NodeBitset& nodes);
  /// Sets Slot::gains of slots [first, last] from their avail and the next slot's.
  void set_gains(std::size_t first, std::size_t last);
  NodeBitset usable_;  // every slot's nodes are among these
  std::int64_t window_end_;
  std::vector<Slot> slots_;
};

/// One job's start-time search over an unchanging map (backfill.c _attempt_backfill's
/// start_res loop): each try asks for the nodes free over [start, end], and start and end
/// only grow from one try to the next. The AND over the slots a try spans is kept as a
/// sliding window (two stacks: suffix ANDs of the older slots, one running AND of the newer),
/// so a search ANDs each slot a few times instead of once per try; deep queues make the
/// searches long and the spans many slots wide.
class SlotMap::Scan {
 public:
  /// `base` (the job's nodes) is read by reference: reset() when it or the map changes.
  Scan(const SlotMap& map, const NodeBitset& base) : map_(map), base_(base) {}
  /// A new search: the map or the base may have changed since the last.
  void reset();

  /// Sets `avail` to `base`'s nodes free in every slot from the one open at `start` through
  /// the last that begins by `end`; returns the end of the first slot from `start` on (up to
  /// the first that begins after `end`) whose next slot frees some of `base`'s nodes not free
  /// in all slots from `start` through it (0 if none): a later start is worth trying only there.
  /// `count` is set to avail's node count (counted as it is built).
  std::int64_t narrow(std::int64_t start, std::int64_t end, NodeBitset& avail, std::size_t& count);

 private:
  /// Moves the window to slots [lo, hi).
  void slide(std::size_t lo, std::size_t hi);
  /// Refills the older stack with the suffix ANDs of [lo_, hi_).
  void refill();
  /// The first slot k in [lo, last] whose next slot frees a node of base missing from some
  /// slot of [lo, k] (searching on from earlier calls whose lo it has passed); slots.size()
  /// if none.
  std::size_t first_gain(std::size_t lo, std::size_t last);

  const SlotMap& map_;
  const NodeBitset& base_;
  bool base_usable_ = false;  // base_ is the map's usable nodes: Slot::gains answers first_gain's first question
  std::int64_t start_ = std::numeric_limits<std::int64_t>::min(), end_ = start_;  // the last try's
  std::size_t lo_ = 0, mid_ = 0, hi_ = 0;  // window [lo_, hi_): older [lo_, mid_), newer [mid_, hi_)
  std::vector<NodeBitset> older_;          // older_[k - lo0_]: AND of slots [k, mid_)
  std::size_t lo0_ = 0;
  NodeBitset newer_;  // AND of slots [mid_, hi_) when mid_ < hi_
  std::size_t gain_lo_ = std::numeric_limits<std::size_t>::max(), gain_k_ = 0;  // first_gain's search
  bool gain_found_ = false;
};

}  // namespace sa::engine
