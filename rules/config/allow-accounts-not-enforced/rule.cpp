// CONF100: a partition restricted with AllowAccounts or DenyAccounts on Slurm 23.02 or later
// while AccountingStorageEnforce does not include `associations` (nor a word implying it).
// part_policy_valid_acct returns success at once in that case, so the lists are never
// consulted: every account can run there. (Before 23.02 the check ran regardless, comparing
// the job's association's account by name.) AllowQos/DenyQos are checked by
// part_policy_valid_qos, which has no such condition, so they are not part of this rule.
#include <fmt/format.h>

#include "analyzer/partition_access.h"
#include "rules/analysis/evidence.h"
#include "rules/framework/context.h"
#include "rules/framework/rule.h"
#include "rules/framework/sink.h"

namespace sa::rules {

namespace {

std::string enforce_now(const Config& c) {
  const Setting* s = c.setting("AccountingStorageEnforce");
  return s ? fmt::format("AccountingStorageEnforce={}", s->value) : std::string("AccountingStorageEnforce is not set");
}

std::string suggested(const Config& c) {
  const Setting* s = c.setting("AccountingStorageEnforce");
  return s && !s->value.empty() ? s->value + ",associations" : std::string("associations");
}

void check(const LintContext& ctx, FindingSink& sink) {
  const Config& c = ctx.config();
  if (account_lists_checked(c)) return;
  for (const Partition& p : c.partitions) {
    const bool allow = !p.allow_accounts.empty();
    if (!allow && p.deny_accounts.empty()) continue;
    const std::string key = allow ? "AllowAccounts" : "DenyAccounts";
    Finding& f = sink.report(
        ctx.conf_loc(p.loc),
        fmt::format("partition '{}' sets {}={} but {}: since 23.02 slurmctld checks the account lists only when "
                    "associations are enforced, so jobs of every account {} this partition",
                    p.name, key, join_names(allow ? p.allow_accounts : p.deny_accounts), enforce_now(c),
                    allow ? "are accepted in" : "can run in"));
    Location e = ctx.setting_loc("AccountingStorageEnforce");
    e.note = "AccountingStorageEnforce";
    f.related.push_back(e);
    f.fix = Fix{fmt::format("add `associations` to AccountingStorageEnforce (every user then needs an association; "
                            "jobs without one are rejected), or drop the {} restriction",
                            key),
                "AccountingStorageEnforce",
                suggested(c),
                {}};
  }
}

}  // namespace

}  // namespace sa::rules

SA_RULE({"CONF100", "allow-accounts-not-enforced", Severity::kWarning, Check::kConfig, SimUse::kStatic,
         "AllowAccounts/DenyAccounts on a partition while associations are not enforced: the lists are ignored", check})
