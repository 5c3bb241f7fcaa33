// BF008: a partition's DefaultTime that gives backfill nothing to plan with. A job without
// --time gets DefaultTime as its limit (job_mgr.c _set_time_limit, after any QOS or
// association MaxWall), and backfill plans every job by its limit, not its run time
// (backfill.c _attempt_backfill): a job planned as days long fits no gap, so it starts only
// when nodes fall free on their own, and while it runs the pending jobs' reservations are
// set as if it held its nodes to the end of its limit. Fires when DefaultTime is written
// and equals (or passes) a MaxTime longer than a day: the default then says nothing a
// missing DefaultTime would not. With a run, also when DefaultTime is ten times the median
// run time of the partition's jobs and jobs without --time waited longer than those with.
#include <algorithm>

#include <fmt/format.h>

#include "rules/framework/context.h"
#include "rules/framework/evidence.h"
#include "rules/framework/rule.h"
#include "rules/framework/sink.h"

namespace sa::rules {

namespace {

constexpr std::int64_t kDay = 86400;
constexpr double kRunTimes = 10;  // DefaultTime >= 10 x the median run time

struct PartJobs {
  engine::WaitStats with_time, without_time;  // waits, by whether the job gave --time
  double median_run = 0;                      // of the jobs that ran
  std::vector<const engine::SimJob*> examples;  // jobs without --time, longest wait first
};

PartJobs part_jobs(const Simulation& sim, std::size_t part) {
  PartJobs out;
  std::vector<double> with, without, runs;
  for (const engine::SimJob& j : sim.result.jobs) {
    if (j.state == engine::JobState::kRejected || j.recs.empty() || j.run_or_first_rec().part != part) continue;
    const bool given = j.req.time_limit != engine::kNoTime && j.req.time_limit > 0;
    (given ? with : without).push_back(static_cast<double>(wait_of(sim, j)));
    if (j.start != engine::kNoTime) runs.push_back(static_cast<double>(j.req.run_time));
    if (!given) out.examples.push_back(&j);
  }
  out.with_time = wait_stats(std::move(with));
  out.without_time = wait_stats(std::move(without));
  out.median_run = wait_stats(std::move(runs)).median;
  std::stable_sort(out.examples.begin(), out.examples.end(),
                   [&](auto* a, auto* b) { return wait_of(sim, *a) > wait_of(sim, *b); });
  if (out.examples.size() > 5) out.examples.resize(5);
  return out;
}

void add_evidence(const Simulation& sim, const PartJobs& pj, Finding& f) {
  f.evidence = simulated_evidence(sim);
  f.evidence["metrics"] = {{"wait_seconds_with_time", wait_json(pj.with_time)},
                           {"wait_seconds_without_time", wait_json(pj.without_time)},
                           {"median_run_seconds", std::llround(pj.median_run)}};
  for (const engine::SimJob* j : pj.examples) f.evidence["examples"].push_back(job_json(sim, *j));
}

void check_partition(const LintContext& ctx, FindingSink& sink, std::size_t i) {
  const Partition& p = ctx.config().partitions[i];
  if (!p.default_time_set || p.default_time < 0 || p.state != PartitionState::kUp || p.nodes.empty()) return;
  const bool equals_max = p.max_time > kDay && p.default_time >= p.max_time;
  const Simulation* sim = ctx.simulation();
  const PartJobs pj = sim ? part_jobs(*sim, i) : PartJobs{};
  const bool far_above = pj.median_run > 0 && p.default_time > kDay &&
                         static_cast<double>(p.default_time) >= kRunTimes * pj.median_run &&
                         pj.without_time.jobs > 0 && pj.without_time.median > pj.with_time.median;
  if (!equals_max && !far_above) return;
  const std::string dt = slurm_duration(p.default_time);
  std::string message =
      equals_max
          ? fmt::format("partition '{}' sets DefaultTime={} equal to its MaxTime ({}): backfill plans every job "
                        "without --time as {} long, so such jobs fit no gap and the reservations of the jobs behind "
                        "them assume they hold their nodes to the end",
                        p.name, dt, slurm_duration(p.max_time), dt)
          : fmt::format("partition '{}' sets DefaultTime={}, {:.0f} times the median run time of its jobs in the "
                        "simulation ({}): backfill plans every job without --time as {} long, so such jobs fit no gap",
                        p.name, dt, static_cast<double>(p.default_time) / pj.median_run,
                        slurm_duration(std::llround(pj.median_run)), dt);
  if (pj.without_time.jobs > 0 && pj.with_time.jobs > 0) {
    message += fmt::format(" (simulated waits without --time: median {}, p95 {}; with --time: median {}, p95 {})",
                           slurm_duration(std::llround(pj.without_time.median)),
                           slurm_duration(std::llround(pj.without_time.p95)),
                           slurm_duration(std::llround(pj.with_time.median)),
                           slurm_duration(std::llround(pj.with_time.p95)));
  }
  Finding& f = sink.report(ctx.conf_loc(p.loc), message);
  // What a typical job runs, rounded up to the hour (an hour without a run).
  const std::int64_t typical = std::max<std::int64_t>(1, (std::llround(pj.median_run) + 3599) / 3600) * 3600;
  f.fix = Fix{fmt::format("set DefaultTime on partition '{}' to about what a typical job runs (e.g. {}), so jobs "
                          "without --time are planned short and those that need longer ask with --time",
                          p.name, slurm_duration(typical)),
              "DefaultTime", slurm_duration(typical), {}};
  if (sim) add_evidence(*sim, pj, f);
}

void check(const LintContext& ctx, FindingSink& sink) {
  if (ctx.config().scheduler.type != "sched/backfill") return;
  for (std::size_t i = 0; i < ctx.config().partitions.size(); ++i) check_partition(ctx, sink, i);
}

}  // namespace

}  // namespace sa::rules

SA_RULE({"BF008", "default-time-far-above-run-times", Level::kWarning, Check::kBackfillLimits, SimUse::kEvidence,
         "DefaultTime equal to a long MaxTime, or far above run times: backfill plans jobs without --time as that long",
         check})
