// GANG005: PreemptMode includes GANG, but no partition lets jobs share CPUs and no job can be
// suspended by preemption, so the gang scheduler never has two jobs to take turns. Gang
// timeslices only jobs allocated the same resources, and only the select plugin puts them
// there: a partition needs OverSubscribe=FORCE (the gang guide's instruction) or YES:n for
// jobs that ask for it. The usual cause is a site that wanted timeslicing and set GANG
// alone: jobs queue instead. The GANG keyword is not inert either: with it cons_tres lets
// jobs of non-sharing partitions past its first, idle-CPUs-only placement step, which is what
// puts jobs of overlapping partitions on each other's CPUs (GANG002).
//
// (PreemptMode=SUSPEND without GANG, the other half-done gang set-up, is CONF021: slurmctld
// refuses it.)
#include <fmt/format.h>

#include "rules/analysis/backfill_stats.h"
#include "rules/analysis/evidence.h"
#include "rules/framework/context.h"
#include "rules/framework/rule.h"
#include "rules/framework/sink.h"

namespace sa::rules {

namespace {

void check(const LintContext& ctx, FindingSink& sink) {
  const Config& c = ctx.config();
  if (!c.preempt.mode.gang) return;
  std::size_t up = 0;
  const Partition* example = nullptr;
  for (std::size_t i = 0; i < c.partitions.size(); ++i) {
    const Partition& p = c.partitions[i];
    if (p.state != PartitionState::kUp || p.nodes.empty()) continue;
    if (share_rows(p) >= 2 || suspendable(ctx, i)) return;  // something to timeslice or suspend
    ++up;
    if (!example) example = &p;
  }
  if (!example) return;
  Finding& f = sink.report(
      ctx.setting_loc("PreemptMode"),
      fmt::format("PreemptMode includes GANG but none of the {} partitions lets jobs share CPUs (no "
                  "OverSubscribe=FORCE or YES:n with n >= 2; '{}' has OverSubscribe={}) and no job can be suspended by "
                  "preemption: gang scheduling never has two jobs to timeslice, and jobs queue instead",
                  up, example->name, oversubscribe_text(example->oversubscribe)));
  Location p = ctx.conf_loc(example->loc);
  p.note = "no oversubscription";
  f.related.push_back(p);
  f.fix =
      Fix{"set OverSubscribe=FORCE:2 (or another count) on the partitions whose jobs should take turns, with "
          "memory tracked so the jobs fit together; or drop GANG from PreemptMode",
          "OverSubscribe",
          "FORCE:2",
          {}};
  if (const Simulation* sim = ctx.simulation()) {
    f.evidence = simulated_evidence(*sim);
    f.evidence["metrics"] = {{"timeslice_rounds", sim->result.counters.timeslices},
                             {"suspends", sim->result.counters.suspends},
                             {"wait_seconds", wait_json(sim->metrics.overall)},
                             {"utilization", rounded3(sim->metrics.utilization)}};
  }
}

}  // namespace

}  // namespace sa::rules

SA_RULE({"GANG005", "gang-without-oversubscription", Severity::kWarning, Check::kGangOversubscription,
         SimUse::kEvidence,
         "PreemptMode=GANG but no partition oversubscribes and nothing is suspended, so nothing is ever timesliced",
         check})
