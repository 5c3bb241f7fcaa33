// BF005: backfill cycles run out of bf_max_time before they reach the end of the queue.
// backfill.c measures bf_max_time from the cycle's start, lock yields (bf_yield_sleep every
// bf_yield_interval) included, and ends the cycle when it is reached, with or without
// bf_continue (which only decides whether a yield that saw a state change ends the cycle).
// When bf_max_time is not written it takes bf_interval's value. The next cycle starts
// bf_interval after this one ended, at the top of the queue again, so what a cycle cannot
// reach in bf_max_time is never tested.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "rules/analysis/backfill_stats.h"
#include "rules/analysis/evidence.h"
#include "rules/framework/context.h"
#include "rules/framework/rule.h"
#include "rules/framework/sink.h"

namespace sa::rules {

namespace {

constexpr double kMinStoppedShare = 0.10;  // one cycle in ten: the usual state, not a burst
constexpr std::int64_t kMaxTimeCeiling = 3600;
constexpr double kYieldShareWorthNaming = 0.25;  // the default 0.5 s per 2 s is 20 %

nlohmann::json run_metrics(const Simulation& sim) {
  const SchedulerSettings& s = sim.site.config->scheduler;
  nlohmann::json m = outcome_json(sim);
  m["backfill_cycles"] = cycle_json(sim);
  m["never_tested_waits"] = wait_json(wait_stats(sim, never_tested(sim)));
  m["bf_max_time"] = s.bf_max_time;
  m["bf_interval"] = s.bf_interval;
  return m;
}

// Seconds one cycle needs to test `records` at the simulation's cost per will-run test,
// with the lock yields it takes on the way.
std::int64_t seconds_for(const SchedulerSettings& s, double records) {
  const double work_us = records * engine::SimOptions{}.bf_test_cost_us;
  const double interval = static_cast<double>(s.bf_yield_interval_us);
  const double yields = interval > 0 ? std::floor(work_us / interval) : 0;
  const double total_us = work_us + yields * static_cast<double>(s.bf_yield_sleep_us);
  return static_cast<std::int64_t>(std::ceil(total_us / 1e6));
}

// bf_max_time is where the limit is written; when it is not, bf_interval (its default).
Location limit_loc(const LintContext& ctx) {
  const Config& c = ctx.config();
  if (!sched_param_written(c, "bf_max_time") && sched_param_written(c, "bf_interval")) {
    return ctx.sched_param_loc("bf_interval");
  }
  return ctx.sched_param_loc("bf_max_time");
}

void check(const LintContext& ctx, FindingSink& sink) {
  const Simulation* sim = ctx.simulation();
  const Config& c = ctx.config();
  if (!sim || !backfill_runs(c)) return;
  const SchedulerSettings& s = c.scheduler;
  const engine::SimCounters& k = sim->result.counters;
  const double share = cycle_share(*sim, k.bf_stopped_by_max_time);
  if (share < kMinStoppedShare) return;
  const QueueDepth depth = queue_depth(*sim);
  const double to_test =
      std::min(static_cast<double>(s.bf_max_job_test), std::max(depth.mean, static_cast<double>(depth.peak)));
  const std::int64_t needed = seconds_for(s, to_test);
  const std::int64_t raised = std::min(kMaxTimeCeiling, std::max(s.bf_max_time * 2, round_up(needed + needed / 4, 10)));
  const std::string source = sched_param_written(c, "bf_max_time")
                                 ? std::string()
                                 : fmt::format(" (not written, so bf_interval={})", s.bf_interval);
  const auto sleep = static_cast<double>(s.bf_yield_sleep_us);
  const double yield_share = sleep / (sleep + static_cast<double>(std::max<std::int64_t>(1, s.bf_yield_interval_us)));
  Finding& f = sink.report(
      limit_loc(ctx),
      fmt::format("bf_max_time={} s{} ends {:.0f}% of backfill cycles ({} of {}) before they reach the queue's end: "
                  "the simulated queue held {:.0f} records at a mean cycle start and up to {}, and a full pass needs "
                  "about {} s at the simulated cost per test{}",
                  s.bf_max_time, source, 100 * share, k.bf_stopped_by_max_time, k.bf_cycles, depth.mean, depth.peak,
                  needed,
                  yield_share >= kYieldShareWorthNaming
                      ? fmt::format(", {:.0f}% of it lock yields (bf_yield_sleep={} us every bf_yield_interval={} us)",
                                    100 * yield_share, s.bf_yield_sleep_us, s.bf_yield_interval_us)
                      : std::string()));
  f.evidence = simulated_evidence(*sim);
  f.evidence["metrics"] = run_metrics(*sim);
  f.evidence["metrics"]["estimated_seconds_per_full_pass"] = needed;
  f.evidence["metrics"]["test_cost_us_assumed"] = engine::SimOptions{}.bf_test_cost_us;
  const std::vector<const engine::SimJob*> missed = never_tested(*sim);
  add_examples(f.evidence, *sim, missed.empty() ? longest_waits(*sim) : missed);
  f.fix = Fix{fmt::format("set bf_max_time={} in SchedulerParameters (a full pass with headroom; it is counted "
                          "from the cycle start, yields included); if the controller cannot spare that, lower "
                          "bf_max_job_test or add per-user limits so the time goes to the records that matter",
                          raised),
              "SchedulerParameters",
              fmt::format("bf_max_time={}", raised),
              {}};
  const SimulationPtr after_run = ctx.resimulate(
      fmt::format("bf_max_time={}", raised), {ConfigEdit::scheduler_parameter("bf_max_time", std::to_string(raised))});
  const Simulation& after = *after_run;
  f.fix->resimulated = run_metrics(after);
  f.fix->resimulated["scenario"] = scenario_json(after.scenario);
}

}  // namespace

}  // namespace sa::rules

SA_RULE({"BF005", "bf-cycle-cannot-finish", Severity::kWarning, Check::kBackfillLimits, SimUse::kRequired,
         "backfill cycles run out of bf_max_time before reaching the queue's end", check})
