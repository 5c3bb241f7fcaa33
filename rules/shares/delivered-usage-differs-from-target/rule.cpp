// FAIR006: in the simulated run, an account's share of all charged usage ended far from its
// target share, not for lack of demand and against fair share's own verdict: it had work
// waiting, fair share favoured it, and it got less than half its target; or fair share held it
// back while others waited, and it got more than twice its target. Something other than fair
// share decides who gets the machine: partition tiers, private partitions, QOS priority,
// limits or billing. (A gap fair share agrees with is it repaying recorded usage: no finding.)
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "rules/analysis/evidence.h"
#include "rules/analysis/share_stats.h"
#include "rules/framework/context.h"
#include "rules/framework/rule.h"
#include "rules/framework/sink.h"

namespace sa::rules {

namespace {

// Accounts below 5 % of the machine get too little work in a week for their share to be
// measured reliably; a factor of two either way is beyond what usage noise and fair share's
// own lag produce in a contended week, and names a policy that overrides the shares.
constexpr double kMinTarget = 0.05;
constexpr double kUnder = 0.5, kOver = 2.0;
// Demand: the account (for shortfalls) or someone else (for excess) had jobs waiting at no
// fewer than half of the sampled times of the arrival window.
constexpr double kDemand = 0.5;
constexpr int kSamples = 24;
// Fewer started jobs than this in the account's subtree and its share is a handful of heavy-
// tailed draws: a 2x gap from 50 jobs is about three standard deviations of that noise.
constexpr std::size_t kMinJobs = 50;

double round4(double v) { return std::round(v * 1e4) / 1e4; }

// At evenly spread times of [from, to), the accounts with jobs eligible but not started, each
// job's account counted with its ancestors (their subtrees were waiting too). From the jobs
// themselves, so recorded and synthetic loads (which take no sprio snapshots) count alike.
std::vector<std::set<std::uint32_t>> waiting(const Simulation& sim, const AssocTree& tree, std::int64_t from,
                                             std::int64_t to) {
  std::vector<std::set<std::uint32_t>> out(kSamples);
  const double step = static_cast<double>(to - from) / kSamples;
  for (const engine::SimJob& j : sim.result.jobs) {
    if (j.state == engine::JobState::kRejected || j.assoc == kNoAssoc || j.assoc >= tree.assocs.size()) continue;
    for (int k = 0; k < kSamples; ++k) {
      const auto t = from + static_cast<std::int64_t>(step * (k + 0.5));
      if (j.begin > t || (j.start != engine::kNoTime && j.start <= t) || (j.cancelled_pending() && j.end <= t))
        continue;
      for (std::uint32_t a = tree.assocs[j.assoc].parent; a != kNoAssoc; a = tree.assocs[a].parent) {
        if (!out[static_cast<std::size_t>(k)].insert(a).second) break;
      }
    }
  }
  return out;
}

bool within(const AssocTree& tree, std::uint32_t id, std::uint32_t top) {
  for (std::uint32_t a = id; a != kNoAssoc; a = tree.assocs[a].parent) {
    if (a == top) return true;
  }
  return false;
}

// Fraction of sampled times at which the account waited, and at which an account outside its
// subtree (not an ancestor either) waited.
std::pair<double, double> demand(const std::vector<std::set<std::uint32_t>>& snaps, const AssocTree& tree,
                                 std::uint32_t id) {
  if (snaps.empty()) return {0, 0};
  double self = 0, others = 0;
  for (const auto& s : snaps) {
    self += s.count(id) ? 1 : 0;
    others += std::any_of(s.begin(), s.end(),
                          [&](std::uint32_t a) {
                            return tree.assocs[a].parent != kNoAssoc && !within(tree, a, id) && !within(tree, id, a);
                          })
                  ? 1
                  : 0;
  }
  const auto n = static_cast<double>(snaps.size());
  return {self / n, others / n};
}

struct Verdict {
  double own = 0, others = 0;  // mean unweighted fair-share factor of its jobs and of everyone else's
  std::size_t started = 0;     // started jobs in its subtree
};

void add(std::pair<double, std::size_t>& acc, double v) {
  acc.first += v;
  ++acc.second;
}

double mean(const std::pair<double, std::size_t>& acc) {
  return acc.second ? acc.first / static_cast<double>(acc.second) : 0;
}

// What fair share thought of the account: its pending jobs' factors in the snapshots against
// everyone else's; when it never waited, its jobs' factors at start against everyone else's.
Verdict verdict(const Simulation& sim, const AssocTree& tree, std::uint32_t id) {
  std::pair<double, std::size_t> own{0, 0}, others{0, 0}, own_start{0, 0}, others_start{0, 0};
  for (const engine::PendingSnapshot& s : sim.result.snapshots) {
    for (const engine::SprioRow& r : s.rows) {
      const std::uint32_t a = tree.find_account(r.account);
      if (a != kNoAssoc) add(within(tree, a, id) ? own : others, r.factors.fairshare);
    }
  }
  Verdict v;
  for (const engine::SimJob& j : sim.result.jobs) {
    if (j.start == engine::kNoTime || j.assoc == kNoAssoc || j.assoc >= tree.assocs.size()) continue;
    const bool mine = within(tree, tree.assocs[j.assoc].parent, id);
    v.started += mine ? 1 : 0;
    add(mine ? own_start : others_start, j.start_factors().fairshare);
  }
  const bool waited = own.second > 0 && others.second > 0;
  v.own = mean(waited ? own : own_start);
  v.others = mean(waited ? others : others_start);
  return v;
}

// The unweighted fair-share factor of the account's pending jobs in each snapshot.
nlohmann::json factor_over_time(const Simulation& sim, const AssocTree& tree, std::uint32_t id) {
  nlohmann::json out = nlohmann::json::array();
  for (const engine::PendingSnapshot& s : sim.result.snapshots) {
    double sum = 0;
    std::size_t n = 0;
    for (const engine::SprioRow& r : s.rows) {
      const std::uint32_t a = tree.find_account(r.account);
      if (a == kNoAssoc || !within(tree, a, id)) continue;
      sum += r.factors.fairshare;
      ++n;
    }
    nlohmann::json row = {{"at", s.at}, {"pending_jobs", n}};
    if (n) row["mean_fairshare_factor"] = round4(sum / static_cast<double>(n));
    out.push_back(row);
  }
  return out;
}

std::vector<const engine::SimJob*> examples(const Simulation& sim, const AssocTree& tree, std::uint32_t id,
                                            bool under) {
  std::vector<const engine::SimJob*> jobs;
  for (const engine::SimJob& j : sim.result.jobs) {
    if (j.assoc == kNoAssoc || j.assoc >= tree.assocs.size() || j.recs.empty()) continue;
    if (within(tree, tree.assocs[j.assoc].parent, id) && (under || j.start != engine::kNoTime)) jobs.push_back(&j);
  }
  // Short of share: the longest waits. Over it: the largest charges.
  auto charge = [&](const engine::SimJob* j) {
    const std::int64_t end = j->end != engine::kNoTime ? j->end : sim.result.end;
    return j->billable * static_cast<double>(std::max<std::int64_t>(0, end - j->start));
  };
  std::stable_sort(jobs.begin(), jobs.end(), [&](auto* a, auto* b) {
    return under ? wait_of(sim, *a) > wait_of(sim, *b) : charge(a) > charge(b);
  });
  if (jobs.size() > 5) jobs.resize(5);
  return jobs;
}

// Charged usage (billable x seconds run) per account, rolled up the tree, counted only while
// work was still arriving: once arrivals stop every job drains in the end, and a run that
// drains delivers each account exactly what it asked for whatever the policy.
struct Delivered {
  std::vector<double> share;  // per association id (accounts)
  std::int64_t from = 0, to = 0;
};

Delivered delivered(const Simulation& sim, const AssocTree& tree) {
  Delivered d;
  d.from = sim.result.start;
  d.to = sim.result.start;
  for (const engine::SimJob& j : sim.result.jobs) d.to = std::max(d.to, j.req.submit);
  if (d.to <= d.from) d.to = sim.result.end;
  std::vector<double> charged(tree.assocs.size(), 0.0);
  double total = 0;
  for (const engine::SimJob& j : sim.result.jobs) {
    if (j.start == engine::kNoTime || j.assoc == kNoAssoc || j.assoc >= tree.assocs.size()) continue;
    const std::int64_t end = std::min(j.end != engine::kNoTime ? j.end : sim.result.end, d.to);
    const std::int64_t begin = std::max(j.start, d.from);
    if (end <= begin) continue;
    const double c = j.billable * static_cast<double>(end - begin);
    for (std::uint32_t a = tree.assocs[j.assoc].parent; a != kNoAssoc; a = tree.assocs[a].parent) charged[a] += c;
    total += c;
  }
  d.share.assign(tree.assocs.size(), 0.0);
  for (std::size_t i = 0; i < charged.size(); ++i) d.share[i] = total > 0 ? charged[i] / total : 0;
  return d;
}

nlohmann::json level_table(const AssocTree& tree, const std::vector<double>& targets, const Delivered& got,
                           std::uint32_t parent) {
  nlohmann::json out = nlohmann::json::array();
  for (std::uint32_t id : tree.assocs[parent].children) {
    const Association& a = tree.assocs[id];
    if (a.is_user()) continue;
    out.push_back({{"account", a.account}, {"target", round4(targets[id])}, {"delivered", round4(got.share[id])}});
  }
  return out;
}

struct Gap {
  std::uint32_t id = kNoAssoc;
  double target = 0, got = 0;
  std::pair<double, double> demand;
  Verdict verdict;
};

void report_share(const LintContext& ctx, FindingSink& sink, const Simulation& sim, const std::vector<double>& targets,
                  const Delivered& got, const Gap& g) {
  const AssocTree& tree = *ctx.tree();
  const Association& a = tree.assocs[g.id];
  const bool under = g.got < g.target;
  const double ratio = g.got / g.target;
  const std::string why =
      under ? fmt::format(
                  "while it had jobs waiting at {:.0f}% of the sampled times and fair share favoured them (mean "
                  "factor {:.2f} against {:.2f} for other accounts)",
                  g.demand.first * 100, g.verdict.own, g.verdict.others)
            : fmt::format(
                  "while other accounts had jobs waiting at {:.0f}% of the sampled times and fair share held its "
                  "jobs back (mean factor {:.2f} against {:.2f} for other accounts)",
                  g.demand.second * 100, g.verdict.own, g.verdict.others);
  Finding& f = sink.report(
      ctx.acct_loc(a.loc),
      fmt::format("account '{}' got {} of the charged usage while work was arriving in the simulated run, against a "
                  "target share of {} ({:.2f}x), {}: something other than fair share decides its access (partition "
                  "tiers or private partitions, QOS priority, limits, billing)",
                  a.account, shares::percent(g.got), shares::percent(g.target), ratio, why));
  f.evidence = simulated_evidence(sim);
  f.evidence["metrics"] = {{"account", a.account},
                           {"target", round4(g.target)},
                           {"delivered", round4(g.got)},
                           {"ratio", round4(ratio)},
                           {"measured_from", got.from},
                           {"measured_to", got.to},
                           {"sampled_times_with_own_jobs_waiting", round4(g.demand.first)},
                           {"sampled_times_with_other_jobs_waiting", round4(g.demand.second)},
                           {"mean_fairshare_factor", round4(g.verdict.own)},
                           {"mean_fairshare_factor_other_accounts", round4(g.verdict.others)},
                           {"started_jobs", g.verdict.started},
                           {"level", level_table(tree, targets, got, a.parent)},
                           {"fairshare_factor_over_time", factor_over_time(sim, tree, g.id)}};
  for (const engine::SimJob* j : examples(sim, tree, g.id, under)) f.evidence["examples"].push_back(job_json(sim, *j));
}

// The account's gap, when it is one this rule reports.
std::optional<Gap> gap(const Simulation& sim, const AssocTree& tree, const std::vector<std::set<std::uint32_t>>& snaps,
                       std::uint32_t id, double target, double got) {
  const bool under = got<kUnder * target, over = got> kOver * target;
  if (target < kMinTarget || (!under && !over)) return std::nullopt;
  Gap g{id, target, got, demand(snaps, tree, id), {}};
  if ((under && g.demand.first < kDemand) || (over && g.demand.second < kDemand)) return std::nullopt;
  // Fair share agreeing with the gap (repaying recorded usage, or catching up) is it
  // working; a gap it argues against is the policy overriding it.
  g.verdict = verdict(sim, tree, id);
  const Verdict& v = g.verdict;
  if (v.started < kMinJobs || (under && v.own < v.others) || (over && v.own > v.others)) return std::nullopt;
  return g;
}

void check(const LintContext& ctx, FindingSink& sink) {
  const AssocTree* tree = ctx.tree();
  const Simulation* sim = ctx.simulation();
  if (!tree || !sim || !shares::fair_share_matters(ctx.config())) return;
  const auto targets = shares::target_shares(*tree);
  const Delivered got = delivered(*sim, *tree);
  const auto snaps = waiting(*sim, *tree, got.from, got.to);
  std::set<std::uint32_t> reported;
  for (std::uint32_t id : tree->hierarchical_order()) {
    const Association& a = tree->assocs[id];
    if (id == tree->root || a.is_user()) continue;
    bool covered = false;
    for (std::uint32_t p = a.parent; p != kNoAssoc; p = tree->assocs[p].parent) covered |= reported.count(p) > 0;
    if (covered) continue;
    const auto g = gap(*sim, *tree, snaps, id, targets[id], got.share[id]);
    if (!g) continue;
    reported.insert(id);
    report_share(ctx, sink, *sim, targets, got, *g);
  }
}

}  // namespace

}  // namespace sa::rules

SA_RULE({"FAIR006", "delivered-usage-differs-from-target", Severity::kWarning, Check::kShareImbalance,
         SimUse::kRequired,
         "in the simulated run an account got under half or over twice its target share despite demand", check})
