// FAIR004: classic fair share (PriorityFlags=NO_FAIR_TREE without DEPTH_OBLIVIOUS) on a
// tree whose shape, not usage, sets the fair-share factor. Classic effective usage mixes in
// the parent's: UE = UN + (UE_parent - UN) x share/level, so a user exactly on target one
// level further down gains (1 - share/level) in UE/S, and its factor 2^(-UE/S) halves for
// every whole unit. Deep users under wide levels look heavy users before they run anything.
// Fair Tree ranks siblings level by level and has no such term; DEPTH_OBLIVIOUS was added
// to classic to remove it.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "engine/fair_share.h"
#include "rules/analysis/evidence.h"
#include "rules/analysis/share_stats.h"
#include "rules/framework/context.h"
#include "rules/framework/rule.h"
#include "rules/framework/sink.h"

namespace sa::rules {

namespace {

// Two halvings: a user on target whose factor is a quarter of another on-target user's
// looks to the scheduler as if it had used two extra shares. Smaller spreads exist in any
// irregular tree; from four apart the tree's shape outweighs most real usage differences.
constexpr double kSpread = 4.0;

struct OnTarget {
  std::vector<double> factor;  // per association: its fair-share factor when all users are on target
  std::uint32_t best = kNoAssoc, worst = kNoAssoc;
};

// Every user charged exactly its target share: the factors then show what the tree's shape
// alone does.
OnTarget on_target(const AssocTree& tree, const engine::FairShareSettings& settings) {
  const engine::FairShare fs(tree, settings);
  std::vector<long double> usage(tree.assocs.size(), 0.0L);
  for (const Association& a : tree.assocs) {
    if (a.is_user()) usage[a.id] = static_cast<long double>(fs.target_share(a.id)) * 1e9L;
  }
  OnTarget out;
  const auto shares = fs.compute(usage);
  out.factor.assign(tree.assocs.size(), 0.0);
  for (std::uint32_t id : tree.hierarchical_order()) {
    const Association& a = tree.assocs[id];
    out.factor[id] = shares[id].fs_factor;
    if (!a.is_user() || shares::is_root_user(tree, a) || fs.target_share(id) <= 0) continue;
    if (out.best == kNoAssoc || out.factor[id] > out.factor[out.best]) out.best = id;
    if (out.worst == kNoAssoc || out.factor[id] < out.factor[out.worst]) out.worst = id;
  }
  return out;
}

std::string user_name(const AssocTree& tree, std::uint32_t id) {
  const Association& a = tree.assocs[id];
  return fmt::format("{}/{}", a.account, a.user);
}

// Mean unweighted fair-share factor of pending jobs in the run's sprio snapshots, and mean
// wait of started jobs, by the depth of the job's user association.
nlohmann::json by_depth(const Simulation& sim, const AssocTree& tree) {
  std::map<int, std::pair<double, std::size_t>> fs, waits;
  for (const engine::PendingSnapshot& s : sim.result.snapshots) {
    for (const engine::SprioRow& r : s.rows) {
      const std::uint32_t id = tree.find_user(r.user, r.account);
      if (id == kNoAssoc) continue;
      auto& [sum, n] = fs[tree.depth(id)];
      sum += r.factors.fairshare;
      ++n;
    }
  }
  for (const engine::SimJob& j : sim.result.jobs) {
    if (j.assoc == kNoAssoc || j.assoc >= tree.assocs.size() || j.start == engine::kNoTime) continue;
    auto& [sum, n] = waits[tree.depth(j.assoc)];
    sum += static_cast<double>(wait_of(sim, j));
    ++n;
  }
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [depth, w] : waits) {
    nlohmann::json row = {{"user_depth", depth},
                          {"jobs", w.second},
                          {"mean_wait_seconds", std::llround(w.first / static_cast<double>(w.second))}};
    auto it = fs.find(depth);
    if (it != fs.end() && it->second.second) {
      row["mean_pending_fairshare_factor"] =
          std::round(it->second.first / static_cast<double>(it->second.second) * 1e4) / 1e4;
    }
    out.push_back(row);
  }
  return out;
}

std::string suggested_flags(const Config& c) {
  const Setting* s = c.setting("PriorityFlags");
  std::string v = s ? s->value : "";
  std::string upper = v;
  for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  const std::string word = "NO_FAIR_TREE";
  const auto at = upper.find(word);
  if (at != std::string::npos) return v.replace(at, word.size(), "DEPTH_OBLIVIOUS");
  return v.empty() ? "DEPTH_OBLIVIOUS" : v + ",DEPTH_OBLIVIOUS";
}

void add_evidence(const LintContext& ctx, Finding& f, const std::string& flags) {
  const Simulation* sim = ctx.simulation();
  if (!sim) return;
  const AssocTree& tree = *ctx.tree();
  const nlohmann::json metrics = f.evidence["metrics"];
  f.evidence = simulated_evidence(*sim);
  f.evidence["metrics"] = metrics;
  f.evidence["metrics"]["by_user_depth"] = by_depth(*sim, tree);
  const SimulationPtr after_run =
      ctx.resimulate("PriorityFlags=" + flags, {ConfigEdit::setting("PriorityFlags", flags)});
  const Simulation& after = *after_run;
  f.fix->resimulated = {{"by_user_depth", by_depth(after, tree)}, {"scenario", scenario_json(after.scenario)}};
}

void check(const LintContext& ctx, FindingSink& sink) {
  const Config& c = ctx.config();
  const AssocTree* tree = ctx.tree();
  if (!tree || !shares::fair_share_matters(c) || !shares::classic_fair_share(c)) return;
  const OnTarget now = on_target(*tree, engine::FairShareSettings::from(c.priority));
  if (now.best == kNoAssoc || now.factor[now.worst] * kSpread > now.factor[now.best]) return;
  const double best = now.factor[now.best], worst = now.factor[now.worst];
  const double spread = worst > 0 ? best / worst : std::numeric_limits<double>::infinity();
  const auto points = static_cast<long long>(std::llround((best - worst) * c.priority.weight_fairshare));
  // The usage/share ratio a depth-1 user would need to fall to the deep user's factor.
  const double looks_like =
      worst > 0 ? -std::log2(worst) * std::max<std::uint32_t>(1, c.priority.fairshare_dampening_factor) : 0;
  Finding& f = sink.report(
      ctx.setting_loc("PriorityFlags"),
      fmt::format("classic fair share (NO_FAIR_TREE) lets the tree's shape decide priority: with every user using "
                  "exactly its target share, '{}' (depth {}) gets a fair-share factor of {:.3g} and '{}' (depth {}) "
                  "{:.3g}, {:.1f}x apart or {} of PriorityWeightFairshare={} points; the deeper user ranks as if it "
                  "had used {:.1f} times its share (Fair Tree has no such term, DEPTH_OBLIVIOUS removes it)",
                  user_name(*tree, now.worst), tree->depth(now.worst), worst, user_name(*tree, now.best),
                  tree->depth(now.best), best, spread, points, c.priority.weight_fairshare, looks_like));
  for (std::uint32_t id : {now.worst, now.best}) {
    Location r = ctx.acct_loc(tree->assocs[id].loc);
    r.note = fmt::format("on-target fair-share factor {:.3g}", now.factor[id]);
    f.related.push_back(r);
  }
  engine::FairShareSettings oblivious = engine::FairShareSettings::from(c.priority);
  oblivious.algorithm = engine::FairShareAlgorithm::kDepthOblivious;
  const OnTarget fixed = on_target(*tree, oblivious);
  auto r4 = [](double v) { return std::round(v * 1e4) / 1e4; };
  f.evidence["metrics"] = {{"on_target_factor_best", r4(best)},
                           {"on_target_factor_worst", r4(worst)},
                           {"depth_best", tree->depth(now.best)},
                           {"depth_worst", tree->depth(now.worst)},
                           {"fairshare_points_apart", points},
                           {"depth_oblivious_on_target_best", r4(fixed.factor[now.best])},
                           {"depth_oblivious_on_target_worst", r4(fixed.factor[now.worst])}};
  const std::string flags = suggested_flags(c);
  f.fix = Fix{fmt::format("set PriorityFlags={} (or drop NO_FAIR_TREE for Fair Tree); on-target users then get "
                          "{:.3g} and {:.3g}",
                          flags, fixed.factor[now.worst], fixed.factor[now.best]),
              "PriorityFlags",
              flags,
              {}};
  add_evidence(ctx, f, flags);
}

}  // namespace

}  // namespace sa::rules

SA_RULE({"FAIR004", "depth-decides-priority", Severity::kWarning, Check::kShareImbalance, SimUse::kEvidence,
         "classic fair share on a tree where depth and fan-out, not usage, set users' fair-share factors", check})
