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

template <class NodeAt, class FreeCpus>
bool choose_nodes(const NodePool& pool, NodeAt& node_at, const Demand& d, const NodeBitset& candidates,
                  bool prefer_busy, Allocation* out, FreeCpus& free_cpus) {
  // The passes need the CPUs each node was given, for a will-run question too.
  thread_local Allocation scratch;
  Allocation* got = out ? out : &scratch;
  if (pool.eval_nodes(node_at, d, candidates, prefer_busy, got, free_cpus)) return true;

  thread_local RetryCaps caps;
  caps.reset(pool.size());
  auto capped = [&free_cpus](std::uint32_t i, const NodeResources& n) {
    return std::min(free_cpus(i, n), caps.get(i));
  };
  thread_local std::vector<RetryNode> nodes;
  thread_local NodeBitset left;  // the candidates of the next pass
  nodes.clear();
  left = candidates;
  {
    // (_select_nodes has left out the nodes that give no CPUs before choose_nodes.)
    NodeTaker<NodeAt, FreeCpus> probe(pool, node_at, d, nullptr, free_cpus);
    candidates.for_each([&](std::size_t n) {
      const auto i = static_cast<std::uint32_t>(n);
      if (const std::uint32_t c = probe.available(i))
        nodes.push_back(RetryNode{i, c, d.gpus ? probe.usable_gpus(i) : 0U});
      else
        left.reset(n);
    });
  }
  if (!cap_can_hold(
          nodes, d, [](const RetryNode& r) { return r.cpus; }, [](const RetryNode&) { return true; }))
    return false;
  // What the failed passes took with fewer CPUs than the node had. A whole-node job takes
  // them all (_cpus_to_use leaves it be), and a node taken whole gives the job nothing less.
  auto lower = [&] {
    if (d.whole_nodes) return;
    for (const AllocPiece& p : got->pieces) caps.lower(p.node, p.cpus);
  };
  auto cpus_of = [&](const RetryNode& r) { return std::min(r.cpus, caps.get(r.node)); };
  auto required = [&](std::uint32_t i) { return d.required && d.required->test(i); };
  lower();
  const std::uint32_t min_nodes = std::max<std::uint32_t>(1, d.min_nodes);
  bool doomed = false;  // no later pass can succeed
  auto pass = [&] {
    if (!cap_can_hold(nodes, d, cpus_of, [&](const RetryNode& r) { return left.test(r.node); })) {
      doomed = true;
      return false;
    }
    if (pool.eval_nodes(node_at, d, left, prefer_busy, got, capped)) return true;
    lower();
    return false;
  };
  // The next count that drops a node: counts below every remaining node's change nothing.
  auto next_count = [&](std::uint32_t count, auto res_of) {
    std::uint32_t next = std::numeric_limits<std::uint32_t>::max();
    for (const RetryNode& r : nodes) {
      const std::uint32_t res = res_of(r);
      if (res > 0 && left.test(r.node) && !required(r.node)) next = std::min(next, res);
    }
    return std::max(count + 1, next);
  };

  if (pool.node_retry() == NodeRetry::kConsTres) {
    // cons_tres: avail_res_cnt is the node's CPUs and GPUs for the job; the node count it
    // stops at is counted once, from the nodes that give CPUs.
    auto res_of = [&](const RetryNode& r) { return cpus_of(r) + r.gpus; };
    std::size_t rem_nodes = nodes.size();
    // No node to drop: one more pass, on the counts the first one lowered (and, in Slurm,
    // with GPUs not bound to the cores' sockets, which the engine does not place).
    if (rem_nodes <= min_nodes) return pass();
    std::uint32_t most = 0;
    for (const RetryNode& r : nodes) most = std::max(most, res_of(r));
    for (std::uint32_t count = 1; count < most; count = next_count(count, res_of)) {
      bool change = false;
      for (const RetryNode& r : nodes) {
        const std::uint32_t res = res_of(r);
        if (!left.test(r.node) || res == 0 || res > count || required(r.node)) continue;
        change = true;
        left.reset(r.node);
        if (--rem_nodes <= min_nodes) break;
      }
      // (It evaluates at count 1 whatever: the first pass's lowered counts may change the answer.)
      if (!change && count != 1) continue;
      if (pass()) return true;
      if (doomed || rem_nodes <= min_nodes) break;
    }
    return false;
  }
  // cons_res: CPUs alone; it keeps a node whose CPUs the others could not do without, and
  // evaluates no more once it has stopped dropping.
  std::int64_t rem_cpus = 0;
  std::uint32_t most = 0;
  for (const RetryNode& r : nodes) {
    rem_cpus += cpus_of(r);
    most = std::max(most, cpus_of(r));
  }
  for (std::uint32_t count = 1; count < most; count = next_count(count, cpus_of)) {
    bool change = false, no_more = false;
    std::size_t rem_nodes = left.count();
    for (const RetryNode& r : nodes) {
      const std::uint32_t c = cpus_of(r);
      if (!left.test(r.node) || c == 0 || c > count || required(r.node)) continue;
      rem_cpus -= c;
      if (rem_cpus < d.cpus) {
        no_more = true;
        break;
      }
      change = true;
      left.reset(r.node);
      if (--rem_nodes <= min_nodes || rem_cpus == d.cpus) {
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
    if (ok || no_more || doomed) return ok;
  }
  return false;
}

}  // namespace sa::engine
