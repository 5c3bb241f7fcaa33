#pragma once
// topology/tree node selection as select/cons_tres does it in 22.05 (cons_tres/job_test.c
// _eval_nodes_topo, with _topo_choose_best_switch, _topo_compare_switches, _topo_add_dist and
// _enough_nodes), reached from _eval_nodes after bf_busy_nodes and LLN when topology.conf has
// switches and TopologyParam lacks TopoOptional:
//   1. the top switch: the highest-level switch overlapping the required (-w) nodes, or else
//      the highest-level switch with enough usable nodes whose lightest nodes weigh least;
//      every node used lies under it (so nodes on no switch are never used);
//   2. the usable nodes under it, one node weight at a time (lightest first) until they hold
//      the job; lighter weights are taken whole;
//   3. the leaves of required nodes give their other nodes first; then leaves one at a time:
//      the nearest to those chosen (switch hops), among equals the tightest fit counted in
//      usable nodes (a leaf that holds the nodes still needed with the fewest to spare; else,
//      comparing at the parents where theirs differ, the larger), the first on ties. A
//      chosen leaf's nodes are taken in node order, not by free CPUs.
// With --switches (Demand::max_leaf_switches) a placement over more leaf switches than asked
// fails while the job is still within its wait4switch (_eval_nodes_topo's fini: best_switch).
// Node counts, not CPUs, rank the leaves: a 1-node job goes to the leaf with the fewest
// usable nodes even if a fuller node elsewhere would fit it better.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "engine/bitset.h"
#include "engine/policy/node_select.h"

