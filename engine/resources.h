#pragma once
// Consumable resources as select/cons_tres and select/linear track them: CPUs in allocation
// units (a core's threads with CR_Core, a socket with CR_Socket), memory when a *_Memory
// mode makes it consumable, GPU counts, and whole nodes for exclusive jobs and
// select/linear. Node choice follows node Weight, then configuration order: nodes are
// numbered internally in that order (config_index() maps back), so every node bitmap is
// walked in selection order, and bitmaps of nodes with free CPUs and of idle nodes let a
// fit skip full nodes a word at a time.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "analyzer/model.h"
#include "engine/bitset.h"

namespace sa::engine {

struct NodeResources {
  std::uint32_t cpus_total = 0, cpus_free = 0;
  std::uint64_t mem_total = 0, mem_free = 0;
  std::uint32_t gpus_total = 0, gpus_free = 0;
  std::uint32_t jobs = 0;  // jobs holding any of it
  std::uint32_t unit = 1;  // CPUs per allocation unit
  bool idle() const { return jobs == 0; }
};

/// What one (job x partition) record needs, with the partition's defaults applied.
struct Demand {
  std::uint32_t cpus = 1;
  std::uint32_t min_nodes = 1;
  std::uint64_t mem_per_cpu = 0;   // MB, when memory is per CPU
  std::uint64_t mem_per_node = 0;  // MB, when memory is per node
  bool mem_whole_node = false;     // --mem=0, or no default: the node's whole memory
  bool mem_unknown = false;        // no request and no default: bounded by nothing but the node
  std::uint32_t gpus = 0;
  bool whole_nodes = false;  // --exclusive, OverSubscribe=EXCLUSIVE or select/linear
  std::uint32_t max_cpus_per_node = 0xFFFFFFFF;
  std::uint32_t cpus_per_node = 0;  // --ntasks-per-node x --cpus-per-task: exactly this on each node
  bool operator==(const Demand&) const = default;
};

struct AllocPiece {
  std::uint32_t node = 0;
  std::uint32_t cpus = 0;
  std::uint64_t mem = 0;  // MB taken from the node when memory is consumable
  std::uint32_t gpus = 0;
  std::uint64_t mem_req = 0;    // MB the job asked for here (or its default), consumable or not
  std::uint32_t unit_word = 0;  // sharing mode: first word of this node's units in Allocation::units
};

struct Allocation {
  std::vector<AllocPiece> pieces;
  /// Sharing mode only (CoreRows): the allocation units (cores, or CPUs with CR_CPU) each
  /// piece holds, as bit masks in the node's words, from pieces[i].unit_word.
  std::vector<std::uint64_t> units;
  std::int32_t row = -1;  // sharing mode: the partition row it is recorded in (-1: none)
  std::uint32_t cpus() const;
  std::uint64_t mem() const;
  std::uint32_t gpus() const;
  std::uint32_t nodes() const { return static_cast<std::uint32_t>(pieces.size()); }
};

/// One piece of an allocation handed back to its node (PoolState::give_back, node by node).
inline void release_piece(NodeResources& n, const AllocPiece& p) {
  n.cpus_free = std::min(n.cpus_total, n.cpus_free + p.cpus);
  n.mem_free = std::min(n.mem_total, n.mem_free + p.mem);
  n.gpus_free = std::min(n.gpus_total, n.gpus_free + p.gpus);
  if (n.jobs) --n.jobs;
}

/// Resource use of every node (internal numbering) with the bitmaps fits search.
struct PoolState {
  std::vector<NodeResources> nodes;
  NodeBitset free;  // some CPU free
  NodeBitset idle;  // no job at all
  void take(const Allocation& a);
  void give_back(const Allocation& a);
};

class NodePool {
 public:
  explicit NodePool(const Config& config);

  const PoolState& state() const { return state_; }
  PoolState& state() { return state_; }
  /// Usable nodes (not DOWN/DRAIN/FAIL/FUTURE in the config), internal numbering.
  const NodeBitset& usable() const { return usable_; }
  /// Node events (DOWN/DRAIN periods) switch nodes off and back on; internal numbering.
  void set_usable(std::uint32_t internal, bool on) {
    if (on)
      usable_.set(internal);
    else
      usable_.reset(internal);
  }
  std::size_t size() const { return config_index_.size(); }
  /// The Config::nodes index of an internal node number, and back.
  std::uint32_t config_index(std::uint32_t internal) const { return config_index_[internal]; }
  std::uint32_t internal_index(std::uint32_t config) const { return internal_index_[config]; }

