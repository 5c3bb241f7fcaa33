#pragma once
// Node selection: the one place that decides which nodes a job gets, for the main loop,
// backfill's will-run tests and plans, preemption and the sharing rows alike (all reach it
// through NodePool::fit_nodes). A strategy only chooses the order in which nodes are offered
// to a NodeTaker; the taker decides how much of an offered node the job takes (CPUs packed
// onto the first nodes, whole nodes, memory, GPUs), the same for every strategy. A new
// strategy is a new header beside this one and a case in NodePool::fit_nodes. Strategies are
// templates, not virtual calls: they run once per node visited in backfill's innermost loop.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/bitset.h"
// Included from the end of engine/resources.h (NodePool must be complete here): include that.

namespace sa::engine {

/// Takes from offered nodes until the demand is met; the bookkeeping of one fit.
template <class NodeAt, class FreeCpus>
class NodeTaker {
 public:
  NodeTaker(const NodePool& pool, NodeAt& node_at, const Demand& d, Allocation* out, FreeCpus& free_cpus)
      : pool_(pool),
        node_at_(node_at),
        d_(d),
        out_(out),
        free_cpus_(free_cpus),
        cpus_left_(d.cpus),
        gpus_left_(d.gpus) {
    min_nodes_ = std::max<std::uint32_t>(1, d.min_nodes);
    if (out_) {
      out_->pieces.clear();
      out_->units.clear();
    }
  }
  bool done() const { return cpus_left_ <= 0 && gpus_left_ == 0 && nodes_used_ >= min_nodes_; }
  std::int64_t cpus_left() const { return cpus_left_; }
  std::uint32_t nodes_used() const { return nodes_used_; }
  std::uint32_t nodes_left() const { return min_nodes_ > nodes_used_ ? min_nodes_ - nodes_used_ : 0; }
  const Demand& demand() const { return d_; }
  const NodeResources& node(std::uint32_t i) const { return node_at_(i); }

  /// CPUs node i could give this job (0: it gives nothing, for want of CPUs, memory or the
  /// GPUs still needed): what select/cons_tres's _select_cores leaves as avail_cpus.
  std::uint32_t available(std::uint32_t i) const {
    const NodeResources& n = node_at_(i);
    const std::uint32_t cap = pool_.capacity(n, d_, free_cpus_(i, n));
    if (cap == 0) return 0;
    if (gpus_left_ && usable_gpus(n, cap) == 0) return 0;
    if (d_.cpus_per_node && !d_.task_cpus) return cap < d_.cpus_per_node ? 0 : d_.cpus_per_node;
    return cap;
  }

  /// GPUs node i could give this job: its free ones (all of them for a whole node), as many as
  /// the node's free CPUs and memory hold at --cpus-per-gpu / --mem-per-gpu (or their defaults)
  /// each (gres_select_filter_remove_unusable). A whole node must hold all of its GPUs.
  std::uint32_t usable_gpus(std::uint32_t i) const {
    const NodeResources& n = node_at_(i);
    return usable_gpus(n, pool_.capacity(n, d_, free_cpus_(i, n)));
  }

  /// Whether the job's node weights count its GPUs (a GPU job under select/cons_tres).
  bool gpu_weighted() const { return d_.gpu_weight; }

  /// Node i's scheduling weight for this job (sched_weight, 22.05 through 24.05, which every
  /// node choice groups nodes by, lightest first): its Weight above a low byte of 0xff, less,
  /// for a GPU job under select/cons_tres, the GPUs it could use there (cons_tres
  /// _can_job_run_on_node "Favor nodes with more co-located GPUs": the near_gpus of
  /// gres_select_filter_remove_unusable, the node's free GPUs within its memory and CPUs, at
  /// most the job's GPUs per node or, without those, its GPUs in all). So among nodes of one
  /// Weight a --gpus=4 job tries a node with four free GPUs before nodes with fewer, as the
  /// topology_gpu capture's job 4 went to n8 alone. cons_res and linear have no such weight.
  std::uint64_t sched_weight(std::uint32_t i) const {
    const std::uint64_t w = pool_.weight(i) << 8;
    if (!gpu_weighted()) return w | 0xff;
    const std::uint32_t cap = d_.gpus_per_node ? d_.gpus_per_node : d_.gpus;
    std::uint32_t near = usable_gpus(i);
    if (!d_.whole_nodes && cap) near = std::min(near, cap);
    return w | (0xff - std::min<std::uint32_t>(near, 0xff));
  }

  /// Whether node i alone holds the GPUs still needed (gres_sched_sufficient for one node).
  bool gives_all_gpus(std::uint32_t i) const { return usable_gpus(i) >= gpus_left_; }

