// BF008: a partition's DefaultTime that gives backfill nothing to plan with. A job without
// --time gets DefaultTime as its limit (job_mgr.c _set_time_limit, after any QOS or
// association MaxWall), and backfill plans every job by its limit, not its run time
// (backfill.c _attempt_backfill): a job planned as days long fits no gap, so it starts only
// when nodes fall free on their own, and while it runs the pending jobs' reservations are
// set as if it held its nodes to the end of its limit. Fires when DefaultTime is written
// and equals (or passes) a MaxTime longer than a day: the default then says nothing a
// missing DefaultTime would not. With a recorded load (not the default load, whose run
// times are drawn from MaxTime), also when DefaultTime is over a day and ten times the p95
// run time of the partition's jobs without --time (ten of them at least); the evidence
// re-simulates DefaultTime at that p95.
#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "rules/analysis/evidence.h"
#include "rules/framework/context.h"
#include "rules/framework/rule.h"
#include "rules/framework/sink.h"

namespace sa::rules {

namespace {

constexpr std::int64_t kDay = 86400;
constexpr double kRunTimes = 10;   // DefaultTime >= 10 x the p95 run time of the jobs it applies to
constexpr std::size_t kJobs = 10;  // fewer jobs without --time say nothing about their run times

struct PartJobs {
  engine::WaitStats waits, with_time, without_time;  // waits, all and by whether the job gave --time
  double p95_run_without = 0;                        // run time of the jobs without --time, p95
  std::size_t timed_out = 0;                         // killed at their limit
  std::vector<const engine::SimJob*> examples;       // jobs without --time, longest wait first
};

PartJobs part_jobs(const Simulation& sim, std::size_t part) {
  PartJobs out;
  std::vector<double> all, with, without, runs;
  for (const engine::SimJob& j : sim.result.jobs) {
    if (j.state == engine::JobState::kRejected || j.recs.empty() || j.cancelled_pending() ||
        j.run_or_first_rec().part != part)
      continue;
    const bool given = j.req.time_limit > 0;  // kNoTime (none given) is negative
    const auto wait = static_cast<double>(wait_of(sim, j));
    all.push_back(wait);
    (given ? with : without).push_back(wait);
    if (!given) runs.push_back(static_cast<double>(j.req.run_time));
    if (!given) out.examples.push_back(&j);
    out.timed_out += j.end_state == engine::EndState::kTimeout && j.end != engine::kNoTime;
  }
  out.waits = wait_stats(std::move(all));
  out.with_time = wait_stats(std::move(with));
  out.without_time = wait_stats(std::move(without));
  out.p95_run_without = wait_stats(std::move(runs)).p95;
  std::stable_sort(out.examples.begin(), out.examples.end(),
                   [&](auto* a, auto* b) { return wait_of(sim, *a) > wait_of(sim, *b); });
  if (out.examples.size() > 5) out.examples.resize(5);
  return out;
}

nlohmann::json run_metrics(const PartJobs& pj) {
  return {{"wait_seconds", wait_json(pj.waits)},
          {"wait_seconds_with_time", wait_json(pj.with_time)},
          {"wait_seconds_without_time", wait_json(pj.without_time)},
          {"jobs_timed_out", pj.timed_out}};
}

// The fix on a site's own load: DefaultTime at the p95 run time of the jobs without --time
// (rounded up to the hour). It is re-simulated once, on every partition flagged so, so the
// waits before and after can be compared (and a config with many such partitions costs one
// re-simulation, not one each).
std::int64_t fixed_default(const PartJobs& pj) { return (std::llround(pj.p95_run_without) + 3599) / 3600 * 3600; }

// A partition to report: its DefaultTime far above its jobs' run times (`far`, their numbers),
// else equal to a MaxTime over a day.
struct Flagged {
  std::size_t part;
  std::optional<PartJobs> far;
};

void add_evidence(const LintContext& ctx, const Simulation& sim, std::size_t part, const PartJobs& pj,
                  const PartitionsFix& fix, Finding& f) {
  f.evidence = simulated_evidence(sim);
  f.evidence["metrics"] = run_metrics(pj);
  f.evidence["metrics"]["p95_run_without_time_seconds"] = std::llround(pj.p95_run_without);
  for (const engine::SimJob* j : pj.examples) f.evidence["examples"].push_back(job_json(sim, *j));
  if (!f.fix) return;
  const SimulationPtr after_run = ctx.resimulate(fix.label, fix.edits);
  const Simulation& after = *after_run;
  f.fix->resimulated = run_metrics(part_jobs(after, part));
  f.fix->resimulated["scenario"] = scenario_json(after.scenario);
}

// One job at a time: one node that holds a single job (one CPU, OverSubscribe=EXCLUSIVE, or
// whole nodes under select/linear), with no OverSubscribe=YES or FORCE to stack more. Nothing runs beside a job there,
// so there is no gap for any limit to fit and nothing for backfill to plan around (bockpl's one-CPU node).
bool one_job_at_a_time(const Config& c, const Partition& p) {
  using Mode = OverSubscribe::Mode;
  if (p.nodes.size() != 1 || p.oversubscribe.mode == Mode::kYes || p.oversubscribe.mode == Mode::kForce) return false;
  return p.oversubscribe.mode == Mode::kExclusive || c.select.type == "select/linear" ||
         c.nodes[p.nodes.front()].cpus == 1;
}

// Whether the partition's DefaultTime is far above what its jobs without --time run, on the
// site's own load (the default load draws run times from MaxTime, so says nothing of them).
std::optional<PartJobs> far_above(const Simulation* sim, const Partition& p, std::size_t part) {
  if (!sim || sim->scenario.derived || p.default_time <= kDay) return std::nullopt;
  PartJobs pj = part_jobs(*sim, part);
  if (pj.without_time.jobs < kJobs || pj.p95_run_without <= 0 ||
      static_cast<double>(p.default_time) < kRunTimes * pj.p95_run_without)
    return std::nullopt;
  return pj;
}

bool judged(const Config& c, const Partition& p) {
  return p.default_time_set && p.default_time >= 0 && p.state == PartitionState::kUp && !p.nodes.empty() &&
         !one_job_at_a_time(c, p);
}

void report(const LintContext& ctx, FindingSink& sink, const Flagged& flag, const PartitionsFix& fix) {
  const Partition& p = ctx.config().partitions[flag.part];
  const std::optional<PartJobs>& far = flag.far;
  const std::string dt = slurm_duration(p.default_time);
  const std::string message =
      far ? fmt::format(
                "partition '{}' sets DefaultTime={}, {:.0f} times what its jobs without --time run in the "
                "simulated load (p95 {}): backfill plans each of them as {} long, so they fit no gap and the "
                "reservations of the jobs behind them assume they hold their nodes that long",
                p.name, dt, static_cast<double>(p.default_time) / far->p95_run_without,
                slurm_duration(std::llround(far->p95_run_without)), dt)
          : fmt::format(
                "partition '{}' sets DefaultTime={} equal to its MaxTime ({}): backfill plans every job "
                "without --time as {} long, so such jobs fit no gap and the reservations of the jobs behind "
                "them assume they hold their nodes to the end",
                p.name, dt, slurm_duration(p.max_time), dt);
  Finding& f = sink.report(ctx.conf_loc(p.loc), message);
  const std::int64_t value = far ? fixed_default(*far) : std::int64_t{3600};
  f.fix = Fix{fmt::format("set DefaultTime on partition '{}' to about what a job without --time runs (e.g. {}), so "
                          "such jobs are planned short and those that need longer ask with --time",
                          p.name, slurm_duration(value)),
              "DefaultTime",
              slurm_duration(value),
              {}};
  if (far) add_evidence(ctx, *ctx.simulation(), flag.part, *far, fix, f);
}

void check(const LintContext& ctx, FindingSink& sink) {
  const Config& c = ctx.config();
  if (c.scheduler.type != "sched/backfill") return;
  const Simulation* sim = ctx.simulation();
  std::vector<Flagged> found;  // config order
  for (std::size_t i = 0; i < c.partitions.size(); ++i) {
    const Partition& p = c.partitions[i];
    if (!judged(c, p)) continue;
    std::optional<PartJobs> far = far_above(sim, p, i);
    if (far || (p.max_time > kDay && p.default_time >= p.max_time)) found.push_back({i, std::move(far)});
  }
  std::vector<std::pair<std::string, std::string>> values;
  for (const Flagged& x : found) {
    if (x.far) values.emplace_back(c.partitions[x.part].name, slurm_duration(fixed_default(*x.far)));
  }
  const PartitionsFix fix = partitions_fix("DefaultTime", values);
  for (const Flagged& x : found) report(ctx, sink, x, fix);
}

}  // namespace

}  // namespace sa::rules

SA_RULE({"BF008", "default-time-far-above-run-times", Severity::kWarning, Check::kBackfillLimits, SimUse::kEvidence,
         "DefaultTime equal to a long MaxTime, or far above run times: backfill plans jobs without --time as that long",
         check})
