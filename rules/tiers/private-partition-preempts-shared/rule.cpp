// TIER004: a restricted partition (AllowAccounts, AllowGroups, AllowQos or DenyAccounts)
// at a higher PriorityTier than an unrestricted partition on the same nodes. Its jobs are
// always scheduled first there, and with PreemptType=preempt/partition_prio and a
// preempting PreemptMode they suspend, requeue or cancel the shared partition's jobs: one
// group's work displaces everyone else's on nodes the shared partition advertises.
#include <algorithm>

#include <fmt/format.h>

#include "rules/analysis/evidence.h"
#include "rules/analysis/queue_pairs.h"
#include "rules/framework/context.h"
#include "rules/framework/rule.h"
#include "rules/framework/sink.h"

namespace sa::rules {

namespace {

// How the partition is restricted, as written.
std::string restriction(const Partition& p) {
  auto all = [](const std::vector<std::string>& v) { return v.size() == 1 && (v[0] == "all" || v[0] == "ALL"); };
  std::vector<std::string> r;
  if (!p.allow_accounts.empty() && !all(p.allow_accounts)) r.push_back("AllowAccounts=" + join_names(p.allow_accounts));
  if (!p.allow_groups.empty()) r.push_back("AllowGroups=" + join_names(p.allow_groups));
  if (!p.allow_qos.empty() && !all(p.allow_qos)) r.push_back("AllowQos=" + join_names(p.allow_qos));
  if (!p.deny_accounts.empty()) r.push_back("DenyAccounts=" + join_names(p.deny_accounts));
  std::string out;
  for (const std::string& s : r) out += (out.empty() ? "" : " ") + s;
  return out;
}

std::size_t shared_count(const Partition& a, const Partition& b) {
  std::vector<std::uint32_t> x = a.nodes, y = b.nodes, both;
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  std::set_intersection(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(both));
  return both.size();
}

const char* mode_verb(PreemptMode::Base b) {
  switch (b) {
    case PreemptMode::Base::kSuspend:
      return "suspend";
    case PreemptMode::Base::kRequeue:
      return "requeue";
    case PreemptMode::Base::kCancel:
      return "cancel";
    case PreemptMode::Base::kOff:
      break;
  }
  return "";
}

// The preemption mode the shared partition's jobs get (their partition's, else the
// cluster's); partition_prio preempts unless it is OFF.
PreemptMode::Base victim_mode(const Config& c, const Partition& shared) {
  if (c.preempt.type != "preempt/partition_prio") return PreemptMode::Base::kOff;
  return shared.preempt_mode.value_or(c.preempt.mode).base;
}

void report(const LintContext& ctx, FindingSink& sink, const Partition& priv,
            const std::vector<const Partition*>& open) {
  const Config& c = ctx.config();
  std::string list;
  PreemptMode::Base mode = PreemptMode::Base::kOff;
  for (const Partition* p : open) {
    list += fmt::format("{}{} (tier {}, {} shared nodes)", list.empty() ? "" : ", ", p->name, p->priority_tier,
                        shared_count(priv, *p));
    if (mode == PreemptMode::Base::kOff) mode = victim_mode(c, *p);
  }
  const bool preempts = mode != PreemptMode::Base::kOff;
  const std::string effect =
      preempts ? fmt::format(
                     "with PreemptType=preempt/partition_prio its jobs {} the shared partitions' jobs on "
                     "those nodes whenever they need them",
                     mode_verb(mode))
               : std::string(
                     "without preemption its jobs are still scheduled first on those nodes, ahead of "
                     "everyone else's");
  Finding& f = sink.report(ctx.conf_loc(priv.loc),
                           fmt::format("restricted partition '{}' ({}) is at PriorityTier={}, above partitions open to "
                                       "everyone on the same nodes: {}; {}",
                                       priv.name, restriction(priv), priv.priority_tier, list, effect));
  if (!preempts) f.severity = Severity::kInfo;
  for (const Partition* p : open) {
    Location l = ctx.conf_loc(p->loc);
    l.note = preempts ? "its jobs can be preempted" : "scheduled after it";
    f.related.push_back(l);
  }
  if (preempts) {
    Location m = ctx.setting_loc("PreemptMode");
    m.note = "the preemption mode";
    f.related.push_back(m);
  }
  f.fix = Fix{preempts ? "take the private nodes out of the shared partitions; or, if the private jobs should only "
                         "wait for shared jobs to end, set PreemptMode=OFF on the shared partitions; either way tell "
                         "users that shared jobs on those nodes can be preempted"
                       : "take the private nodes out of the shared partitions if shared jobs are not meant to wait "
                         "behind the private ones, or document that they do",
              {},
              {},
              {}};
}

void check(const LintContext& ctx, FindingSink& sink) {
  const Config& c = ctx.config();
  for (const Partition& priv : c.partitions) {
    if (!restricted(priv) || !schedules_jobs(priv)) continue;
    std::vector<const Partition*> open;
    for (const Partition& p : c.partitions) {
      if (&p == &priv || restricted(p) || !schedules_jobs(p) || p.priority_tier >= priv.priority_tier) continue;
      if (share_nodes(priv, p)) open.push_back(&p);
    }
    if (!open.empty()) report(ctx, sink, priv, open);
  }
}

}  // namespace

}  // namespace sa::rules

SA_RULE({"TIER004", "private-partition-preempts-shared", Severity::kWarning, Check::kTierDominance, SimUse::kStatic,
         "a restricted partition at a higher PriorityTier than a partition open to everyone on the same nodes", check})
