// CONF105: with memory a consumable resource, a default memory (DefMemPerCPU, or
// DefMemPerNode) below an eighth of what a typical node of the partition holds per CPU (or
// per node). A job without --mem is allocated the default; where task/cgroup (with
// ConstrainRAMSpace) or OverMemoryKill confines it to that, ordinary jobs are OOM-killed, and
// elsewhere nodes are packed past their memory; users learn to ask for far more than they need
// (often --mem=0, the whole node). The opposite case, a default above a node's memory per
// CPU, is CONF102. The typical node is the median memory per CPU over the partition's nodes
// (RealMemory less MemSpecLimit; nodes left at RealMemory=1 are CONF045's).
#include <algorithm>

#include <fmt/format.h>

#include "analyzer/text_util.h"
#include "engine/max_memory.h"
#include "rules/analysis/backfill_stats.h"
#include "rules/framework/context.h"
#include "rules/framework/rule.h"
#include "rules/framework/sink.h"

namespace sa::rules {

namespace {

constexpr std::uint64_t kShare = 8;  // below 1/8 of a typical node's memory per CPU

// The partition's node with the median memory per CPU (per node, for DefMemPerNode).
const Node* typical_node(const Config& c, const std::vector<std::uint32_t>& nodes, bool per_cpu) {
  std::vector<const Node*> known;
  for (std::uint32_t i : nodes) {
    if (c.nodes[i].real_memory_mb > 1 && c.nodes[i].usable_mem_mb() > 0) known.push_back(&c.nodes[i]);
  }
  if (known.empty()) return nullptr;
  auto measure = [per_cpu](const Node* n) {
    return per_cpu ? n->usable_mem_mb() / std::max<std::uint32_t>(1, n->cpus) : n->usable_mem_mb();
  };
  std::stable_sort(known.begin(), known.end(), [&](auto* a, auto* b) { return measure(a) < measure(b); });
  return known[known.size() / 2];
}

std::uint64_t smallest_per_cpu(const Config& c, const std::vector<std::uint32_t>& nodes) {
  std::uint64_t out = 0;
  for (std::uint32_t i : nodes) {
    const Node& n = c.nodes[i];
    if (n.real_memory_mb <= 1) continue;
    const std::uint64_t v = n.usable_mem_mb() / std::max<std::uint32_t>(1, n.cpus);
    if (v > 0 && (out == 0 || v < out)) out = v;
  }
  return out;
}

void check_default(const LintContext& ctx, FindingSink& sink, const Config::MemoryDefault& d,
                   const std::vector<std::uint32_t>& nodes, const Partition& example, std::uint64_t max_per_cpu) {
  const Config& c = ctx.config();
  const Node* n = typical_node(c, nodes, d.per_cpu);
  if (!n) return;
  const std::uint64_t per_cpu = n->usable_mem_mb() / std::max<std::uint32_t>(1, n->cpus);
  const std::uint64_t typical = d.per_cpu ? per_cpu : n->usable_mem_mb();
  if (d.mb * kShare >= typical) return;
  const std::string key = d.per_cpu ? "DefMemPerCPU" : "DefMemPerNode";
  const std::string where =
      d.own ? fmt::format("partition '{}' {}={}", example.name, key, d.mb) : fmt::format("{}={}", key, d.mb);
  const std::uint64_t fraction = typical / std::max<std::uint64_t>(1, d.mb);
  const std::string what =
      d.per_cpu ? fmt::format("{} MB per CPU, 1/{} of the {} MB per CPU", d.mb, fraction, per_cpu)
                : fmt::format("{} MB per node whatever their CPUs, 1/{} of the {} MB", d.mb, fraction, typical);
  // What holds a job to its allocation at run time: OverMemoryKill, or task/cgroup where
  // cgroup.conf sets ConstrainRAMSpace=yes (its default is no, and lint does not read it).
  // OverMemoryKill acts on what a JobAcctGather plugin polls: none (the default) polls nothing.
  const Setting* gather = c.setting("JobAcctGatherParams");
  const Setting* gather_type = c.setting("JobAcctGatherType");
  const bool polled = gather_type && ifind(gather_type->value, "none") == std::string::npos;
  const Setting* task = c.setting("TaskPlugin");
  const std::string enforced =
      polled && gather && ifind(gather->value, "OverMemoryKill") != std::string::npos
          ? "JobAcctGatherParams=OverMemoryKill kills a job that uses more, so ordinary jobs are killed for memory"
      : task && ifind(task->value, "cgroup") != std::string::npos
          ? "task/cgroup confines the job to that where cgroup.conf sets ConstrainRAMSpace=yes, and ordinary jobs "
            "are then killed for memory"
          : "nothing here holds a job to it at run time (no task/cgroup, no OverMemoryKill), but the scheduler "
            "packs jobs by it, so a node fills with jobs whose real use its memory cannot hold";
  Finding& f = sink.report(
      d.own ? ctx.conf_loc(example.loc) : ctx.setting_loc(key),
      fmt::format("{} gives jobs without --mem {} of a typical node of {} ({}: {} CPUs, {} MB usable): "
                  "{}; users learn to ask for far more than they need",
                  where, what, d.own ? fmt::format("partition '{}'", example.name) : std::string("the cluster"),
                  n->name, n->cpus, n->usable_mem_mb(), enforced));
  f.related.push_back({ctx.conf_loc(n->loc).file, ctx.conf_loc(n->loc).line, 0, n->name});
  const std::uint64_t share = smallest_per_cpu(c, nodes);
  const std::uint64_t fit = max_per_cpu ? std::min(share, max_per_cpu) : share;
  const std::string why = fit < share ? fmt::format("MaxMemPerCPU, under the smallest node's share of {} MB", share)
                                      : std::string("the smallest node's share");
  f.fix = Fix{fmt::format("set DefMemPerCPU near a node's memory per CPU, e.g. {} MB ({}{}), so a job without --mem "
                          "gets its CPUs' part of the node; users who need more ask with --mem",
                          fit, why, d.own ? fmt::format(", on partition '{}'", example.name) : ""),
              "DefMemPerCPU",
              std::to_string(fit),
              {}};
}

void check(const LintContext& ctx, FindingSink& sink) {
  const Config& c = ctx.config();
  // A default bounds a job only where memory is allocated (CR_*_Memory, CR_Memory).
  if (!c.select.memory) return;
  std::vector<std::uint32_t> inherited;
  std::vector<const Partition*> inheriting;
  const Partition* first_inheriting = nullptr;
  for (const Partition& p : c.partitions) {
    const Config::MemoryDefault d = c.memory_default(p);
    if (!d.mb || p.nodes.empty() || p.state != PartitionState::kUp) continue;
    if (d.own) {
      check_default(ctx, sink, d, p.nodes, p, engine::lowest_max_per_cpu(c, {&p}));
      continue;
    }
    inherited.insert(inherited.end(), p.nodes.begin(), p.nodes.end());
    inheriting.push_back(&p);
    if (!first_inheriting || p.is_default) first_inheriting = &p;
  }
  if (!first_inheriting) return;
  std::sort(inherited.begin(), inherited.end());
  inherited.erase(std::unique(inherited.begin(), inherited.end()), inherited.end());
  check_default(ctx, sink, c.memory_default(*first_inheriting), inherited, *first_inheriting,
                engine::lowest_max_per_cpu(c, inheriting));
}

}  // namespace

}  // namespace sa::rules

SA_RULE({"CONF105", "default-memory-far-below-node-share", Severity::kWarning, Check::kConfig, SimUse::kStatic,
         "DefMemPerCPU/DefMemPerNode below 1/8 of a typical node's memory per CPU: jobs without --mem starve", check})
