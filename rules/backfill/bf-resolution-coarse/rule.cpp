// BF004: bf_resolution is coarse against the time limits jobs run with. Backfill keeps its
// availability map in bf_resolution steps: a reservation starts at its predicted start
// rounded down and ends at its end rounded up, so it can hold its nodes up to two
// resolutions longer than the job may run. Where that is comparable to the limits, the
// map is mostly rounding: reservations block holes that short jobs could have used.
#include <algorithm>

#include <fmt/format.h>

#include "rules/analysis/backfill_stats.h"
#include "rules/analysis/evidence.h"
#include "rules/framework/context.h"
#include "rules/framework/rule.h"
#include "rules/framework/sink.h"

namespace sa::rules {

namespace {

// A reservation of limit L can grow to L + 2 res: with res above L/4 that is more than half
// again. Resolutions up to 10 minutes are reported on partition limits only; coarser ones
// also when a quarter of the simulated jobs have limits that short.
constexpr std::int64_t kLimitOverRes = 4;
constexpr std::int64_t kCoarse = 600;
constexpr double kShortJobShare = 0.25;

struct Shortest {
  const Partition* part = nullptr;
  std::int64_t limit = 0;
  const char* key = "";
};

// The shortest finite DefaultTime or MaxTime of an up partition.
Shortest shortest_limit(const Config& c) {
  Shortest s;
  auto consider = [&](const Partition& p, std::int64_t limit, const char* key) {
    if (limit > 0 && (!s.part || limit < s.limit)) s = {&p, limit, key};
  };
  for (const Partition& p : c.partitions) {
    if (p.state != PartitionState::kUp || p.nodes.empty()) continue;
    consider(p, p.max_time, "MaxTime");
    if (p.default_time_set) consider(p, p.default_time, "DefaultTime");
  }
  return s;
}

std::vector<std::int64_t> job_limits(const Simulation& sim) {
  std::vector<std::int64_t> out;
  for (const engine::SimJob& j : sim.result.jobs) {
    if (j.state == engine::JobState::kRejected || j.recs.empty()) continue;
    const std::int64_t l = j.run_or_first_rec().time_limit;
    if (l > 0) out.push_back(l);
  }
  std::sort(out.begin(), out.end());
  return out;
}

double share_at_most(const std::vector<std::int64_t>& sorted, std::int64_t bound) {
  if (sorted.empty()) return 0;
  const auto n = std::upper_bound(sorted.begin(), sorted.end(), bound) - sorted.begin();
  return static_cast<double>(n) / static_cast<double>(sorted.size());
}

// A quarter of `limit`, in whole minutes where it is a minute or more.
std::int64_t suggestion(std::int64_t limit) {
  const std::int64_t q = limit / kLimitOverRes;
  return q >= 60 ? q / 60 * 60 : std::max<std::int64_t>(1, q);
}

nlohmann::json run_metrics(const Simulation& sim, std::int64_t res) {
  const std::vector<std::int64_t> limits = job_limits(sim);
  nlohmann::json m = outcome_json(sim);
  m["bf_resolution"] = sim.site.config->scheduler.bf_resolution;
  m["backfill_reservations"] = sim.result.counters.bf_reservations;
  m["backfill_starts"] = sim.result.counters.bf_starts;
  m["share_of_jobs_with_limit_at_most_4x_resolution"] = rounded3(share_at_most(limits, kLimitOverRes * res));
  if (!limits.empty()) m["median_job_time_limit"] = limits[limits.size() / 2];
  return m;
}

void add_evidence(const LintContext& ctx, Finding& f, std::int64_t res, std::int64_t better) {
  f.fix = Fix{fmt::format("lower bf_resolution to {} in SchedulerParameters; a finer map costs backfill time in "
                          "proportion to bf_window/bf_resolution, so shorten bf_window or raise bf_max_time if "
                          "cycles start to run out of time",
                          better),
              "SchedulerParameters",
              fmt::format("bf_resolution={}", better),
              {}};
  const Simulation* sim = ctx.simulation();
  if (!sim) return;
  f.evidence = simulated_evidence(*sim);
  f.evidence["metrics"] = run_metrics(*sim, res);
  const SimulationPtr after_run =
      ctx.resimulate(fmt::format("bf_resolution={}", better),
                     {ConfigEdit::scheduler_parameter("bf_resolution", std::to_string(better))});
  const Simulation& after = *after_run;
  f.fix->resimulated = run_metrics(after, res);
  f.fix->resimulated["scenario"] = scenario_json(after.scenario);
}

void check(const LintContext& ctx, FindingSink& sink) {
  const Config& c = ctx.config();
  if (!backfill_runs(c)) return;
  const std::int64_t res = c.scheduler.bf_resolution;
  const Shortest s = shortest_limit(c);
  const bool by_partition = s.part && res * kLimitOverRes > s.limit;
  double short_share = 0;
  std::int64_t job_quartile = 0;
  if (const Simulation* sim = ctx.simulation(); sim && res > kCoarse) {
    const std::vector<std::int64_t> limits = job_limits(*sim);
    short_share = share_at_most(limits, kLimitOverRes * res);
    if (!limits.empty()) job_quartile = limits[limits.size() / 4];
  }
  const bool by_jobs = short_share >= kShortJobShare;
  if (!by_partition && !by_jobs) return;
  std::string why;
  if (by_partition) {
    why = fmt::format("partition '{}' has {}={}", s.part->name, s.key, slurm_duration(s.limit));
  }
  if (by_jobs) {
    why += fmt::format("{}{:.0f}% of the simulated jobs have time limits of at most {}", why.empty() ? "" : " and ",
                       100 * short_share, slurm_duration(kLimitOverRes * res));
  }
  Finding& f = sink.report(
      ctx.sched_param_loc("bf_resolution"),
      fmt::format("bf_resolution={} s is coarse for these limits: {}; backfill rounds each reservation out to "
                  "{}-second steps, so it can hold nodes up to {} longer than the job may run and block holes "
                  "shorter jobs could fill",
                  res, why, res, slurm_duration(2 * res)));
  if (by_partition) {
    Location p = ctx.conf_loc(s.part->loc);
    p.note = fmt::format("{}={}", s.key, slurm_duration(s.limit));
    f.related.push_back(p);
  }
  std::int64_t target = by_partition ? s.limit : job_quartile;
  if (by_partition && by_jobs && job_quartile > 0) target = std::min(target, job_quartile);
  const std::int64_t better = suggestion(target);
  if (better < res) add_evidence(ctx, f, res, better);
}

}  // namespace

}  // namespace sa::rules

SA_RULE({"BF004", "bf-resolution-coarse", Severity::kWarning, Check::kBackfillLimits, SimUse::kEvidence,
         "bf_resolution is coarse against the partitions' or jobs' time limits, so reservations are mostly rounding",
         check})
