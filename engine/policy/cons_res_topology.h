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
#include <limits>
#include <vector>

#include "engine/bitset.h"
#include "engine/policy/topology_tree.h"

namespace sa::engine {

namespace cons_res_topo_detail {

struct Scratch : topo_detail::SwitchScratch {
  std::vector<std::int64_t> required;  // per switch holding -w nodes: 1 + the CPUs they gave, else 0
};

}  // namespace cons_res_topo_detail

/// The nodes select/cons_res's _eval_nodes_topo gives the demand among `candidates`.
template <class Taker>
bool fit_cons_res_topology(const SwitchTable& t, Taker& taker, const NodeBitset& candidates,
                           const NodeBitset* required) {
  thread_local cons_res_topo_detail::Scratch s;
  const Demand& d = taker.demand();
  const std::size_t n_sw = t.switches.size();
  const std::int64_t min_nodes = std::max<std::uint32_t>(1, d.min_nodes);
  std::int64_t max_left = d.max_nodes ? d.max_nodes : std::numeric_limits<std::int64_t>::max() / 2;
  const std::int64_t req_nodes = topo_detail::desired_nodes(d);  // as cons_tres's path takes it
  std::int64_t rem_nodes = req_nodes;
  // _enough_nodes: what is left must cover the minimum still needed.
  auto enough = [&](std::int64_t avail) {
    const std::int64_t needed = req_nodes > min_nodes ? rem_nodes + min_nodes - req_nodes : rem_nodes;
    return avail >= needed;
  };
  auto avail = [&](std::size_t n) { return static_cast<std::int64_t>(taker.available(static_cast<std::uint32_t>(n))); };
  // Takes node n; returns the CPUs it gave (Slurm's avail_cpus after _cpus_to_use).
  auto take = [&](std::size_t n) {
    const std::int64_t before = taker.cpus_left();
    taker.offer(static_cast<std::uint32_t>(n));
    s.chosen.set(n);
    --rem_nodes;
    --max_left;
    return before - taker.cpus_left();
  };
  if (required && static_cast<std::int64_t>(required->count()) > max_left) return false;
  s.start(taker, candidates, n_sw);
  s.required.assign(n_sw, 0);
  NodeBitset on_switch(candidates.size());
  for (std::size_t j = 0; j < n_sw; ++j) {
    s.under[j].assign_and(t.switches[j].nodes, s.usable);
    on_switch |= s.under[j];
    s.nodes[j] = static_cast<std::int64_t>(s.under[j].count());
    if (required && required->intersects(s.under[j])) s.required[j] = 1;
  }
  if (required) {
    if (!required->is_subset_of(on_switch)) return false;  // "not available on any switch"
    bool linked = false;
    for (std::size_t j = 0; j < n_sw && !linked; ++j) linked = required->is_subset_of(s.under[j]);
    if (!linked) return false;  // "requires nodes that are not linked together"
    bool ok = true;
    required->for_each_until([&](std::size_t n) {
      if (max_left <= 0) {
        ok = false;  // "requires more nodes than allowed"
        return true;
      }
      const std::int64_t gave = take(n);
      for (std::size_t j = 0; j < n_sw; ++j) {
        if (!s.under[j].test(n)) continue;
        s.under[j].reset(n);
        --s.nodes[j];
        s.required[j] += gave;
      }
      return false;
    });
    if (!ok) return false;
    if (rem_nodes <= 0 && taker.cpus_left() <= 0) return taker.done();
  }
  for (std::size_t j = 0; j < n_sw; ++j) {
    if (required && s.nodes[j] == 0) continue;
    s.under[j].for_each([&](std::size_t n) { s.cpus[j] += avail(n); });
  }
  const std::int64_t rem_cpus = taker.cpus_left();
  int best = -1;
  for (std::size_t j = 0; j < n_sw; ++j) {
    if (s.cpus[j] < rem_cpus || !enough(s.nodes[j])) continue;
    auto b = static_cast<std::size_t>(best);
    if (best >= 0 && req_nodes > min_nodes && s.nodes[b] < req_nodes && s.nodes[b] < s.nodes[j]) best = -1;
    b = static_cast<std::size_t>(best);
    const int lj = t.switches[j].level;
    if (best < 0 || (!s.required[b] && s.required[j]) || lj < t.switches[b].level ||
        (lj == t.switches[b].level && s.nodes[j] < s.nodes[b]) ||
        (s.required[b] && s.required[j] && lj == t.switches[b].level && s.nodes[j] == s.nodes[b] &&
         s.required[b] < s.required[j])) {
      if (best < 0 || !s.required[b] || s.required[j]) best = static_cast<int>(j);
    }
  }
  if (best < 0) return false;
  if (required && !s.required[static_cast<std::size_t>(best)]) return false;
  const NodeBitset& top = s.under[static_cast<std::size_t>(best)];
  for (std::size_t j = 0; j < n_sw; ++j) {
    if (t.switches[j].level != 0 || !s.under[j].is_subset_of(top)) s.nodes[j] = 0;
  }
  std::uint32_t leaves = 0;
  std::size_t loc = 0;
  thread_local std::vector<std::int64_t> leaf_cpus;
  while (max_left > 0 && (rem_nodes > 0 || taker.cpus_left() > 0)) {
    const std::int64_t rem = taker.cpus_left();
    std::int64_t fit_cpus = 0, fit_nodes = 0;
    bool fit_sufficient = false;
    for (std::size_t j = 0; j < n_sw; ++j) {
      if (s.nodes[j] == 0) continue;
      const bool sufficient = s.cpus[j] >= rem && enough(s.nodes[j]);
      if (fit_nodes == 0 || (!s.required[loc] && s.required[j]) || (sufficient && !fit_sufficient) ||
          (sufficient && s.cpus[j] < fit_cpus) || (!sufficient && s.cpus[j] > fit_cpus) ||
          (s.required[loc] && s.required[j] && s.cpus[loc] == s.cpus[j] && s.required[loc] < s.required[j])) {
        if (fit_nodes == 0 || !s.required[loc] || s.required[j]) {
          fit_cpus = s.cpus[j];
          fit_nodes = s.nodes[j];
          loc = j;
          fit_sufficient = sufficient;
        }
      }
    }
    if (fit_nodes == 0) break;
    ++leaves;
    // The leaf's nodes' CPUs as they were when it was chosen (cpus_array).
    leaf_cpus.assign(candidates.size(), 0);
    s.under[loc].for_each([&](std::size_t n) { leaf_cpus[n] = avail(n); });
    while (max_left > 0 && (rem_nodes > 0 || taker.cpus_left() > 0)) {
      const std::int64_t need = taker.cpus_left();
      std::int64_t size = 0;
      bool size_sufficient = false;
      std::size_t pick = 0;
      s.under[loc].for_each([&](std::size_t n) {
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
      s.under[loc].reset(pick);
      --s.nodes[loc];
      s.cpus[loc] -= size;
      leaf_cpus[pick] = 0;
      if (s.chosen.test(pick)) continue;  // taken from another leaf
      take(pick);
    }
    s.nodes[loc] = 0;
  }
  if (taker.cpus_left() > 0 || !enough(0) || !taker.done()) return false;
  return d.max_leaf_switches == 0 || leaves <= d.max_leaf_switches;
}

}  // namespace sa::engine
