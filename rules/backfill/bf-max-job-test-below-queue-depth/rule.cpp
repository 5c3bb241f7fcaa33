// BF002: the pending queue backfill meets is deeper than bf_max_job_test. A cycle stops
// once that many records have reached a will-run test, and every cycle starts again at the
// top of the queue (bf_continue does not change that), so the records below the limit are
// never tested: they cannot backfill into holes however small they are, and get no
// reservation however long they wait.
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

// A limit that ends one cycle in ten is the normal state of the queue, not a burst.
constexpr double kMinStoppedShare = 0.10;
constexpr std::int64_t kMaxJobTestCeiling = 1'000'000;  // Slurm's upper bound

nlohmann::json run_metrics(const Simulation& sim) {
  nlohmann::json m = outcome_json(sim);
  m["share_of_queue_beyond_limit"] = rounded3(share_beyond(sim, sim.site.config->scheduler.bf_max_job_test));
  m["backfill_cycles"] = cycle_json(sim);
  m["never_tested_waits"] = wait_json(wait_stats(sim, never_tested(sim)));
  m["bf_max_job_test"] = sim.site.config->scheduler.bf_max_job_test;
  return m;
}

// The value to suggest: the deepest queue seen, with some headroom, at least twice the limit.
std::int64_t suggested_limit(const QueueDepth& d, std::int64_t current) {
  const auto deepest =
      std::max<std::int64_t>(static_cast<std::int64_t>(d.peak), static_cast<std::int64_t>(std::ceil(d.mean)));
  const std::int64_t want = std::max(current * 2, round_up(deepest + deepest / 4, 100));
  return std::min(want, kMaxJobTestCeiling);
}

void check(const LintContext& ctx, FindingSink& sink) {
  const Simulation* sim = ctx.simulation();
  const Config& c = ctx.config();
  if (!sim || !backfill_runs(c)) return;
  const engine::SimCounters& k = sim->result.counters;
  const double share = cycle_share(*sim, k.bf_stopped_by_max_job_test);
  const std::vector<const engine::SimJob*> missed = never_tested(*sim);
  if (share < kMinStoppedShare) return;
  const std::int64_t limit = c.scheduler.bf_max_job_test;
  const QueueDepth depth = queue_depth(*sim);
  const std::int64_t raised = suggested_limit(depth, limit);
  const std::string never =
      missed.empty() ? std::string()
                     : fmt::format(", and {} waited a bf_interval or more without ever reaching a backfill test",
                                   count_of(missed.size(), "job"));
  Finding& f = sink.report(
      ctx.sched_param_loc("bf_max_job_test"),
      fmt::format("bf_max_job_test={} ends {:.0f}% of backfill cycles ({} of {}) before the queue's end: the "
                  "simulated queue held {:.0f} records at a mean cycle start and up to {}, and on average {:.0f}% of "
                  "pending records lay below the limit, where no cycle tests them{}",
                  limit, 100 * share, k.bf_stopped_by_max_job_test, k.bf_cycles, depth.mean, depth.peak,
                  100 * share_beyond(*sim, limit), never));
  f.evidence = simulated_evidence(*sim);
  f.evidence["metrics"] = run_metrics(*sim);
  add_examples(f.evidence, *sim, missed.empty() ? longest_waits(*sim) : missed);
  const bool space_follows = !sched_param_written(c, "bf_node_space_size");
  f.fix = Fix{fmt::format("raise bf_max_job_test to {} in SchedulerParameters (the deepest simulated queue with "
                          "headroom); each test costs controller time, so check bf_max_time with it{}",
                          raised, space_follows ? "" : ", and raise bf_node_space_size to match"),
              "SchedulerParameters",
              fmt::format("bf_max_job_test={}", raised),
              {}};
  // bf_node_space_size follows (when it is not written) as the resolver derives it.
  const SimulationPtr after_run =
      ctx.resimulate(fmt::format("bf_max_job_test={}", raised),
                     {ConfigEdit::scheduler_parameter("bf_max_job_test", std::to_string(raised))});
  const Simulation& after = *after_run;
  f.fix->resimulated = run_metrics(after);
  f.fix->resimulated["scenario"] = scenario_json(after.scenario);
}

}  // namespace

}  // namespace sa::rules

SA_RULE({"BF002", "bf-max-job-test-below-queue-depth", Severity::kWarning, Check::kBackfillLimits, SimUse::kRequired,
         "the queue backfill meets is deeper than bf_max_job_test, so its tail is never tested", check})
