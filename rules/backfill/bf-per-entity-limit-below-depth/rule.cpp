// BF003: a per-user, per-partition, per-user-and-partition or per-association backfill
// limit (bf_max_job_user, bf_max_job_part, bf_max_job_user_part, bf_max_job_assoc) is below
// the pending depth that user, partition or association reaches. Backfill counts the
// records it tests per entity in each cycle and skips the rest; every cycle starts again at
// the top, so an entity's records below the limit are never tested in any cycle and can
// only start when the main loop reaches them in priority order. The limits are the
// documented remedy for a few users flooding the top of the queue, so the rule reports
// one only when lifting it to the observed depth shortens waits in the same run.
#include <algorithm>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "rules/analysis/backfill_stats.h"
#include "rules/analysis/evidence.h"
#include "rules/framework/context.h"
#include "rules/framework/rule.h"
#include "rules/framework/sink.h"

namespace sa::rules {

namespace {

// What lifting the limits must change to count as harm: the jobs backfill never tested must
// wait a tenth less, and at least a bf_interval less, on average.
constexpr double kWaitDrop = 0.10;

struct Limit {
  const char* name;
  std::int64_t SchedulerSettings::*field;
  const char* entity;  // what one key of the count is
  std::size_t peak = 0;
  std::string peak_key;
  std::int64_t peak_at = 0;
};

// How backfill.c keys each count: the user, the partition, both, or the association.
std::string key_of(const Simulation& sim, const char* name, const engine::SimJob& j, const engine::SimRecord& r) {
  const std::string n = name;
  const std::string& part = sim.site.config->partitions[r.part].name;
  if (n == "bf_max_job_user") return j.req.user;
  if (n == "bf_max_job_part") return part;
  if (n == "bf_max_job_user_part") return j.req.user + " in " + part;
  return j.req.user + " of account " + j.req.account;
}

// The deepest pending queue one entity held at once in the run.
void observe_peaks(const Simulation& sim, std::vector<Limit>& limits) {
  for (Limit& l : limits) {
    const KeyPeak p = peak_pending(
        sim, [&](const engine::SimJob& j, const engine::SimRecord& r) { return key_of(sim, l.name, j, r); });
    l.peak = p.peak;
    l.peak_key = p.key;
    l.peak_at = p.at;
  }
}

std::vector<Limit> set_limits(const SchedulerSettings& s) {
  const std::vector<Limit> all = {
      {"bf_max_job_user", &SchedulerSettings::bf_max_job_user, "user", 0, {}, 0},
      {"bf_max_job_part", &SchedulerSettings::bf_max_job_part, "partition", 0, {}, 0},
      {"bf_max_job_user_part", &SchedulerSettings::bf_max_job_user_part, "user in a partition", 0, {}, 0},
      {"bf_max_job_assoc", &SchedulerSettings::bf_max_job_assoc, "association", 0, {}, 0}};
  std::vector<Limit> out;
  for (const Limit& l : all) {
    if (s.*l.field > 0) out.push_back(l);
  }
  return out;
}

nlohmann::json run_metrics(const Simulation& sim) {
  nlohmann::json m = outcome_json(sim);
  m["backfill_cycles"] = cycle_json(sim);
  m["never_tested_waits"] = wait_json(wait_stats(sim, never_tested(sim)));
  return m;
}

// Mean waits of the same jobs in two runs of one load (jobs keep their workload order).
std::pair<double, double> waits_of(const Simulation& before, const Simulation& after,
                                   const std::vector<const engine::SimJob*>& jobs) {
  double w0 = 0, w1 = 0;
  for (const engine::SimJob* j : jobs) {
    const auto i = static_cast<std::size_t>(j - before.result.jobs.data());
    if (i >= after.result.jobs.size()) continue;
    w0 += static_cast<double>(wait_of(before, *j));
    w1 += static_cast<double>(wait_of(after, after.result.jobs[i]));
  }
  const auto n = static_cast<double>(std::max<std::size_t>(1, jobs.size()));
  return {w0 / n, w1 / n};
}

void check(const LintContext& ctx, FindingSink& sink) {
  const Simulation* sim = ctx.simulation();
  const Config& c = ctx.config();
  if (!sim || !backfill_runs(c) || sim->result.counters.bf_skipped_by_user_limit == 0) return;
  std::vector<Limit> limits = set_limits(c.scheduler);
  observe_peaks(*sim, limits);
  std::erase_if(limits, [&](const Limit& l) { return static_cast<std::int64_t>(l.peak) <= c.scheduler.*l.field; });
  if (limits.empty()) return;
  std::string label;
  for (const Limit& l : limits) label += fmt::format("{}{}={}", label.empty() ? "" : ",", l.name, l.peak);
  std::vector<ConfigEdit> lift;
  for (const Limit& l : limits) lift.push_back(ConfigEdit::scheduler_parameter(l.name, fmt::format("{}", l.peak)));
  const SimulationPtr after_run = ctx.resimulate(label, lift);
  const Simulation& after = *after_run;
  const std::vector<const engine::SimJob*> missed = never_tested(*sim);
  const auto [w0, w1] = waits_of(*sim, after, missed);
  if (missed.empty() || w0 - w1 < kWaitDrop * w0 || w0 - w1 < static_cast<double>(c.scheduler.bf_interval)) return;
  bool first = true;
  for (const Limit& l : limits) {
    const std::int64_t value = c.scheduler.*l.field;
    Finding& f = sink.report(
        ctx.sched_param_loc(l.name),
        fmt::format("{}={} is below the pending depth one {} reaches ({} records for {}, {} into the run): backfill "
                    "skipped {} records over {} cycles and {} never reached a backfill test; lifting the limit to {} "
                    "cuts their mean wait from {} to {} (all jobs: {} to {})",
                    l.name, value, l.entity, l.peak, l.peak_key, slurm_duration(l.peak_at - sim->result.start),
                    sim->result.counters.bf_skipped_by_user_limit, sim->result.counters.bf_cycles,
                    count_of(missed.size(), "job"), l.peak, slurm_duration(std::llround(w0)),
                    slurm_duration(std::llround(w1)), slurm_duration(std::llround(sim->metrics.overall.mean)),
                    slurm_duration(std::llround(after.metrics.overall.mean))));
    f.fix = Fix{fmt::format("raise {} to {} in SchedulerParameters (or remove it), so each {}'s pending records are "
                            "all tested; keep bf_max_job_test above the total",
                            l.name, l.peak, l.entity),
                "SchedulerParameters",
                fmt::format("{}={}", l.name, l.peak),
                {}};
    if (!first) continue;
    first = false;
    f.evidence = simulated_evidence(*sim);
    f.evidence["metrics"] = run_metrics(*sim);
    add_examples(f.evidence, *sim, missed);
    f.fix->resimulated = run_metrics(after);
    f.fix->resimulated["scenario"] = scenario_json(after.scenario);
  }
}

}  // namespace

}  // namespace sa::rules

SA_RULE({"BF003", "bf-per-entity-limit-below-depth", Severity::kWarning, Check::kBackfillLimits, SimUse::kRequired,
         "a per-user, per-partition or per-association backfill limit is below that entity's pending depth, so "
         "its later jobs are never tested",
         check})
