#pragma once
// topology/tree node selection as select/cons_res does it (cons_res/job_test.c
// _eval_nodes_topo, the same from 20.02 to 23.02; 23.11 removed cons_res). It counts CPUs,
// like select/linear's (linear_topology.h), but chooses by best fit:
//   1. each switch's usable nodes and their CPUs; -w nodes are taken first (each giving what
//      _cpus_to_use leaves it) and every switch holding one is "required", weighted by the
//      CPUs its required nodes gave;
//   2. the best switch: one with the CPUs and nodes still needed, preferring a required one,
//      then the lowest level, then the fewest nodes (a switch below the -N max is dropped for
//      a bigger one);
//   3. its leaves one at a time: a required leaf first, else the first sufficient one, the
//      tightest sufficient one (fewest CPUs), or, while none suffices, the biggest;
//   4. within the leaf, node after node by best fit: a node holding the CPUs still needed with
//      the fewest CPUs, else the node with the most.
// With --switches a placement over more leaves than asked fails while the job waits.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "engine/bitset.h"
#include "engine/policy/topology_tree.h"

namespace sa::engine {

namespace cons_res_topo_detail {

struct Scratch : topo_detail::SwitchScratch {
  std::vector<std::int64_t> required;  // per switch holding -w nodes: 1 + the CPUs they gave, else 0
};

// One _eval_nodes_topo call: the switch scratch, the demand's node bounds and what is left.
template <class Taker>
class Fit : topo_detail::SwitchFitBase<Taker, Scratch> {
  using Base = topo_detail::SwitchFitBase<Taker, Scratch>;
  using Base::d_, Base::min_nodes_, Base::n_sw_, Base::s_, Base::t_, Base::taker_;

 public:
  Fit(const SwitchTable& t, Taker& taker, Scratch& s)
      : Base(t, taker, s),
        max_left_(Base::max_nodes_),
        req_nodes_(topo_detail::desired_nodes(d_)),  // as cons_tres's path takes it
        rem_nodes_(req_nodes_) {}

  bool run(const NodeBitset& candidates, const NodeBitset* required) {
    if (required && static_cast<std::int64_t>(required->count()) > max_left_) return false;
    s_.start(taker_, candidates, n_sw_);
    s_.required.assign(n_sw_, 0);
    NodeBitset on_switch(candidates.size());
    for (std::size_t j = 0; j < n_sw_; ++j) {
      s_.under[j].assign_and(t_.switches[j].nodes, s_.usable);
      on_switch |= s_.under[j];
      s_.nodes[j] = static_cast<std::int64_t>(s_.under[j].count());
      if (required && required->intersects(s_.under[j])) s_.required[j] = 1;
    }
    if (required) {
      if (!take_required(*required, on_switch)) return false;
      if (rem_nodes_ <= 0 && taker_.cpus_left() <= 0) return taker_.done();
    }
    for (std::size_t j = 0; j < n_sw_; ++j) {
      if (required && s_.nodes[j] == 0) continue;
      s_.under[j].for_each([&](std::size_t n) { s_.cpus[j] += avail(n); });
    }
    const int best = best_switch();
    if (best < 0) return false;
    if (required && !s_.required[static_cast<std::size_t>(best)]) return false;
    const NodeBitset& top = s_.under[static_cast<std::size_t>(best)];
    for (std::size_t j = 0; j < n_sw_; ++j) {
      if (t_.switches[j].level != 0 || !s_.under[j].is_subset_of(top)) s_.nodes[j] = 0;
    }
    const std::uint32_t leaves = fill_leaves(candidates.size());
    if (taker_.cpus_left() > 0 || !enough(0) || !taker_.done()) return false;
    return d_.max_leaf_switches == 0 || leaves <= d_.max_leaf_switches;
  }

 private:
  // _enough_nodes: what is left must cover the minimum still needed.
  bool enough(std::int64_t avail) const {
    const std::int64_t needed = req_nodes_ > min_nodes_ ? rem_nodes_ + min_nodes_ - req_nodes_ : rem_nodes_;
    return avail >= needed;
  }
  std::int64_t avail(std::size_t n) const {
    return static_cast<std::int64_t>(taker_.available(static_cast<std::uint32_t>(n)));
  }
  // Takes node n; returns the CPUs it gave (Slurm's avail_cpus after _cpus_to_use).
  std::int64_t take(std::size_t n) {
    const std::int64_t before = taker_.cpus_left();
    taker_.offer(static_cast<std::uint32_t>(n));
    s_.chosen.set(n);
    --rem_nodes_;
    --max_left_;
    return before - taker_.cpus_left();
  }

  // The -w nodes first: each switch holding one is required, weighted by the CPUs they gave.
  bool take_required(const NodeBitset& required, const NodeBitset& on_switch) {
    if (!required.is_subset_of(on_switch)) return false;  // "not available on any switch"
    bool linked = false;
    for (std::size_t j = 0; j < n_sw_ && !linked; ++j) linked = required.is_subset_of(s_.under[j]);
    if (!linked) return false;  // "requires nodes that are not linked together"
    bool ok = true;
    required.for_each_until([&](std::size_t n) {
      if (max_left_ <= 0) {
        ok = false;  // "requires more nodes than allowed"
        return true;
      }
      const std::int64_t gave = take(n);
      for (std::size_t j = 0; j < n_sw_; ++j) {
        if (!s_.under[j].test(n)) continue;
        s_.under[j].reset(n);
        --s_.nodes[j];
        s_.required[j] += gave;
      }
      return false;
    });
    return ok;
  }

