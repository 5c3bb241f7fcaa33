// PRIO003: a priority weight whose factor is 0 for every job at this site, so the weight
// does nothing: no QOS has a priority, no association has one, or every partition's
// PriorityJobFactor is 0. A constant non-zero factor orders nothing either but costs nothing
// (TIER002 notes it where the factors differ only between tiers), and fair share without
// slurmdbd and untracked TRES weights are CONF043 and CONF040.
#include <algorithm>

#include <fmt/format.h>

#include "rules/analysis/queue_pairs.h"
#include "rules/framework/context.h"
#include "rules/framework/rule.h"
#include "rules/framework/sink.h"

namespace sa::rules {

namespace {

void report(const LintContext& ctx, FindingSink& sink, const std::string& key, double weight, const std::string& why,
            const std::string& fix) {
  Finding& f = sink.report(ctx.setting_loc(key),
                           fmt::format("{}={} weights a factor that is 0 for every job: {}", key, points(weight), why));
  f.fix = Fix{fix, key, "0", {}};
}

// Only with a QOS table: without one the site's QOS priorities are unknown.
void qos(const LintContext& ctx, FindingSink& sink, double weight) {
  if (weight <= 0 || !ctx.has_qos_table()) return;
  const auto& q = ctx.qos().records;
  if (std::any_of(q.begin(), q.end(), [](const QosRecord& r) { return r.priority != 0; })) return;
  Finding& f = sink.report(ctx.setting_loc("PriorityWeightQOS"),
                           fmt::format("PriorityWeightQOS={} weights a factor that is 0 for every job: none of the {} "
                                       "QOS in the QOS table has a Priority",
                                       points(weight), q.size()));
  Location table = ctx.acct_loc(q.front().loc);
  table.note = "the QOS table";
  f.related.push_back(table);
  f.fix =
      Fix{"give the QOS that should be favoured a Priority (sacctmgr modify qos NAME set Priority=N), or set "
          "PriorityWeightQOS=0",
          "PriorityWeightQOS",
          "0",
          {}};
}

// Only with the association tree. INFINITE counts as 0, as Slurm's factor does.
void assoc(const LintContext& ctx, FindingSink& sink, double weight) {
  if (weight <= 0 || !ctx.tree()) return;
  const auto& a = ctx.tree()->assocs;
  if (std::any_of(a.begin(), a.end(),
                  [](const Association& x) { return x.priority && *x.priority != 0 && *x.priority != 0xFFFFFFFFU; })) {
    return;
  }
  report(ctx, sink, "PriorityWeightAssoc", weight,
         fmt::format("none of the {} associations in the tree has a Priority", a.size()),
         "give the associations that should be favoured a Priority (sacctmgr modify account NAME set Priority=N), or "
         "set PriorityWeightAssoc=0");
}

// Slurm applies the partition term only for a non-zero PriorityJobFactor.
void partition(const LintContext& ctx, FindingSink& sink, double weight) {
  const auto& p = ctx.config().partitions;
  if (weight <= 0 || p.empty()) return;
  if (std::any_of(p.begin(), p.end(), [](const Partition& x) { return x.priority_job_factor != 0; })) return;
  report(ctx, sink, "PriorityWeightPartition", weight,
         fmt::format("every one of the {} partitions has PriorityJobFactor=0", p.size()),
         "give the partitions PriorityJobFactor values that express the intended order, or set "
         "PriorityWeightPartition=0");
}

void check(const LintContext& ctx, FindingSink& sink) {
  const EffectiveWeights w = effective_weights(ctx.config());
  qos(ctx, sink, w.qos);
  assoc(ctx, sink, w.assoc);
  partition(ctx, sink, w.partition);
}

}  // namespace

}  // namespace sa::rules

SA_RULE({"PRIO003", "weighted-factor-always-zero", Severity::kWarning, Check::kWeightResolution, SimUse::kStatic,
         "a non-zero priority weight whose factor is 0 for every job at this site", check})
