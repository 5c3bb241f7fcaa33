#pragma once
// Least Loaded Node (cons_tres/job_test.c _eval_nodes_lln in 22.05), chosen by
// SelectTypeParameters=CR_LLN or a partition's LLN=YES: within each node weight, lowest
// first, the job repeatedly takes the node with the greatest share of its CPUs available
// (avail / total, compared without division; the first such node on ties).
// Included from the end of engine/resources.h: include that instead.
#include <cstdint>
#include <vector>

#include "engine/bitset.h"
#include "engine/policy/node_select.h"

namespace sa::engine {

template <class Taker>
bool fit_least_loaded(Taker& taker, const NodeBitset& candidates) {
  struct Offered {
    std::uint32_t node, avail, total;
    std::uint64_t weight;
    bool used;
  };
  thread_local std::vector<WeightedNode> order;
  thread_local std::vector<Offered> nodes;
  weight_order(taker, candidates, order);  // so each weight is one run of `nodes`
  nodes.clear();
  for (const WeightedNode& w : order) {
    const std::uint32_t avail = taker.available(w.node);
    if (avail > 0) nodes.push_back(Offered{w.node, avail, taker.node(w.node).cpus_total, w.weight, false});
  }
  for (std::size_t first = 0; first < nodes.size();) {
    std::size_t end = first;
    while (end < nodes.size() && nodes[end].weight == nodes[first].weight) ++end;
    for (;;) {
      Offered* best = nullptr;
      for (std::size_t k = first; k < end; ++k) {
        Offered& o = nodes[k];
        if (o.used) continue;
        if (!best || std::uint64_t{best->avail} * o.total < std::uint64_t{o.avail} * best->total) best = &o;
      }
      if (!best) break;
      best->used = true;
      if (taker.offer(best->node)) return true;
    }
    first = end;
  }
  return false;
}

}  // namespace sa::engine
