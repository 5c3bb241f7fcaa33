// FAIR003: an association with Fairshare=0 (the dump reader keeps it as shares_raw 0).
// Classic fair share defines the factor of a zero share as 0, the lowest there is; Fair Tree
// gives it a level fair share of 0, so it sorts below every sibling whatever its usage.
// Either way its users wait behind everyone their level competes with, usually by mistake.
#include <fmt/format.h>

#include "rules/analysis/share_stats.h"
#include "rules/framework/context.h"
#include "rules/framework/rule.h"
#include "rules/framework/sink.h"

namespace sa::rules {

namespace {

std::size_t users_below(const AssocTree& tree, std::uint32_t id) {
  std::size_t n = 0;
  std::vector<std::uint32_t> stack{id};
  while (!stack.empty()) {
    const Association& a = tree.assocs[stack.back()];
    stack.pop_back();
    if (a.is_user() && !shares::is_root_user(tree, a)) ++n;
    for (std::uint32_t c : a.children) stack.push_back(c);
  }
  return n;
}

std::string who(const AssocTree& tree, const Association& a) {
  if (a.is_user()) {
    return a.partition.empty()
               ? fmt::format("user '{}' in account '{}'", a.user, a.account)
               : fmt::format("user '{}' in account '{}' (partition {})", a.user, a.account, a.partition);
  }
  return fmt::format("account '{}' (with {} user association{} below it)", a.account, users_below(tree, a.id),
                     users_below(tree, a.id) == 1 ? "" : "s");
}

std::string effect(const Config& c, const AssocTree& tree, const Association& a) {
  const std::string parent = a.parent != kNoAssoc ? tree.assocs[a.parent].account : "root";
  if (shares::classic_fair_share(c) || c.priority.flags.depth_oblivious) {
    return fmt::format(
        "{} fair share gives a zero share a fair-share factor of 0, the lowest possible, whatever "
        "the usage{}",
        c.priority.flags.depth_oblivious ? "depth-oblivious" : "classic",
        a.is_user() ? "" : ", and so does every association below it");
  }
  return fmt::format(
      "Fair Tree gives a zero share a level fair share of 0, so it ranks below every sibling "
      "under '{}' whatever the usage{}",
      parent, a.is_user() ? "" : ", and all its users rank after all of theirs");
}

void check(const LintContext& ctx, FindingSink& sink) {
  const AssocTree* tree = ctx.tree();
  if (!tree || !shares::fair_share_matters(ctx.config())) return;
  for (std::uint32_t id : tree->hierarchical_order()) {
    const Association& a = tree->assocs[id];
    if (id == tree->root || a.shares_raw != 0 || shares::is_root_user(*tree, a)) continue;
    // A zero share with nobody under it costs nobody anything (FAIR002 suggests it for
    // unused accounts).
    if (!shares::has_users_below(*tree, id)) continue;
    Finding& f = sink.report(
        ctx.acct_loc(a.loc),
        fmt::format("{} has Fairshare=0: {}; its jobs queue behind its siblings' work whenever the other priority "
                    "factors are equal, which is rarely meant (a best-effort account is better served by a "
                    "low-priority QOS)",
                    who(*tree, a), effect(ctx.config(), *tree, a)));
    f.fix = Fix{fmt::format("give {} a share (Fairshare=1 or its siblings' scale), e.g. sacctmgr modify {} set "
                            "fairshare=1",
                            a.name(),
                            a.is_user() ? fmt::format("user {} where account={}", a.user, a.account)
                                        : fmt::format("account {}", a.account)),
                "Fairshare",
                "1",
                {}};
  }
}

}  // namespace

}  // namespace sa::rules

SA_RULE({"FAIR003", "zero-fairshare-association", Severity::kInfo, Check::kShareImbalance, SimUse::kStatic,
         "an association with Fairshare=0 gets the lowest fair-share standing whatever its usage", check})
