// PRIO006: a factor whose whole range age outgrows within the hour, so age decides. The age
// term grows by PriorityWeightAge / PriorityMaxAge points a second until the job reaches
// PriorityMaxAge (priority_multifactor.c); fair share and job size are bounded by their
// weights (both factors lie in [0, 1]). When age adds a factor's whole weight in less than
// an hour of waiting, that factor only orders jobs that became eligible within that time of
// each other: every job that waited longer ranks ahead whatever its fair share or size.
// The reverse comparison (age or job size below one Fair Tree rank step) is PRIO002's, a
// factor under 100 points PRIO004's, and a PriorityMaxAge under an hour CONF103/CONF104's.
#include <fmt/format.h>

#include "rules/analysis/evidence.h"
#include "rules/analysis/queue_pairs.h"
#include "rules/framework/context.h"
#include "rules/framework/rule.h"
#include "rules/framework/sink.h"

namespace sa::rules {

namespace {

constexpr std::int64_t kHour = 3600;
constexpr double kNice = 100;  // below one `sbatch --nice` the factor is PRIO004's

void add_evidence(const Simulation& sim, double engine::PriorityFactors::*factor, double weight, Finding& f) {
  const AgeOverrules o = age_overrules(sim, factor, weight);
  if (o.factor_prefers == 0) return;  // the factor never differed between neighbours: nothing to show
  f.evidence = simulated_evidence(sim);
  f.evidence["metrics"] = {{"adjacent_pending_pairs_of_different_users", o.cross_user},
                           {"pairs_where_the_factor_preferred_the_job_behind", o.factor_prefers},
                           {"of_those_kept_ahead_by_age", o.age_decided}};
  for (const auto& [a, b] : o.examples) {
    f.evidence["examples"].push_back(row_json(sim, a));
    f.evidence["examples"].push_back(row_json(sim, b));
  }
  f.message += fmt::format(
      " (in the simulation, age kept the job ahead in {} of {} neighbouring pending pairs of "
      "different users where this factor preferred the job behind)",
      o.age_decided, o.factor_prefers);
}

void flag(const LintContext& ctx, FindingSink& sink, const std::string& key, const std::string& factor_name,
          std::uint32_t written, double weight, double engine::PriorityFactors::*factor) {
  const PrioritySettings& p = ctx.config().priority;
  const double age = effective_weights(ctx.config()).age;
  if (weight < kNice || age <= weight) return;
  // Seconds of extra waiting in which age adds the factor's whole weight.
  const auto outgrown = static_cast<std::int64_t>(weight * static_cast<double>(p.max_age) / age);
  if (outgrown >= kHour) return;
  Finding& f = sink.report(
      ctx.setting_loc(key),
      fmt::format("{}={} is outgrown by age in {} of waiting (PriorityWeightAge={} over PriorityMaxAge={} adds {:.0f} "
                  "points an hour): the {} factor can only order jobs that became eligible within {} of each other, "
                  "and age decides between all others",
                  key, written, slurm_duration(std::max<std::int64_t>(outgrown, 1)), p.weight_age,
                  slurm_duration(p.max_age), age * kHour / static_cast<double>(p.max_age), factor_name,
                  slurm_duration(std::max<std::int64_t>(outgrown, 1))));
  Location a = ctx.setting_loc("PriorityWeightAge");
  a.note = "the age weight that outgrows it";
  f.related.push_back(a);
  const std::uint64_t needed = round_up_125(age * static_cast<double>(kHour) * 24 / static_cast<double>(p.max_age));
  f.fix = Fix{fmt::format("if {} is meant to matter, raise {} to at least what age adds in a day ({}), or lower "
                          "PriorityWeightAge; if age is meant to decide, set {}=0 so the configuration says so",
                          factor_name, key, needed, key),
              key,
              std::to_string(needed),
              {}};
  if (const Simulation* sim = ctx.simulation()) add_evidence(*sim, factor, weight, f);
}

void check(const LintContext& ctx, FindingSink& sink) {
  const Config& c = ctx.config();
  const PrioritySettings& p = c.priority;
  // A PriorityMaxAge under an hour saturates age itself: CONF103/CONF104 own that.
  if (!p.multifactor() || p.max_age < kHour) return;
  const EffectiveWeights w = effective_weights(c);
  flag(ctx, sink, "PriorityWeightFairshare", "fair-share", p.weight_fairshare, w.fairshare,
       &engine::PriorityFactors::fairshare);
  flag(ctx, sink, "PriorityWeightJobSize", "job-size", p.weight_job_size, w.job_size,
       &engine::PriorityFactors::job_size);
}

}  // namespace

}  // namespace sa::rules

SA_RULE({"PRIO006", "factor-outgrown-by-age", Severity::kInfo, Check::kWeightResolution, SimUse::kEvidence,
         "age adds a factor's whole weight within an hour of waiting, so age decides and the factor breaks ties",
         check})
