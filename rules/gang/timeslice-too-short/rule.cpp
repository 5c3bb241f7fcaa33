// GANG004: SchedulerTimeSlice is shorter than Slurm's default of 30 s on a cluster that
// timeslices. Every slice the gang scheduler suspends the jobs that ran and resumes the ones
// that waited: slurmctld sends a suspend or resume RPC to each slurmd of each job, which
// stops or continues every task, and the resumed job starts on cold caches (and on pages
// evicted meanwhile, where memory is tight). That costs on the order of a second per switch
// whatever the slice, so the share of CPU time lost grows as the slice shrinks: about 3 %
// at 30 s, 10 % at 10 s, 20 % at 5 s (Slurm's minimum). The simulation counts the switches;
// the cost per switch is an assumption, stated in the evidence.
#include <algorithm>

#include <fmt/format.h>

#include "rules/analysis/backfill_stats.h"
#include "rules/analysis/evidence.h"
#include "rules/framework/context.h"
#include "rules/framework/rule.h"
#include "rules/framework/sink.h"

namespace sa::rules {

namespace {

constexpr std::uint32_t kDefaultSlice = 30;  // Slurm's default; below it the overhead passes ~3 %
constexpr double kSwitchCostSeconds = 1.0;   // suspend + resume of one job, all nodes (assumed)

// The partitions whose jobs can be timesliced: FORCE:n / YES:n with n >= 2.
std::vector<const Partition*> timesliced(const Config& c) {
  std::vector<const Partition*> out;
  for (const Partition& p : c.partitions) {
    if (p.state == PartitionState::kUp && !p.nodes.empty() && share_rows(p) >= 2) out.push_back(&p);
  }
  return out;
}

nlohmann::json run_metrics(const Simulation& sim) {
  double running = 0;
  std::uint64_t suspends = 0;
  std::size_t jobs = 0;
  for (const engine::SimJob& j : sim.result.jobs) {
    const engine::JobRare& rare = j.rare.get();
    if (rare.suspends == 0 || j.start == engine::kNoTime) continue;
    const std::int64_t end = j.end != engine::kNoTime ? j.end : sim.result.end;
    running += static_cast<double>(std::max<std::int64_t>(0, end - j.start - rare.tot_sus_time));
    suspends += rare.suspends;
    ++jobs;
  }
  nlohmann::json m = gang_json(sim);
  m["scheduler_time_slice"] = sim.site.config->scheduler.time_slice;
  m["timeslice_rounds"] = sim.result.counters.timeslices;
  m["mean_suspends_per_suspended_job"] =
      jobs ? rounded3(static_cast<double>(suspends) / static_cast<double>(jobs)) : 0.0;
  m["suspends_per_running_hour"] = running > 0 ? rounded3(static_cast<double>(suspends) * 3600 / running) : 0.0;
  m["switch_cost_seconds_assumed"] = kSwitchCostSeconds;
  m["estimated_switch_overhead_share"] =
      running > 0 ? rounded3(static_cast<double>(suspends) * kSwitchCostSeconds / running) : 0.0;
  m["utilization"] = rounded3(sim.metrics.utilization);
  m["wait_seconds"] = wait_json(sim.metrics.overall);
  return m;
}

void check(const LintContext& ctx, FindingSink& sink) {
  const Config& c = ctx.config();
  const std::uint32_t slice = c.scheduler.time_slice;
  if (!c.preempt.mode.gang || slice >= kDefaultSlice) return;
  const std::vector<const Partition*> parts = timesliced(c);
  if (parts.empty()) return;
  const double overhead = kSwitchCostSeconds / static_cast<double>(slice);
  Finding& f = sink.report(
      ctx.setting_loc("SchedulerTimeSlice"),
      fmt::format("SchedulerTimeSlice={} s is short for timeslicing ('{}' lets {} jobs share a CPU): every {} s gang "
                  "suspends and resumes each timesliced job on all its nodes, and at about {:.0f} s per switch that "
                  "is some {:.0f}% of their CPU time, against {:.0f}% at the default of {} s",
                  slice, parts.front()->name, share_rows(*parts.front()), slice, kSwitchCostSeconds, 100 * overhead,
                  100 * kSwitchCostSeconds / kDefaultSlice, kDefaultSlice));
  for (const Partition* p : parts) {
    Location l = ctx.conf_loc(p->loc);
    l.note = fmt::format("timesliced, {} jobs per CPU", share_rows(*p));
    f.related.push_back(l);
  }
  f.fix = Fix{fmt::format("set SchedulerTimeSlice={} (or longer: jobs then wait longer for their turn, but switch "
                          "less)",
                          kDefaultSlice),
              "SchedulerTimeSlice",
              std::to_string(kDefaultSlice),
              {}};
  const Simulation* sim = ctx.simulation();
  if (!sim) return;
  f.evidence = simulated_evidence(*sim);
  f.evidence["metrics"] = run_metrics(*sim);
  const std::uint32_t most = sim->metrics.gang.stretch_max_job;
  for (const engine::SimJob& j : sim->result.jobs) {
    if (most && j.req.id == most) f.evidence["examples"].push_back(job_json(*sim, j));
  }
  const SimulationPtr after_run =
      ctx.resimulate(fmt::format("SchedulerTimeSlice={}", kDefaultSlice),
                     {ConfigEdit::setting("SchedulerTimeSlice", std::to_string(kDefaultSlice))});
  const Simulation& after = *after_run;
  f.fix->resimulated = run_metrics(after);
  f.fix->resimulated["scenario"] = scenario_json(after.scenario);
}

}  // namespace

}  // namespace sa::rules

SA_RULE({"GANG004", "timeslice-too-short", Severity::kWarning, Check::kGangOversubscription, SimUse::kEvidence,
         "SchedulerTimeSlice is below 30 s on a timeslicing cluster, so suspend/resume overhead eats CPU time", check})
