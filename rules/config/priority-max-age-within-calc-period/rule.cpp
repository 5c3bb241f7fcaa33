// CONF103: PriorityMaxAge no longer than PriorityCalcPeriod while the age factor has weight.
// The age factor is (now - accrue time) / PriorityMaxAge, capped at 1, and recomputed only
// every PriorityCalcPeriod: a job that has been through two passes already holds the whole
// PriorityWeightAge. Age then separates only jobs submitted in the last few minutes from
// the rest. A bare number is minutes, so PriorityMaxAge=7 meant as days is the usual cause.
#include <fmt/format.h>

#include "rules/analysis/evidence.h"
#include "rules/framework/context.h"
#include "rules/framework/rule.h"
#include "rules/framework/sink.h"

namespace sa::rules {

namespace {

void check(const LintContext& ctx, FindingSink& sink) {
  const PrioritySettings& p = ctx.config().priority;
  if (!p.multifactor() || p.weight_age == 0 || p.max_age <= 0) return;
  if (p.max_age > p.calc_period) return;
  Finding& f = sink.report(
      ctx.setting_loc("PriorityMaxAge"),
      fmt::format("{}, no longer than PriorityCalcPeriod ({}): the age factor reaches its maximum within two "
                  "priority passes, so PriorityWeightAge={} only sets jobs submitted in the last few minutes apart "
                  "from all others",
                  minutes_key_text(ctx.config(), "PriorityMaxAge", p.max_age), slurm_duration(p.calc_period),
                  p.weight_age));
  Location r = ctx.setting_loc("PriorityCalcPeriod");
  r.note = "PriorityCalcPeriod";
  f.related.push_back(r);
  f.fix = Fix{"give PriorityMaxAge the wait after which a job should have full age priority, in days: e.g. 7-0",
              "PriorityMaxAge",
              "7-0",
              {}};
}

}  // namespace

}  // namespace sa::rules

SA_RULE({"CONF103", "priority-max-age-within-calc-period", Severity::kWarning, Check::kConfig, SimUse::kStatic,
         "PriorityMaxAge no longer than PriorityCalcPeriod: the age factor saturates at once", check})
