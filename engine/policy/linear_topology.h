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
#include <limits>
#include <vector>

#include "engine/bitset.h"
#include "engine/policy/topology_tree.h"

namespace sa::engine {

namespace linear_topo_detail {

struct Scratch : topo_detail::SwitchScratch {
  std::vector<std::uint8_t> used;  // switches_required: a leaf the job already takes from
};

// Takes node n for the job (Slurm's bit_set(bitmap, i); alloc_nodes++; rem_cpus -= avail).
template <class Taker>
void take(Taker& taker, Scratch& s, std::size_t n, std::int64_t& alloc, std::int64_t& rem_cpus) {
  rem_cpus -= taker.available(static_cast<std::uint32_t>(n));
  taker.offer(static_cast<std::uint32_t>(n));
  s.chosen.set(n);
  ++alloc;
}

}  // namespace linear_topo_detail

/// The nodes select/linear's _job_test_topo gives the demand among `candidates`.
template <class Taker>
bool fit_linear_topology(const SwitchTable& t, Taker& taker, const NodeBitset& candidates, const NodeBitset* required) {
  using linear_topo_detail::take;
  thread_local linear_topo_detail::Scratch s;
  const Demand& d = taker.demand();
  const std::size_t n_sw = t.switches.size();
  const std::int64_t min_nodes = std::max<std::uint32_t>(1, d.min_nodes);
  const std::int64_t max_nodes = d.max_nodes ? d.max_nodes : std::numeric_limits<std::int64_t>::max() / 2;
  if (required && static_cast<std::int64_t>(required->count()) > max_nodes) return false;
  // want_nodes: the -N max where it is more than the min. sbatch has already lowered it to
  // -n's task count where both were given (job_shape_apply.cpp); without -n nothing lowers it:
  // the capture's -N 1-2 job got both nodes of leaf2.
  const std::int64_t want = std::max<std::int64_t>(min_nodes, d.max_nodes);
  s.start(taker, candidates, n_sw);
  s.used.assign(n_sw, 0);
  // Phases 1 and 2: usable nodes and CPUs per switch.
  bool sufficient = false;
  for (std::size_t j = 0; j < n_sw; ++j) {
    s.under[j].assign_and(t.switches[j].nodes, s.usable);
    if (required && !required->is_subset_of(s.under[j])) continue;
    s.nodes[j] = static_cast<std::int64_t>(s.under[j].count());
    sufficient = true;
  }
  if (!sufficient) return false;  // "requires nodes not available on any switch"
  for (std::size_t j = 0; j < n_sw; ++j) {
    s.under[j].for_each([&](std::size_t n) { s.cpus[j] += taker.available(static_cast<std::uint32_t>(n)); });
  }
  // Phase 3: the lowest switch holding the job, fewest nodes among equals.
  std::int64_t rem_cpus = d.cpus, alloc = 0;
  int best = -1;
  for (std::size_t j = 0; j < n_sw; ++j) {
    if (s.cpus[j] < rem_cpus || s.nodes[j] < min_nodes) continue;
    const auto b = static_cast<std::size_t>(best);
    if (best < 0 || t.switches[j].level < t.switches[b].level ||
        (t.switches[j].level == t.switches[b].level && s.nodes[j] < s.nodes[b]))
      best = static_cast<int>(j);
  }
  if (best < 0) return false;
  const NodeBitset& top = s.under[static_cast<std::size_t>(best)];
  // Phase 4: the leaves under it; the required nodes, then the rest of their leaves.
  for (std::size_t j = 0; j < n_sw; ++j) {
    if (t.switches[j].level > 0 || !s.under[j].is_subset_of(top))
      s.nodes[j] = 0;
    else if (required)
      s.nodes[j] = static_cast<std::int64_t>(s.under[j].count());
  }
  auto met = [&] { return alloc > max_nodes || (alloc >= want && rem_cpus <= 0); };
  if (required) {
    for (std::size_t j = 0; j < n_sw && alloc <= max_nodes; ++j) {
      if (s.nodes[j] == 0 || !s.under[j].intersects(*required)) continue;
      s.under[j].for_each([&](std::size_t n) {
        if (!required->test(n)) return;
        s.under[j].reset(n);
        --s.nodes[j];
        s.cpus[j] -= taker.available(static_cast<std::uint32_t>(n));
        if (s.chosen.test(n)) return;  // on two leaves, already taken
        s.used[j] = 1;
        take(taker, s, n, alloc, rem_cpus);
      });
    }
    for (std::size_t j = 0; j < n_sw && !met(); ++j) {
      if (!s.used[j]) continue;
      s.under[j].for_each_until([&](std::size_t n) {
        if (s.chosen.test(n)) return false;
        take(taker, s, n, alloc, rem_cpus);
        return met();
      });
      s.nodes[j] = 0;  // used up
    }
  }
  // Phase 5: leaf after leaf, fewest CPUs first.
  std::uint32_t leaves = 0;
  std::size_t loc = 0;
  while (alloc <= max_nodes && (alloc < want || rem_cpus > 0)) {
    std::int64_t fit_cpus = 0, fit_nodes = 0;
    for (std::size_t j = 0; j < n_sw; ++j) {
      if (s.nodes[j] == 0) continue;
      if (fit_nodes == 0 || (!s.used[loc] && s.used[j]) || s.cpus[j] < fit_cpus) {
        fit_cpus = s.cpus[j];
        fit_nodes = s.nodes[j];
        loc = j;
      }
    }
    if (fit_nodes == 0) break;
    s.under[loc].for_each_until([&](std::size_t n) {
      if (s.chosen.test(n)) return false;  // on two leaves, already taken
      s.used[loc] = 1;
      take(taker, s, n, alloc, rem_cpus);
      return met();
    });
    s.nodes[loc] = 0;
    ++leaves;
  }
  if (alloc > max_nodes || rem_cpus > 0 || alloc < min_nodes || !taker.done()) return false;
  return d.max_leaf_switches == 0 || leaves <= d.max_leaf_switches;
}

}  // namespace sa::engine
