// BF006: backfill runs without bf_continue and its cycles keep ending at a lock yield.
// Every bf_yield_interval a cycle releases the controller's locks for bf_yield_sleep;
// without bf_continue, backfill.c ends the cycle there if any job or node changed in the
// meantime, which on a busy cluster is almost every time. The next cycle starts again at
// the top of the queue, so the records below the point the yields allow are never tested.
// (bf_continue does not carry a position from one cycle to the next: it lets the cycle go
// on after the yield, up to bf_max_time. Cycles cut by bf_max_time or bf_max_job_test are
// BF005's and BF002's.)
#include <fmt/format.h>

#include "rules/analysis/backfill_stats.h"
#include "rules/analysis/evidence.h"
#include "rules/framework/context.h"
#include "rules/framework/rule.h"
#include "rules/framework/sink.h"

namespace sa::rules {

namespace {

constexpr double kMinStoppedShare = 0.10;  // one cycle in ten

nlohmann::json run_metrics(const Simulation& sim) {
  nlohmann::json m = outcome_json(sim);
  m["backfill_cycles"] = cycle_json(sim);
  m["never_tested_waits"] = wait_json(wait_stats(sim, never_tested(sim)));
  return m;
}

void check(const LintContext& ctx, FindingSink& sink) {
  const Simulation* sim = ctx.simulation();
  const Config& c = ctx.config();
  if (!sim || !backfill_runs(c) || c.scheduler.bf_continue) return;
  const engine::SimCounters& k = sim->result.counters;
  const double share = cycle_share(*sim, k.bf_stopped_by_yield);
  const std::vector<const engine::SimJob*> missed = never_tested(*sim);
  if (share < kMinStoppedShare) return;
  const SchedulerSettings& s = c.scheduler;
  const QueueDepth depth = queue_depth(*sim);
  Finding& f = sink.report(
      ctx.sched_param_loc("bf_continue"),
      fmt::format("bf_continue is not set and {:.0f}% of backfill cycles ({} of {}) ended at a lock yield (every {} "
                  "ms of work) because a job or node changed meanwhile: each cycle restarts at the top of a queue of "
                  "{:.0f} records on average (up to {}), and {} waited a bf_interval or more without ever reaching a "
                  "backfill test",
                  100 * share, k.bf_stopped_by_yield, k.bf_cycles, s.bf_yield_interval_us / 1000, depth.mean,
                  depth.peak, count_of(missed.size(), "job")));
  f.evidence = simulated_evidence(*sim);
  f.evidence["metrics"] = run_metrics(*sim);
  add_examples(f.evidence, *sim, missed.empty() ? longest_waits(*sim) : missed);
  f.fix =
      Fix{"add bf_continue to SchedulerParameters, so a cycle goes on after a lock yield (up to bf_max_time) "
          "instead of ending whenever a job or node changed",
          "SchedulerParameters",
          "bf_continue",
          {}};
  const SimulationPtr after_run = ctx.resimulate("bf_continue", {ConfigEdit::scheduler_parameter("bf_continue")});
  const Simulation& after = *after_run;
  f.fix->resimulated = run_metrics(after);
  f.fix->resimulated["scenario"] = scenario_json(after.scenario);
}

}  // namespace

}  // namespace sa::rules

SA_RULE({"BF006", "bf-continue-missing", Severity::kWarning, Check::kBackfillLimits, SimUse::kRequired,
         "without bf_continue backfill cycles end at lock yields and never reach the queue's tail", check})
