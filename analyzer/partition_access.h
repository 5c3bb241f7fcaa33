#pragma once
// Who may use a partition by account, as slurmctld checks it (partition_mgr.c's
// part_policy_valid_acct). Before 23.02 the job's account is compared by name with
// AllowAccounts (else DenyAccounts). From 23.02 the lists are associations
// (accounts_list_build) and the check is hierarchical: the job's association or any
// account above it may be listed (the man page: "subaccounts are included automatically").
// Names with no association are dropped from the list, and a list left empty checks
// nothing. The check runs only when AccountingStorageEnforce sets associations.
// One place for the engine's admission and the rules that reason about it.
#include <cstdint>
#include <string>

#include "analyzer/assoc_model.h"
#include "analyzer/model.h"

namespace sa {

/// Whether slurmctld checks AllowAccounts/DenyAccounts at all: always before 23.02, and
/// from 23.02 on only when associations are enforced.
bool account_lists_checked(const Config& config);

/// Whether a job charged to `account` may run in `p` by its account lists. `assoc` is the
/// job's association in `tree` (a user or an account association; kNoAssoc, or no tree,
/// when the site has none), from which 23.02 and later walk up; `account` is its name.
bool account_admitted(const Config& config, const Partition& p, const AssocTree* tree, std::uint32_t assoc,
                      const std::string& account);

}  // namespace sa
