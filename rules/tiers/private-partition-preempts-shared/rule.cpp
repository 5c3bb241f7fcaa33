// TIER004: a restricted partition (AllowAccounts, AllowGroups, AllowQos or DenyAccounts)
// at a higher PriorityTier than an unrestricted partition on the same nodes. With
// preemption (PreemptType=preempt/partition_prio and a preempting PreemptMode, or a QOS that
// preempts the shared partition's) its jobs suspend, requeue or cancel the shared
// partition's jobs there: one group's work displaces everyone else's. Without it the tier
// only orders pending jobs, and the risk is the owners': a shared job already on their nodes
// keeps them up to its partition's MaxTime (the condo design with no preemption).
#include <algorithm>

#include <fmt/format.h>

#include "analyzer/text_util.h"
#include "analyzer/values.h"
#include "engine/preemption.h"
#include "rules/analysis/evidence.h"
#include "rules/analysis/queue_pairs.h"
#include "rules/framework/context.h"
#include "rules/framework/rule.h"
#include "rules/framework/sink.h"

namespace sa::rules {

namespace {

// How the partition is restricted, as written.
std::string restriction(const Partition& p) {
  std::vector<std::string> r;
  if (!p.allow_accounts.empty() && !is_all(p.allow_accounts))
    r.push_back("AllowAccounts=" + join_names(p.allow_accounts));
  if (!p.allow_groups.empty()) r.push_back("AllowGroups=" + join_names(p.allow_groups));
  if (!p.allow_qos.empty() && !is_all(p.allow_qos)) r.push_back("AllowQos=" + join_names(p.allow_qos));
  if (!p.deny_accounts.empty()) r.push_back("DenyAccounts=" + join_names(p.deny_accounts));
  return join(r, " ");
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

// How the shared partition's jobs are stopped when the private partition's jobs need the
// nodes: partition_prio by tier (the shared partition's PreemptMode, else the cluster's);
// preempt/qos when a QOS that the private partition's jobs run under (its partition QOS, else
// any QOS) lists the shared partition's QOS, by the shared QOS's mode (engine/preemption.cpp).
// Slurm compares the jobs' QOS; a partition QOS stands in for its jobs' as meant_to_lose reads it.
PreemptMode::Base victim_mode(const LintContext& ctx, const engine::PreemptPolicy& policy, const Partition& priv,
                              const Partition& shared) {
  const Config& c = ctx.config();
  if (c.preempt.type == "preempt/partition_prio") return shared.preempt_mode.value_or(c.preempt.mode).base;
  if (c.preempt.type != "preempt/qos" || !ctx.has_qos_table() || shared.qos.empty()) return PreemptMode::Base::kOff;
  const QosTable& table = ctx.qos();
  const QosRecord* victim = table.find(shared.qos);
  if (!victim) return PreemptMode::Base::kOff;
  const auto index = [&](const QosRecord* q) { return static_cast<std::int32_t>(q - table.records.data()); };
  const QosRecord* own = priv.qos.empty() ? nullptr : table.find(priv.qos);
  for (const QosRecord& q : table.records) {
    if (own && &q != own) continue;
    if (policy.can_preempt(0, index(&q), 1, 0, index(victim), 0)) return policy.mode(0, index(victim));
  }
  return PreemptMode::Base::kOff;
}

// Without preemption a tier only orders pending jobs: a shared job already on the nodes keeps
// them until it ends, so the group's worst wait is the longest limit of the open partitions.
std::int64_t longest_limit(const std::vector<const Partition*>& open) {
  std::int64_t longest = 0;
  for (const Partition* p : open) {
    if (p->max_time == kInfiniteTime) return kInfiniteTime;
    longest = std::max(longest, p->max_time);
  }
  return longest;
}

bool covers(const Partition& priv, const Partition& shared) {
  return std::all_of(shared.nodes.begin(), shared.nodes.end(), [&](std::uint32_t n) {
    return std::find(priv.nodes.begin(), priv.nodes.end(), n) != priv.nodes.end();
  });
}

void report(const LintContext& ctx, const engine::PreemptPolicy& policy, FindingSink& sink, const Partition& priv,
            const std::vector<const Partition*>& open) {
  const Config& c = ctx.config();
  PreemptMode::Base mode = PreemptMode::Base::kOff;
  for (const Partition* p : open) {
    if (mode == PreemptMode::Base::kOff) mode = victim_mode(ctx, policy, priv, *p);
  }
  const bool preempts = mode != PreemptMode::Base::kOff;
  std::string list;
  for (const Partition* p : open) {
    const std::size_t shared = shared_count(priv, *p);
    // The limits matter only where the group waits for shared jobs to end.
    list +=
        fmt::format("{}{} (tier {}, {} shared node{}{})", list.empty() ? "" : ", ", p->name, p->priority_tier, shared,
                    shared == 1 ? "" : "s", preempts ? "" : fmt::format(", MaxTime={}", slurm_duration(p->max_time)));
  }
  const bool qos_unseen = !preempts && c.preempt.type == "preempt/qos" && !ctx.has_qos_table();
  const std::int64_t wait = longest_limit(open);
  const std::string wait_text = wait == kInfiniteTime ? "indefinitely" : fmt::format("up to {}", slurm_duration(wait));
  std::string effect;
  if (preempts) {
    effect = fmt::format(
        "with PreemptType={} its jobs {} the shared partitions' jobs on those nodes whenever they "
        "need them",
        c.preempt.type, mode_verb(mode));
  } else {
    effect = fmt::format(
        "{}the tier puts its jobs first only for nodes that are free: a job from those partitions that already runs "
        "there keeps its nodes until it ends, so this group can wait {} for them",
        qos_unseen ? "preemption here is by QOS (PreemptType=preempt/qos), which lint sees only with --qos (`sacctmgr "
                     "show qos -P`); if no QOS lets these jobs preempt theirs, "
                   : "with no preemption, ",
        wait_text);
  }
  Finding& f = sink.report(ctx.conf_loc(priv.loc),
                           fmt::format("restricted partition '{}' ({}) is at PriorityTier={}, above partitions open to "
                                       "everyone on the same nodes: {}; {}",
                                       priv.name, restriction(priv), priv.priority_tier, list, effect));
  if (!preempts) f.severity = Severity::kInfo;
  for (const Partition* p : open) {
    Location l = ctx.conf_loc(p->loc);
    l.note = preempts ? "its jobs can be preempted" : "its jobs keep the nodes until they end";
    f.related.push_back(l);
  }
  if (preempts) {
    Location m = ctx.setting_loc("PreemptMode");
    m.note = "the preemption mode";
    f.related.push_back(m);
  }
  std::vector<std::string> names;
  for (const Partition* p : open) names.push_back(p->name);
  // Where the private partition holds every node of the shared ones (a one-node cluster),
  // taking its nodes out would empty them.
  const bool can_split = std::none_of(open.begin(), open.end(), [&](const Partition* p) { return covers(priv, *p); });
  std::string fix;
  if (preempts) {
    fix = std::string(can_split ? "take the private nodes out of the shared partitions; or, if" : "if") +
          " the private jobs should only wait for shared jobs to end, set PreemptMode=OFF on the shared partitions; "
          "either way tell users that shared jobs on those nodes can be preempted";
  } else {
    // Under preempt/qos the way to let the group in is its QOS's Preempt list, not a new
    // PreemptType.
    std::vector<std::string> their_qos;
    for (const Partition* p : open) {
      if (!p->qos.empty() && std::find(their_qos.begin(), their_qos.end(), p->qos) == their_qos.end())
        their_qos.push_back(p->qos);
    }
    const std::string how =
        c.preempt.type == "preempt/qos"
            ? fmt::format("(sacctmgr modify qos {} set Preempt+={})", priv.qos.empty() ? "<the group's QOS>" : priv.qos,
                          their_qos.size() == open.size() ? join(their_qos, ",") : "<their QOS>")
            : std::string(
                  "(PreemptType=preempt/partition_prio and PreemptMode=REQUEUE; a partition's own "
                  "PreemptMode=OFF keeps its jobs from being preempted)");
    fix = fmt::format(
        "{}if this group is meant to get these nodes promptly, let its jobs preempt those of {} {} or shorten "
        "their MaxTime; if the wait is the agreed trade, document it",
        qos_unseen ? "lint with --qos to see whether a QOS already preempts them; " : "", join(names, ", "), how);
  }
  f.fix = Fix{fix, {}, {}, {}};
}

void check(const LintContext& ctx, FindingSink& sink) {
  const Config& c = ctx.config();
  const engine::PreemptPolicy policy(c, ctx.qos());  // read only under preempt/qos with a table
  const PartitionNodes nodes(c);
  for (std::size_t i = 0; i < c.partitions.size(); ++i) {
    const Partition& priv = c.partitions[i];
    if (!restricted(priv) || !schedules_jobs(priv)) continue;
    std::vector<const Partition*> open;
    for (std::size_t j = 0; j < c.partitions.size(); ++j) {
      const Partition& p = c.partitions[j];
      if (j == i || restricted(p) || !schedules_jobs(p) || p.priority_tier >= priv.priority_tier) continue;
      if (nodes.share(i, j)) open.push_back(&p);
    }
    if (!open.empty()) report(ctx, policy, sink, priv, open);
  }
}

}  // namespace

}  // namespace sa::rules

SA_RULE({"TIER004", "private-partition-preempts-shared", Severity::kWarning, Check::kTierDominance, SimUse::kStatic,
         "a restricted partition at a higher PriorityTier than a partition open to everyone on the same nodes", check})