  /// Chooses nodes among `allowed` for the demand on `state`; false when it does not fit.
  /// With prefer_busy (bf_busy_nodes) nodes already running jobs are taken first.
  bool fit(const PoolState& state, const Demand& demand, const NodeBitset& allowed, Allocation* out,
           bool prefer_busy = false) const;
  /// The same choice over `candidates` with each node's free CPUs given by `free_cpus`
  /// (internal numbering) instead of the state's: the select plugin's passes over a core
  /// map with some rows or partitions taken out. Memory and GPUs still come from `state`.
  bool fit_view(const PoolState& state, const Demand& demand, const NodeBitset& candidates,
                const std::vector<std::uint32_t>& free_cpus, Allocation* out) const;
  /// Whether the demand could ever fit on `allowed` when every node is idle.
  bool could_ever_fit(const Demand& demand, const NodeBitset& allowed) const;
  /// CPUs the node can give this demand now (0 when it can give none).
  std::uint32_t capacity(const NodeResources& n, const Demand& d) const;
  std::uint32_t capacity(const NodeResources& n, const Demand& d, std::uint32_t free_cpus) const;
  /// Memory the demand asks of a node for `cpus` CPUs, tracked or not (0 when unbounded).
  std::uint64_t requested_mem(const NodeResources& n, const Demand& d, std::uint32_t cpus) const;
  bool memory_tracked() const { return memory_; }
  /// The most CPUs any node has: with the demand's max_cpus_per_node it bounds what one node
  /// can give, so a count of candidate nodes can rule a fit out before it is tried.
  std::uint32_t max_node_cpus() const { return max_node_cpus_; }
  /// The fit itself, over `candidates`, with each visited node's free CPUs from
  /// free_cpus(internal index, node): views are computed only for the nodes looked at.
  template <class FreeCpus>
  bool fit_pass(const PoolState& state, const Demand& d, const NodeBitset& candidates, bool prefer_busy,
                Allocation* out, FreeCpus free_cpus) const {
    return fit_nodes([&state](std::uint32_t i) -> const NodeResources& { return state.nodes[i]; }, d, candidates,
                     prefer_busy, out, free_cpus);
  }
  /// The same fit with each node's state from node_at(internal index): backfill's planning
  /// reads node states at a future time from its release profile instead of a pool copy.
  template <class NodeAt, class FreeCpus>
  bool fit_nodes(NodeAt node_at, const Demand& d, const NodeBitset& candidates, bool prefer_busy, Allocation* out,
                 FreeCpus free_cpus) const;

 private:
  PoolState state_;
  PoolState empty_;
  NodeBitset usable_;
  std::vector<std::uint32_t> config_index_, internal_index_;
  std::uint32_t max_node_cpus_ = 0;
  bool memory_ = true;
};

template <class NodeAt, class FreeCpus>
inline bool NodePool::fit_nodes(NodeAt node_at, const Demand& d, const NodeBitset& candidates, bool prefer_busy,
                                Allocation* out, FreeCpus free_cpus) const {
  std::int64_t cpus_left = d.cpus;
  std::uint32_t gpus_left = d.gpus;
  std::uint32_t nodes_used = 0;
  const std::uint32_t min_nodes = std::max<std::uint32_t>(1, d.min_nodes);
  if (out) {
    out->pieces.clear();
    out->units.clear();
  }
  auto done = [&] { return cpus_left <= 0 && gpus_left == 0 && nodes_used >= min_nodes; };
  for (int pass = prefer_busy ? 0 : 1; pass < 2 && !done(); ++pass) {
    candidates.for_each_until([&](std::size_t idx) {
      const std::uint32_t i = static_cast<std::uint32_t>(idx);
      const NodeResources& n = node_at(i);
      // bf_busy_nodes: first the nodes already in use, then the idle ones.
      if (prefer_busy && (pass == 0) == n.idle()) return false;
      const std::uint32_t cap = capacity(n, d, free_cpus(i, n));
      if (cap == 0) return false;
      std::uint32_t g = 0;
      if (gpus_left) {
        g = d.whole_nodes ? std::min(n.gpus_total, gpus_left) : std::min(n.gpus_free, gpus_left);
        if (g == 0) return false;  // GPU jobs take nodes that give GPUs
      }
      // Leave at least one CPU for each node still needed to reach min_nodes: CPUs are
      // packed onto the first nodes (-n10 -N5 on 8-CPU nodes takes 6,1,1,1,1, as captured),
      // unless the job fixes its CPUs per node.
      const std::int64_t later_nodes = static_cast<std::int64_t>(min_nodes) - nodes_used - 1;
      std::int64_t want = std::max<std::int64_t>(cpus_left - std::max<std::int64_t>(0, later_nodes), 1);
      if (d.cpus_per_node) {
        if (cap < d.cpus_per_node) return false;
        want = d.cpus_per_node;
      }
      std::uint32_t take = static_cast<std::uint32_t>(std::min<std::int64_t>(cap, want));
      if (take % n.unit) take = std::min(cap, take + (n.unit - take % n.unit));
      if (d.whole_nodes) take = cap;
      cpus_left -= take;
      gpus_left -= g;
      ++nodes_used;
      if (out) {
        AllocPiece p{i, take, 0, g, 0, 0};
        if (d.whole_nodes) p.gpus = n.gpus_total;
        if (memory_) {
          if (d.mem_whole_node)
            p.mem = n.mem_total;
          else if (d.mem_per_node)
            p.mem = std::min<std::uint64_t>(n.mem_free, d.mem_per_node);
          else
            p.mem = std::min<std::uint64_t>(n.mem_free, d.mem_per_cpu * take);
        }
        p.mem_req = requested_mem(n, d, take);
        out->pieces.push_back(p);
      }
      return done();
    });
  }
  if (!done()) return false;
  return true;
}

}  // namespace sa::engine
