#pragma once
// SchedulerParameters=pack_serial_at_end with select/cons_tres (cons_tres/job_test.c
// _eval_nodes_serial in 22.05, reached from _eval_nodes after LLN for a job of one CPU on one
// node): within each node weight, lowest first, nodes are offered from the last to the first,
// so serial jobs fill the end of the machine instead of fragmenting it by best fit.
// Included from the end of engine/resources.h: include that instead.
#include <cstdint>
#include <vector>

#include "engine/bitset.h"
#include "engine/policy/node_select.h"

namespace sa::engine {

template <class Taker>
bool fit_serial_at_end(Taker& taker, const NodeBitset& candidates) {
  thread_local std::vector<WeightedNode> nodes;
  weight_order(taker, candidates, nodes);  // each weight is one run of `nodes`
  for (std::size_t first = 0; first < nodes.size();) {
    std::size_t end = first;
    while (end < nodes.size() && nodes[end].weight == nodes[first].weight) ++end;
    for (std::size_t k = end; k-- > first;) {
      if (taker.offer(nodes[k].node)) return true;
    }
    first = end;
  }
  return false;
}

}  // namespace sa::engine
