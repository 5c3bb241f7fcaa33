// PRIO005: in the simulation, neighbouring pending jobs of different users mostly have the
// same priority, so the scheduler orders them by submit time and job id: multifactor
// weights are set, but the queue is first come, first served in disguise. Found in the
// run's sprio snapshots, not from the weights, because what ties depends on the load
// (which users queue together, how sizes and waits differ).
#include <fmt/format.h>

#include "rules/analysis/evidence.h"
#include "rules/analysis/queue_pairs.h"
#include "rules/framework/context.h"
#include "rules/framework/rule.h"
#include "rules/framework/sink.h"

namespace sa::rules {

namespace {

// Queues shorter than this are decided by whoever is there; ten jobs make an order.
constexpr std::size_t kMinQueue = 10;
// A quarter of all decisions between different users left to submit time is far beyond
// the occasional exact tie a working policy produces (Fair Tree ranks users apart, and age
// separates jobs submitted minutes apart), yet low enough to catch a policy that works
// for some partitions only.
constexpr double kTiedShare = 0.25;
// Fewer pairs than this say nothing about the policy.
constexpr std::size_t kMinPairs = 20;

struct Weight {
  const char* key;
  double value;
};

// The largest weight in effect: the factor the site expected to order its queue.
Weight largest(const EffectiveWeights& w) {
  const Weight all[] = {{"PriorityWeightFairshare", w.fairshare},
                        {"PriorityWeightAge", w.age},
                        {"PriorityWeightQOS", w.qos},
                        {"PriorityWeightPartition", w.partition},
                        {"PriorityWeightAssoc", w.assoc},
                        {"PriorityWeightJobSize", w.job_size},
                        {"PriorityWeightTRES", w.tres}};
  Weight best = all[0];
  for (const Weight& x : all) {
    if (x.value > best.value) best = x;
  }
  return best;
}

void check(const LintContext& ctx, FindingSink& sink) {
  const Simulation* sim = ctx.simulation();
  const EffectiveWeights w = effective_weights(ctx.config());
  if (!sim || !w.any()) return;
  const TieStats t = adjacent_ties(*sim, kMinQueue);
  if (t.cross_user < kMinPairs || t.cross_user_tied_share() < kTiedShare) return;
  const Weight top = largest(w);
  Finding& f = sink.report(
      ctx.setting_loc(top.key),
      fmt::format("in the simulation {:.0f}% of neighbouring pending jobs of different users ({} of {} pairs, in {} "
                  "queues of {} or more jobs) had equal priority and were ordered by submit time and job id: with "
                  "{}={} as the largest weight, multifactor priority does not separate these users, so the queue is "
                  "first come, first served",
                  t.cross_user_tied_share() * 100.0, t.cross_user_tied, t.cross_user, t.queues, kMinQueue, top.key,
                  points(top.value)));
  f.evidence = simulated_evidence(*sim);
  f.evidence["metrics"] = tie_metrics(t);
  for (const auto& [a, b] : t.examples) {
    f.evidence["examples"].push_back(row_json(*sim, a));
    f.evidence["examples"].push_back(row_json(*sim, b));
  }
  f.fix =
      Fix{"give a factor that differs between users (fair share, QOS, association priority) a weight large "
          "enough to separate them: for Fair Tree at least the number of user associations",
          {},
          {},
          {}};
}

}  // namespace

}  // namespace sa::rules

SA_RULE({"PRIO005", "priority-ties-settled-by-submit-time", Severity::kWarning, Check::kWeightResolution,
         SimUse::kRequired, "multifactor weights are set, yet most queue decisions between users fall to submit time",
         check})
