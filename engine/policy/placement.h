#pragma once
// NodePool::fit_nodes: every fit (main loop, backfill, preemption, sharing rows) goes
// through here to the pool's Placement strategy (eval_nodes), within choose_nodes's retries.
// Included from the end of engine/resources.h: include that instead.
#include "engine/policy/best_fit.h"
#include "engine/policy/choose_nodes.h"
#include "engine/policy/cons_res_topology.h"
#include "engine/policy/least_loaded.h"
#include "engine/policy/linear_topology.h"
#include "engine/policy/node_select.h"
#include "engine/policy/serial_at_end.h"
#include "engine/policy/topology_tree.h"

namespace sa::engine {

namespace placement_detail {

/// -w: every listed node first, each giving something (cons_tres _eval_nodes's req_map loop;
/// a required node without resources fails the job); false when one cannot.
template <class Taker>
bool take_required(Taker& taker, const NodeBitset& candidates, const NodeBitset& required) {
  bool all = true;
  required.for_each_until([&](std::size_t i) {
    const auto n = static_cast<std::uint32_t>(i);
    if (!candidates.test(i) || taker.available(n) == 0) {
      all = false;
      return true;
    }
    taker.offer(n);
    return false;
  });
  return all;
}

/// Counted features: so many distinct nodes with each feature, taken first from `rest` (and
/// taken out of it; node_scheduler.c _get_req_features selects each counted feature's nodes
/// in turn); false when a feature has too few.
template <class Taker>
bool take_counted(Taker& taker, const std::vector<std::pair<const NodeBitset*, std::uint32_t>>& features,
                  NodeBitset& rest) {
  thread_local NodeBitset group;
  for (const auto& counted : features) {
    // (Not a structured binding: clang before 16 cannot capture one in the lambda below.)
    const std::uint32_t count = counted.second;
    std::uint32_t got = 0;
    group.assign_and(rest, *counted.first);
    group.for_each_until([&](std::size_t i) {
      const auto n = static_cast<std::uint32_t>(i);
      const std::uint32_t before = taker.nodes_used();
      if (taker.available(n) > 0) taker.offer(n);
      if (taker.nodes_used() > before) {
        ++got;
        rest.reset(i);
      }
      return got == count;
    });
    if (got < count) return false;
  }
  return true;
}

}  // namespace placement_detail

template <class NodeAt, class FreeCpus>
inline bool NodePool::fit_nodes(NodeAt node_at, const Demand& d, const NodeBitset& candidates, bool prefer_busy,
                                Allocation* out, FreeCpus free_cpus) const {
  // Only a cap on the node count lets a pass fail where fewer candidates succeed.
  if (node_retry_ == NodeRetry::kNone || d.max_nodes == 0)
    return eval_nodes(node_at, d, candidates, prefer_busy, out, free_cpus);
  return choose_nodes(*this, node_at, d, candidates, prefer_busy, out, free_cpus);
}

template <class NodeAt, class FreeCpus>
inline bool NodePool::eval_nodes(NodeAt& node_at, const Demand& d, const NodeBitset& candidates, bool prefer_busy,
                                 Allocation* out, FreeCpus& free_cpus) const {
  NodeTaker<NodeAt, FreeCpus> taker(*this, node_at, d, out, free_cpus);
  // topology/tree: _eval_nodes_topo comes after bf_busy_nodes and LLN in _eval_nodes and takes
  // the required nodes itself. Whether a job fits at all can depend on the switches (nodes on
  // no switch, disjoint trees), so it answers the no-allocation questions too. Counted
  // features keep the flat path (22.05 selects them feature by feature, _get_req_features).
  if (placement_ == Placement::kTopologyTree && !prefer_busy && !d.least_loaded && !d.serial_at_end && !d.counted) {
    return fit_topology(*switches_, taker, candidates, d.required);
  }
  // cons_res's _eval_nodes reaches _eval_nodes_topo where cons_tres's does.
  if (placement_ == Placement::kConsResTopology && !prefer_busy && !d.least_loaded && !d.serial_at_end && !d.counted) {
    return fit_cons_res_topology(*switches_, taker, candidates, d.required);
  }
  // select/linear's _job_test comes to _job_test_topo before anything else (LLN included).
  if (placement_ == Placement::kLinearTopology && !d.counted)
    return fit_linear_topology(*switches_, taker, candidates, d.required);
  const NodeBitset* pool = &candidates;
  thread_local NodeBitset rest;
  if (d.required) {
    if (!placement_detail::take_required(taker, candidates, *d.required)) return false;
    if (taker.done()) return true;
    rest = candidates;
    rest.subtract(*d.required);
    pool = &rest;
  }
  if (d.counted) {
    if (pool != &rest) {
      rest = candidates;
      pool = &rest;
    }
    if (!placement_detail::take_counted(taker, *d.counted, rest)) return false;
    if (taker.done()) return true;
  }
  // bf_busy_nodes takes busy nodes first whatever the strategy (cons_tres _eval_nodes_busy).
  if (prefer_busy) return fit_in_order(taker, *pool, true);
  // A question of whether the job fits at all (no allocation wanted: backfill's will-run
  // tests, submit checks) has one answer whatever the order nodes are offered in: every
  // strategy offers every node that can give anything until the job is met (best fit's
  // single node is only taken when it meets the job). The in-order walk stops earliest.
  // Not under a cap on the node count: which nodes come first then decides whether the
  // CPUs fit within it (the node_retry capture's -N 2 -n 32).
  if (!out && d.max_nodes == 0) return fit_in_order(taker, *pool, false);
  // _eval_nodes tries LLN after bf_busy_nodes, then pack_serial_at_end, before its own best fit.
  if (d.least_loaded) return fit_least_loaded(taker, *pool);
  if (d.serial_at_end) return fit_serial_at_end(taker, *pool);
  switch (placement_) {
    case Placement::kBestFit:
    case Placement::kTopologyTree:
    case Placement::kLinearTopology:
    case Placement::kConsResTopology:
      return fit_best(*this, taker, *pool);
    case Placement::kInOrder:
      break;
  }
  return fit_in_order(taker, *pool, false);
}

}  // namespace sa::engine
