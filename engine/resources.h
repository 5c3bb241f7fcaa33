#pragma once
// Consumable resources as select/cons_tres and select/linear track them: CPUs in allocation
// units (a core's threads with CR_Core, a socket with CR_Socket), memory when a *_Memory
// mode makes it consumable, GPU counts, and whole nodes for exclusive jobs and
// select/linear. Node choice follows node Weight, then name order (natural, as slurmctld sorts its node table): nodes
// are numbered internally in that order (config_index() maps back), so every node bitmap is walked in selection order,
// and bitmaps of nodes with free CPUs and of idle nodes let a fit skip full nodes a word at a time.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "analyzer/model.h"
#include "engine/bitset.h"
#include "engine/core/packed_vec.h"
#include "engine/core/rare_vec.h"

namespace sa::engine {

struct NodeResources {
  std::uint32_t cpus_total = 0, cpus_free = 0;
  std::uint64_t mem_total = 0, mem_free = 0;
  std::uint32_t gpus_total = 0, gpus_free = 0;
  std::uint32_t jobs = 0;      // jobs holding any of it
  std::uint32_t unit = 1;      // CPUs per allocation unit
  std::uint32_t alt_unit = 1;  // the same under the other of CR_Core and CR_Socket (Demand::alt_unit)
  bool idle() const { return jobs == 0; }
};

/// What one (job x partition) record needs, with the partition's defaults applied.
struct Demand {
  // (Every queue record holds one: the 8-byte fields first, then the 4-byte ones, and the
  // flags as bits, so it is 64 bytes rather than 72.)
  std::uint64_t mem_per_cpu = 0;         // MB, when memory is per CPU
  std::uint64_t mem_per_node = 0;        // MB, when memory is per node
  const NodeBitset* required = nullptr;  // -w: every one of these nodes (internal numbering), first
  /// Counted features (--constraint "[a*1&b*2]", "a*2"): so many distinct nodes from each set.
  const std::vector<std::pair<const NodeBitset*, std::uint32_t>>* counted = nullptr;
  std::uint32_t cpus = 1;
  std::uint32_t min_nodes = 1;
  std::uint32_t gpus = 0;
  std::uint32_t max_nodes = 0;  // -N min-max's max; 0: no bound
  // A GPU job under select/cons_tres: MB for each GPU it takes on a node, from --mem-per-gpu or
  // DefMemPerGPU. A node gives only as many GPUs as its free memory holds at this much each,
  // even to a job that named its memory (gres_select_filter_remove_unusable); a job that named
  // none is given this much a GPU (gpu_mem_alloc). 0: none.
  std::uint32_t mem_per_gpu = 0;
  // (16-bit fields: Slurm keeps a node's CPUs in 16 bits, and these fit where the struct had
  // padding, so a queue record stays 216 bytes.)
  std::uint16_t max_cpus_per_node = 0xFFFF;  // MaxCPUsPerNode (0xFFFF: any node's CPUs)
  // --ntasks-per-node x --cpus-per-task: exactly this on each node; with task_cpus, the CPUs of
  // one task (--cpus-per-task): at least this on each node (NodePool::capacity).
  std::uint16_t cpus_per_node = 0;
  // --gres=gpu:N / --gpus-per-node=N: exactly N GPUs on each node it takes (0: GPUs per job)
  std::uint16_t gpus_per_node = 0;
  // --switches=N under topology/tree while the job is still within its wait4switch: a placement
  // over more leaf switches than this fails (cons_tres _eval_nodes_topo). 0: no limit. Set per
  // fit on a copy (Simulator::fit_demand), as it depends on when the job is tried.
  std::uint16_t max_leaf_switches = 0;
  // CPUs each GPU taken on a node brings with it: --cpus-per-gpu, or DefCPUPerGPU when the job
  // gave no -c (cons_common _set_gpu_defaults; gres_select_filter_remove_unusable). 0: none.
  std::uint16_t cpus_per_gpu = 0;
  bool mem_whole_node : 1 = false;  // --mem=0, or no default: the node's whole memory
  bool mem_unknown : 1 = false;     // no request and no default: bounded by nothing but the node
  bool whole_nodes : 1 = false;     // --exclusive, OverSubscribe=EXCLUSIVE or select/linear
  bool least_loaded : 1 = false;    // CR_LLN or the partition's LLN=YES (engine/policy/least_loaded.h)
  bool serial_at_end : 1 = false;   // pack_serial_at_end and a 1-CPU, 1-node job (engine/policy/serial_at_end.h)
  // A partition's own SelectTypeParameters (Partition::select_own): memory consumable or not
  // for this job, and whole sockets where the cluster allocates cores or the reverse.
  bool mem_tracked : 1 = true;
  bool alt_unit : 1 = false;
  // The job named no memory: each node gives it mem_per_gpu a GPU (gres_select_util_job_mem_set)
  // instead of mem_per_cpu/mem_per_node, which stay what it was given at submission
  // (DefMemPerCPU's): what priority and limits read, as ReqTRES shows.
  bool gpu_mem_alloc : 1 = false;
  // cpus_per_gpu or mem_per_gpu set: one test keeps them off the CPU-only hot path.
  bool gpu_rules : 1 = false;
  // A GPU job under select/cons_tres: its nodes' weights count the GPUs it could use there
  // (NodeTaker::sched_weight); cons_res and linear have no such weight.
  bool gpu_weight : 1 = false;
  // cpus_per_node is -c's task size, not --ntasks-per-node's exact count (see there).
  bool task_cpus : 1 = false;
  bool operator==(const Demand&) const = default;
};

// (Every finished job keeps its pieces for the trace: the 32-bit fields come first, so a
// piece is 32 bytes, not 40.)
struct AllocPiece {
  std::uint32_t node = 0;
  std::uint32_t cpus = 0;
  std::uint32_t gpus = 0;
  std::uint32_t unit_word = 0;  // sharing mode: first word of this node's units in Allocation::units
  std::uint64_t mem = 0;        // MB taken from the node when memory is consumable
  std::uint64_t mem_req = 0;    // MB the job asked for here (or its default), consumable or not
};

/// Consecutive nodes (internal numbering) that each hold the same piece: how a finished
/// job keeps its allocation for the trace. A job on the perf-site load holds 25 nodes in 3
/// runs on average, so this is 100 bytes where its pieces were 800.
struct AllocRun {
  std::uint32_t node = 0, count = 0;
  std::uint32_t cpus = 0, gpus = 0;
  // MB per node, as in AllocPiece; 32 bits hold 4 PB, and an allocation a node's memory does
  // not fit in them keeps its pieces (24 bytes a run instead of 32).
  std::uint32_t mem = 0, mem_req = 0;
};

struct Allocation {
  PackedVec<AllocPiece> pieces;
  /// Sharing mode only (CoreRows): the allocation units (cores, or CPUs with CR_CPU) each
  /// piece holds, as bit masks in the node's words, from pieces[i].unit_word.
  RareVec<std::uint64_t> units;
  /// A finished job's pieces after compact(): `pieces` is then empty.
  PackedVec<AllocRun> runs;
  std::int32_t row = -1;  // sharing mode: the partition row it is recorded in (-1: none)
  std::uint32_t cpus() const;
  std::uint64_t mem() const;
  std::uint32_t gpus() const;
  std::uint32_t nodes() const;
  /// Replaces the pieces by runs, for a job that will never run again. Allocations that
  /// hold units (sharing mode) keep their pieces: a piece's unit_word differs per node.
  void compact();
  /// The pieces, from runs after compact(): what readers of finished jobs iterate.
  std::vector<AllocPiece> expanded() const;
};

/// CPUs per allocation unit on node n for this demand.
inline std::uint32_t unit_of(const NodeResources& n, const Demand& d) { return d.alt_unit ? n.alt_unit : n.unit; }

/// c rounded down to whole units of `unit` CPUs. Units are mostly a power of two (1, or a
/// core's threads), where a mask does what a division would in backfill's innermost loop.
inline std::uint32_t whole_units(std::uint32_t c, std::uint32_t unit) {
  return std::has_single_bit(unit) ? c & ~(unit - 1) : c - c % unit;
}

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

/// How nodes are chosen among the candidates (engine/policy/): kInOrder takes them in weight,
/// then name order; kBestFit is select/cons_tres's _eval_nodes (consecutive sets,
/// the tightest sufficient set, the best-fitting single node); kTopologyTree is its
/// _eval_nodes_topo (topology.conf's switches: engine/policy/topology_tree.h). A demand can
/// ask for the least loaded nodes instead (Demand::least_loaded).
/// kLinearTopology and kConsResTopology: select/linear's (up to 23.11) and select/cons_res's
/// (up to 23.02) own topology/tree selections.
enum class Placement : std::uint8_t { kInOrder, kBestFit, kTopologyTree, kLinearTopology, kConsResTopology };

/// What the select plugin's choose_nodes does when a pass of its node choice fails
/// (engine/policy/choose_nodes.h): select/cons_tres drops the nodes of fewest CPUs and GPUs,
/// select/cons_res those of fewest CPUs while their sum holds the job, select/linear nothing.
enum class NodeRetry : std::uint8_t { kNone, kConsTres, kConsRes };

struct SwitchTable;  // engine/policy/topology_tree.h

/// Slurm's strnatcmp (natural order: n2 before n10), by which slurmctld sorts its node table.
int natural_compare(std::string_view a, std::string_view b);

class NodePool {
 public:
  explicit NodePool(const Config& config);

