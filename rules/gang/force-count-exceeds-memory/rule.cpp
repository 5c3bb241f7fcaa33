// GANG003: OverSubscribe=FORCE:n (or YES:n) lets n jobs share a CPU, but n jobs at the
// default memory do not fit in the node's RAM.
// - Memory consumable: the select plugin counts every job's memory, suspended ones
//   included, so fewer than n jobs ever share a node; a job without --mem and with no
//   default is given the whole node's memory and shares with nobody. Memory, not n, sets
//   the sharing. Informational: nothing breaks, but the FORCE count promises more
//   timeslicing than the site gets.
// - Memory not consumable but defaulted: each job gets a memory limit (cgroup) yet the
//   select plugin stacks n of them regardless, so n x the default exceeds the node: a
//   warning, the jobs can run the node out of memory. (Without any default this is
//   GANG001's case.)
#include <algorithm>

#include <fmt/format.h>

#include "rules/analysis/backfill_stats.h"
#include "rules/analysis/evidence.h"
#include "rules/framework/context.h"
#include "rules/framework/rule.h"
#include "rules/framework/sink.h"

namespace sa::rules {

namespace {

struct Worst {
  const Node* node = nullptr;
  std::uint64_t per_job = 0;  // MB a job taking the whole node gets by default
  std::uint64_t fit = 0;      // such jobs the node's memory holds
};

bool per_node_default(const Config& c, const Partition& p);

// The partition's node where the fewest default-sized jobs fit. A node a per-CPU default
// does not fit even once (where memory is counted) is CONF102's finding, not this one's: one
// root cause, one finding, so such nodes are left out.
Worst tightest_node(const Config& c, const Partition& p) {
  Worst w;
  const bool conf102 = c.select.memory && !per_node_default(c, p);
  for (std::uint32_t n : p.nodes) {
    const Node& node = c.nodes[n];
    const std::uint64_t per_job = default_node_mem(c, p, node);
    // Tracked memory and no default: the job is given the node's whole memory.
    const std::uint64_t size = per_job ? per_job : node.usable_mem_mb();
    const std::uint64_t fit = size ? node.usable_mem_mb() / size : 0;
    if (conf102 && per_job > 0 && fit == 0) continue;
    if (!w.node || fit < w.fit) w = {&node, per_job, fit};
  }
  return w;
}

// The default that applies is per node (DefMemPerNode): a job gets it whatever its CPUs.
bool per_node_default(const Config& c, const Partition& p) {
  const Config::MemoryDefault d = c.memory_default(p);
  return !d.per_cpu && d.mb > 0;
}

std::string default_text(const Config& c, const Partition& p) {
  const Config::MemoryDefault d = c.memory_default(p);
  if (!d.mb) return "no DefMemPerCPU or DefMemPerNode, so a job without --mem is given the whole node's memory";
  return fmt::format("{}={}{}", d.per_cpu ? "DefMemPerCPU" : "DefMemPerNode", d.mb, d.own ? " (partition)" : "");
}

nlohmann::json partition_metrics(const Simulation& sim, const Partition& p) {
  std::uint32_t most_jobs = 0, over = 0;
  double worst_ratio = 0;
  const std::vector<std::uint32_t> nodes = sorted_nodes(p);
  for (const engine::NodePeak& peak : sim.result.node_peaks) {
    if (!std::binary_search(nodes.begin(), nodes.end(), peak.node)) continue;
    const std::uint64_t real = sim.site.config->nodes[peak.node].usable_mem_mb();
    most_jobs = std::max(most_jobs, peak.jobs);
    if (real == 0) continue;
    const double ratio = static_cast<double>(peak.mem_mb) / static_cast<double>(real);
    worst_ratio = std::max(worst_ratio, ratio);
    over += peak.mem_mb > real;
  }
  return {{"partition", p.name},
          {"most_jobs_on_one_node", most_jobs},
          {"nodes_asked_for_more_than_real_memory", over},
          {"worst_requested_to_real_memory", rounded3(worst_ratio)},
          {"gang", gang_json(sim)}};
}

void report(const LintContext& ctx, FindingSink& sink, const Partition& p, std::uint32_t n, const Worst& w,
            bool& evidence_added) {
  const Config& c = ctx.config();
  const bool tracked = c.select.memory;
  const std::string os = "OverSubscribe=" + oversubscribe_text(p.oversubscribe);
  // YES:n shares only among jobs that ask for --oversubscribe.
  const std::string who = p.oversubscribe.mode == OverSubscribe::Mode::kYes ? " that ask for --oversubscribe" : "";
  std::string msg;
  if (tracked && w.per_job == 0) {
    msg = fmt::format(
        "{} lets {} jobs{} share a CPU, but memory is consumable and no DefMemPerCPU or DefMemPerNode "
        "is set: a job without --mem is given the whole node's memory, so it shares its node with no "
        "other job and memory, not {}, limits sharing",
        os, n, who, os);
  } else if (tracked) {
    const std::string fits = w.fit == 0 ? fmt::format("more than its {} MB, so such a job cannot start there at all",
                                                      w.node->usable_mem_mb())
                                        : fmt::format("and only {} such job{} fit in its {} MB", w.fit,
                                                      w.fit == 1 ? "" : "s", w.node->usable_mem_mb());
    const std::string job =
        per_node_default(c, p)
            ? fmt::format("a job on {} is given {} MB whatever its CPUs", w.node->name, w.per_job)
            : fmt::format("a job on all {} CPUs of {} is given {} MB", w.node->cpus, w.node->name, w.per_job);
    msg = fmt::format("{} lets {} jobs{} share a CPU, but at {} {}, {}: memory, not {}, limits sharing", os, n, who,
                      default_text(c, p), job, fits, os);
  } else {
    msg = fmt::format(
        "{} stacks {} jobs{} on a CPU while memory is not consumable: at {} {} jobs on all {} CPUs of {} "
        "ask for {} MB together, and it has {} MB",
        os, n, who, default_text(c, p), n, w.node->cpus, w.node->name, n * w.per_job, w.node->usable_mem_mb());
  }
  Finding& f = sink.report(ctx.conf_loc(p.loc), msg);
  if (tracked) f.severity = Severity::kInfo;
  const std::uint64_t per_cpu = w.node->usable_mem_mb() / (std::max<std::uint64_t>(1, w.node->cpus) * n);
  // A per-node default is lowered as one: n jobs of it fit the node.
  const bool per_node = per_node_default(c, p);
  const std::string key = per_node ? "DefMemPerNode" : "DefMemPerCPU";
  const std::uint64_t value = per_node ? w.node->usable_mem_mb() / n : per_cpu;
  const std::uint64_t fit = std::max<std::uint64_t>(1, w.fit);
  // YES:1 and FORCE:1 share nothing: say NO (YES) or FORCE:1 as Slurm spells it.
  const std::string lower = fit == 1 && p.oversubscribe.mode == OverSubscribe::Mode::kYes
                                ? std::string("OverSubscribe=NO")
                                : fmt::format("{}:{}", os.substr(0, os.find(':')), fit);
  f.fix = Fix{tracked ? fmt::format("to let {} jobs share, set {}={} or less on '{}' (and keep MaxMem{} near it); "
                                    "otherwise set {} (as many as fit)",
                                    n, key, value, p.name, per_node ? "PerNode" : "PerCPU", lower)
                      : fmt::format("make memory consumable (a *_Memory SelectTypeParameters), or lower {} to {} so {} "
                                    "jobs fit",
                                    key, value, n),
              key,
              std::to_string(value),
              {}};
  const Simulation* sim = ctx.simulation();
  if (!sim || evidence_added) return;
  evidence_added = true;
  f.evidence = simulated_evidence(*sim);
  f.evidence["metrics"] = partition_metrics(*sim, p);
}

void check(const LintContext& ctx, FindingSink& sink) {
  const Config& c = ctx.config();
  bool evidence_added = false;
  for (const Partition& p : c.partitions) {
    const std::uint32_t n = share_rows(p);
    // DefMemPerCPU=0: default jobs take no memory, so memory never limits their sharing.
    // No default memory where it is counted is CONF106's finding (one root cause, one finding:
    // its fix divides the memory among FORCE's jobs).
    if (n < 2 || p.state != PartitionState::kUp || p.nodes.empty() || default_mem_zero(c, p) ||
        whole_node_by_default(c, p))
      continue;
    const Worst w = tightest_node(c, p);
    if (!w.node || w.node->usable_mem_mb() == 0) continue;
    if (c.select.memory ? w.fit < n : (w.per_job > 0 && w.per_job * n > w.node->usable_mem_mb())) {
      report(ctx, sink, p, n, w, evidence_added);
    }
  }
}

}  // namespace

}  // namespace sa::rules

SA_RULE({"GANG003", "force-count-exceeds-memory", Severity::kWarning, Check::kGangOversubscription, SimUse::kEvidence,
         "OverSubscribe=FORCE:n (or YES:n) promises n jobs per CPU that the nodes' memory cannot hold at the default "
         "job memory",
         check})