namespace sa::engine {

/// topology.conf's switches over the pool's internal node numbering (NodePool builds it).
struct SwitchTable {
  static constexpr std::uint16_t kFar = std::numeric_limits<std::uint16_t>::max();  // no path (INFINITE)
  struct Entry {
    NodeBitset nodes;
    int level = 0;
    std::uint32_t parent = 0;  // Slurm's: 0 for a root (its table is zero-filled)
  };
  std::vector<Entry> switches;      // topology.conf order
  NodeBitset covered;               // nodes under some switch
  std::vector<std::uint16_t> hops;  // switches x switches, shortest path in switch links (kFar: none)
  bool empty() const { return switches.empty(); }
  std::uint16_t dist(std::size_t from, std::size_t to) const { return hops[from * switches.size() + to]; }
};

namespace topo_detail {

/// The node count a job is given where it can be (node_scheduler.c's req_nodes): the -N max,
/// at least the min. sbatch lowers -N's max to the task count ("can't run N processes on M
/// nodes"), and choose_nodes does too without --ntasks-per-node; CPUs stand in for tasks here.
inline std::int64_t desired_nodes(const Demand& d) {
  const auto min_nodes = static_cast<std::int64_t>(std::max<std::uint32_t>(1, d.min_nodes));
  std::int64_t max_wanted = d.max_nodes;
  if (d.cpus_per_node == 0) max_wanted = std::min<std::int64_t>(max_wanted, d.cpus);
  return std::max(min_nodes, max_wanted);
}

/// The candidates that can give the job something (choose_nodes' node map; the topology
/// selections' usable nodes).
template <class Taker>
void usable_map(const Taker& taker, const NodeBitset& candidates, NodeBitset& out) {
  out = NodeBitset(candidates.size());
  candidates.for_each([&](std::size_t n) {
    if (taker.available(static_cast<std::uint32_t>(n)) > 0) out.set(n);
  });
}

/// What select/linear's and select/cons_res's topology selections keep per fit: the usable
/// nodes, the nodes chosen, and per switch its usable nodes (switches_bitmap), their CPUs
/// and their count.
struct SwitchScratch {
  std::vector<NodeBitset> under;
  std::vector<std::int64_t> cpus, nodes;
  NodeBitset usable, chosen;
  /// A fresh fit over `candidates` on `switches` switches: usable_map, nothing chosen, zero
  /// counts (`under` is assigned per switch by the caller).
  template <class Taker>
  void start(const Taker& taker, const NodeBitset& candidates, std::size_t switches) {
    usable_map(taker, candidates, usable);
    chosen = NodeBitset(candidates.size());
    under.resize(switches);
    cpus.assign(switches, 0);
    nodes.assign(switches, 0);
  }
};

/// What select/linear's and select/cons_res's topology fits read throughout one call: the
/// switches, the taker and its demand, the scratch, and the node count bounds (no -N max is
/// no bound).
template <class Taker, class ScratchT>
class SwitchFitBase {
 protected:
  SwitchFitBase(const SwitchTable& t, Taker& taker, ScratchT& s)
      : t_(t),
        taker_(taker),
        s_(s),
        d_(taker.demand()),
        n_sw_(t.switches.size()),
        min_nodes_(std::max<std::uint32_t>(1, d_.min_nodes)),
        max_nodes_(d_.max_nodes ? d_.max_nodes : std::numeric_limits<std::int64_t>::max() / 2) {}
  const SwitchTable& t_;
  Taker& taker_;
  ScratchT& s_;
  const Demand& d_;
  const std::size_t n_sw_;
  const std::int64_t min_nodes_, max_nodes_;
};

constexpr std::uint32_t kInfinite = std::numeric_limits<std::uint32_t>::max();

// Per-fit scratch, one per thread (backfill plans in parallel).
struct Scratch {
  NodeBitset map, best, used;
  NodeBitset taken;                 // nodes the job took something from (Slurm's node_map at fini)
  std::vector<std::int64_t> count;  // usable nodes under each switch (switch_node_cnt)
  std::vector<std::uint8_t> required;
  std::vector<std::uint32_t> dist;
  // The node count the job is given when it can be (Slurm's rem_nodes starts at req_nodes: the
  // -N max unless --use-min-nodes, node_scheduler.c get_node_cnts); min_nodes suffices only
  // once no leaf is left (min_rem_nodes). A real -N 1-2 -n 4 job got two nodes (n[4-5]).
  std::int64_t desired = 1;
};

// _topo_compare_switches: > 0 when switch i fits the rest of the job better than switch j.
inline int compare_switches(const SwitchTable& t, const Scratch& s, std::size_t i, std::size_t j,
                            std::int64_t rem_nodes) {
  // Slurm's loop climbs while the parents differ; a bad table could cycle through the
  // zero-filled root parent, so the climb is bounded by the table size.
  for (std::size_t step = 0; step <= t.switches.size(); ++step) {
    const bool i_fit = s.count[i] >= rem_nodes, j_fit = s.count[j] >= rem_nodes;
    if (i_fit && j_fit) {
      if (s.count[i] != s.count[j]) return s.count[i] < s.count[j] ? 1 : -1;
      break;
    }
    if (i_fit != j_fit) return i_fit ? 1 : -1;
    const std::uint32_t pi = t.switches[i].parent, pj = t.switches[j].parent;
    if ((pi == i && pj == j) || pi == pj) break;
    i = pi;
    j = pj;
  }
  if (s.count[i] != s.count[j]) return s.count[i] > s.count[j] ? 1 : -1;
  if (t.switches[i].level != t.switches[j].level) return t.switches[i].level < t.switches[j].level ? 1 : -1;
  return 0;
}

// _topo_choose_best_switch over the unused leaves: nearer first, then the better fit.
inline int choose_leaf(const SwitchTable& t, const Scratch& s, std::int64_t rem_nodes) {
  int best = -1;
  for (std::size_t i = 0; i < t.switches.size(); ++i) {
    if (t.switches[i].level != 0 || s.required[i] || s.count[i] == 0 || s.dist[i] == kInfinite) continue;
    if (best < 0) {
      best = static_cast<int>(i);
      continue;
    }
    const auto b = static_cast<std::size_t>(best);
    const int tcs = compare_switches(t, s, i, b, rem_nodes);
    if ((s.dist[i] < s.dist[b] && tcs >= 0) || (s.dist[i] == s.dist[b] && tcs > 0)) best = static_cast<int>(i);
  }
  return best;
}

// _topo_add_dist: the distances from everything chosen so far, summed.
inline void add_dist(const SwitchTable& t, Scratch& s, std::size_t from) {
  for (std::size_t i = 0; i < t.switches.size(); ++i) {
    const std::uint16_t d = t.dist(from, i);
    s.dist[i] = (d == SwitchTable::kFar || s.dist[i] == kInfinite) ? kInfinite : s.dist[i] + d;
  }
}

// The top switch of step 1, or -1.
template <class Taker>
int top_switch(const SwitchTable& t, const Taker& taker, Scratch& s, const NodeBitset* required,
               std::int64_t rem_nodes) {
  int top = -1;
  std::uint64_t top_weight = 0;
  thread_local NodeBitset under;
  for (std::size_t i = 0; i < t.switches.size(); ++i) {
    const int level = t.switches[i].level;
    under.assign_and(t.switches[i].nodes, s.map);
    s.count[i] = static_cast<std::int64_t>(under.count());
    if (required && under.intersects(*required)) {
      if (top < 0 || level > t.switches[static_cast<std::size_t>(top)].level) top = static_cast<int>(i);
    }
    if (required || s.count[i] < rem_nodes || s.count[i] == 0) continue;
    // The lightest node weight under the switch: the numbering is weight-sorted, a GPU job's
    // weights (NodeTaker::sched_weight) are not.
    std::uint64_t weight = std::numeric_limits<std::uint64_t>::max();
    under.for_each_until([&](std::size_t n) {
      weight = std::min(weight, taker.sched_weight(static_cast<std::uint32_t>(n)));
      return !taker.gpu_weighted();
    });
    if (top < 0 || (level >= t.switches[static_cast<std::size_t>(top)].level && weight <= top_weight)) {
      top = static_cast<int>(i);
      top_weight = weight;
    }
  }
  return top;
}

// Offers node n, noting it in s.taken when the job took something from it.
template <class Taker>
void offer_one(Taker& taker, Scratch& s, std::size_t n) {
  const std::uint32_t before = taker.nodes_used();
  taker.offer(static_cast<std::uint32_t>(n));
  if (taker.nodes_used() > before) s.taken.set(n);
}

// Offers the unused usable nodes of `nodes` in order; true when the job is met.
template <class Taker>
bool offer_all(Taker& taker, Scratch& s, const NodeBitset& nodes) {
  bool done = false;
  nodes.for_each_until([&](std::size_t n) {
    if (s.used.test(n) || !s.map.test(n)) return false;
    s.used.set(n);
    offer_one(taker, s, n);
    done = taker.done() && taker.nodes_used() >= s.desired;
    return done;
  });
  return done;
}

// Step 2: the usable nodes under the top switch, whole node weights at a time, until they hold
// the job; the lighter weights before the last one are taken outright (req2_nodes_bitmap).
// False when even all of them do not.
template <class Taker>
bool best_nodes(Taker& taker, Scratch& s, const NodeBitset& top, std::int64_t rem_nodes, NodeBitset& lighter) {
  const auto gpus_needed = static_cast<std::int64_t>(taker.demand().gpus);
  thread_local NodeBitset pool_nodes;
  thread_local std::vector<WeightedNode> order;
  pool_nodes.assign_and(top, s.map);
  pool_nodes.subtract(s.used);
  weight_order(taker, pool_nodes, order);  // node_weight_list: weight groups lightest first
  s.best = NodeBitset(s.map.size());
  lighter = NodeBitset(s.map.size());
  std::int64_t cpus = 0, nodes = 0, gpus = 0;
  bool sufficient = false;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const std::uint32_t i = order[k].node;
    if (k > 0 && order[k].weight != order[k - 1].weight) {
      sufficient = cpus >= taker.cpus_left() && nodes >= rem_nodes && gpus >= gpus_needed;
      if (sufficient) return true;
      lighter = s.best;
    }
    s.best.set(i);
    cpus += taker.available(i);
    ++nodes;
    gpus += taker.usable_gpus(i);
  }
  return sufficient || (cpus >= taker.cpus_left() && nodes >= rem_nodes && gpus >= gpus_needed);
}

// Step 3: the other nodes of leaves holding required or lighter nodes, then leaf after leaf.
template <class Taker>
bool fit_leaves(const SwitchTable& t, Taker& taker, Scratch& s, bool any_required) {
  const std::size_t n_sw = t.switches.size();
  thread_local NodeBitset under;
  if (any_required) {
    for (std::size_t i = 0; i < n_sw; ++i) {
      if (!s.required[i] || t.switches[i].level != 0) continue;
      under.assign_and(t.switches[i].nodes, s.best);
      if (offer_all(taker, s, under)) return true;
    }
  }
  s.dist.assign(n_sw, 0);
  for (std::size_t i = 0; i < n_sw; ++i) {
    if (s.required[i]) add_dist(t, s, i);
  }
  std::int64_t rem = s.desired - taker.nodes_used();
  for (std::int64_t prev = rem + 1; prev != rem; rem = s.desired - taker.nodes_used()) {
    prev = rem;  // a leaf that gave nothing stalls the loop, as in Slurm
    const int leaf = choose_leaf(t, s, rem);
    if (leaf < 0) break;
    const auto l = static_cast<std::size_t>(leaf);
    add_dist(t, s, l);
    under.assign_and(t.switches[l].nodes, s.best);
    if (offer_all(taker, s, under)) return true;
    s.count[l] = 0;  // used all
  }
  return taker.done();
}

}  // namespace topo_detail

