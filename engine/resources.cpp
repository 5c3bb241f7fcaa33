#include "engine/resources.h"

#include <algorithm>
#include <numeric>

namespace sa::engine {

std::uint32_t Allocation::cpus() const {
  std::uint32_t n = 0;
  for (const AllocPiece& p : pieces) n += p.cpus;
  return n;
}
std::uint64_t Allocation::mem() const {
  std::uint64_t n = 0;
  for (const AllocPiece& p : pieces) n += p.mem;
  return n;
}
std::uint32_t Allocation::gpus() const {
  std::uint32_t n = 0;
  for (const AllocPiece& p : pieces) n += p.gpus;
  return n;
}

NodePool::NodePool(const Config& config) {
  memory_ = config.select.memory && config.select.type != "select/linear";
  const std::size_t n_nodes = config.nodes.size();
  config_index_.resize(n_nodes);
  std::iota(config_index_.begin(), config_index_.end(), 0U);
  std::stable_sort(config_index_.begin(), config_index_.end(), [&](std::uint32_t a, std::uint32_t b) {
    return config.nodes[a].weight < config.nodes[b].weight;
  });
  internal_index_.resize(n_nodes);
  for (std::uint32_t i = 0; i < n_nodes; ++i) internal_index_[config_index_[i]] = i;
  usable_ = NodeBitset(n_nodes);
  state_.nodes.reserve(n_nodes);
  for (std::uint32_t i = 0; i < n_nodes; ++i) {
    const Node& n = config.nodes[config_index_[i]];
    NodeResources r;
    r.cpus_total = r.cpus_free = n.cpus;
    // Memory Slurm can hand out: RealMemory less MemSpecLimit.
    r.mem_total = r.mem_free = n.real_memory_mb > n.mem_spec_limit_mb ? n.real_memory_mb - n.mem_spec_limit_mb : 0;
    for (const GresSpec& g : n.gres) {
      if (g.name == "gpu" && !g.no_consume) r.gpus_total += static_cast<std::uint32_t>(g.count);
    }
    r.gpus_free = r.gpus_total;
    // CR_Core allocates whole cores: a 1-CPU task on a hyperthreaded node takes both threads.
    const bool threads_counted = n.cpus == n.cores() * n.threads_per_core;
    switch (config.select.resource) {
      case SelectSettings::Resource::kCore: r.unit = threads_counted ? n.threads_per_core : 1; break;
      case SelectSettings::Resource::kSocket: r.unit = threads_counted ? n.cores_per_socket * n.threads_per_core : n.cores_per_socket; break;
      default: r.unit = 1;
    }
    r.unit = std::max<std::uint32_t>(1, std::min(r.unit, std::max<std::uint32_t>(1, n.cpus)));
    state_.nodes.push_back(r);
    if (n.usable()) usable_.set(i);
  }
  state_.free = NodeBitset(n_nodes, true);
  state_.idle = NodeBitset(n_nodes, true);
  empty_ = state_;
}

std::uint32_t NodePool::capacity(const NodeResources& n, const Demand& d) const {
  if (d.whole_nodes && !n.idle()) return 0;
  return capacity(n, d, n.cpus_free);
}

std::uint32_t NodePool::capacity(const NodeResources& n, const Demand& d, std::uint32_t free_cpus) const {
  std::uint32_t c = 0;
  if (d.whole_nodes) {
    // A whole-node job needs every CPU of the node free (in the view given).
    if (free_cpus < n.cpus_total) return 0;
    c = std::min(n.cpus_total, d.max_cpus_per_node);
  } else {
    c = std::min(free_cpus, d.max_cpus_per_node);
    c -= c % n.unit;
  }
  if (memory_) {
    if (d.mem_whole_node) {
      if (n.mem_free < n.mem_total || n.mem_total == 0) return 0;
    } else if (d.mem_per_node) {
      if (n.mem_free < d.mem_per_node) return 0;
    } else if (d.mem_per_cpu) {
      const std::uint64_t by_mem = n.mem_free / d.mem_per_cpu;
      // (A whole-node job keeps the node's CPUs; its memory is what is left.)
      if (by_mem < c && !d.whole_nodes) c = static_cast<std::uint32_t>(by_mem - by_mem % n.unit);
    }
  }
  return c;
}

std::uint64_t NodePool::requested_mem(const NodeResources& n, const Demand& d, std::uint32_t cpus) const {
  // Without consumable memory a job that names none has no bound: counted apart (0 here).
  if (d.mem_whole_node) return d.mem_unknown && !memory_ ? 0 : n.mem_total;
  if (d.mem_per_node) return d.mem_per_node;
  return d.mem_per_cpu * cpus;
}

template <class FreeCpus>
bool NodePool::fit_pass(const PoolState& state, const Demand& d, const NodeBitset& candidates, bool prefer_busy,
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
      const NodeResources& n = state.nodes[i];
      // bf_busy_nodes: first the nodes already in use, then the idle ones.
      if (prefer_busy && (pass == 0) == n.idle()) return false;
      const std::uint32_t cap = capacity(n, d, free_cpus(i, n));
      if (cap == 0) return false;
      std::uint32_t g = 0;
      if (gpus_left) {
        g = d.whole_nodes ? std::min(n.gpus_total, gpus_left) : std::min(n.gpus_free, gpus_left);
        if (g == 0) return false;  // GPU jobs take nodes that give GPUs
      }
      // Leave at least one CPU for each node still needed to reach min_nodes.
      const std::int64_t later_nodes = static_cast<std::int64_t>(min_nodes) - nodes_used - 1;
      std::int64_t want = std::max<std::int64_t>(cpus_left - std::max<std::int64_t>(0, later_nodes), 1);
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
          if (d.mem_whole_node) p.mem = n.mem_total;
          else if (d.mem_per_node) p.mem = std::min<std::uint64_t>(n.mem_free, d.mem_per_node);
          else p.mem = std::min<std::uint64_t>(n.mem_free, d.mem_per_cpu * take);
        }
        p.mem_req = requested_mem(n, d, take);
        out->pieces.push_back(p);
      }
      return done();
    });
  }
  if (!done()) return false;
  if (out && min_nodes > 1 && !d.whole_nodes) {
    // A job that names its node count gets its CPUs dealt round-robin over the nodes chosen
    // (dist_tasks' cyclic pass), not packed onto the first: -n10 -N5 takes 2 on each.
    std::vector<std::uint32_t> cap;
    for (AllocPiece& p : out->pieces) {
      const NodeResources& n = state.nodes[p.node];
      cap.push_back(capacity(n, d, free_cpus(p.node, n)));
      p.cpus = 0;
    }
    std::int64_t left = d.cpus;
    for (bool gave = true; left > 0 && gave;) {
      gave = false;
      for (std::size_t k = 0; k < out->pieces.size() && left > 0; ++k) {
        AllocPiece& p = out->pieces[k];
        const std::uint32_t unit = state.nodes[p.node].unit;
        if (p.cpus + unit > cap[k]) continue;
        p.cpus += unit;
        left -= unit;
        gave = true;
      }
    }
    for (AllocPiece& p : out->pieces) {
      const NodeResources& n = state.nodes[p.node];
      if (memory_ && d.mem_per_cpu && !d.mem_whole_node) p.mem = std::min<std::uint64_t>(n.mem_free, d.mem_per_cpu * p.cpus);
      p.mem_req = requested_mem(n, d, p.cpus);
    }
  }
  return true;
}

