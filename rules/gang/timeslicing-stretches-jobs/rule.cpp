// GANG006: in the simulation, jobs of a timesliced partition spend a large share of their
// allocated time suspended: the gang scheduler (gang.c _cycle_job_list) gives each of the
// FORCE:n jobs sharing a CPU its turn every SchedulerTimeSlice, so with n jobs stacked a
// job's wall time is up to n times its run time. Suspended time does not count against the
// time limit (job_mgr.c resume), so a job limited to 12 hours can hold its nodes and memory
// for a day or more; users see jobs that take two or three times as long as they should.
// Fires when suspended CPU time is at least half the running CPU time in a partition that
// timeslices (FORCE:n / YES:n, n >= 2, with GANG): suspension by preemption of a lower
// tier alone (FORCE:1) is the preemption design, not this.
#include <algorithm>

#include <fmt/format.h>

#include "rules/analysis/backfill_stats.h"
#include "rules/analysis/evidence.h"
#include "rules/framework/context.h"
#include "rules/framework/rule.h"
#include "rules/framework/sink.h"

namespace sa::rules {

namespace {

constexpr double kSuspendedPerRunning = 0.5;  // suspended CPU time >= half the running CPU time

struct Stretch {
  std::vector<double> values;               // wall / run of the partition's finished jobs
  std::vector<const engine::SimJob*> most;  // stretched most, up to five
  double mean = 1, p95 = 1;
};

using engine::stretch_of;

Stretch partition_stretch(const Simulation& sim, std::size_t part) {
  Stretch s;
  for (const engine::SimJob& j : sim.result.jobs) {
    if (j.state != engine::JobState::kDone || j.start == engine::kNoTime || j.run_rec < 0) continue;
    if (j.run_or_first_rec().part != part || j.end_state == engine::EndState::kPreempted) continue;
    s.values.push_back(stretch_of(j));
    s.most.push_back(&j);
  }
  if (s.values.empty()) return s;
  const engine::WaitStats st = wait_stats(s.values);  // the same mean and p95 as for waits
  s.mean = st.mean;
  s.p95 = st.p95;
  std::stable_sort(s.most.begin(), s.most.end(), [](auto* a, auto* b) { return stretch_of(*a) > stretch_of(*b); });
  if (s.most.size() > 5) s.most.resize(5);
  return s;
}

nlohmann::json run_metrics(const Simulation& sim, const Partition& p, const Stretch& s) {
  auto it = sim.metrics.gang.suspended_share.find(p.name);
  const double share = it == sim.metrics.gang.suspended_share.end() ? 0.0 : it->second;
  auto waits = sim.metrics.by_partition.find(p.name);
  nlohmann::json m = {{"partition", p.name},
                      {"suspended_share_of_allocated_cpu_time", rounded3(share)},
                      {"finished_jobs", s.values.size()},
                      {"stretch_mean", rounded3(s.mean)},
                      {"stretch_p95", rounded3(s.p95)},
                      {"timeslice_rounds", sim.result.counters.timeslices}};
  if (waits != sim.metrics.by_partition.end()) m["wait_seconds"] = wait_json(waits->second);
  return m;
}

// A partition that timeslices past the threshold. Its fix is re-simulated once for every such
// partition together (partitions_fix), so many of them cost one re-simulation, not one each.
struct Flagged {
  std::size_t part;
  double share;  // suspended share of the partition's allocated CPU time
};

void report(const LintContext& ctx, FindingSink& sink, const Simulation& sim, const Flagged& flag,
            const PartitionsFix& fix) {
  const std::size_t part = flag.part;
  const double share = flag.share;
  const Partition& p = ctx.config().partitions[part];
  const Stretch s = partition_stretch(sim, part);
  const std::string os = oversubscribe_text(p.oversubscribe);
  Finding& f = sink.report(
      ctx.conf_loc(p.loc),
      fmt::format(
          "timeslicing stretches the jobs of partition '{}' (OverSubscribe={}): in the simulation they spent "
          "{:.0f}% of their allocated CPU time suspended ({:.0f}% of the CPU time they ran), and, job by job, a "
          "finished job's wall time was {:.1f} times its run time on average, {:.1f} at the 95th percentile "
          "(large jobs, suspended longest, weigh more in the CPU-time figures); suspended time "
          "does not count against the time limit, so these jobs hold their nodes and memory that much longer",
          p.name, os, 100 * share, 100 * share / std::max(1e-9, 1 - share), s.mean, s.p95));
  Location slice = ctx.setting_loc("SchedulerTimeSlice");
  slice.note = fmt::format("SchedulerTimeSlice={}", ctx.config().scheduler.time_slice);
  f.related.push_back(slice);
  f.evidence = simulated_evidence(sim);
  f.evidence["metrics"] = run_metrics(sim, p, s);
  f.evidence["metrics"]["gang"] = gang_json(sim);
  for (const engine::SimJob* j : s.most) {
    nlohmann::json e = job_json(sim, *j);
    e["stretch"] = rounded3(stretch_of(*j));
    e["suspended_seconds"] = j->rare.get().tot_sus_time;
    f.evidence["examples"].push_back(std::move(e));
  }
  f.fix = Fix{fmt::format("if turnaround matters more than an early start, lower partition '{}' to "
                          "OverSubscribe=FORCE:1 (preemption only, no timeslicing) or a smaller FORCE:n: jobs then "
                          "wait in the queue instead of being suspended mid-run",
                          p.name),
              "OverSubscribe",
              "FORCE:1",
              {}};
  const SimulationPtr after_run = ctx.resimulate(fix.label, fix.edits);
  const Simulation& after = *after_run;
  f.fix->resimulated = run_metrics(after, after.site.config->partitions[part], partition_stretch(after, part));
  f.fix->resimulated["scenario"] = scenario_json(after.scenario);
}

void check(const LintContext& ctx, FindingSink& sink) {
  const Config& c = ctx.config();
  if (!c.preempt.mode.gang) return;
  const Simulation* sim = ctx.simulation();
  if (!sim) return;
  const double threshold = kSuspendedPerRunning / (1 + kSuspendedPerRunning);  // as a share of run + suspended
  std::vector<Flagged> flagged;
  for (std::size_t i = 0; i < c.partitions.size(); ++i) {
    const Partition& p = c.partitions[i];
    if (p.state != PartitionState::kUp || share_rows(p) < 2) continue;
    auto it = sim->metrics.gang.suspended_share.find(p.name);
    if (it == sim->metrics.gang.suspended_share.end() || it->second < threshold) continue;
    flagged.push_back({i, it->second});
  }
  std::vector<std::pair<std::string, std::string>> values;
  for (const Flagged& x : flagged) values.emplace_back(c.partitions[x.part].name, "FORCE:1");
  const PartitionsFix fix = partitions_fix("OverSubscribe", values);
  for (const Flagged& x : flagged) report(ctx, sink, *sim, x, fix);
}

}  // namespace

}  // namespace sa::rules

SA_RULE({"GANG006", "timeslicing-stretches-jobs", Severity::kWarning, Check::kGangOversubscription, SimUse::kRequired,
         "in the simulation, timesliced jobs spend half as long suspended as running or more", check})