namespace topo_detail {

// _eval_nodes_topo up to its fini label, over the scratch s.
template <class Taker>
bool place_topology(const SwitchTable& t, Taker& taker, Scratch& s, const NodeBitset& candidates,
                    const NodeBitset* required) {
  const std::size_t n_sw = t.switches.size();
  s.count.assign(n_sw, 0);
  s.required.assign(n_sw, 0);
  // choose_nodes: nodes that can give the job nothing are out of the node map.
  usable_map(taker, candidates, s.map);
  s.used = NodeBitset(candidates.size());
  s.taken = NodeBitset(candidates.size());
  const std::uint32_t max_nodes = taker.demand().max_nodes;
  if (required) {
    if (max_nodes && required->count() > max_nodes) return false;
    bool all = true;
    required->for_each_until([&](std::size_t n) {
      all = s.map.test(n);
      if (all) {
        s.used.set(n);
        offer_one(taker, s, n);
      }
      return !all;
    });
    if (!all) return false;  // a required node not in the map, or giving nothing
  }
  const auto min_nodes = static_cast<std::int64_t>(std::max<std::uint32_t>(1, taker.demand().min_nodes));
  // With GPUs per job (--gpus) _eval_nodes_topo starts rem_nodes at the -N minimum instead:
  // the job stops at the first nodes holding its CPUs and GPUs.
  const bool gpus_per_job = taker.demand().gpus > 0 && taker.demand().gpus_per_node == 0;
  s.desired = gpus_per_job ? min_nodes : desired_nodes(taker.demand());
  // _enough_nodes: the switch and the chosen nodes must hold the minimum still needed.
  auto rem_nodes = [&] { return min_nodes - taker.nodes_used(); };
  const int top = top_switch(t, taker, s, required, rem_nodes());
  if (top < 0) return false;
  const NodeBitset& top_nodes = t.switches[static_cast<std::size_t>(top)].nodes;
  if (required) {
    if (!required->is_subset_of(top_nodes)) return false;  // "requires nodes that do not have shared network"
    if (taker.done() && taker.nodes_used() >= s.desired) return true;
    if (max_nodes && taker.nodes_used() >= max_nodes) return false;
  }
  thread_local NodeBitset lighter;
  if (!best_nodes(taker, s, top_nodes, rem_nodes(), lighter)) return false;
  if (!lighter.none() && offer_all(taker, s, lighter)) return true;
  // Every switch now counts only the nodes chosen (the top switch's, the required, the lighter).
  s.best |= s.used;
  thread_local NodeBitset under;
  for (std::size_t i = 0; i < n_sw; ++i) {
    under.assign_and(t.switches[i].nodes, s.best);
    under &= top_nodes;
    s.count[i] = static_cast<std::int64_t>(under.count());
    s.required[i] = (required && under.intersects(*required)) || under.intersects(lighter);
  }
  return fit_leaves(t, taker, s, (required != nullptr) || !lighter.none());
}

// _eval_nodes_topo's fini with req_switch > 0: the leaf (level-0) switches overlapping the
// chosen nodes; more than the job asked for makes best_switch false, and cons_common's
// _job_test then fails the placement ("test 0 fail: waiting for switches"). Whether the job
// has waited wait4switch already is decided by the caller, who leaves the limit at 0 then.
inline bool within_switch_limit(const SwitchTable& t, const Scratch& s, std::uint32_t max_leaf_switches) {
  if (max_leaf_switches == 0) return true;
  std::uint32_t leaves = 0;
  for (const SwitchTable::Entry& e : t.switches) {
    if (e.level == 0 && e.nodes.intersects(s.taken)) ++leaves;
  }
  return leaves <= max_leaf_switches;
}

}  // namespace topo_detail

/// The nodes _eval_nodes_topo gives the demand among `candidates` (required nodes included).
template <class Taker>
bool fit_topology(const SwitchTable& t, Taker& taker, const NodeBitset& candidates, const NodeBitset* required) {
  thread_local topo_detail::Scratch s;
  if (!topo_detail::place_topology(t, taker, s, candidates, required)) return false;
  return topo_detail::within_switch_limit(t, s, taker.demand().max_leaf_switches);
}

}  // namespace sa::engine
