// FAIR001: two siblings in the association tree whose Fairshare values differ a hundredfold
// or more. Shares are relative within a level, so the smaller one is entitled to under 1 %
// of what its parent gets: almost always an account or user added with the default share
// of 1 next to siblings whose shares were written on a percentage or CPU-count scale.
#include <algorithm>

#include <fmt/format.h>

#include "rules/analysis/share_stats.h"
#include "rules/framework/context.h"
#include "rules/framework/rule.h"
#include "rules/framework/sink.h"

namespace sa::rules {

namespace {

// A factor of 100 puts the smaller sibling below 1 % of its level. Deliberate policies
// rarely go that far (a partner institute at 10 % next to the home university is 9:1);
// 1 next to 100-1000 is the signature of a default share among written ones.
constexpr double kOrdersApart = 100.0;

// Siblings that take part in the level's arithmetic: FairShare=parent contributes nothing
// of its own, zero shares are FAIR003's, and the root user never runs real work.
bool compared(const AssocTree& tree, const Association& a) {
  return !a.use_parent() && a.shares_raw > 0 && !shares::is_root_user(tree, a);
}

std::string kind(const Association& a) { return a.is_user() ? "user" : "account"; }

std::string consequence(const Config& c) {
  if (shares::classic_fair_share(c)) {
    return "its normalised share is so small that any usage drives its fair-share factor 2^(-usage/share) "
           "towards 0";
  }
  return "under Fair Tree it ranks below those siblings as soon as its usage exceeds that sliver of the level";
}

void check_level(const LintContext& ctx, FindingSink& sink, const std::vector<std::uint32_t>& level,
                 std::uint32_t parent) {
  const AssocTree& tree = *ctx.tree();
  std::uint32_t big = kNoAssoc;
  double total = 0;
  for (std::uint32_t id : level) {
    const Association& a = tree.assocs[id];
    if (!compared(tree, a)) continue;
    total += a.shares_raw;
    if (big == kNoAssoc || a.shares_raw > tree.assocs[big].shares_raw) big = id;
  }
  if (big == kNoAssoc) return;
  const Association& b = tree.assocs[big];
  // The smallest share on the big sibling's scale: what a share "like the others" means.
  std::uint32_t scale = b.shares_raw;
  for (std::uint32_t id : level) {
    const Association& a = tree.assocs[id];
    if (compared(tree, a) && b.shares_raw / static_cast<double>(a.shares_raw) < kOrdersApart) {
      scale = std::min(scale, a.shares_raw);
    }
  }
  for (std::uint32_t id : level) {
    const Association& a = tree.assocs[id];
    if (!compared(tree, a)) continue;
    const double ratio = static_cast<double>(b.shares_raw) / a.shares_raw;
    if (ratio < kOrdersApart) continue;
    Finding& f = sink.report(
        ctx.acct_loc(a.loc),
        fmt::format("{} '{}' has Fairshare={} next to sibling {} '{}' with Fairshare={} under '{}' ({:.0f}x "
                    "apart): it is entitled to {} of its level, and {}",
                    kind(a), a.name(), a.shares_raw, kind(b), b.name(), b.shares_raw, tree.assocs[parent].account,
                    ratio, shares::percent(a.shares_raw / total), consequence(ctx.config())));
    Location r = ctx.acct_loc(b.loc);
    r.note = fmt::format("sibling with Fairshare={}", b.shares_raw);
    f.related.push_back(r);
    f.fix = Fix{fmt::format("give '{}' a share on its siblings' scale, e.g. Fairshare={} like the smallest of "
                            "them (or Fairshare=parent to compete with its parent's share)",
                            a.name(), scale),
                "Fairshare",
                std::to_string(scale),
                {}};
  }
}

void check(const LintContext& ctx, FindingSink& sink) {
  if (!ctx.tree() || !shares::fair_share_matters(ctx.config())) return;
  const auto levels = shares::share_levels(*ctx.tree());
  for (std::uint32_t id : ctx.tree()->hierarchical_order()) {
    if (!levels[id].empty()) check_level(ctx, sink, levels[id], id);
  }
}

}  // namespace

}  // namespace sa::rules

SA_RULE({"FAIR001", "sibling-shares-orders-apart", Severity::kInfo, Check::kShareImbalance, SimUse::kStatic,
         "sibling associations whose Fairshare values differ a hundredfold or more", check})
