// CONF102: with memory a consumable resource, a DefMemPerCPU (partition or cluster default)
// larger than a node's memory per CPU. cons_tres then lowers the CPUs a job without --mem
// may take on that node until their memory fits (job_test.c _can_job_run_on_node), so the
// rest of its CPUs idle, and for whole-node jobs (--exclusive, OverSubscribe=EXCLUSIVE) it
// drops the node altogether: they cannot start there with the default memory.
#include <algorithm>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "rules/framework/context.h"
#include "rules/framework/rule.h"
#include "rules/framework/sink.h"

namespace sa::rules {

namespace {

struct Short {
  const Node* node = nullptr;  // the worst node: fewest CPUs usable by default
  std::uint32_t usable = 0;    // CPUs a default-memory job can hold there
  std::size_t nodes = 0;       // nodes where the default does not fit every CPU
};

// Nodes with the partition whose select mode sets their allocation unit (its own
// SelectTypeParameters, else the cluster's): a node in several is judged in each.
using PartNode = std::pair<const Partition*, std::uint32_t>;

Short shortfall(const Config& c, const std::vector<PartNode>& nodes, std::uint64_t per_cpu) {
  Short s;
  std::set<std::uint32_t> short_nodes;
  for (const auto& [p, i] : nodes) {
    const Node& n = c.nodes[i];
    // RealMemory left at its default of 1 MB is CONF045's finding, not a default too big.
    if (n.real_memory_mb <= 1) continue;
    const std::uint64_t mem = n.usable_mem_mb();
    if (per_cpu * n.cpus <= mem) continue;
    short_nodes.insert(i);
    // Whole cores (or sockets) are allocated and each of their CPUs is charged the default:
    // on 4 cores of 2 threads, 7 CPUs' worth of memory runs 3 cores, 6 CPUs.
    const std::uint64_t unit = c.cpu_unit(*p, n);
    const auto usable = static_cast<std::uint32_t>(std::min<std::uint64_t>(n.cpus, mem / (per_cpu * unit) * unit));
    if (!s.node || usable * s.node->cpus < s.usable * n.cpus) s = {&n, usable, 0};
  }
  s.nodes = short_nodes.size();
  return s;
}

// The per-CPU default a partition's jobs get (0 where a DefMemPerNode applies instead).
std::uint64_t per_cpu_default(const Config& c, const Partition& p, bool* own) {
  const Config::MemoryDefault d = c.memory_default(p);
  *own = d.own && d.per_cpu;
  return d.per_cpu ? d.mb : 0;
}

std::string message(const std::string& where, std::uint64_t per_cpu, const Short& s) {
  const Node& n = *s.node;
  return fmt::format(
      "{} gives jobs without --mem {} MB per CPU, but {} ({} CPUs, {} MB usable) holds only {} MB per "
      "CPU{}: {}",
      where, per_cpu, n.name, n.cpus, n.usable_mem_mb(), n.usable_mem_mb() / std::max<std::uint32_t>(1, n.cpus),
      s.nodes > 1 ? fmt::format(" ({} nodes are short)", s.nodes) : std::string(),
      // Not even one allocation unit (a core's threads under CR_Core) fits the default there.
      s.usable == 0 ? std::string("such jobs cannot start there at all")
                    : fmt::format("such jobs can use at most {} of its {} CPUs, and --exclusive or "
                                  "OverSubscribe=EXCLUSIVE jobs without --mem cannot start there at all",
                                  s.usable, n.cpus));
}

void check(const LintContext& ctx, FindingSink& sink) {
  const Config& c = ctx.config();
  // Per-CPU memory is a consumable limit only with a cons_* select plugin tracking memory.
  // (memory_counted: a partition's own SelectTypeParameters may count memory or not.)
  if (c.select.type == "select/linear") return;
  std::vector<PartNode> global_nodes;
  for (const Partition& p : c.partitions) {
    bool own = false;
    const std::uint64_t per_cpu = per_cpu_default(c, p, &own);
    if (!per_cpu || p.nodes.empty() || !c.memory_counted(p)) continue;
    std::vector<PartNode> nodes;
    for (std::uint32_t n : p.nodes) nodes.emplace_back(&p, n);
    if (!own) {
      global_nodes.insert(global_nodes.end(), nodes.begin(), nodes.end());
      continue;
    }
    const Short s = shortfall(c, nodes, per_cpu);
    if (!s.node) continue;
    Finding& f = sink.report(ctx.conf_loc(p.loc),
                             message(fmt::format("partition '{}' DefMemPerCPU={}", p.name, per_cpu), per_cpu, s));
    f.related.push_back({ctx.conf_loc(s.node->loc).file, ctx.conf_loc(s.node->loc).line, 0, s.node->name});
    f.fix = Fix{fmt::format("lower DefMemPerCPU on partition '{}' to {} (the smallest node's memory per CPU)", p.name,
                            s.node->usable_mem_mb() / std::max<std::uint32_t>(1, s.node->cpus)),
                "DefMemPerCPU",
                std::to_string(s.node->usable_mem_mb() / std::max<std::uint32_t>(1, s.node->cpus)),
                {}};
  }
  const Short s = shortfall(c, global_nodes, c.select.def_mem_per_cpu);
  if (global_nodes.empty() || !s.node) return;
  Finding& f =
      sink.report(ctx.setting_loc("DefMemPerCPU"),
                  message(fmt::format("DefMemPerCPU={}", c.select.def_mem_per_cpu), c.select.def_mem_per_cpu, s));
  f.related.push_back({ctx.conf_loc(s.node->loc).file, ctx.conf_loc(s.node->loc).line, 0, s.node->name});
  const std::uint64_t fit = s.node->usable_mem_mb() / std::max<std::uint32_t>(1, s.node->cpus);
  f.fix = Fix{fmt::format("lower DefMemPerCPU to {} MB, or set a larger DefMemPerCPU only on the partitions of the "
                          "big-memory nodes",
                          fit),
              "DefMemPerCPU",
              std::to_string(fit),
              {}};
}

}  // namespace

}  // namespace sa::rules

SA_RULE({"CONF102", "def-mem-per-cpu-exceeds-node-memory", Severity::kWarning, Check::kConfig, SimUse::kStatic,
         "DefMemPerCPU above a node's memory per CPU: default jobs cannot use all its CPUs", check})
