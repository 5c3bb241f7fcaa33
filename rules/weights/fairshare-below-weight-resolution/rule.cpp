// PRIO001: PriorityWeightFairshare is too small to turn real fair-share differences into
// different priorities. The weighted sum is truncated to a whole number, so two factors
// closer than 1/weight land on the same priority point and the scheduler falls back to
// submit time and job id. Fair Tree hands out factors rank/n (n = user associations), so
// the step between neighbouring ranks is weight/n points; classic fair share is continuous
// and loses every difference below 1/weight.
#include <cmath>

#include <fmt/format.h>

#include "rules/analysis/evidence.h"
#include "rules/analysis/queue_pairs.h"
#include "rules/framework/context.h"
#include "rules/framework/rule.h"
#include "rules/framework/sink.h"

namespace sa::rules {

namespace {

// Classic fair share: factors 0.001 apart should still be one point apart.
constexpr double kClassicResolution = 1000;

nlohmann::json run_metrics(const Simulation& sim) { return tie_metrics(adjacent_ties(sim, 2)); }

void add_evidence(const LintContext& ctx, Finding& f, std::uint64_t suggested) {
  const Simulation* sim = ctx.simulation();
  if (!sim) return;
  const TieStats ties = adjacent_ties(*sim, 2);
  f.evidence = simulated_evidence(*sim);
  f.evidence["metrics"] = tie_metrics(ties);
  for (const auto& [a, b] : ties.examples) {
    f.evidence["examples"].push_back(row_json(*sim, a));
    f.evidence["examples"].push_back(row_json(*sim, b));
  }
  const std::string label = fmt::format("PriorityWeightFairshare={}", suggested);
  const SimulationPtr after_run =
      ctx.resimulate(label, {ConfigEdit::setting("PriorityWeightFairshare", fmt::format("{}", suggested))});
  const Simulation& after = *after_run;
  f.fix->resimulated = run_metrics(after);
  f.fix->resimulated["scenario"] = scenario_json(after.scenario);
}

void related_tree(const LintContext& ctx, Finding& f, std::size_t users) {
  const AssocTree* tree = ctx.tree();
  for (const Association& a : tree->assocs) {
    if (!a.is_user() || !a.loc.valid()) continue;
    Location l = ctx.acct_loc(a.loc);
    l.note = fmt::format("the first of {} user associations Fair Tree ranks", users);
    f.related.push_back(l);
    return;
  }
}

void check_fair_tree(const LintContext& ctx, FindingSink& sink, const FairTreeStep& ft) {
  if (ft.step >= 1.0) return;
  const std::uint64_t suggested = round_up_125(static_cast<double>(ft.users));
  Finding& f = sink.report(
      ctx.setting_loc("PriorityWeightFairshare"),
      fmt::format("PriorityWeightFairshare={} spread over {} user associations gives a Fair Tree rank step of {} "
                  "points: priorities are truncated to whole points, so about {:.0f}% of neighbouring fair-share "
                  "ranks share a priority and their jobs are ordered by submit time instead",
                  points(ft.weight), ft.users, points(ft.step), (1.0 - ft.step) * 100.0));
  related_tree(ctx, f, ft.users);
  f.fix = Fix{fmt::format("raise PriorityWeightFairshare to at least the number of user associations ({}), so "
                          "neighbouring ranks are a whole point apart; raise the other weights with it to keep "
                          "their balance",
                          ft.users),
              "PriorityWeightFairshare",
              std::to_string(suggested),
              {}};
  add_evidence(ctx, f, suggested);
}

void check_classic(const LintContext& ctx, FindingSink& sink, double weight) {
  if (weight >= kClassicResolution) return;
  const auto suggested = static_cast<std::uint64_t>(kClassicResolution);
  const char* flag = ctx.config().priority.flags.depth_oblivious ? "DEPTH_OBLIVIOUS" : "NO_FAIR_TREE";
  Finding& f = sink.report(
      ctx.setting_loc("PriorityWeightFairshare"),
      fmt::format("PriorityWeightFairshare={} with classic fair share (PriorityFlags={}): fair-share factors closer "
                  "than {} fall on the same priority point, so users whose factors differ by 0.001 are usually "
                  "ordered by submit time instead",
                  points(weight), flag, points(1.0 / weight)));
  f.fix = Fix{"raise PriorityWeightFairshare to at least 1000, so factor differences of 0.001 are a whole point",
              "PriorityWeightFairshare",
              std::to_string(suggested),
              {}};
  add_evidence(ctx, f, suggested);
}

void check(const LintContext& ctx, FindingSink& sink) {
  const Config& c = ctx.config();
  const EffectiveWeights w = effective_weights(c);
  if (w.fairshare <= 0) return;  // off, or forced to 0 without slurmdbd (CONF043)
  const PriorityFlags& fl = c.priority.flags;
  if (fl.fair_tree && !fl.depth_oblivious) {
    if (auto ft = fair_tree_step(ctx)) check_fair_tree(ctx, sink, *ft);
  } else {
    check_classic(ctx, sink, w.fairshare);
  }
}

}  // namespace

}  // namespace sa::rules

SA_RULE({"PRIO001", "fairshare-below-weight-resolution", Severity::kWarning, Check::kWeightResolution,
         SimUse::kEvidence,
         "PriorityWeightFairshare is too small for whole-point priorities to separate real fair-share differences",
         check})
