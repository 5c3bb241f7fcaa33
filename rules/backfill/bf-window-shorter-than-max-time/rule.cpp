// BF001: a partition's MaxTime is longer than bf_window. Backfill plans only bf_window
// ahead, so a job whose expected start lies beyond it gets no reservation and smaller jobs
// keep backfilling ahead of it.
#include <algorithm>

#include <fmt/format.h>

#include "rules/framework/context.h"
#include "rules/framework/evidence.h"
#include "rules/framework/rule.h"
#include "rules/framework/sink.h"

namespace sa::rules {

namespace {

struct LongJobs {
  engine::WaitStats waits;
  std::vector<const engine::SimJob*> worst;
};

// Waits of the partition's jobs whose time limit exceeds the window: the ones it cannot plan for.
LongJobs long_jobs(const Simulation& sim, std::int64_t window, std::size_t part) {
  LongJobs out;
  std::vector<double> w;
  for (const engine::SimJob& j : sim.result.jobs) {
    if (j.recs.empty() || j.state == engine::JobState::kRejected) continue;
    const engine::SimRecord& rec = j.run_or_first_rec();
    if (rec.part != part || (rec.time_limit >= 0 && rec.time_limit <= window)) continue;
    w.push_back(static_cast<double>(wait_of(sim, j)));
    out.worst.push_back(&j);
  }
  out.waits = wait_stats(std::move(w));
  std::stable_sort(out.worst.begin(), out.worst.end(), [&](auto* a, auto* b) { return wait_of(sim, *a) > wait_of(sim, *b); });
  if (out.worst.size() > 5) out.worst.resize(5);
  return out;
}

nlohmann::json run_metrics(const Simulation& sim, const LongJobs& lj) {
  return {{"long_job_waits", wait_json(lj.waits)},
          {"utilization", sim.metrics.utilization},
          {"pending_at_end", sim.metrics.pending_at_end},
          {"backfill_plans_beyond_window", sim.result.counters.bf_no_resv_beyond_window}};
}

// Every finding re-simulates the same fix (bf_window up to the longest MaxTime, one cached
// run) and shows its own partition's long jobs before and after.
void add_evidence(const LintContext& ctx, Finding& f, std::int64_t window, std::int64_t longest, std::size_t part) {
  const std::int64_t minutes = (longest + 59) / 60;
  const std::string label = fmt::format("bf_window={}", minutes);
  auto raise = [minutes](Config& c) { c.scheduler.bf_window = minutes * 60; };
  ctx.prefetch(label, raise);  // runs beside the base simulation
  const Simulation* sim = ctx.simulation();
  f.fix = Fix{fmt::format("raise bf_window to {} (minutes, the longest MaxTime) in SchedulerParameters; a wider "
                          "window costs backfill time, so consider a larger bf_resolution with it",
                          minutes),
              "SchedulerParameters", fmt::format("bf_window={}", minutes), {}};
  if (!sim) return;
  const LongJobs before = long_jobs(*sim, window, part);
  f.evidence = simulated_evidence(*sim);
  f.evidence["metrics"] = run_metrics(*sim, before);
  for (const engine::SimJob* j : before.worst) f.evidence["examples"].push_back(job_json(*sim, *j));
  const Simulation& after = ctx.resimulate(label, raise);
  f.fix->resimulated = run_metrics(after, long_jobs(after, window, part));
  f.fix->resimulated["scenario"] = scenario_json(after.scenario);
}

void check(const LintContext& ctx, FindingSink& sink) {
  const Config& c = ctx.config();
  if (c.scheduler.type != "sched/backfill") return;
  const std::int64_t window = c.scheduler.bf_window;
  std::int64_t longest = 0;
  for (const Partition& p : c.partitions) longest = std::max(longest, p.max_time);
  for (std::size_t i = 0; i < c.partitions.size(); ++i) {
    const Partition& p = c.partitions[i];
    if (p.max_time >= 0 && p.max_time <= window) continue;
    if (p.state != PartitionState::kUp) continue;
    const std::string limit = p.max_time < 0 ? "UNLIMITED" : slurm_duration(p.max_time);
    Finding& f = sink.report(
        ctx.conf_loc(p.loc),
        fmt::format("partition '{}' allows jobs of {} but bf_window is {} ({} min): backfill gives jobs that "
                    "would start beyond the window no reservation, so smaller jobs can keep starting ahead of them",
                    p.name, limit, slurm_duration(window), window / 60));
    Location w = ctx.sched_param_loc("bf_window");
    w.note = "bf_window";
    f.related.push_back(w);
    if (p.max_time > 0) add_evidence(ctx, f, window, longest, i);
  }
}

}  // namespace

}  // namespace sa::rules

SA_RULE({"BF001", "bf-window-shorter-than-max-time", Level::kWarning, Check::kBackfillLimits, SimUse::kEvidence,
         "a partition's MaxTime exceeds bf_window, so its longest jobs get no backfill reservation", check})
