// CONF101: PriorityWeight* set to nonzero values while PriorityType is priority/basic
// (written, or the default before 23.11). The basic plugin gives each job one less than the
// job before it and reads no weight, so the weights, and the fair-share tree behind them,
// change nothing: jobs run in submission order within each PriorityTier.
#include <fmt/format.h>

#include "rules/framework/context.h"
#include "rules/framework/rule.h"
#include "rules/framework/sink.h"

namespace sa::rules {

namespace {

const char* const kWeights[] = {"PriorityWeightAge",     "PriorityWeightAssoc",     "PriorityWeightFairshare",
                                "PriorityWeightJobSize", "PriorityWeightPartition", "PriorityWeightQOS",
                                "PriorityWeightTRES"};

bool nonzero(const Setting& s) {
  // PriorityWeightTRES is a list: any weight in it counts.
  for (char ch : s.value) {
    if (ch >= '1' && ch <= '9') return true;
  }
  return false;
}

void check(const LintContext& ctx, FindingSink& sink) {
  const Config& c = ctx.config();
  if (c.priority.type != "priority/basic") return;
  std::vector<const Setting*> set;
  std::string listed;
  for (const char* key : kWeights) {
    const Setting* s = c.setting(key);
    if (!s || !nonzero(*s)) continue;
    set.push_back(s);
    listed += fmt::format("{}{}={}", listed.empty() ? "" : ", ", s->key, s->value);
  }
  if (set.empty()) return;
  const bool written = c.setting("PriorityType") != nullptr;
  Finding& f = sink.report(
      ctx.setting_loc("PriorityType"),
      fmt::format("PriorityType is priority/basic{} but {} {} set: the basic plugin reads no weights and orders jobs "
                  "by submission within each PriorityTier, so {} no effect",
                  written ? "" : fmt::format(" (the default before 23.11; read as {})", c.version.to_string()), listed,
                  set.size() == 1 ? "is" : "are", set.size() == 1 ? "it has" : "they have"));
  for (const Setting* s : set) {
    Location r = ctx.conf_loc(s->loc);
    r.note = s->key;
    f.related.push_back(r);
  }
  f.fix = Fix{"set PriorityType=priority/multifactor to use the weights (and fair share), or delete them",
              "PriorityType",
              "priority/multifactor",
              {}};
}

}  // namespace

}  // namespace sa::rules

SA_RULE({"CONF101", "priority-weights-ignored", Severity::kWarning, Check::kConfig, SimUse::kStatic,
         "PriorityWeight* values under priority/basic, which ignores them", check})