  // The best switch: the CPUs and nodes still needed, a required one first, then the lowest
  // level, then the fewest nodes (-1: none).
  int best_switch() const {
    const std::int64_t rem_cpus = taker_.cpus_left();
    int best = -1;
    for (std::size_t j = 0; j < n_sw_; ++j) {
      if (s_.cpus[j] < rem_cpus || !enough(s_.nodes[j])) continue;
      auto b = static_cast<std::size_t>(best);
      if (best >= 0 && req_nodes_ > min_nodes_ && s_.nodes[b] < req_nodes_ && s_.nodes[b] < s_.nodes[j]) best = -1;
      b = static_cast<std::size_t>(best);
      const int lj = t_.switches[j].level;
      if (best < 0 || (!s_.required[b] && s_.required[j]) || lj < t_.switches[b].level ||
          (lj == t_.switches[b].level && s_.nodes[j] < s_.nodes[b]) ||
          (s_.required[b] && s_.required[j] && lj == t_.switches[b].level && s_.nodes[j] == s_.nodes[b] &&
           s_.required[b] < s_.required[j])) {
        if (best < 0 || !s_.required[b] || s_.required[j]) best = static_cast<int>(j);
      }
    }
    return best;
  }

  // The next leaf: a required one first, else the tightest sufficient one, or, while none
  // suffices, the biggest; false when none is left. `loc` keeps the last choice.
  bool next_leaf(std::size_t& loc) const {
    const std::int64_t rem = taker_.cpus_left();
    std::int64_t fit_cpus = 0, fit_nodes = 0;
    bool fit_sufficient = false;
    for (std::size_t j = 0; j < n_sw_; ++j) {
      if (s_.nodes[j] == 0) continue;
      const bool sufficient = s_.cpus[j] >= rem && enough(s_.nodes[j]);
      if (fit_nodes == 0 || (!s_.required[loc] && s_.required[j]) || (sufficient && !fit_sufficient) ||
          (sufficient && s_.cpus[j] < fit_cpus) || (!sufficient && s_.cpus[j] > fit_cpus) ||
          (s_.required[loc] && s_.required[j] && s_.cpus[loc] == s_.cpus[j] && s_.required[loc] < s_.required[j])) {
        if (fit_nodes == 0 || !s_.required[loc] || s_.required[j]) {
          fit_cpus = s_.cpus[j];
          fit_nodes = s_.nodes[j];
          loc = j;
          fit_sufficient = sufficient;
        }
      }
    }
    return fit_nodes != 0;
  }

  // Leaf after leaf, node after node by best fit within the leaf; returns the leaves used.
  std::uint32_t fill_leaves(std::size_t node_count) {
    std::uint32_t leaves = 0;
    std::size_t loc = 0;
    thread_local std::vector<std::int64_t> leaf_cpus;
    while (max_left_ > 0 && (rem_nodes_ > 0 || taker_.cpus_left() > 0)) {
      if (!next_leaf(loc)) break;
      ++leaves;
      // The leaf's nodes' CPUs as they were when it was chosen (cpus_array).
      leaf_cpus.assign(node_count, 0);
      s_.under[loc].for_each([&](std::size_t n) { leaf_cpus[n] = avail(n); });
      fill_leaf(loc, leaf_cpus);
      s_.nodes[loc] = 0;
    }
    return leaves;
  }

  // Within a leaf: a node holding the CPUs still needed with the fewest CPUs, else the node
  // with the most.
  void fill_leaf(std::size_t loc, std::vector<std::int64_t>& leaf_cpus) {
    while (max_left_ > 0 && (rem_nodes_ > 0 || taker_.cpus_left() > 0)) {
      const std::int64_t need = taker_.cpus_left();
      std::int64_t size = 0;
      bool size_sufficient = false;
      std::size_t pick = 0;
      s_.under[loc].for_each([&](std::size_t n) {
        if (leaf_cpus[n] == 0) return;
        const bool suff = leaf_cpus[n] >= need;
        if (size == 0 || (suff && !size_sufficient) || (suff && leaf_cpus[n] < size) ||
            (!suff && leaf_cpus[n] > size)) {
          size_sufficient = suff;
          pick = n;
          size = leaf_cpus[n];
        }
      });
      if (size == 0) break;
      s_.under[loc].reset(pick);
      --s_.nodes[loc];
      s_.cpus[loc] -= size;
      leaf_cpus[pick] = 0;
      if (s_.chosen.test(pick)) continue;  // taken from another leaf
      take(pick);
    }
  }

  std::int64_t max_left_;
  const std::int64_t req_nodes_;
  std::int64_t rem_nodes_;
};

}  // namespace cons_res_topo_detail

/// The nodes select/cons_res's _eval_nodes_topo gives the demand among `candidates`.
template <class Taker>
bool fit_cons_res_topology(const SwitchTable& t, Taker& taker, const NodeBitset& candidates,
                           const NodeBitset* required) {
  thread_local cons_res_topo_detail::Scratch s;
  cons_res_topo_detail::Fit<Taker> fit(t, taker, s);
  return fit.run(candidates, required);
}

}  // namespace sa::engine
