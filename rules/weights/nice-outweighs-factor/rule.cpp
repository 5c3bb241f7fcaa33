// PRIO004: a weighted factor whose whole range is below 100 points, the adjustment a plain
// `sbatch --nice` (or `scontrol update job nice`) applies. Any user may nice their own jobs
// down by any amount and an operator may nice jobs up, so such a factor is noise next to a
// single nice adjustment, and next to any other factor weighted in the thousands.
#include <fmt/format.h>

#include "rules/analysis/queue_pairs.h"
#include "rules/framework/context.h"
#include "rules/framework/rule.h"
#include "rules/framework/sink.h"

namespace sa::rules {

namespace {

// `--nice` without a value: NICE_OFFSET-relative 100 (slurm_opt.c).
constexpr double kNiceDefault = 100;

void flag(const LintContext& ctx, FindingSink& sink, const std::string& key, const std::string& factor, double weight) {
  if (weight <= 0 || weight >= kNiceDefault) return;
  Finding& f = sink.report(
      ctx.setting_loc(key),
      fmt::format("{}={} lets the {} factor move a job by at most {} point{}, less than the 100 points a plain "
                  "`sbatch --nice` takes off: one nice adjustment outweighs its whole range",
                  key, points(weight), factor, points(weight), weight == 1 ? "" : "s"));
  f.fix = Fix{fmt::format("scale the priority weights so every factor meant to matter spans well over 100 points "
                          "(e.g. multiply them all by 1000), or set {}=0 if the factor is not meant to matter",
                          key),
              {},
              {},
              {}};
}

void check(const LintContext& ctx, FindingSink& sink) {
  const Config& c = ctx.config();
  if (!c.priority.multifactor()) return;
  const PriorityFlags& fl = c.priority.flags;
  const EffectiveWeights w = effective_weights(c);  // age and fair share are 0 without slurmdbd (CONF043)
  flag(ctx, sink, "PriorityWeightAge", "age", w.age);
  flag(ctx, sink, "PriorityWeightFairshare", "fair-share", w.fairshare);
  flag(ctx, sink, "PriorityWeightJobSize", "job-size", w.job_size);
  // With NO_NORMAL_* the factor is the raw priority, not bounded by 1: its range is unknown.
  if (!fl.no_normal_assoc) flag(ctx, sink, "PriorityWeightAssoc", "association", w.assoc);
  // A partition term constant inside every tier orders nothing, whatever its size, so scaling
  // it up would be the wrong advice (TIER002 says so where the factors differ between tiers).
  if (!fl.no_normal_part && !partition_term_constant_in_tiers(c))
    flag(ctx, sink, "PriorityWeightPartition", "partition", w.partition);
  if (!fl.no_normal_qos) flag(ctx, sink, "PriorityWeightQOS", "QOS", w.qos);
  if (!fl.no_normal_tres) {
    for (const TresWeight& t : c.priority.weight_tres) {
      flag(ctx, sink, "PriorityWeightTRES", fmt::format("TRES '{}'", t.tres), t.weight);
    }
  }
}

}  // namespace

}  // namespace sa::rules

SA_RULE({"PRIO004", "nice-outweighs-factor", Severity::kInfo, Check::kWeightResolution, SimUse::kStatic,
         "a weighted priority factor whose whole range is smaller than one `sbatch --nice` adjustment", check})
