// FAIR002: an account holding a nonzero share with no user association anywhere below it.
// Its part of the level is divided among nobody. Classic fair share multiplies normalised
// shares down the tree, so the siblings' users start from smaller shares than the tree
// intends and rank below users elsewhere. Fair Tree only compares siblings with one another,
// so there the order is unchanged, but the target shares sshare prints are wrong.
#include <set>

#include <fmt/format.h>

#include "engine/fair_share.h"
#include "rules/analysis/share_stats.h"
#include "rules/framework/context.h"
#include "rules/framework/rule.h"
#include "rules/framework/sink.h"

namespace sa::rules {

namespace {

// A share that weighs on its level: written, nonzero, not FairShare=parent (which adds
// nothing to its level).
bool holds_share(const Association& a) { return !a.is_user() && !a.use_parent() && a.shares_raw > 0; }

std::uint64_t level_total(const AssocTree& tree, const std::vector<std::uint32_t>& level) {
  std::uint64_t total = 0;  // shares go up to 2^31 - 2 each: their sum needs 64 bits
  for (std::uint32_t id : level) {
    const Association& s = tree.assocs[id];
    if (!s.use_parent()) total += s.shares_raw;
  }
  return total;
}

std::string message(const Config& c, const Association& a, double of_level, double of_machine, bool has_subaccounts) {
  const std::string what = has_subaccounts ? "only sub-accounts below it, no user association" : "no user association";
  const std::string effect =
      shares::classic_fair_share(c)
          ? fmt::format(
                "classic fair share multiplies shares down the tree, so its siblings' users start "
                "from shares {} smaller than intended and rank below users elsewhere in the tree",
                shares::percent(of_level))
          : "Fair Tree compares siblings only with one another, so job order is unchanged, but sshare's "
            "NormShares and every target share at this level understate what the other accounts get";
  return fmt::format(
      "account '{}' holds Fairshare={} ({} of its level, {} of the machine) with {}: that "
      "share is reserved for nobody; {}",
      a.account, a.shares_raw, shares::percent(of_level), shares::percent(of_machine), what, effect);
}

void check(const LintContext& ctx, FindingSink& sink) {
  const AssocTree* tree = ctx.tree();
  if (!tree || !shares::fair_share_matters(ctx.config())) return;
  const auto levels = shares::share_levels(*tree);
  const auto targets = shares::target_shares(*tree);
  const engine::FairShare fs(*tree, engine::FairShareSettings{});
  std::set<std::uint32_t> reported;
  for (std::uint32_t id : tree->hierarchical_order()) {
    const Association& a = tree->assocs[id];
    if (id == tree->root || !holds_share(a) || shares::has_users_below(*tree, id)) continue;
    // Report the topmost empty account only: the ones below it go with it.
    bool covered = false;
    for (std::uint32_t p = a.parent; p != kNoAssoc; p = tree->assocs[p].parent) covered |= reported.count(p) > 0;
    if (covered) continue;
    reported.insert(id);
    const std::uint64_t total = level_total(*tree, levels[fs.fs_parent(id)]);
    const double of_level = total > 0 ? static_cast<double>(a.shares_raw) / static_cast<double>(total) : 0;
    Finding& f = sink.report(ctx.acct_loc(a.loc), message(ctx.config(), a, of_level, targets[id], !a.children.empty()));
    if (!shares::classic_fair_share(ctx.config())) f.severity = Severity::kInfo;
    f.fix = Fix{fmt::format("add the users who should charge '{}', or remove it (sacctmgr delete account {}), or "
                            "set its Fairshare to 0 while it is unused",
                            a.account, a.account),
                "Fairshare",
                "0",
                {}};
  }
}

}  // namespace

}  // namespace sa::rules

SA_RULE({"FAIR002", "account-without-users", Severity::kWarning, Check::kShareImbalance, SimUse::kStatic,
         "an account with a nonzero share and no user below it: its share is reserved for nobody", check})