bool NodePool::fit(const PoolState& state, const Demand& d, const NodeBitset& allowed, Allocation* out,
                   bool prefer_busy) const {
  // Only nodes that can give anything: idle ones for whole-node jobs, else ones with a free CPU.
  NodeBitset candidates = allowed;
  candidates &= d.whole_nodes ? state.idle : state.free;
  return fit_pass(state, d, candidates, prefer_busy, out,
                  [](std::uint32_t, const NodeResources& n) { return n.cpus_free; });
}

bool NodePool::fit_view(const PoolState& state, const Demand& d, const NodeBitset& candidates,
                        const std::vector<std::uint32_t>& free_cpus, Allocation* out) const {
  return fit_pass(state, d, candidates, false, out,
                  [&free_cpus](std::uint32_t i, const NodeResources&) { return free_cpus[i]; });
}

bool NodePool::could_ever_fit(const Demand& d, const NodeBitset& allowed) const {
  NodeBitset candidates = allowed;
  candidates &= d.whole_nodes ? empty_.idle : empty_.free;
  return fit_pass(empty_, d, candidates, false, nullptr,
                  [](std::uint32_t, const NodeResources& n) { return n.cpus_free; });
}

void PoolState::take(const Allocation& a) {
  for (const AllocPiece& p : a.pieces) {
    NodeResources& n = nodes[p.node];
    n.cpus_free -= std::min(n.cpus_free, p.cpus);
    n.mem_free -= std::min(n.mem_free, p.mem);
    n.gpus_free -= std::min(n.gpus_free, p.gpus);
    ++n.jobs;
    idle.reset(p.node);
    if (n.cpus_free == 0) free.reset(p.node);
  }
}

void PoolState::give_back(const Allocation& a) {
  for (const AllocPiece& p : a.pieces) {
    NodeResources& n = nodes[p.node];
    n.cpus_free = std::min(n.cpus_total, n.cpus_free + p.cpus);
    n.mem_free = std::min(n.mem_total, n.mem_free + p.mem);
    n.gpus_free = std::min(n.gpus_total, n.gpus_free + p.gpus);
    if (n.jobs) --n.jobs;
    if (n.jobs == 0) idle.set(p.node);
    if (n.cpus_free > 0) free.set(p.node);
  }
}

}  // namespace sa::engine
