#pragma once
// NodePool::fit_nodes: every fit (main loop, backfill, preemption, sharing rows) goes
// through here to the pool's Placement strategy.
// Included from the end of engine/resources.h: include that instead.
#include "engine/policy/best_fit.h"
#include "engine/policy/node_select.h"

namespace sa::engine {

template <class NodeAt, class FreeCpus>
inline bool NodePool::fit_nodes(NodeAt node_at, const Demand& d, const NodeBitset& candidates, bool prefer_busy,
                                Allocation* out, FreeCpus free_cpus) const {
  NodeTaker<NodeAt, FreeCpus> taker(*this, node_at, d, out, free_cpus);
  // bf_busy_nodes takes busy nodes first whatever the strategy (cons_tres _eval_nodes_busy).
  if (prefer_busy) return fit_in_order(taker, candidates, true);
  // A question of whether the job fits at all (no allocation wanted: backfill's will-run
  // tests, submit checks) has one answer whatever the order nodes are offered in: every
  // strategy offers every node that can give anything until the job is met (best fit's
  // single node is only taken when it meets the job). The in-order walk stops earliest.
  if (!out) return fit_in_order(taker, candidates, false);
  switch (placement_) {
    case Placement::kBestFit:
      return fit_best(*this, taker, candidates);
    case Placement::kInOrder:
      break;
  }
  return fit_in_order(taker, candidates, false);
}

}  // namespace sa::engine
