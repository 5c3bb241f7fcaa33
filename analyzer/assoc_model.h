#pragma once
// The accounting side of a site: the association tree from `sacctmgr dump`, the QOS table
// from `sacctmgr show qos -P`, and recorded usage from `sshare`. Association order is
// Slurm's hierarchical order (users before accounts, each sorted by name), the order that
// both sshare and Fair Tree's tie handling follow.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/source_manager.h"

namespace sa {

constexpr std::uint32_t kNoAssoc = 0xFFFFFFFF;
/// Fairshare=parent, as the dump writes it (SLURMDB_FS_USE_PARENT).
constexpr std::uint32_t kSharesUseParent = 0x7FFFFFFF;

/// TRES counts such as "cpu=512,mem=2T,gres/gpu=4", lower-cased names, memory in MB.
using TresMap = std::map<std::string, std::int64_t>;

/// Limits set directly on an association (the dump shows only those); unset = nullopt.
struct AssocLimits {
  std::optional<TresMap> grp_tres, grp_tres_mins, grp_tres_run_mins, max_tres_per_job, max_tres_per_node,
      max_tres_mins_per_job, max_tres_run_mins;
  std::optional<std::int64_t> grp_jobs, grp_jobs_accrue, grp_submit_jobs, max_jobs, max_jobs_accrue, max_submit_jobs;
  std::optional<std::int64_t> grp_wall, max_wall_per_job;  // seconds
};

struct Association {
  std::uint32_t id = 0;                 // index in AssocTree::assocs
  std::string account;                  // for a user association: the account it belongs to
  std::string user;                     // empty for an account association
  std::string partition;                // empty when not partition-specific
  std::uint32_t parent = kNoAssoc;      // the direct parent (an account association)
  std::vector<std::uint32_t> children;  // hierarchical order
  std::uint32_t shares_raw = 1;         // kSharesUseParent for Fairshare=parent
  std::optional<std::uint32_t> priority;
  AssocLimits limits;                    // as written
  AssocLimits effective;                 // inherited down the tree
  std::vector<std::string> qos_written;  // as written, with +/- deltas
  std::vector<std::string> qos;          // effective QOS list
  std::string default_qos;               // effective
  std::string default_account;           // user lines only
  std::string description, organization;
  SourceLoc loc;
  bool is_user() const { return !user.empty(); }
  bool use_parent() const { return shares_raw == kSharesUseParent; }
  /// The name sshare shows: user name for users, account name for accounts.
  const std::string& name() const { return is_user() ? user : account; }
};

struct AssocTree {
  std::string cluster;
  std::vector<Association> assocs;  // [0] is root; the rest in load order
  std::uint32_t root = 0;

  /// The account association named `account`, or kNoAssoc.
  std::uint32_t find_account(const std::string& account) const;
  /// The user association (user, account, partition), or kNoAssoc.
  std::uint32_t find_user(const std::string& user, const std::string& account, const std::string& partition = "") const;
  /// Every association in sshare's order: depth-first, users before accounts, by name.
  std::vector<std::uint32_t> hierarchical_order() const;
  /// Depth below root (root 0, its children 1, ...).
  int depth(std::uint32_t id) const;
  std::size_t user_count() const;
};

struct QosRecord {
  std::string name;
  std::uint32_t priority = 0;
  double usage_factor = 1.0;
  std::optional<double> usage_threshold;
  std::vector<std::string> preempt;
  std::string preempt_mode = "cluster";
  std::vector<std::string> flags;  // as printed: DenyOnLimit, NoDecay, ...
  std::int64_t grace_time = 0;     // seconds
  std::optional<std::int64_t> preempt_exempt_time;
  std::optional<TresMap> grp_tres, grp_tres_mins, grp_tres_run_mins, max_tres_per_job, max_tres_per_node,
      max_tres_mins_per_job, max_tres_per_user, max_tres_per_account, min_tres;
  std::optional<std::int64_t> grp_jobs, grp_submit_jobs, max_jobs_per_user, max_submit_per_user, max_jobs_per_account,
      max_submit_per_account;
  std::optional<std::int64_t> grp_wall, max_wall;  // seconds
  SourceLoc loc;
  bool has_flag(const std::string& flag) const;
};

struct QosTable {
  std::vector<QosRecord> records;
  const QosRecord* find(const std::string& name) const;
  /// Slurm's table when no QOS file is given: a single `normal` QOS with its defaults.
  static QosTable slurm_default();
  /// True when the table was read from a file (Slurm's default one has no source location).
  bool from_input() const { return !records.empty() && records.front().loc.valid(); }
};

/// Recorded usage: RawUsage per user association, from sshare output.
struct UsageSnapshot {
  struct Row {
    std::string account, user, partition;
    double raw_usage = 0;
    SourceLoc loc;
  };
  std::vector<Row> rows;
};

}  // namespace sa
