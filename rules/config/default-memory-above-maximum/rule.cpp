// CONF109: a partition's default memory (what a job without --mem is given) above the
// MaxMemPerCPU/MaxMemPerNode that applies there. slurmctld tests the default against the
// maximum on every scheduling attempt (job_limits_check's _valid_pn_min_mem, job_mgr.c):
// per CPU it multiplies the job's CPUs per task, per node it holds the job for ever (Reason
// MaxMemPerLimit) or, under EnforcePartLimits, refuses it at submission.
#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "analyzer/text_util.h"
#include "engine/max_memory.h"
#include "rules/framework/context.h"
#include "rules/framework/rule.h"
#include "rules/framework/sink.h"

namespace sa::rules {

namespace {

std::string key_text(const char* key, std::uint64_t mb) { return fmt::format("{}={}", key, mb); }

// "partition 'p'", or for partitions judged once on the cluster's settings
// "partition 'p' (and 2 more, on the cluster's settings)".
std::string scope(const Partition& p, bool inherited, std::size_t others) {
  if (!inherited) return fmt::format("partition '{}'", p.name);
  return fmt::format("partition '{}' ({}on the cluster's settings)", p.name,
                     others ? fmt::format("and {} more, ", others) : "");
}

void check_partition(const LintContext& ctx, FindingSink& sink, const Partition& p, std::size_t others) {
  const Config& c = ctx.config();
  const engine::MemoryLimit limit = engine::memory_limit(c, p);
  if (limit.mb == 0) return;
  const bool limit_own = p.max_mem_per_cpu || p.max_mem_per_node;
  const char* limit_key = limit.per_cpu ? "MaxMemPerCPU" : "MaxMemPerNode";
  const std::string max_text = key_text(limit_key, limit.mb);
  const Config::MemoryDefault d = c.memory_default(p);
  const char* def_key = d.per_cpu ? "DefMemPerCPU" : "DefMemPerNode";
  const bool inherited = !d.own && !limit_own;
  const SourceLoc at = !inherited || !c.setting(def_key) ? p.loc : c.setting(def_key)->loc;
  const std::string who = scope(p, inherited, others);
  const std::string on_where = inherited ? "" : fmt::format(" on partition '{}'", p.name);
  if (d.mb && d.per_cpu && limit.per_cpu) {
    if (d.mb <= limit.mb) return;
    const engine::CpuRaise raise = engine::cpu_raise(d.mb, limit.mb);
    const std::uint64_t ratio = raise.factor;
    Finding& f =
        sink.report(ctx.conf_loc(at),
                    fmt::format("{}: {} is above {}: slurmctld multiplies the CPUs of every job without --mem by {} "
                                "(at {} MB each), so a 4-CPU job runs on {} CPUs and is charged for them, and "
                                "the partition runs 1/{} as many such jobs at once",
                                who, key_text(def_key, d.mb), max_text, ratio, raise.mem_per_cpu, 4 * ratio, ratio));
    f.fix = Fix{fmt::format("set DefMemPerCPU={} (MaxMemPerCPU) or lower{}, or raise MaxMemPerCPU to {} if jobs are "
                            "meant to have that much a CPU",
                            limit.mb, on_where, d.mb),
                "DefMemPerCPU",
                std::to_string(limit.mb),
                {}};
    return;
  }
  // A job without memory of its own or a default is given whole nodes' memory; slurmctld
  // compares the partition's first node's (DefMemPerCPU=0 means 0 MB a CPU: nothing to test).
  const bool no_default = d.mb == 0 && !c.select.def_mem_per_cpu_zero;
  if (d.mb && d.per_cpu) return;  // per CPU under a per-node maximum: per job, not a default's defect
  if (!d.mb && !no_default) return;
  const Node* first = engine::first_node(c, p);
  if (!first) return;
  const std::uint64_t per_node = d.mb ? d.mb : first->usable_mem_mb();
  // "partition 'p': DefMemPerNode=N is" or "partition 'p' sets no default memory, so ..., N MB,"
  // (then "above/under the maximum").
  const std::string given =
      d.mb ? fmt::format("{}: {} is", who, key_text(def_key, d.mb))
           : fmt::format(
                 "{} sets no DefMemPerCPU or DefMemPerNode, so slurmctld takes a job without --mem at the memory of "
                 "{} (its first node), {} MB,",
                 who, first->name, per_node);
  if (!limit.per_cpu) {
    if (per_node <= limit.mb) return;
    const bool enforced = !iequals(c.enforce_part_limits, "NO");
    Finding& f = sink.report(
        ctx.conf_loc(at),
        fmt::format("{} above {}: no job without --mem can run there; {}", given, max_text,
                    enforced ? fmt::format("under EnforcePartLimits={} sbatch refuses every such job (\"Requested "
                                           "partition configuration not available now\")",
                                           c.enforce_part_limits)
                             : "sbatch accepts it and it pends for ever with Reason MaxMemPerLimit"));
    f.severity = Severity::kError;
    f.fix = Fix{fmt::format("set DefMemPerNode (or DefMemPerCPU){} so a job's default stays within MaxMemPerNode={}, "
                            "or raise MaxMemPerNode",
                            on_where, limit.mb),
                "DefMemPerNode",
                std::to_string(limit.mb),
                {}};
    return;
  }
  // Per-node memory under a per-CPU maximum: each node must give the job enough CPUs.
  const std::uint64_t min_cpus = engine::node_min_cpus(per_node, limit.mb);
  if (min_cpus <= 1) return;
  std::uint32_t widest = 0;
  for (std::uint32_t i : p.nodes) widest = std::max(widest, c.nodes[i].cpus);
  const bool never = min_cpus > widest;
  Finding& f = sink.report(
      ctx.conf_loc(at),
      fmt::format(
          "{} per node, under {} (a maximum per CPU): slurmctld makes every job without --mem take at least "
          "{} CPUs ({} MB / {} MB) on each node it uses{}",
          given, max_text, min_cpus, per_node, limit.mb,
          never ? fmt::format(", more than any node of the partition has ({} at most), so such jobs never run", widest)
                : fmt::format(", so a 1-CPU job is given {} and charged for them", min_cpus)));
  if (never) f.severity = Severity::kError;
  f.fix =
      Fix{fmt::format("set DefMemPerCPU={} or lower{}, so a job's default memory follows its CPUs", limit.mb, on_where),
          "DefMemPerCPU",
          std::to_string(limit.mb),
          {}};
}

void check(const LintContext& ctx, FindingSink& sink) {
  const Config& c = ctx.config();
  std::vector<const Partition*> inheriting;
  for (const Partition& p : c.partitions) {
    if (p.state != PartitionState::kUp || p.nodes.empty()) continue;
    if (c.memory_default(p).own || p.max_mem_per_cpu || p.max_mem_per_node)
      check_partition(ctx, sink, p, 0);
    else
      inheriting.push_back(&p);
  }
  if (!inheriting.empty()) check_partition(ctx, sink, *inheriting.front(), inheriting.size() - 1);
}

}  // namespace

}  // namespace sa::rules

SA_RULE({"CONF109", "default-memory-above-maximum", Severity::kWarning, Check::kConfig, SimUse::kStatic,
         "the default memory of jobs without --mem above MaxMemPerCPU/MaxMemPerNode: CPUs multiplied, or jobs that "
         "never run",
         check})
