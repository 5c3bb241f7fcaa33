#pragma once
// select/cons_tres's default node choice (cons_tres/job_test.c _eval_nodes in 22.05; the
// same scheme as select/linear's _job_test): the candidates that can give the job anything
// form sets of consecutive nodes (configuration order, one node weight per set; a node that
// cannot give anything ends a set). Sets are used one at a time: the lowest weight first,
// among equal weights the first set that is sufficient, then a tighter sufficient one (fewer
// CPUs: less waste), and while none is sufficient the biggest. In the chosen set a job that
// still needs at most one node takes the single node that fits with the fewest CPUs to spare
// (the first such node on ties); otherwise the set's nodes are taken in order.
// Included from the end of engine/resources.h: include that instead.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "engine/bitset.h"

namespace sa::engine {

/// One consecutive node set: positions [first, last] in the caller's node order.
struct BestFitSet {
  std::size_t first = 0, last = 0;
  std::int64_t cpus = 0;
  std::uint32_t count = 0, gpus = 0;
  std::uint64_t weight = 0;
  bool used = false;
};

/// _eval_nodes' choice among the sets: node_of(k) is the node at position k, avail_of(k) the
/// CPUs it gives.
template <class Taker, class NodeOf, class AvailOf>
bool take_best_sets(Taker& taker, std::vector<BestFitSet>& sets, NodeOf node_of, AvailOf avail_of) {
  const bool gpus = taker.demand().gpus > 0;
  for (;;) {
    const std::int64_t rem_cpus = taker.cpus_left();
    const std::uint32_t rem_nodes = taker.nodes_left();
    BestFitSet* best = nullptr;
    bool best_sufficient = false;
    for (BestFitSet& s : sets) {
      if (s.used) continue;
      const bool sufficient = s.cpus >= rem_cpus && s.count >= rem_nodes && (!gpus || s.gpus >= taker.demand().gpus);
      bool new_best = !best || s.weight < best->weight;
      // Slurm's literal test: an insufficient set bigger than the best so far replaces it,
      // even a sufficient best (possible when the sufficient one lacked nodes, not CPUs).
      if (!new_best && s.weight == best->weight &&
          ((sufficient && !best_sufficient) || (sufficient && s.cpus < best->cpus) ||
           (!sufficient && s.cpus > best->cpus)))
        new_best = true;
      if (new_best) {
        best = &s;
        best_sufficient = sufficient;
      }
    }
    if (!best) return false;
    best->used = true;
    std::size_t single = best->last + 1;
    if (rem_nodes <= 1) {
      for (std::size_t k = best->first; k <= best->last; ++k) {
        if (avail_of(k) < rem_cpus || !taker.gives_all_gpus(node_of(k))) continue;
        if (single > best->last || avail_of(k) < avail_of(single)) {
          single = k;
          if (avail_of(k) == rem_cpus) break;
        }
      }
    }
    if (single <= best->last) {
      if (taker.offer(node_of(single))) return true;
      continue;
    }
    for (std::size_t k = best->first; k <= best->last; ++k) {
      if (taker.offer(node_of(k))) return true;
    }
  }
}

template <class Taker>
bool fit_best(const NodePool& pool, Taker& taker, const NodeBitset& candidates) {
  struct Offered {
    std::uint32_t node, avail;
  };
  thread_local std::vector<Offered> nodes;
  thread_local std::vector<BestFitSet> sets;
  nodes.clear();
  sets.clear();
  std::uint32_t prev_config = 0;
  const bool gpus = taker.demand().gpus > 0;
  candidates.for_each([&](std::size_t idx) {
    const std::uint32_t i = static_cast<std::uint32_t>(idx);
    const std::uint32_t avail = taker.available(i);
    if (avail == 0) return;
    const std::uint32_t c = pool.config_index(i);
    // A GPU job's weights part nodes by the GPUs they could give (NodeTaker::sched_weight).
    const std::uint64_t weight = taker.sched_weight(i);
    if (sets.empty() || c != prev_config + 1 || weight != sets.back().weight) {
      sets.push_back(BestFitSet{nodes.size(), nodes.size(), 0, 0, 0, weight, false});
    }
    BestFitSet& s = sets.back();
    s.last = nodes.size();
    s.cpus += avail;
    ++s.count;
    if (gpus) s.gpus += taker.usable_gpus(i);
    nodes.push_back(Offered{i, avail});
    prev_config = c;
  });
  return take_best_sets(
      taker, sets, [&](std::size_t k) { return nodes[k].node; }, [&](std::size_t k) { return nodes[k].avail; });
}

/// fit_best when every candidate gives the job the same `cap` CPUs (> 0) and no GPUs are
/// asked for (idle nodes alike, as backfill's plans on a whole-node machine find them), on a
/// pool whose sets follow the numbering: the sets are the runs of candidates between
/// set_breaks(), found word by word instead of node by node, and positions are node numbers.
template <class Taker>
bool fit_best_alike(const NodePool& pool, Taker& taker, const NodeBitset& candidates, std::uint32_t cap) {
  thread_local std::vector<BestFitSet> sets;
  sets.clear();
  const NodeBitset& breaks = pool.set_breaks();
  for (std::size_t i = candidates.find_next(0); i < candidates.size();) {
    const std::size_t end = candidates.find_next_zero(i + 1);
    for (std::size_t s = i; s < end;) {
      const std::size_t e = std::min(end, breaks.find_next(s + 1));
      const auto count = static_cast<std::uint32_t>(e - s);
      sets.push_back(BestFitSet{s, e - 1, static_cast<std::int64_t>(count) * cap, count, 0,
                                pool.weight(static_cast<std::uint32_t>(s)), false});
      s = e;
    }
    i = candidates.find_next(end);
  }
  return take_best_sets(
      taker, sets, [](std::size_t k) { return static_cast<std::uint32_t>(k); }, [cap](std::size_t) { return cap; });
}

}  // namespace sa::engine
