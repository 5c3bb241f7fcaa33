#pragma once
// choose_nodes: what select/cons_tres and select/cons_res do when a pass of their node choice
// (_eval_nodes, NodePool::eval_nodes) fails. "To avoid a possible knapsack problem" they drop
// the nodes that have the fewest resources for the job, one count at a time, and evaluate
// again (cons_tres/job_test.c choose_nodes from 22.05 to 23.11, topology/common/common_topo.c
// from 24.05; cons_res/job_test.c choose_nodes up to 23.02). A pass can only fail where fewer
// candidates succeed when the job caps its node count: the nodes it takes first, the small
// ones, use up the count. Real 22.05 (the node_retry capture): -N 2 -n 32 with n1 and n2 at 2
// free CPUs of 16 starts on n[3-4] at once; one pass alone takes n1 and finds no second node
// with 30.
// Each pass leaves its mark: a node it took with more CPUs than the job still needed
// (_cpus_to_use) keeps only those for the passes after it and for the counts that drop nodes,
// since both plugins write the lowered count back into the node's avail_res.
// Included from engine/policy/placement.h: include engine/resources.h instead.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "engine/bitset.h"
#include "engine/policy/node_select.h"

namespace sa::engine {

/// A candidate's resources for the job, as choose_nodes counts them between passes.
struct RetryNode {
  std::uint32_t node = 0;
  std::uint32_t cpus = 0;  // avail_cpus, lowered by the passes that took the node
  std::uint32_t gpus = 0;  // the GPUs it gives the job (cons_tres counts them too)
};

/// The per-node lowered CPU counts of one choose_nodes call (internal numbering).
class RetryCaps {
 public:
  static constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
  void reset(std::size_t nodes) {
    for (std::uint32_t n : touched_) cap_[n] = kNone;
    touched_.clear();
    if (cap_.size() < nodes) cap_.resize(nodes, kNone);
  }
  std::uint32_t get(std::uint32_t node) const { return cap_[node]; }
  void lower(std::uint32_t node, std::uint32_t cpus) {
    if (cap_[node] == kNone) touched_.push_back(node);
    cap_[node] = std::min(cap_[node], cpus);
  }

 private:
  std::vector<std::uint32_t> cap_;
  std::vector<std::uint32_t> touched_;
};

/// Whether the `max_nodes` nodes of most CPUs (and of most GPUs) among those `in` can hold the
/// job: no pass takes more nodes than that, so without them every pass fails, and so does every
/// later one, which has fewer nodes and no more CPUs on any.
template <class CpusOf, class In>
bool cap_can_hold(const std::vector<RetryNode>& nodes, const Demand& d, CpusOf cpus_of, In in) {
  thread_local std::vector<std::uint32_t> v;
  auto top_sum = [&](auto value) {
    v.clear();
    for (const RetryNode& r : nodes) {
      if (in(r)) v.push_back(value(r));
    }
    if (v.size() < std::max<std::uint32_t>(1, d.min_nodes)) return std::uint64_t{0};
    const std::size_t k = std::min<std::size_t>(d.max_nodes, v.size());  // (at least 1)
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k - 1), v.end(), std::greater<>());
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < k; ++i) sum += v[i];
    return sum;
  };
  if (top_sum(cpus_of) < std::max<std::uint32_t>(1, d.cpus)) return false;
  return d.gpus == 0 || top_sum([](const RetryNode& r) { return r.gpus; }) >= d.gpus;
}

/// The passes after a failed first one: the candidates as counted, the lowered CPU counts,
/// and the nodes the next pass may take. One object per choose_nodes call.
template <class NodeAt, class FreeCpus>
class NodeRetryPasses {
 public:
  NodeRetryPasses(const NodePool& pool, NodeAt& node_at, const Demand& d, bool prefer_busy, Allocation* got,
                  FreeCpus& free_cpus, RetryCaps& caps, std::vector<RetryNode>& nodes, NodeBitset& left)
      : pool_(pool),
        node_at_(node_at),
        d_(d),
        prefer_busy_(prefer_busy),
        got_(got),
        free_cpus_(free_cpus),
        caps_(caps),
        nodes_(nodes),
        left_(left),
        min_nodes_(std::max<std::uint32_t>(1, d.min_nodes)) {}

  /// Counts the candidates (and lowers the counts the first pass took); false when no pass
  /// can succeed.
  bool gather(const NodeBitset& candidates) {
    caps_.reset(pool_.size());
    nodes_.clear();
    left_ = candidates;
    // (_select_nodes has left out the nodes that give no CPUs before choose_nodes.)
    NodeTaker<NodeAt, FreeCpus> probe(pool_, node_at_, d_, nullptr, free_cpus_);
    candidates.for_each([&](std::size_t n) {
      const auto i = static_cast<std::uint32_t>(n);
      if (const std::uint32_t c = probe.available(i))
        nodes_.push_back(RetryNode{i, c, d_.gpus ? probe.usable_gpus(i) : 0U});
      else
        left_.reset(n);
    });
    if (!cap_can_hold(
            nodes_, d_, [](const RetryNode& r) { return r.cpus; }, [](const RetryNode&) { return true; }))
      return false;
    lower();
    return true;
  }