  const PoolState& state() const { return state_; }
  PoolState& state() { return state_; }
  /// Usable nodes (not DOWN/DRAIN/FAIL/FUTURE in the config), internal numbering.
  const NodeBitset& usable() const { return usable_; }
  /// Node events (DOWN/DRAIN periods) switch nodes off and back on; internal numbering. A node
  /// on no leaf switch of topology.conf stays off (topology/tree never gives it to a job).
  void set_usable(std::uint32_t internal, bool on);
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
  Placement placement() const { return placement_; }
  /// Nodes are chosen by topology.conf's switches (either select plugin's way).
  bool by_topology() const {
    return placement_ == Placement::kTopologyTree || placement_ == Placement::kLinearTopology ||
           placement_ == Placement::kConsResTopology;
  }
  /// The topology placements need the switch table, so they are only set by the constructor.
  void set_placement(Placement p) {
    if (p != Placement::kTopologyTree && p != Placement::kLinearTopology && p != Placement::kConsResTopology)
      placement_ = p;
  }
  /// topology.conf's switches over the internal numbering; null without topology/tree.
  const SwitchTable* switches() const { return switches_.get(); }
  /// The node's scheduling Weight (internal numbering; the numbering follows it).
  std::uint64_t weight(std::uint32_t internal) const { return weight_[internal]; }
  /// Nodes that begin a new consecutive node set of best fit (best_fit.h) even when the node
  /// before them is a candidate: the first of a configuration run or of a Weight. Valid when
  /// sets_follow_numbering(): no set can then join two nodes with a node between them.
  const NodeBitset& set_breaks() const { return set_breaks_; }
  bool sets_follow_numbering() const { return sets_follow_numbering_; }
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
  /// Every fit ends here: the select plugin's choose_nodes (engine/policy/choose_nodes.h)
  /// around eval_nodes.
  template <class NodeAt, class FreeCpus>
  bool fit_nodes(NodeAt node_at, const Demand& d, const NodeBitset& candidates, bool prefer_busy, Allocation* out,
                 FreeCpus free_cpus) const;
  /// One pass of the Placement strategy over `candidates` (_eval_nodes; engine/policy/).
  template <class NodeAt, class FreeCpus>
  bool eval_nodes(NodeAt& node_at, const Demand& d, const NodeBitset& candidates, bool prefer_busy, Allocation* out,
                  FreeCpus& free_cpus) const;
  /// How choose_nodes tries again when a pass fails (engine/policy/choose_nodes.h).
  NodeRetry node_retry() const { return node_retry_; }

 private:
  PoolState state_;
  PoolState empty_;
  NodeBitset usable_;
  std::vector<std::uint32_t> config_index_, internal_index_;
  std::uint32_t max_node_cpus_ = 0;
  Placement placement_ = Placement::kInOrder;
  NodeRetry node_retry_ = NodeRetry::kNone;
  std::vector<std::uint64_t> weight_;
  NodeBitset set_breaks_;
  bool sets_follow_numbering_ = true;
  std::shared_ptr<const SwitchTable> switches_;  // immutable: copies of the pool share it

  /// Sets set_breaks_ and sets_follow_numbering_ from the numbering and the Weights.
  void find_set_breaks();
  /// capacity() before the demand's task size (Demand::task_cpus) is applied.
  std::uint32_t cpu_capacity(const NodeResources& n, const Demand& d, std::uint32_t free_cpus) const;
};

}  // namespace sa::engine

// NodePool::fit_nodes and the strategies it dispatches to.
#include "engine/policy/placement.h"  // IWYU pragma: export
