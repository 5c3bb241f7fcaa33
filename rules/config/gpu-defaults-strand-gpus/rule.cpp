// CONF107: DefMemPerGPU or DefCPUPerGPU (a partition's, else the cluster's) larger than a GPU
// node's memory or CPUs per GPU, under select/cons_tres. gres_select_filter_remove_unusable
// gives a job only as many GPUs on a node as its free memory holds at the per-GPU memory
// (--mem-per-gpu, else DefMemPerGPU), even a job that set --mem, and as many as its free CPUs
// hold at the CPUs per GPU (--cpus-per-gpu, else DefCPUPerGPU for a job without -c). Some of
// the node's GPUs then never run at once: a real 22.05 left a job pending with a GPU free and
// 18000 MB beside it under DefMemPerGPU=20000 (tests/golden/mini_slurm_fidelity/gpu_defaults).
#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "rules/analysis/backfill_stats.h"
#include "rules/framework/context.h"
#include "rules/framework/rule.h"
#include "rules/framework/sink.h"

namespace sa::rules {

namespace {

// Which default: memory (DefMemPerGPU) or CPUs (DefCPUPerGPU).
struct Kind {
  const char* key;
  std::uint64_t (Config::*value)(const Partition&) const;
  std::optional<std::uint64_t> Partition::*own;
};
constexpr Kind kMem{"DefMemPerGPU", &Config::mem_per_gpu_default, &Partition::def_mem_per_gpu};
constexpr Kind kCpu{"DefCPUPerGPU", &Config::cpus_per_gpu_default, &Partition::def_cpus_per_gpu};

// What a node has to share among its GPUs: usable memory (RealMemory less MemSpecLimit) or CPUs.
std::uint64_t node_amount(const Kind& k, const Node& n) {
  return &k == &kMem ? n.usable_mem_mb() : std::uint64_t{n.cpus};
}

struct Stranded {
  const Node* node = nullptr;  // the worst node: the smallest share of its GPUs usable
  std::uint64_t usable = 0;    // GPUs that can run at once there at the default
  std::size_t nodes = 0;       // GPU nodes short of the default
  std::uint64_t fit = 0;       // the default every one of them holds: the smallest amount per GPU
};

Stranded stranded(const Kind& k, const Config& c, const std::vector<std::uint32_t>& nodes, std::uint64_t per_gpu) {
  Stranded s;
  s.fit = std::numeric_limits<std::uint64_t>::max();
  for (std::uint32_t i : nodes) {
    const Node& n = c.nodes[i];
    const std::uint64_t gpus = n.gpus();
    // RealMemory left at its default of 1 MB is CONF045's finding.
    if (gpus == 0 || (&k == &kMem && n.real_memory_mb <= 1)) continue;
    const std::uint64_t amount = node_amount(k, n);
    s.fit = std::min(s.fit, amount / gpus);
    if (per_gpu * gpus <= amount) continue;
    ++s.nodes;
    const std::uint64_t usable = amount / per_gpu;
    if (!s.node || usable * s.node->gpus() < s.usable * gpus) {
      s.node = &n;
      s.usable = usable;
    }
  }
  return s;
}

std::string message(const Kind& k, const std::string& where, std::uint64_t per_gpu, const Stranded& s) {
  const Node& n = *s.node;
  const std::uint64_t gpus = n.gpus();
  const std::string more = s.nodes > 1 ? fmt::format(" ({} GPU nodes are short)", s.nodes) : std::string();
  if (&k == &kMem) {
    return fmt::format(
        "{} gives each GPU {} MB, but {} ({} GPUs, {} MB usable) holds {} MB per GPU{}: select/cons_tres gives a "
        "job a GPU only where that much memory is free beside it, even a job that sets --mem (only --mem-per-gpu "
        "replaces it), so at most {} of its {} GPUs run at once and the rest stay idle",
        where, per_gpu, n.name, gpus, n.usable_mem_mb(), n.usable_mem_mb() / gpus, more, s.usable, gpus);
  }
  return fmt::format(
      "{} gives each GPU {} CPUs, but {} has {} CPUs for {} GPUs{}: a GPU job without -c or --cpus-per-gpu takes "
      "{} CPUs a GPU, so such jobs can run at most {} of its {} GPUs at once and the rest stay idle",
      where, per_gpu, n.name, n.cpus, gpus, more, per_gpu, s.usable, gpus);
}

Fix fix_for(const Kind& k, const std::string& where, const Stranded& s) {
  const char* unit = &k == &kMem ? " MB" : "";
  const char* what = &k == &kMem ? "memory" : "CPUs";
  return Fix{fmt::format("lower {}{} to {}{} (the smallest GPU node's {} per GPU), so that every GPU can run", k.key,
                         where, s.fit, unit, what),
             k.key,
             std::to_string(s.fit),
             {}};
}

void report(const LintContext& ctx, FindingSink& sink, const Kind& k, Location loc, const std::string& where,
            const std::string& fix_where, std::uint64_t per_gpu, const Stranded& s) {
  Finding& f = sink.report(std::move(loc), message(k, where, per_gpu, s));
  const Location node = ctx.conf_loc(s.node->loc);
  f.related.push_back({node.file, node.line, 0, s.node->name});
  f.fix = fix_for(k, fix_where, s);
}

void check_kind(const LintContext& ctx, FindingSink& sink, const Kind& k) {
  const Config& c = ctx.config();
  std::vector<std::uint32_t> inherited;
  for (const Partition& p : c.partitions) {
    const std::uint64_t per_gpu = (c.*k.value)(p);
    // Memory per GPU binds only where memory is counted for the partition's jobs.
    if (!per_gpu || p.nodes.empty() || (&k == &kMem && !c.memory_counted(p))) continue;
    if (!(p.*k.own)) {
      inherited.insert(inherited.end(), p.nodes.begin(), p.nodes.end());
      continue;
    }
    const Stranded s = stranded(k, c, p.nodes, per_gpu);
    if (!s.node) continue;
    report(ctx, sink, k, ctx.conf_loc(p.loc), fmt::format("partition '{}' {}={}", p.name, k.key, per_gpu),
           fmt::format(" on partition '{}'", p.name), per_gpu, s);
  }
  std::sort(inherited.begin(), inherited.end());
  inherited.erase(std::unique(inherited.begin(), inherited.end()), inherited.end());
  const std::uint64_t global = &k == &kMem ? c.select.def_mem_per_gpu : c.select.def_cpus_per_gpu;
  if (inherited.empty()) return;
  const Stranded s = stranded(k, c, inherited, global);
  if (!s.node) return;
  report(ctx, sink, k, ctx.setting_loc(k.key), fmt::format("{}={}", k.key, global), "", global, s);
}

void check(const LintContext& ctx, FindingSink& sink) {
  check_kind(ctx, sink, kMem);
  check_kind(ctx, sink, kCpu);
}

}  // namespace

}  // namespace sa::rules

SA_RULE({"CONF107", "gpu-defaults-strand-gpus", Severity::kWarning, Check::kConfig, SimUse::kStatic,
         "DefMemPerGPU or DefCPUPerGPU above a GPU node's memory or CPUs per GPU: some GPUs never run", check})
