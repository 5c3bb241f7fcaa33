#include "engine/resources.h"

#include <algorithm>
#include <cctype>
#include <numeric>
#include <string_view>

namespace sa::engine {

int natural_compare(std::string_view a, std::string_view b) {
  // Slurm's strnatcmp (src/common/strnatcmp.c, Martin Pool's natural order): runs of digits
  // compare as numbers (the longer run wins, then the first differing digit), except that a
  // run starting with '0' compares left-aligned, digit by digit (compare_left); spaces are
  // skipped; other characters compare as bytes. The end of a string reads as '\0'.
  auto at = [](std::string_view s, std::size_t i) { return i < s.size() ? s[i] : '\0'; };
  auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  std::size_t ai = 0, bi = 0;
  while (true) {
    char ca = at(a, ai), cb = at(b, bi);
    while (space(ca)) ca = at(a, ++ai);
    while (space(cb)) cb = at(b, ++bi);
    if (digit(ca) && digit(cb)) {
      // compare_left (a run with a leading zero) and compare_right walk the runs alike, in
      // strnatcmp's order: a run that ends first is smaller before any digit compares. The
      // first differing digit decides at once for compare_left; for compare_right it is a bias
      // that counts only when both runs end together (else the longer run wins).
      const bool left = ca == '0' || cb == '0';
      int result = 0, bias = 0;
      for (std::size_t k = 0;; ++k) {
        const char x = at(a, ai + k), y = at(b, bi + k);
        if (!digit(x) && !digit(y)) {
          result = bias;
          break;
        }
        if (!digit(x) || !digit(y)) {
          result = digit(x) ? 1 : -1;
          break;
        }
        if (x != y && bias == 0) bias = x < y ? -1 : 1;
        if (left && bias != 0) {
          result = bias;
          break;
        }
      }
      if (result != 0) return result;
    }
    if (ca == '\0' && cb == '\0') return 0;
    if (ca != cb) return static_cast<unsigned char>(ca) < static_cast<unsigned char>(cb) ? -1 : 1;
    ++ai;
    ++bi;
  }
}

std::uint32_t Allocation::cpus() const {
  std::uint32_t n = 0;
  for (const AllocPiece& p : pieces) n += p.cpus;
  for (const AllocRun& r : runs) n += r.cpus * r.count;
  return n;
}
std::uint64_t Allocation::mem() const {
  std::uint64_t n = 0;
  for (const AllocPiece& p : pieces) n += p.mem;
  for (const AllocRun& r : runs) n += std::uint64_t{r.mem} * r.count;
  return n;
}
std::uint32_t Allocation::gpus() const {
  std::uint32_t n = 0;
  for (const AllocPiece& p : pieces) n += p.gpus;
  for (const AllocRun& r : runs) n += r.gpus * r.count;
  return n;
}
std::uint32_t Allocation::nodes() const {
  std::uint32_t n = static_cast<std::uint32_t>(pieces.size());
  for (const AllocRun& r : runs) n += r.count;
  return n;
}

void Allocation::compact() {
  if (!units.empty() || pieces.empty()) return;
  for (const AllocPiece& p : pieces)
    if (p.mem > UINT32_MAX || p.mem_req > UINT32_MAX) return;
  std::vector<AllocRun> out;
  for (const AllocPiece& p : pieces) {
    if (!out.empty()) {
      AllocRun& last = out.back();
      if (last.node + last.count == p.node && last.cpus == p.cpus && last.gpus == p.gpus && last.mem == p.mem &&
          last.mem_req == p.mem_req) {
        ++last.count;
        continue;
      }
    }
    out.push_back(
        AllocRun{p.node, 1, p.cpus, p.gpus, static_cast<std::uint32_t>(p.mem), static_cast<std::uint32_t>(p.mem_req)});
  }
  runs = out;  // (an exact fit: the block is as long as the runs)
  pieces = PackedVec<AllocPiece>{};
}

std::vector<AllocPiece> Allocation::expanded() const {
  std::vector<AllocPiece> out(pieces.begin(), pieces.end());
  for (const AllocRun& r : runs)
    for (std::uint32_t i = 0; i < r.count; ++i)
      out.push_back(AllocPiece{r.node + i, r.cpus, r.gpus, 0, r.mem, r.mem_req});
  return out;
}

namespace {

// topology.conf's switches over the internal numbering, with the switch-to-switch hop counts
// topology_tree.c _validate_switches computes (Floyd-Warshall over parent-child links; a
// breadth-first search from each switch gives the same shortest paths).
std::shared_ptr<const SwitchTable> build_switch_table(const Topology& topo,
                                                      const std::vector<std::uint32_t>& internal) {
  auto t = std::make_shared<SwitchTable>();
  const std::size_t n = topo.switches.size();
  std::vector<std::vector<std::uint32_t>> links(n);
  for (std::size_t i = 0; i < n; ++i) {
    const Switch& sw = topo.switches[i];
    SwitchTable::Entry e{NodeBitset(internal.size()), sw.level, sw.parent};
    for (std::uint32_t c : sw.nodes) e.nodes.set(internal[c]);
    t->switches.push_back(std::move(e));
    for (std::uint32_t c : sw.children) {
      links[i].push_back(c);
      links[c].push_back(static_cast<std::uint32_t>(i));
    }
  }
  t->covered = NodeBitset(internal.size());
  for (const SwitchTable::Entry& e : t->switches) t->covered |= e.nodes;
  t->hops.assign(n * n, SwitchTable::kFar);
  std::vector<std::uint32_t> queue;
  for (std::size_t from = 0; from < n; ++from) {
    std::uint16_t* row = &t->hops[from * n];
    row[from] = 0;
    queue.assign(1, static_cast<std::uint32_t>(from));
    for (std::size_t q = 0; q < queue.size(); ++q) {
      for (std::uint32_t next : links[queue[q]]) {
        if (row[next] != SwitchTable::kFar) continue;
        row[next] = static_cast<std::uint16_t>(row[queue[q]] + 1);
        queue.push_back(next);
      }
    }
  }
  return t;
}

// Each node's leaf-switch rank under TopologyParam=SwitchAsNodeRank; empty without it.
std::vector<std::uint32_t> switch_ranks(const Config& config) {
  std::vector<std::uint32_t> rank;
  if (!config.topology.switch_as_node_rank || config.topology.empty()) return rank;
  rank.assign(config.nodes.size(), 0);
  std::uint32_t next = 1;
  for (const Switch& sw : config.topology.switches) {
    if (sw.level != 0) continue;
    for (std::uint32_t n : sw.nodes) rank[n] = next;
    ++next;
  }
  return rank;
}

// A node's resources when nothing runs on it, and its allocation units: CR_Core allocates
// whole cores, so a 1-CPU task on a hyperthreaded node takes both threads.
NodeResources idle_resources(const Node& n, SelectSettings::Resource resource) {
  NodeResources r;
  r.cpus_total = r.cpus_free = n.cpus;
  r.mem_total = r.mem_free = n.usable_mem_mb();
  r.gpus_total = static_cast<std::uint32_t>(std::min<std::uint64_t>(n.gpus(), 0xFFFFFFFF));
  r.gpus_free = r.gpus_total;
  const std::uint32_t core = n.schedulable_threads();
  const std::uint32_t socket = n.cores_per_socket * core;
  auto bounded = [&](std::uint32_t u) {
    return std::max<std::uint32_t>(1, std::min(u, std::max<std::uint32_t>(1, n.cpus)));
  };
  switch (resource) {
    case SelectSettings::Resource::kCore:
      r.unit = bounded(core);
      r.alt_unit = bounded(socket);
      break;
    case SelectSettings::Resource::kSocket:
      r.unit = bounded(socket);
      r.alt_unit = bounded(core);
      break;
    default:
      r.unit = r.alt_unit = 1;
  }
  return r;
}

}  // namespace

// fit_best continues a set from the last candidate p to node i when i follows p in
// slurm.conf and has the set's Weight (every node of a set has its first's). If the node
// before i in slurm.conf comes right before it in the numbering, after it, or has another
// Weight, only an adjacent candidate can continue a set.
void NodePool::find_set_breaks() {
  const std::size_t n_nodes = config_index_.size();
  set_breaks_ = NodeBitset(n_nodes);
  for (std::uint32_t i = 0; i < n_nodes; ++i) {
    const std::uint32_t c = config_index_[i];
    const std::size_t pred = c > 0 ? internal_index_[c - 1] : n_nodes;
    if (pred + 1 < i && weight_[pred] == weight_[i]) sets_follow_numbering_ = false;
    if (i == 0 || pred != i - 1 || weight_[i] != weight_[i - 1]) set_breaks_.set(i);
  }
}

NodePool::NodePool(const Config& config) {
  // Every select plugin of 22.05 chooses nodes by best fit (cons_tres/cons_res _eval_nodes,
  // linear _job_test).
  placement_ = Placement::kBestFit;
  // select/cons_res is gone from 23.11 (slurmctld cannot load it: CONF020).
  if (config.select.type == "select/cons_tres") node_retry_ = NodeRetry::kConsTres;
  if (config.select.type == "select/cons_res") node_retry_ = NodeRetry::kConsRes;
  const std::size_t n_nodes = config.nodes.size();
  config_index_.resize(n_nodes);
  std::iota(config_index_.begin(), config_index_.end(), 0U);
  // slurmctld orders its node table by name before it builds any bitmap (read_config.c
  // _sort_node_record_table_ptr -> _sort_nodes_by_name, strnatcmp; 20.02 to 20.11 call it
  // _reorder_nodes_by_name), unless the topology plugin ranks nodes (topology/tree only under
  // SwitchAsNodeRank, below). Every "first node" and best-fit tie of the
  // select plugin follows that order, not slurm.conf's; node sets are then tried lightest
  // Weight first (node_scheduler.c _sort_node_set), which the numbering folds in. A real
  // 20.02 run with n[1-4],m[1-4],g1,b1 in slurm.conf gave the first job on an idle cluster b1.
  // With TopologyParam=SwitchAsNodeRank (23.02+) topology/tree does rank them: each leaf
  // switch, in topology.conf order, numbers its nodes 1, 2, ... (a node of two leaves keeps
  // the later one's), nodes under no leaf keep 0, and _sort_nodes_by_rank orders by that;
  // glibc's qsort is a merge sort, so slurm.conf order stays within a rank.
  const std::vector<std::uint32_t> rank = switch_ranks(config);
  std::stable_sort(config_index_.begin(), config_index_.end(), [&](std::uint32_t a, std::uint32_t b) {
    if (config.nodes[a].weight != config.nodes[b].weight) return config.nodes[a].weight < config.nodes[b].weight;
    if (!rank.empty()) return rank[a] < rank[b];
    return natural_compare(config.nodes[a].name, config.nodes[b].name) < 0;
  });
  internal_index_.resize(n_nodes);
  for (std::uint32_t i = 0; i < n_nodes; ++i) internal_index_[config_index_[i]] = i;
  usable_ = NodeBitset(n_nodes);
  state_.nodes.reserve(n_nodes);
  for (std::uint32_t i = 0; i < n_nodes; ++i) {
    const Node& n = config.nodes[config_index_[i]];
    const NodeResources r = idle_resources(n, config.select.resource);
    state_.nodes.push_back(r);
    weight_.push_back(n.weight);
    max_node_cpus_ = std::max(max_node_cpus_, r.cpus_total);
    if (n.usable()) usable_.set(i);
  }
  state_.free = NodeBitset(n_nodes, true);
  state_.idle = NodeBitset(n_nodes, true);
  empty_ = state_;
  find_set_breaks();
  // TopoOptional: only jobs with --switches use the topology (cons_tres _eval_nodes).
  // select/linear has its own topology selection up to 23.11 (select_linear.c _job_test_topo);
  // 24.05 removed it, and linear places flat from then on.
  // select/cons_res has its own too (cons_res/job_test.c _eval_nodes_topo) while it exists.
  const bool linear_topology = config.select.type == "select/linear" && !config.version.at_least(24, 5);
  const bool cons_res_topology = config.select.type == "select/cons_res" && !config.version.at_least(23, 11);
  if (!config.topology.empty() && !config.topology.optional &&
      (config.select.type == "select/cons_tres" || linear_topology || cons_res_topology)) {
    switches_ = build_switch_table(config.topology, internal_index_);
    placement_ = linear_topology     ? Placement::kLinearTopology
                 : cons_res_topology ? Placement::kConsResTopology
                                     : Placement::kTopologyTree;
    // _eval_nodes_topo only takes nodes under its top switch: a node on no switch never runs
    // a job, so it is left out of every candidate set (the analyzer warns about it, CONF051).
    usable_ &= switches_->covered;
  }
}

void NodePool::set_usable(std::uint32_t internal, bool on) {
  if (on && (!switches_ || switches_->covered.test(internal)))
    usable_.set(internal);
  else
    usable_.reset(internal);
}

std::uint32_t NodePool::capacity(const NodeResources& n, const Demand& d) const {
  if (d.whole_nodes && !n.idle()) return 0;
  return capacity(n, d, n.cpus_free);
}

std::uint32_t NodePool::capacity(const NodeResources& n, const Demand& d, std::uint32_t free_cpus) const {
  const std::uint32_t c = cpu_capacity(n, d, free_cpus);
  if (!d.task_cpus || c == 0) return c;
  // --cpus-per-task: a node that cannot hold one task gives nothing (cons_tres
  // _can_job_run_on_node: min_cpus_per_node), and where memory is consumable and per CPU its
  // CPUs are rounded down to whole tasks (the same function, after its memory check; not for
  // memory per node). Real 22.05, the cpus_per_task capture: on nodes of 6 free CPUs -n 1 -c 8
  // waited for a node and -n 3 -c 4 took 4 CPUs on each of three nodes, not 6 + 6.
  const std::uint32_t task = d.cpus_per_node;
  if (c < task) return 0;
  if (d.whole_nodes || !d.mem_tracked || d.mem_per_cpu == 0 || d.mem_whole_node || d.gpu_mem_alloc) return c;
  return c - c % task;
}

std::uint32_t NodePool::cpu_capacity(const NodeResources& n, const Demand& d, std::uint32_t free_cpus) const {
  std::uint32_t c = 0;
  const std::uint32_t unit = unit_of(n, d);
  if (d.whole_nodes) {
    // A whole-node job needs every CPU of the node free (in the view given).
    if (free_cpus < n.cpus_total) return 0;
    c = std::min<std::uint32_t>(n.cpus_total, d.max_cpus_per_node);
  } else {
    c = std::min<std::uint32_t>(free_cpus, d.max_cpus_per_node);
    c = whole_units(c, unit);
  }
  if (d.gpu_rules) [[unlikely]] {
    // A GPU job needs a GPU's CPUs and memory on each node it takes (gres_select_filter_remove_unusable:
    // no GPU is usable otherwise); how many GPUs a node gives is the taker's (NodeTaker::usable_gpus),
    // and so is the memory of a job given its GPUs' memory.
    if (c < d.cpus_per_gpu || (d.mem_tracked && n.mem_free < d.mem_per_gpu)) return 0;
    if (d.gpu_mem_alloc) return c;
  }
  if (d.mem_tracked) {
    if (d.mem_whole_node) {
      if (n.mem_free < n.mem_total || n.mem_total == 0) return 0;
    } else if (d.mem_per_node) {
      if (n.mem_free < d.mem_per_node) return 0;
    } else if (d.mem_per_cpu && n.mem_free < std::uint64_t{c} * d.mem_per_cpu) {
      // A whole-node job is given every CPU, so its per-CPU memory is due for all of them:
      // cons_tres _can_job_run_on_node gives such a node 0 CPUs (outside backfill's own
      // whole-node test), and sbatch refuses the job when no node holds it (a real 22.05:
      // tests/golden/mini_slurm_fidelity/default_memory_over_node, job 3).
      if (d.whole_nodes) return 0;
      // The quotient is below c (mem_free < c x mem_per_cpu here). Both operands fit 32 bits
      // on any real node (MB), and a 32-bit division costs less in backfill's innermost loop.
      const std::uint64_t by_mem =
          (n.mem_free | d.mem_per_cpu) >> 32 == 0
              ? static_cast<std::uint32_t>(n.mem_free) / static_cast<std::uint32_t>(d.mem_per_cpu)
              : n.mem_free / d.mem_per_cpu;
      if (by_mem < c) c = whole_units(static_cast<std::uint32_t>(by_mem), unit);
    }
  }
  return c;
}

std::uint64_t NodePool::requested_mem(const NodeResources& n, const Demand& d, std::uint32_t cpus) const {
  // Without consumable memory a job that names none has no bound: counted apart (0 here).
  if (d.mem_whole_node) return d.mem_unknown && !d.mem_tracked ? 0 : n.mem_total;
  if (d.mem_per_node) return d.mem_per_node;
  return d.mem_per_cpu * cpus;
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
    release_piece(n, p);
    if (n.jobs == 0) idle.set(p.node);
    if (n.cpus_free > 0) free.set(p.node);
  }
}

}  // namespace sa::engine
