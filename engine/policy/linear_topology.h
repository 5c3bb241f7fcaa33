#pragma once
// topology/tree node selection as select/linear does it up to 23.11 (select_linear.c
// _job_test_topo, the same from 22.05 to 23.11; 24.05 took topology out of select/linear, and
// the engine then places its jobs flat). Unlike cons_tres (topology_tree.h) it counts CPUs:
//   1. each switch's usable nodes and their CPUs; a switch that does not hold every required
//      (-w) node counts none;
//   2. the best switch: the lowest level with the CPUs and the minimum node count, among
//      equals the fewest nodes, the first on ties;
//   3. only the leaves under it stay; the required nodes are taken first, then the rest of
//      their leaves;
//   4. then leaf after leaf, the one with the fewest CPUs first (a leaf already used before one
//      that is not, unless the other has fewer CPUs), its nodes in node order, until the job
//      has its CPUs and its wanted node count (the -N max where it may be given).
// Nodes on no switch are never used. With --switches a placement over more leaves (counted in
// step 4 only) than asked fails while the job waits for switches (job_ptr->best_switch).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "engine/bitset.h"
#include "engine/policy/topology_tree.h"

namespace sa::engine {

namespace linear_topo_detail {

struct Scratch : topo_detail::SwitchScratch {
  std::vector<std::uint8_t> used;  // switches_required: a leaf the job already takes from
};

// One _job_test_topo call: the switch scratch, the demand's node bounds and what is left of it.
template <class Taker>
class Fit : topo_detail::SwitchFitBase<Taker, Scratch> {
  using Base = topo_detail::SwitchFitBase<Taker, Scratch>;
  using Base::d_, Base::max_nodes_, Base::min_nodes_, Base::n_sw_, Base::s_, Base::t_, Base::taker_;

 public:
  Fit(const SwitchTable& t, Taker& taker, Scratch& s)
      : Base(t, taker, s),
        // want_nodes: the -N max where it is more than the min. sbatch has already lowered it
        // to -n's task count where both were given (job_shape_apply.cpp); without -n nothing
        // lowers it: the capture's -N 1-2 job got both nodes of leaf2.
        want_(std::max<std::int64_t>(min_nodes_, d_.max_nodes)),
        rem_cpus_(d_.cpus) {}

  bool run(const NodeBitset& candidates, const NodeBitset* required) {
    if (required && static_cast<std::int64_t>(required->count()) > max_nodes_) return false;
    s_.start(taker_, candidates, n_sw_);
    s_.used.assign(n_sw_, 0);
    if (!count_switches(required)) return false;  // "requires nodes not available on any switch"
    const int best = best_switch();
    if (best < 0) return false;
    keep_leaves_under(s_.under[static_cast<std::size_t>(best)], required);
    if (required) take_required(*required);
    const std::uint32_t leaves = fill_leaves();
    if (alloc_ > max_nodes_ || rem_cpus_ > 0 || alloc_ < min_nodes_ || !taker_.done()) return false;
    return d_.max_leaf_switches == 0 || leaves <= d_.max_leaf_switches;
  }

 private:
  // Phases 1 and 2: usable nodes and CPUs per switch; false when no switch holds the -w nodes.
  bool count_switches(const NodeBitset* required) {
    bool sufficient = false;
    for (std::size_t j = 0; j < n_sw_; ++j) {
      s_.under[j].assign_and(t_.switches[j].nodes, s_.usable);
      if (required && !required->is_subset_of(s_.under[j])) continue;
      s_.nodes[j] = static_cast<std::int64_t>(s_.under[j].count());
      sufficient = true;
    }
    if (!sufficient) return false;
    for (std::size_t j = 0; j < n_sw_; ++j) {
      s_.under[j].for_each([&](std::size_t n) { s_.cpus[j] += taker_.available(static_cast<std::uint32_t>(n)); });
    }
    return true;
  }

