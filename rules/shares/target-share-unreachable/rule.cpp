// FAIR005: an account whose users can never use its target share of the machine. Either
// the partitions that accept their jobs (AllowAccounts/DenyAccounts, RootOnly, ReqResv,
// partition-bound associations) hold fewer CPUs than the target, or the account's own
// limits (GrpTRES cpu, GrpJobs, or every user's MaxJobs, times the largest job) cap it
// below. Fair share then keeps its users at the top of their level for good while the share
// goes to others: the tree promises what the configuration cannot deliver.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "rules/analysis/share_stats.h"
#include "rules/framework/context.h"
#include "rules/framework/rule.h"
#include "rules/framework/sink.h"

namespace sa::rules {

namespace {

constexpr double kUnlimited = std::numeric_limits<double>::infinity();

struct Cap {
  double cpus = kUnlimited;
  std::string why;
  bool own = false;  // set by a Grp limit written on the account itself
};

std::vector<std::uint32_t> users_in(const AssocTree& tree, std::uint32_t id) {
  std::vector<std::uint32_t> out, stack{id};
  while (!stack.empty()) {
    const std::uint32_t at = stack.back();
    stack.pop_back();
    const Association& a = tree.assocs[at];
    if (a.is_user() && !shares::is_root_user(tree, a)) out.push_back(at);
    for (std::uint32_t c : a.children) stack.push_back(c);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// CPUs of the usable nodes in partitions that accept at least one of these users' jobs.
double reachable_cpus(const Config& c, const AssocTree& tree, const std::vector<std::uint32_t>& users) {
  std::set<std::uint32_t> nodes;
  for (const Partition& p : c.partitions) {
    const bool any = std::any_of(users.begin(), users.end(), [&](std::uint32_t u) {
      const Association& a = tree.assocs[u];
      if (!a.partition.empty() && a.partition != p.name) return false;
      return shares::partition_admits(c, tree, p, a.parent);
    });
    if (!any) continue;
    for (std::uint32_t n : p.nodes) {
      if (c.nodes[n].usable()) nodes.insert(n);
    }
  }
  double cpus = 0;
  for (std::uint32_t n : nodes) cpus += c.nodes[n].cpus;
  return cpus;
}

std::optional<std::int64_t> tres_cpu(const std::optional<TresMap>& m) {
  if (!m) return std::nullopt;
  auto it = m->find("cpu");
  if (it == m->end() || it->second < 0) return std::nullopt;
  return it->second;
}

// CPUs one job of this association can hold: MaxTRESPerJob cpu, else all it can reach.
double per_job(const Association& a, double reach) {
  auto cpu = tres_cpu(a.effective.max_tres_per_job);
  return cpu ? std::min(reach, static_cast<double>(*cpu)) : reach;
}

void tighten(Cap& cap, double cpus, std::string why, bool own = false) {
  if (cpus < cap.cpus) cap = {cpus, std::move(why), own};
}

Cap limit_cap(const AssocTree& tree, const Association& a, const std::vector<std::uint32_t>& users, double reach) {
  Cap cap;
  tighten(cap, reach,
          reach == 0 ? "no partition accepts its users' jobs"
                     : fmt::format("the partitions that accept its users' jobs hold {:.0f} CPUs", reach));
  if (auto cpu = tres_cpu(a.limits.grp_tres)) {
    tighten(cap, static_cast<double>(*cpu), fmt::format("its GrpTRES=cpu={} caps it at {} CPUs", *cpu, *cpu), true);
  }
  if (a.limits.grp_jobs && *a.limits.grp_jobs >= 0) {
    const double job = per_job(a, reach);
    tighten(cap, static_cast<double>(*a.limits.grp_jobs) * job,
            fmt::format("its GrpJobs={} with at most {:.0f} CPUs per job caps it at {:.0f} CPUs", *a.limits.grp_jobs,
                        job, static_cast<double>(*a.limits.grp_jobs) * job),
            true);
  }
  double by_user = 0;
  std::int64_t lo = std::numeric_limits<std::int64_t>::max(), hi = -1;
  for (std::uint32_t u : users) {
    const Association& user = tree.assocs[u];
    if (!user.effective.max_jobs || *user.effective.max_jobs < 0) return cap;  // someone is unlimited
    by_user += static_cast<double>(*user.effective.max_jobs) * per_job(user, reach);
    lo = std::min(lo, *user.effective.max_jobs);
    hi = std::max(hi, *user.effective.max_jobs);
  }
  if (!users.empty()) {
    const std::string jobs = lo == hi ? fmt::format("MaxJobs={}", lo) : fmt::format("MaxJobs={}-{}", lo, hi);
    tighten(cap, by_user,
            fmt::format("{} on each of its {} users, times the CPUs one job can hold, caps it at {:.0f} CPUs", jobs,
                        users.size(), by_user));
  }
  return cap;
}

void report_unreachable(const LintContext& ctx, FindingSink& sink, const Association& a, double target, double want,
                        const Cap& cap, std::uint64_t total) {
  Finding& f = sink.report(
      ctx.acct_loc(a.loc),
      fmt::format("account '{}' has a target share of {} ({:.0f} of {} CPUs) but {}: its users can never reach "
                  "that share, so fair share keeps ranking them first while the rest of it goes to others",
                  a.account, shares::percent(target), want, total, cap.why));
  if (cap.cpus == 0 || cap.why.find("partitions") != std::string::npos) {
    for (const Partition& p : ctx.config().partitions) {
      if (p.allow_accounts.empty() && p.deny_accounts.empty()) continue;
      if (ctx.tree() && shares::partition_admits(ctx.config(), *ctx.tree(), p, a.id)) continue;
      Location r = ctx.conf_loc(p.loc);
      r.note = p.allow_accounts.empty() ? "DenyAccounts" : "AllowAccounts";
      f.related.push_back(r);
    }
    f.fix = Fix{fmt::format("admit '{}' (or an account above it) to partitions holding at least {:.0f} CPUs, or "
                            "lower its Fairshare to what it can use",
                            a.account, want),
                "AllowAccounts",
                a.account,
                {}};
  } else {
    f.fix = Fix{fmt::format("raise the limit to at least {:.0f} CPUs, or lower the account's Fairshare to match it",
                            std::ceil(want)),
                "GrpTRES",
                fmt::format("cpu={:.0f}", std::ceil(want)),
                {}};
  }
}

void check(const LintContext& ctx, FindingSink& sink) {
  const Config& c = ctx.config();
  const AssocTree* tree = ctx.tree();
  if (!tree || !shares::fair_share_matters(c)) return;
  const std::uint64_t total = shares::cluster_cpus(c);
  if (total == 0) return;
  const auto targets = shares::target_shares(*tree);
  std::set<std::uint32_t> reported;
  for (std::uint32_t id : tree->hierarchical_order()) {
    const Association& a = tree->assocs[id];
    if (id == tree->root || a.is_user() || a.use_parent() || targets[id] <= 0) continue;
    const auto users = users_in(*tree, id);
    if (users.empty()) continue;  // FAIR002's case
    const double want = targets[id] * static_cast<double>(total);
    const Cap cap = limit_cap(*tree, a, users, reachable_cpus(c, *tree, users));
    if (cap.cpus >= want) continue;
    // Below a reported account, only a limit written on this one is news: partitions and
    // inherited MaxJobs were the ancestor's finding.
    bool covered = false;
    for (std::uint32_t p = a.parent; p != kNoAssoc; p = tree->assocs[p].parent) covered |= reported.count(p) > 0;
    if (covered && !cap.own) continue;
    reported.insert(id);
    report_unreachable(ctx, sink, a, targets[id], want, cap, total);
  }
}

}  // namespace

}  // namespace sa::rules

SA_RULE({"FAIR005", "target-share-unreachable", Severity::kWarning, Check::kShareImbalance, SimUse::kStatic,
         "an account whose partitions or limits hold fewer CPUs than its target share of the machine", check})