  /// cons_tres: avail_res_cnt is the node's CPUs and GPUs for the job; the node count it
  /// stops at is counted once, from the nodes that give CPUs.
  bool cons_tres() {
    auto res_of = [this](const RetryNode& r) { return cpus_of(r) + r.gpus; };
    std::size_t rem_nodes = nodes_.size();
    // No node to drop: one more pass, on the counts the first one lowered (and, in Slurm,
    // with GPUs not bound to the cores' sockets, which the engine does not place).
    if (rem_nodes <= min_nodes_) return pass();
    std::uint32_t most = 0;
    for (const RetryNode& r : nodes_) most = std::max(most, res_of(r));
    for (std::uint32_t count = 1; count < most; count = next_count(count, res_of)) {
      bool change = false;
      for (const RetryNode& r : nodes_) {
        const std::uint32_t res = res_of(r);
        if (!left_.test(r.node) || res == 0 || res > count || required(r.node)) continue;
        change = true;
        left_.reset(r.node);
        if (--rem_nodes <= min_nodes_) break;
      }
      // (It evaluates at count 1 whatever: the first pass's lowered counts may change the answer.)
      if (!change && count != 1) continue;
      if (pass()) return true;
      if (doomed_ || rem_nodes <= min_nodes_) break;
    }
    return false;
  }

  /// cons_res: CPUs alone; it keeps a node whose CPUs the others could not do without, and
  /// evaluates no more once it has stopped dropping.
  bool cons_res() {
    auto cpus = [this](const RetryNode& r) { return cpus_of(r); };
    std::int64_t rem_cpus = 0;
    std::uint32_t most = 0;
    for (const RetryNode& r : nodes_) {
      rem_cpus += cpus_of(r);
      most = std::max(most, cpus_of(r));
    }
    for (std::uint32_t count = 1; count < most; count = next_count(count, cpus)) {
      bool change = false, no_more = false;
      std::size_t rem_nodes = left_.count();
      for (const RetryNode& r : nodes_) {
        const std::uint32_t c = cpus_of(r);
        if (!left_.test(r.node) || c == 0 || c > count || required(r.node)) continue;
        rem_cpus -= c;
        if (rem_cpus < d_.cpus) {
          no_more = true;
          break;
        }
        change = true;
        left_.reset(r.node);
        if (--rem_nodes <= min_nodes_ || rem_cpus == d_.cpus) {
          no_more = true;
          break;
        }
      }
      // Unchanged, it tries the next count, which stops at the same node again: nothing more.
      if (!change) {
        if (no_more) return false;
        continue;
      }
      const bool ok = pass();
      if (ok || no_more || doomed_) return ok;
    }
    return false;
  }

 private:
  // What the failed passes took with fewer CPUs than the node had. A whole-node job takes
  // them all (_cpus_to_use leaves it be), and a node taken whole gives the job nothing less.
  void lower() {
    if (d_.whole_nodes) return;
    for (const AllocPiece& p : got_->pieces) caps_.lower(p.node, p.cpus);
  }
  std::uint32_t cpus_of(const RetryNode& r) const { return std::min(r.cpus, caps_.get(r.node)); }
  bool required(std::uint32_t i) const { return d_.required && d_.required->test(i); }

  // A pass over the nodes left, with the lowered counts; doomed_ once no later pass can succeed.
  bool pass() {
    if (!cap_can_hold(
            nodes_, d_, [this](const RetryNode& r) { return cpus_of(r); },
            [this](const RetryNode& r) { return left_.test(r.node); })) {
      doomed_ = true;
      return false;
    }
    auto capped = [this](std::uint32_t i, const NodeResources& n) { return std::min(free_cpus_(i, n), caps_.get(i)); };
    if (pool_.eval_nodes(node_at_, d_, left_, prefer_busy_, got_, capped)) return true;
    lower();
    return false;
  }

  // The next count that drops a node: counts below every remaining node's change nothing.
  template <class ResOf>
  std::uint32_t next_count(std::uint32_t count, ResOf res_of) const {
    std::uint32_t next = std::numeric_limits<std::uint32_t>::max();
    for (const RetryNode& r : nodes_) {
      const std::uint32_t res = res_of(r);
      if (res > 0 && left_.test(r.node) && !required(r.node)) next = std::min(next, res);
    }
    return std::max(count + 1, next);
  }

  const NodePool& pool_;
  NodeAt& node_at_;
  const Demand& d_;
  bool prefer_busy_;
  Allocation* got_;
  FreeCpus& free_cpus_;
  RetryCaps& caps_;
  std::vector<RetryNode>& nodes_;
  NodeBitset& left_;  // the candidates of the next pass
  std::uint32_t min_nodes_;
  bool doomed_ = false;  // no later pass can succeed
};

template <class NodeAt, class FreeCpus>
bool choose_nodes(const NodePool& pool, NodeAt& node_at, const Demand& d, const NodeBitset& candidates,
                  bool prefer_busy, Allocation* out, FreeCpus& free_cpus) {
  // The passes need the CPUs each node was given, for a will-run question too.
  thread_local Allocation scratch;
  Allocation* got = out ? out : &scratch;
  if (pool.eval_nodes(node_at, d, candidates, prefer_busy, got, free_cpus)) return true;
  thread_local RetryCaps caps;
  thread_local std::vector<RetryNode> nodes;
  thread_local NodeBitset left;
  NodeRetryPasses<NodeAt, FreeCpus> retry(pool, node_at, d, prefer_busy, got, free_cpus, caps, nodes, left);
  if (!retry.gather(candidates)) return false;
  return pool.node_retry() == NodeRetry::kConsTres ? retry.cons_tres() : retry.cons_res();
}

}  // namespace sa::engine