  /// Offers node i; returns whether the demand is met now.
  bool offer(std::uint32_t i) {
    if (d_.max_nodes && nodes_used_ >= d_.max_nodes) return false;
    const NodeResources& n = node_at_(i);
    const std::uint32_t cap = pool_.capacity(n, d_, free_cpus_(i, n));
    if (cap == 0) return false;
    // The last node the job may take must hold the rest of its CPUs (cons_tres _eval_nodes).
    if (d_.max_nodes && nodes_used_ + 1 == d_.max_nodes && cap < cpus_left_) return false;
    std::uint32_t g = 0;
    if (gpus_left_) {
      g = std::min(usable_gpus(n, cap), gpus_left_);
      if (g == 0) return false;  // GPU jobs take nodes that give GPUs
    }
    // Leave at least one CPU for each node still needed to reach min_nodes: CPUs are packed
    // onto the first nodes (-n10 -N5 on 8-CPU nodes takes 6,1,1,1,1, as captured), unless
    // the job fixes its CPUs per node (cons_tres _cpus_to_use).
    // topology/tree spreads a -N min-max job to its max: a node taken once the CPUs are met
    // gets one of those already placed, as Slurm spreads the tasks without adding CPUs (real
    // run: -N 1-2 -n 4 on two nodes, 4 CPUs).
    const bool spread = cpus_left_ <= 0 && movable_ > 0 && !d_.whole_nodes && !d_.cpus_per_node &&
                        unit_of(n, d_) == 1 && pool_.placement() == Placement::kTopologyTree;
    const std::int64_t later_nodes = static_cast<std::int64_t>(min_nodes_) - nodes_used_ - 1;
    std::int64_t want = std::max<std::int64_t>(cpus_left_ - std::max<std::int64_t>(0, later_nodes), 1);
    if (d_.cpus_per_node && d_.task_cpus) {
      want = std::max<std::int64_t>(want, d_.cpus_per_node);  // one task at least (_cpus_to_use's pn_min_cpus)
    } else if (d_.cpus_per_node) {
      if (cap < d_.cpus_per_node) return false;
      want = d_.cpus_per_node;
    }
    // Each GPU taken brings its CPUs (usable_gpus kept g x cpus_per_gpu within cap).
    if (g && d_.cpus_per_gpu && !d_.cpus_per_node)
      want = std::max<std::int64_t>(want, std::int64_t{g} * d_.cpus_per_gpu);
    std::uint32_t take = static_cast<std::uint32_t>(std::min<std::int64_t>(cap, want));
    const std::uint32_t unit = unit_of(n, d_);
    if (whole_units(take, unit) != take) take = std::min(cap, whole_units(take, unit) + unit);
    if (d_.whole_nodes) take = cap;
    cpus_left_ -= take;
    gpus_left_ -= g;
    ++nodes_used_;
    if (spread) {
      --movable_;
      ++cpus_left_;
      if (out_) move_one_cpu();
    } else {
      movable_ += take - 1;
    }
    if (out_) {
      // Filled in place: a piece built beside it and copied in was read back whole before
      // its narrow stores had landed (a store-forwarding stall on every node taken).
      AllocPiece& p = out_->pieces.emplace_back();
      p.node = i;
      p.cpus = take;
      p.gpus = d_.whole_nodes ? n.gpus_total : g;
      set_memory(p, n);
    }
    return done();
  }

 private:
  // The memory a piece of p.cpus CPUs on node n takes (when memory is consumable) and asks for.
  void set_memory(AllocPiece& p, const NodeResources& n) const {
    if (d_.gpu_mem_alloc) {
      const std::uint64_t mem = std::uint64_t{d_.mem_per_gpu} * p.gpus;
      if (d_.mem_tracked) p.mem = std::min<std::uint64_t>(n.mem_free, mem);
      p.mem_req = mem;
      return;
    }
    if (d_.mem_tracked) {
      if (d_.mem_whole_node)
        p.mem = n.mem_total;
      else if (d_.mem_per_node)
        p.mem = std::min<std::uint64_t>(n.mem_free, d_.mem_per_node);
      else
        p.mem = std::min<std::uint64_t>(n.mem_free, d_.mem_per_cpu * p.cpus);
    }
    p.mem_req = pool_.requested_mem(n, d_, p.cpus);
  }

  std::uint32_t usable_gpus(const NodeResources& n, std::uint32_t cap) const {
    const std::uint32_t all = d_.whole_nodes ? n.gpus_total : n.gpus_free;
    std::uint32_t g = all;
    if (d_.gpu_rules) {
      if (d_.cpus_per_gpu) g = std::min<std::uint32_t>(g, cap / d_.cpus_per_gpu);
      if (d_.mem_per_gpu && d_.mem_tracked)
        g = static_cast<std::uint32_t>(std::min<std::uint64_t>(g, n.mem_free / d_.mem_per_gpu));
      if (d_.whole_nodes && g < all) return 0;
    }
    // GPUs per node: each node it takes gives exactly that many, or none (min_gres there; a
    // whole node still gives all of its GPUs). The gpu_shapes capture's -N 2 --gpus-per-node=1.
    if (d_.gpus_per_node) return g < d_.gpus_per_node ? 0 : d_.whole_nodes ? g : d_.gpus_per_node;
    return g;
  }

