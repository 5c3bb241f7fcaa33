// GANG001: jobs may share CPUs (OverSubscribe=FORCE:n or YES:n, n >= 2) or be suspended by
// preemption, but memory is not a consumable resource and no default memory is set. A
// suspended job stays resident, and co-scheduled jobs run side by side; the select plugin
// only checks memory when it is consumable (CR_Memory with select/linear, a *_Memory mode
// with cons_tres), and a job without --mem asks for nothing unless DefMemPerCPU or
// DefMemPerNode gives it an amount. So nothing keeps the jobs on a node within its RAM:
// the node swaps or the OOM killer picks a victim. Slurm's gang scheduling guide asks for
// both settings.
//
// Severity warning, not error: Slurm accepts and runs the configuration, and whether it
// breaks depends on the jobs' real memory use, which the linter cannot see.
#include <algorithm>

#include <fmt/format.h>

#include "rules/analysis/backfill_stats.h"
#include "rules/analysis/evidence.h"
#include "rules/framework/context.h"
#include "rules/framework/rule.h"
#include "rules/framework/sink.h"

namespace sa::rules {

namespace {

struct Exposed {
  const Partition* part;
  std::uint32_t rows;  // jobs per CPU the select plugin allows
  bool suspend;        // its jobs can be suspended by preemption
};

bool has_default_mem(const Config& c, const Partition& p) { return c.memory_default(p).mb > 0; }

std::vector<Exposed> exposed_partitions(const LintContext& ctx) {
  const Config& c = ctx.config();
  std::vector<Exposed> out;
  for (std::size_t i = 0; i < c.partitions.size(); ++i) {
    const Partition& p = c.partitions[i];
    if (p.state != PartitionState::kUp || p.nodes.empty() || has_default_mem(c, p)) continue;
    const std::uint32_t rows = share_rows(p);
    const bool suspend = suspendable(ctx, i);
    if (rows >= 2 || suspend) out.push_back({&p, rows, suspend});
  }
  return out;
}

std::string names(const std::vector<const Partition*>& parts) {
  std::string s;
  for (std::size_t i = 0; i < parts.size() && i < 4; ++i) s += fmt::format("{}'{}'", i ? ", " : "", parts[i]->name);
  if (parts.size() > 4) s += fmt::format(" and {} more", parts.size() - 4);
  return s;
}

// "'active' lets 4 jobs share each CPU and timeslices them; jobs of 'normal', 'cluster' can
// be suspended by preemption and stay in memory"
// `unit`: what the jobs share, "CPU" (cons_tres) or "node" (select/linear allocates whole nodes).
std::string describe(const std::vector<Exposed>& exposed, bool gang, const char* unit) {
  std::vector<const Partition*> sharing, suspended;
  std::uint32_t rows = 0;
  for (const Exposed& e : exposed) {
    if (e.rows >= 2) sharing.push_back(e.part), rows = std::max(rows, e.rows);
    if (e.suspend) suspended.push_back(e.part);
  }
  std::string s;
  if (!sharing.empty()) {
    s = fmt::format("{} let{} up to {} jobs share a {}{}", names(sharing), sharing.size() == 1 ? "s" : "", rows, unit,
                    gang ? ", timesliced" : ", all running at once");
  }
  if (!suspended.empty()) {
    s += fmt::format("{}jobs of {} can be suspended by preemption and stay in memory", s.empty() ? "" : "; ",
                     names(suspended));
  }
  return s;
}

// The memory mode to add: the same allocation unit with memory.
std::string memory_mode(const SelectSettings& s) {
  if (s.type == "select/linear") return "CR_Memory";
  switch (s.resource) {
    case SelectSettings::Resource::kCpu:
      return "CR_CPU_Memory";
    case SelectSettings::Resource::kSocket:
      return "CR_Socket_Memory";
    default:
      return "CR_Core_Memory";
  }
}

// DefMemPerCPU that lets every job the configuration stacks on a CPU (its rows, plus one
// suspended under a preemptor) fit in the memory of the node with the least of it per CPU.
struct Fitting {
  std::uint64_t per_cpu = 0;
  const Node* node = nullptr;  // the node that sets it
};

Fitting fitting_def_mem(const Config& c, const std::vector<Exposed>& exposed) {
  Fitting best;
  for (const Exposed& e : exposed) {
    const std::uint64_t stack = e.rows + (e.suspend ? 1 : 0);
    for (std::uint32_t n : e.part->nodes) {
      const Node& node = c.nodes[n];
      const std::uint64_t per_cpu = node.usable_mem_mb() / (std::max<std::uint64_t>(1, node.cpus) * stack);
      if (per_cpu > 0 && (best.per_cpu == 0 || per_cpu < best.per_cpu)) best = {per_cpu, &node};
    }
  }
  return best;
}

nlohmann::json run_metrics(const Simulation& sim) {
  nlohmann::json m = gang_json(sim);
  m["utilization"] = rounded3(sim.metrics.utilization);
  m["wait_seconds"] = wait_json(sim.metrics.overall);
  return m;
}

void add_evidence(const LintContext& ctx, Finding& f, const std::string& mode, std::uint64_t def_mem) {
  const Simulation* sim = ctx.simulation();
  if (!sim) return;
  f.evidence = simulated_evidence(*sim);
  f.evidence["metrics"] = run_metrics(*sim);
  const std::uint32_t stretched = sim->metrics.gang.stretch_max_job;
  for (const engine::SimJob& j : sim->result.jobs) {
    if (j.req.id == stretched && stretched) f.evidence["examples"].push_back(job_json(*sim, j));
  }
  if (def_mem == 0) return;
  // The memory mode replaces the allocation unit's word; the site's other flags stay.
  std::string params = mode;
  for (const std::string& flag : ctx.config().select.flags) params += "," + flag;
  const SimulationPtr after_run = ctx.resimulate(fmt::format("SelectTypeParameters={},DefMemPerCPU={}", mode, def_mem),
                                                 {ConfigEdit::setting("SelectTypeParameters", params),
                                                  ConfigEdit::setting("DefMemPerCPU", std::to_string(def_mem))});
  const Simulation& after = *after_run;
  f.fix->resimulated = run_metrics(after);
  f.fix->resimulated["scenario"] = scenario_json(after.scenario);
}

void check(const LintContext& ctx, FindingSink& sink) {
  const Config& c = ctx.config();
  if (c.select.memory) return;
  const std::vector<Exposed> exposed = exposed_partitions(ctx);
  if (exposed.empty()) return;
  const bool linear = c.select.type == "select/linear";
  const std::string what = describe(exposed, c.preempt.mode.gang, linear ? "node" : "CPU");
  const bool shares = std::any_of(exposed.begin(), exposed.end(), [](const Exposed& e) { return e.rows >= 2; });
  // Timeslicing suspends the jobs that share, as preemption does its victims.
  const bool suspends =
      c.preempt.mode.gang || std::any_of(exposed.begin(), exposed.end(), [](const Exposed& e) { return e.suspend; });
  const char* which = shares && suspends ? "co-scheduled and suspended jobs"
                      : shares           ? "co-scheduled jobs"
                                         : "suspended jobs and the jobs that run beside them";
  const std::string params = c.setting("SelectTypeParameters") ? " with SelectTypeParameters=" + c.select.parameters
                                                               : " without SelectTypeParameters";
  Finding& f = sink.report(
      select_loc(ctx),
      fmt::format("memory is not a consumable resource ({}{}) and no DefMemPerCPU or DefMemPerNode is set, yet {}: "
                  "nothing checks that {} fit in a node's RAM together",
                  c.select.type, params, what, which));
  for (const Exposed& e : exposed) {
    Location p = ctx.conf_loc(e.part->loc);
    p.note = e.rows >= 2 ? fmt::format("OverSubscribe allows {} jobs per {}", e.rows, linear ? "node" : "CPU")
                         : "jobs suspended by preemption";
    f.related.push_back(p);
  }
  if (std::any_of(exposed.begin(), exposed.end(), [](const Exposed& e) { return e.suspend; })) {
    Location m = ctx.setting_loc("PreemptMode");
    m.note = "PreemptMode";
    f.related.push_back(m);
  }
  const std::string mode = memory_mode(c.select);
  const Fitting fit = fitting_def_mem(c, exposed);
  const std::uint64_t def_mem = fit.per_cpu;
  // Under a MB a CPU per stacked job leaves no default to suggest (DefMemPerCPU=0 would mean
  // memory unbounded): the memory mode alone, and requests counted from then on.
  if (def_mem == 0) {
    f.fix = Fix{fmt::format("set SelectTypeParameters={} so each job's memory is counted; the nodes hold under a MB a "
                            "CPU for the jobs stacked on it, so give each job its memory with --mem",
                            mode),
                "SelectTypeParameters",
                mode,
                {}};
    return;
  }
  f.fix = Fix{fmt::format("set SelectTypeParameters={} and DefMemPerCPU={} (MB), so each job's memory is counted "
                          "and the jobs stacked on a {} fit in the RAM of {}{}; add MaxMemPerCPU to bound explicit "
                          "requests",
                          mode, def_mem, linear ? "node" : "CPU", fit.node->name, " (the tightest node)"),
              "SelectTypeParameters",
              mode,
              {}};
  add_evidence(ctx, f, mode, def_mem);
}

}  // namespace

}  // namespace sa::rules

SA_RULE({"GANG001", "oversubscribe-without-memory-tracking", Severity::kWarning, Check::kGangOversubscription,
         SimUse::kEvidence,
         "jobs share CPUs or are suspended while memory is neither consumable nor defaulted, so RAM is shared "
         "unchecked",
         check})
