// CONF104: PriorityMaxAge so short that the age factor is full long before a typical job
// starts. The age factor is (now - accrue time) / PriorityMaxAge, capped at 1
// (priority_multifactor.c, the age term of set_priority_factors): every job that has waited
// PriorityMaxAge holds the whole PriorityWeightAge, so age no longer orders them, and it
// only pushes the newest submissions down. Statically: under one hour (a bare number is
// minutes, so PriorityMaxAge=7 meant as days is seven minutes). With a run: also when the
// median wait of the jobs that waited at all is four times PriorityMaxAge or more. A
// PriorityMaxAge no longer than PriorityCalcPeriod is CONF103's finding, not this one.
#include <algorithm>

#include <fmt/format.h>

#include "rules/analysis/evidence.h"
#include "rules/analysis/queue_pairs.h"
#include "rules/framework/context.h"
#include "rules/framework/rule.h"
#include "rules/framework/sink.h"

namespace sa::rules {

namespace {

constexpr std::int64_t kHour = 3600;
constexpr double kWaitsPerMaxAge = 4;  // median wait >= 4 x PriorityMaxAge: full age after a quarter of it

struct Waiters {
  engine::WaitStats waits;                      // jobs that waited at all
  std::size_t saturated = 0;                    // of them, waited PriorityMaxAge or longer
  std::vector<const engine::SimJob*> examples;  // the longest waits, up to five
};

Waiters waiters(const Simulation& sim, std::int64_t max_age) {
  Waiters out;
  std::vector<double> w;
  for (const engine::SimJob& j : sim.result.jobs) {
    if (j.state == engine::JobState::kRejected || j.recs.empty() || j.cancelled_pending()) continue;
    const std::int64_t wait = wait_of(sim, j);
    if (wait <= 0) continue;
    w.push_back(static_cast<double>(wait));
    out.saturated += wait >= max_age;
    out.examples.push_back(&j);
  }
  out.waits = wait_stats(std::move(w));
  std::stable_sort(out.examples.begin(), out.examples.end(),
                   [&](auto* a, auto* b) { return wait_of(sim, *a) > wait_of(sim, *b); });
  if (out.examples.size() > 5) out.examples.resize(5);
  return out;
}

void add_evidence(const Simulation& sim, const Waiters& w, Finding& f) {
  f.evidence = simulated_evidence(sim);
  f.evidence["metrics"] = {{"jobs_that_queued", w.waits.jobs},
                           {"wait_seconds_of_jobs_that_queued", wait_json(w.waits)},
                           {"jobs_at_full_age", w.saturated},
                           {"priority_max_age_seconds", sim.site.config->priority.max_age}};
  for (const engine::SimJob* j : w.examples) f.evidence["examples"].push_back(job_json(sim, *j));
}

void check(const LintContext& ctx, FindingSink& sink) {
  const Config& c = ctx.config();
  const PrioritySettings& p = c.priority;
  const double weight = effective_weights(c).age;  // 0 without slurmdbd: CONF043's finding
  if (!p.multifactor() || weight <= 0 || p.max_age <= p.calc_period) return;
  const Simulation* sim = ctx.simulation();
  const Waiters w = sim ? waiters(*sim, p.max_age) : Waiters{};
  const bool short_static = p.max_age < kHour;
  const bool short_run = w.waits.jobs > 0 && w.waits.median >= kWaitsPerMaxAge * static_cast<double>(p.max_age);
  if (!short_static && !short_run) return;
  const std::string age = minutes_key_text(c, "PriorityMaxAge", p.max_age);
  // Spans under an hour in words: Slurm's "07:00" is 7 minutes, but reads as 7 hours here.
  auto span = [](std::int64_t t) {
    if (t >= kHour) return slurm_duration(t);
    if (t < 60) return fmt::format("{} s", t);
    return t % 60 ? fmt::format("{} min {} s", t / 60, t % 60) : fmt::format("{} min", t / 60);
  };
  std::string message =
      short_static ? fmt::format(
                         "{}: the age factor is full after less than an hour of waiting, so PriorityWeightAge={} "
                         "sets only jobs submitted in the last {} apart from all others and never rewards a longer "
                         "wait",
                         age, p.weight_age, span(p.max_age))
                   : fmt::format(
                         "{} is full after a quarter of a typical wait: in the simulation the jobs that waited did so "
                         "for {} (median), and {} of {} held the whole PriorityWeightAge={}, so age no longer ordered "
                         "them",
                         age, slurm_duration(static_cast<std::int64_t>(w.waits.median)), w.saturated, w.waits.jobs,
                         p.weight_age);
  if (short_static && w.waits.jobs > 0) {
    message += fmt::format(" (in the simulation, {} of {} waiting jobs reached full age; median wait {})", w.saturated,
                           w.waits.jobs, span(static_cast<std::int64_t>(w.waits.median)));
  }
  // A decay half-life as short (written, under an hour, not 0 = no decay) is a time-scaled
  // config, as simulator and test-bed sites write them (HPCNow's slurm_simulator: both 10 min,
  // usage reset HOURLY): there the short PriorityMaxAge is consistent, not a slip.
  const bool scaled =
      short_static && c.setting("PriorityDecayHalfLife") && p.decay_half_life > 0 && p.decay_half_life < kHour;
  if (scaled) {
    message += fmt::format(
        "; PriorityDecayHalfLife={} is as short, as in a time-scaled test or simulator config, where this is "
        "consistent",
        span(p.decay_half_life));
  }
  Finding& f = sink.report(ctx.setting_loc("PriorityMaxAge"), message);
  if (scaled) f.severity = Severity::kInfo;
  f.fix = Fix{std::string(scaled ? "if this config is meant for a real cluster, " : "") +
                  "give PriorityMaxAge the wait after which a job should have full age priority, in days: e.g. 7-0 "
                  "(the default)",
              "PriorityMaxAge",
              "7-0",
              {}};
  if (sim) add_evidence(*sim, w, f);
}

}  // namespace

}  // namespace sa::rules

SA_RULE({"CONF104", "priority-max-age-below-typical-wait", Severity::kWarning, Check::kConfig, SimUse::kEvidence,
         "PriorityMaxAge under an hour, or a quarter of the simulated wait: age stops rewarding waiting", check})
