#pragma once
// What the share-imbalance and config rules ask of a site again and again: whether fair
// share decides anything, the association tree's shape (users below an account, the root
// user Slurm creates), target shares, and which partitions accept an account's jobs as the
// configured Slurm release checks AllowAccounts/DenyAccounts.
#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/assoc_model.h"
#include "analyzer/model.h"

namespace sa::rules::shares {

/// Fair share changes job order: priority/multifactor with a nonzero PriorityWeightFairshare
/// (the analyzer already forced it to 0 without slurmdbd).
bool fair_share_matters(const Config& config);

/// The classic algorithm (PriorityFlags=NO_FAIR_TREE without DEPTH_OBLIVIOUS).
bool classic_fair_share(const Config& config);

/// The association `sacctmgr` creates for user root in account root: it runs no real work,
/// so share comparisons leave it out.
bool is_root_user(const AssocTree& tree, const Association& a);

/// True when a user association other than root's lies below `id` (or is `id`).
bool has_users_below(const AssocTree& tree, std::uint32_t id);

/// Each association's target fraction of the machine (the classic product of shares).
std::vector<double> target_shares(const AssocTree& tree);

/// The fair-share siblings of every association: for each fair-share parent, its level
/// list (FairShare=parent accounts flattened as Slurm flattens them). Indexed by parent id.
std::vector<std::vector<std::uint32_t>> share_levels(const AssocTree& tree);

/// Whether jobs charged to account association `account` may run in `partition`: UP, not
/// RootOnly or reservation-only, and past AllowAccounts/DenyAccounts as the configured
/// release checks them (from 23.02 the account or any account above it may be listed;
/// before, the name must match exactly).
bool partition_admits(const Config& config, const AssocTree& tree, const Partition& partition, std::uint32_t account);

/// CPUs of the usable nodes that belong to at least one UP partition.
std::uint64_t cluster_cpus(const Config& config);

/// "25.5%", "0.12%": a fraction as a percentage with enough digits to tell small ones apart.
std::string percent(double fraction);

}  // namespace sa::rules::shares
