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
  thread_local NodeBitset giving;
  thread_local std::vector<std::uint32_t> avail_of;
  // Only nodes that give something are ranked: weighing the rest (a GPU job's weight asks
  // each node's usable GPUs) and sorting them came to 13 % of a run on CliMA's GPU
  // partitions, and the weight sorts are stable, so the ones left keep their order.
  giving.assign_empty(candidates.size());
  if (avail_of.size() < candidates.size()) avail_of.resize(candidates.size());
  candidates.for_each([&](std::size_t i) {
    avail_of[i] = taker.available(static_cast<std::uint32_t>(i));
    if (avail_of[i] > 0) giving.set(i);
  });
  weight_order(taker, giving, order);  // so each weight is one run of `nodes`
  nodes.clear();
  for (const WeightedNode& w : order)
    nodes.push_back(Offered{w.node, avail_of[w.node], taker.node(w.node).cpus_total, w.weight, false});
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