  // Phase 3: the lowest switch holding the job, fewest nodes among equals (-1: none).
  int best_switch() const {
    int best = -1;
    for (std::size_t j = 0; j < n_sw_; ++j) {
      if (s_.cpus[j] < rem_cpus_ || s_.nodes[j] < min_nodes_) continue;
      const auto b = static_cast<std::size_t>(best);
      if (best < 0 || t_.switches[j].level < t_.switches[b].level ||
          (t_.switches[j].level == t_.switches[b].level && s_.nodes[j] < s_.nodes[b]))
        best = static_cast<int>(j);
    }
    return best;
  }

  // Phase 4: only the leaves under the best switch stay.
  void keep_leaves_under(const NodeBitset& top, const NodeBitset* required) {
    for (std::size_t j = 0; j < n_sw_; ++j) {
      if (t_.switches[j].level > 0 || !s_.under[j].is_subset_of(top))
        s_.nodes[j] = 0;
      else if (required)
        s_.nodes[j] = static_cast<std::int64_t>(s_.under[j].count());
    }
  }

  bool met() const { return alloc_ > max_nodes_ || (alloc_ >= want_ && rem_cpus_ <= 0); }

  // Takes node n for the job (Slurm's bit_set(bitmap, i); alloc_nodes++; rem_cpus -= avail).
  void take(std::size_t n) {
    rem_cpus_ -= taker_.available(static_cast<std::uint32_t>(n));
    taker_.offer(static_cast<std::uint32_t>(n));
    s_.chosen.set(n);
    ++alloc_;
  }

  // Phase 4: the required nodes, then the rest of their leaves.
  void take_required(const NodeBitset& required) {
    for (std::size_t j = 0; j < n_sw_ && alloc_ <= max_nodes_; ++j) {
      if (s_.nodes[j] == 0 || !s_.under[j].intersects(required)) continue;
      s_.under[j].for_each([&](std::size_t n) {
        if (!required.test(n)) return;
        s_.under[j].reset(n);
        --s_.nodes[j];
        s_.cpus[j] -= taker_.available(static_cast<std::uint32_t>(n));
        if (s_.chosen.test(n)) return;  // on two leaves, already taken
        s_.used[j] = 1;
        take(n);
      });
    }
    for (std::size_t j = 0; j < n_sw_ && !met(); ++j) {
      if (!s_.used[j]) continue;
      s_.under[j].for_each_until([&](std::size_t n) {
        if (s_.chosen.test(n)) return false;
        take(n);
        return met();
      });
      s_.nodes[j] = 0;  // used up
    }
  }

  // Phase 5: leaf after leaf, fewest CPUs first; returns the leaves used.
  std::uint32_t fill_leaves() {
    std::uint32_t leaves = 0;
    std::size_t loc = 0;
    while (alloc_ <= max_nodes_ && (alloc_ < want_ || rem_cpus_ > 0)) {
      std::int64_t fit_cpus = 0, fit_nodes = 0;
      for (std::size_t j = 0; j < n_sw_; ++j) {
        if (s_.nodes[j] == 0) continue;
        if (fit_nodes == 0 || (!s_.used[loc] && s_.used[j]) || s_.cpus[j] < fit_cpus) {
          fit_cpus = s_.cpus[j];
          fit_nodes = s_.nodes[j];
          loc = j;
        }
      }
      if (fit_nodes == 0) break;
      s_.under[loc].for_each_until([&](std::size_t n) {
        if (s_.chosen.test(n)) return false;  // on two leaves, already taken
        s_.used[loc] = 1;
        take(n);
        return met();
      });
      s_.nodes[loc] = 0;
      ++leaves;
    }
    return leaves;
  }

  const std::int64_t want_;
  std::int64_t rem_cpus_, alloc_ = 0;
};

}  // namespace linear_topo_detail

/// The nodes select/linear's _job_test_topo gives the demand among `candidates`.
template <class Taker>
bool fit_linear_topology(const SwitchTable& t, Taker& taker, const NodeBitset& candidates, const NodeBitset* required) {
  thread_local linear_topo_detail::Scratch s;
  linear_topo_detail::Fit<Taker> fit(t, taker, s);
  return fit.run(candidates, required);
}

}  // namespace sa::engine
