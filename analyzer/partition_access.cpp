#include "analyzer/partition_access.h"

#include <algorithm>
#include <vector>

#include "analyzer/text_util.h"

namespace sa {

namespace {

bool named(const std::vector<std::string>& list, const std::string& name) {
  return std::any_of(list.begin(), list.end(), [&](const std::string& item) { return iequals(item, name); });
}

// The listed names that have an account association (the rest slurmctld drops).
std::vector<std::uint32_t> known(const AssocTree& tree, const std::vector<std::string>& names) {
  std::vector<std::uint32_t> out;
  for (const Association& a : tree.assocs) {
    if (!a.is_user() && named(names, a.account)) out.push_back(a.id);
  }
  return out;
}

// _find_acct_in_list: the association or one above it is in `list`.
bool on_path(const AssocTree& tree, std::uint32_t assoc, const std::vector<std::uint32_t>& list) {
  for (std::uint32_t a = assoc; a != kNoAssoc && a < tree.assocs.size(); a = tree.assocs[a].parent) {
    if (std::find(list.begin(), list.end(), a) != list.end()) return true;
  }
  return false;
}

}  // namespace

bool account_lists_checked(const Config& config) {
  return !config.version.at_least(23, 2) || config.accounting.enforces("associations");
}

bool account_admitted(const Config& config, const Partition& p, const AssocTree* tree, std::uint32_t assoc,
                      const std::string& account) {
  if (!account_lists_checked(config)) return true;
  // ALL in a list stands for every account (the resolver keeps the word).
  if (named(p.allow_accounts, "ALL")) return true;
  if (!config.version.at_least(23, 2) || !tree) {
    if (!p.allow_accounts.empty()) return named(p.allow_accounts, account);
    return !named(p.deny_accounts, account);
  }
  if (assoc == kNoAssoc) assoc = tree->find_account(account);
  // DenyAccounts is read only when AllowAccounts is empty (the resolver clears it then), and
  // an AllowAccounts whose names all lack an association is no list at all.
  if (const std::vector<std::uint32_t> allow = known(*tree, p.allow_accounts); !allow.empty())
    return on_path(*tree, assoc, allow);
  return !on_path(*tree, assoc, known(*tree, p.deny_accounts));
}

}  // namespace sa