  // The first piece holding more than one CPU gives one up (with its memory per CPU).
  void move_one_cpu() {
    for (AllocPiece& p : out_->pieces) {
      if (p.cpus <= 1) continue;
      --p.cpus;
      set_memory(p, node_at_(p.node));
      return;
    }
  }

  const NodePool& pool_;
  NodeAt& node_at_;
  const Demand& d_;
  Allocation* out_;
  FreeCpus& free_cpus_;
  std::int64_t cpus_left_;
  std::uint32_t gpus_left_;
  std::uint32_t nodes_used_ = 0;
  std::uint32_t min_nodes_ = 1;
  std::int64_t movable_ = 0;  // CPUs placed beyond one per node (spreading may move them)
};

/// A node and its scheduling weight for one job (NodeTaker::sched_weight).
struct WeightedNode {
  std::uint32_t node;
  std::uint64_t weight;
};

/// Sorts `nodes`, stably, by weight, where the weights above the low byte never fall (the
/// internal numbering is in node Weight order) and only the low byte, a GPU job's count of
/// GPUs it could use (NodeTaker::sched_weight), reorders nodes within a Weight: a counting
/// sort on that byte per Weight, in place of a merge sort that allocated its buffer at every
/// placement (6 % of a run on CliMA's GPU partitions).
inline void sort_low_byte_within_weights(std::vector<WeightedNode>& nodes) {
  thread_local std::vector<WeightedNode> scratch;
  for (std::size_t first = 0; first < nodes.size();) {
    const std::uint64_t high = nodes[first].weight >> 8;
    std::uint32_t low_min = nodes[first].weight & 0xff, low_max = low_min;
    std::size_t end = first + 1;
    while (end < nodes.size() && nodes[end].weight >> 8 == high) {
      const auto low = static_cast<std::uint32_t>(nodes[end].weight & 0xff);
      low_min = std::min(low_min, low);
      low_max = std::max(low_max, low);
      ++end;
    }
    if (end < nodes.size() && nodes[end].weight >> 8 < high) {  // not in Weight order after all
      std::stable_sort(nodes.begin(), nodes.end(),
                       [](const WeightedNode& a, const WeightedNode& b) { return a.weight < b.weight; });
      return;
    }
    if (low_min != low_max) {
      // Buckets for the bytes present only (a node's GPUs span a few values, not 256).
      const std::uint32_t span = low_max - low_min + 1;
      std::uint32_t start[257];  // only its first span + 1 are used, zeroed below
      std::fill_n(start, span + 1, 0u);
      for (std::size_t k = first; k < end; ++k) ++start[(nodes[k].weight & 0xff) - low_min + 1];
      for (std::uint32_t b = 1; b <= span; ++b) start[b] += start[b - 1];
      scratch.resize(end - first);
      for (std::size_t k = first; k < end; ++k) scratch[start[(nodes[k].weight & 0xff) - low_min]++] = nodes[k];
      std::copy(scratch.begin(), scratch.end(), nodes.begin() + static_cast<std::ptrdiff_t>(first));
    }
    first = end;
  }
}

/// `candidates` in the order 22.05's node choices walk them (_build_node_weight_list): weight
/// groups lightest first, node order within each. The internal numbering is weight-sorted
/// already; a GPU job's weights, which count its GPUs on each node, are sorted here.
template <class Taker>
void weight_order(const Taker& taker, const NodeBitset& candidates, std::vector<WeightedNode>& out) {
  out.clear();
  candidates.for_each([&](std::size_t n) {
    const auto i = static_cast<std::uint32_t>(n);
    out.push_back({i, taker.sched_weight(i)});
  });
  if (taker.gpu_weighted()) sort_low_byte_within_weights(out);
}

/// Nodes offered in weight, then name order (the internal numbering); with
/// prefer_busy (bf_busy_nodes, cons_tres _eval_nodes_busy) nodes running jobs come first.
template <class Taker>
bool fit_in_order(Taker& taker, const NodeBitset& candidates, bool prefer_busy) {
  for (int pass = prefer_busy ? 0 : 1; pass < 2 && !taker.done(); ++pass) {
    candidates.for_each_until([&](std::size_t idx) {
      const std::uint32_t i = static_cast<std::uint32_t>(idx);
      if (prefer_busy && (pass == 0) == taker.node(i).idle()) return false;
      return taker.offer(i);
    });
  }
  return taker.done();
}

}  // namespace sa::engine
