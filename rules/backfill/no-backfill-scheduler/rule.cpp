// BF007: SchedulerType=sched/builtin, so no backfill thread runs. The main loop starts jobs
// strictly in priority order per partition: once a job cannot start, nothing behind it in
// that partition starts either, however small or short. Where jobs of different sizes and
// time limits share nodes that leaves holes nobody fills. With gang scheduling and
// OverSubscribe=FORCE:n the only gap filling left is gang's "local backfilling": a later
// job may start on resources that fewer than n jobs hold. Informational: FIFO may be
// deliberate, and the simulated difference shows what it costs.
#include <algorithm>

#include <fmt/format.h>

#include "rules/analysis/backfill_stats.h"
#include "rules/analysis/evidence.h"
#include "rules/framework/context.h"
#include "rules/framework/rule.h"
#include "rules/framework/sink.h"

namespace sa::rules {

namespace {

// The most jobs a FORCE/YES partition lets share a resource, when gang scheduling is on.
std::uint32_t local_backfill_rows(const Config& c) {
  std::uint32_t rows = 1;
  if (!c.preempt.mode.gang) return rows;
  for (const Partition& p : c.partitions) rows = std::max(rows, share_rows(p));
  return rows;
}

// Jobs of different sizes can meet on the nodes: some up partition has two CPUs or more.
bool mixed_sizes_possible(const Config& c) {
  for (const Partition& p : c.partitions) {
    if (p.state != PartitionState::kUp) continue;
    std::uint64_t cpus = 0;
    for (std::uint32_t n : p.nodes) cpus += c.nodes[n].cpus;
    if (cpus >= 2) return true;
  }
  return false;
}

nlohmann::json run_metrics(const Simulation& sim) {
  nlohmann::json m = outcome_json(sim);
  m["gang"] = gang_json(sim);
  return m;
}

void check(const LintContext& ctx, FindingSink& sink) {
  const Config& c = ctx.config();
  if (c.scheduler.type != "sched/builtin" || !mixed_sizes_possible(c)) return;
  const std::uint32_t rows = local_backfill_rows(c);
  const std::string filling =
      rows > 1 ? fmt::format(
                     "the only gap filling is gang scheduling's local backfilling, which lets a later job "
                     "start only on resources fewer than {} jobs hold (OverSubscribe=FORCE:{}), suspending or "
                     "timeslicing against them",
                     rows, rows)
               : std::string(
                     "nothing fills the holes: a job that cannot start holds back every job behind it in "
                     "its partition");
  Finding& f = sink.report(ctx.setting_loc("SchedulerType"),
                           fmt::format("SchedulerType=sched/builtin runs no backfill: jobs start strictly in priority "
                                       "order per partition, and {}",
                                       filling));
  f.fix =
      Fix{"set SchedulerType=sched/backfill (the default), so smaller and shorter jobs may start ahead of a "
          "blocked job when they do not delay its reservation",
          "SchedulerType",
          "sched/backfill",
          {}};
  const Simulation* sim = ctx.simulation();
  if (!sim) return;
  f.evidence = simulated_evidence(*sim);
  f.evidence["metrics"] = run_metrics(*sim);
  const SimulationPtr after_run =
      ctx.resimulate("SchedulerType=sched/backfill", {ConfigEdit::setting("SchedulerType", "sched/backfill")});
  const Simulation& after = *after_run;
  f.fix->resimulated = run_metrics(after);
  f.fix->resimulated["scenario"] = scenario_json(after.scenario);
}

}  // namespace

}  // namespace sa::rules

SA_RULE({"BF007", "no-backfill-scheduler", Severity::kInfo, Check::kBackfillLimits, SimUse::kEvidence,
         "SchedulerType=sched/builtin runs no backfill, so a blocked job holds back every job behind it", check})
