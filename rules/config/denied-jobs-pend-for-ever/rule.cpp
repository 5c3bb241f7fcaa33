// CONF108: partitions that restrict who may use them (AllowQos/DenyQos, AllowAccounts/
// DenyAccounts, AllowGroups) while EnforcePartLimits is NO, the default. _part_access_check
// runs those lists only under EnforcePartLimits (job_mgr.c; the groups from 23.02), so sbatch
// accepts a job they deny; select_nodes then refuses it on every pass (node_scheduler.c), and
// it pends for ever instead of failing at submission. Account lists slurmctld does not read at all (CONF100) are left
// out.
#include <algorithm>

#include <fmt/format.h>

#include "analyzer/partition_access.h"
#include "analyzer/text_util.h"
#include "rules/analysis/evidence.h"
#include "rules/analysis/queue_pairs.h"
#include "rules/framework/context.h"
#include "rules/framework/rule.h"
#include "rules/framework/sink.h"

namespace sa::rules {

namespace {

// The lists of `p` that a job can fail, as written ("AllowQos=gpu"; empty when none), and
// whether an account or group list is among them: backfill.c checks neither, so it plans a
// job they deny, select_nodes refuses the start, and the failed start keeps the job's nodes
// from later jobs of the cycle (a real 22.05: tests/golden/mini_slurm_fidelity/
// denied_account_backfill). A QOS list backfill checks.
struct DenyingLists {
  std::string text;
  bool unchecked_by_backfill = false;
};

DenyingLists denying_lists(const Config& c, const Partition& p) {
  auto named = [](const std::vector<std::string>& v) { return !v.empty() && !is_all(v); };
  std::vector<std::string> out;
  if (named(p.allow_qos)) out.push_back("AllowQos=" + join_names(p.allow_qos));
  if (!p.deny_qos.empty()) out.push_back("DenyQos=" + join_names(p.deny_qos));
  const std::size_t qos_lists = out.size();
  if (account_lists_checked(c)) {
    if (named(p.allow_accounts)) out.push_back("AllowAccounts=" + join_names(p.allow_accounts));
    if (!p.deny_accounts.empty()) out.push_back("DenyAccounts=" + join_names(p.deny_accounts));
  }
  if (!p.allow_groups.empty() && c.version.at_least(23, 2)) out.push_back("AllowGroups=" + join_names(p.allow_groups));
  return {join(out, " "), out.size() > qos_lists};
}

void check(const LintContext& ctx, FindingSink& sink) {
  const Config& c = ctx.config();
  if (!iequals(c.enforce_part_limits, "NO")) return;
  std::vector<std::pair<const Partition*, std::string>> parts;
  bool phantom = false;  // an account or group list: the denied job also holds backfill nodes
  for (const Partition& p : c.partitions) {
    if (p.state != PartitionState::kUp || p.root_only || p.nodes.empty()) continue;
    DenyingLists lists = denying_lists(c, p);
    if (lists.text.empty()) continue;
    phantom = phantom || lists.unchecked_by_backfill;
    parts.emplace_back(&p, std::move(lists.text));
  }
  if (parts.empty()) return;
  std::string named;
  const std::size_t shown = std::min<std::size_t>(parts.size(), 4);
  for (std::size_t i = 0; i < shown; ++i)
    named += fmt::format("{}{} ({})", i ? ", " : "", parts[i].first->name, parts[i].second);
  if (parts.size() > shown) named += fmt::format(" and {} more", parts.size() - shown);
  const Setting* written = c.setting("EnforcePartLimits");
  Finding& f = sink.report(
      ctx.conf_loc(parts.front().first->loc),
      fmt::format("{} while {} restrict{} who may use {}: sbatch accepts a job these lists deny, and it pends for "
                  "ever (slurmctld refuses it at every scheduling pass) instead of failing at submission{}",
                  written ? fmt::format("EnforcePartLimits={}", written->value)
                          : std::string("EnforcePartLimits is NO (the default)"),
                  named, parts.size() == 1 ? "s" : "", parts.size() == 1 ? "it" : "them",
                  phantom ? "; backfill does not check account or group lists, so in every cycle it plans such a job "
                            "on nodes where it would fit, fails to start it, and holds those nodes back from the "
                            "smaller jobs queued behind it"
                          : ""));
  for (std::size_t i = 1; i < parts.size(); ++i) {
    Location l = ctx.conf_loc(parts[i].first->loc);
    l.note = parts[i].second;
    f.related.push_back(l);
  }
  if (written) {
    Location e = ctx.setting_loc("EnforcePartLimits");
    e.note = "EnforcePartLimits";
    f.related.push_back(e);
  }
  f.fix =
      Fix{"set EnforcePartLimits=ANY, so sbatch refuses a job that no partition it names would take (ALL refuses "
          "it when any one would not); either also refuses jobs over a partition's MaxTime or node limits, "
          "which NO leaves pending",
          "EnforcePartLimits",
          "ANY",
          {}};
}

}  // namespace

}  // namespace sa::rules

SA_RULE({"CONF108", "denied-jobs-pend-for-ever", Severity::kInfo, Check::kConfig, SimUse::kStatic,
         "EnforcePartLimits=NO with partition access lists: jobs the lists deny are accepted and pend for ever", check})
