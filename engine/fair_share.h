#pragma once
// Fair share exactly as Slurm computes it (shared/reference/algorithms.md §2-3): Fair Tree
// (the default), classic (PriorityFlags=NO_FAIR_TREE) and DEPTH_OBLIVIOUS, FairShare=parent
// flattening, account usage rebuilt from users, exact floating-point ties, and the usage
// decay the engine applies every PriorityCalcPeriod.
#include <cstdint>
#include <vector>

#include "analyzer/assoc_model.h"
#include "analyzer/model.h"

namespace sa::engine {

/// NO_VAL as a double: what Slurm leaves in fields it never computes (printed blank).
constexpr double kNoValDouble = 4294967294.0;

enum class FairShareAlgorithm { kFairTree, kClassic, kDepthOblivious };

struct FairShareSettings {
  FairShareAlgorithm algorithm = FairShareAlgorithm::kFairTree;
  std::uint32_t dampening = 1;  // FairShareDampeningFactor (classic and depth-oblivious)
  static FairShareSettings from(const PrioritySettings& priority);
  bool algorithm_is_fair_tree() const { return algorithm == FairShareAlgorithm::kFairTree; }
};

/// What Slurm keeps per association after a fair-share pass; sshare prints these.
struct AssocShare {
  long double usage_raw = 0;  // accounts: the sum of their users along the direct chain
  double shares_norm = 0;     // S: Fair Tree per level, classic the product down the tree
  double usage_norm = 0;      // usage_raw / root usage_raw
  double usage_efctv = 0;     // Fair Tree: U = usage / fair-share parent's usage; classic: UE
  double fs_factor = 0;       // Fair Tree: users only; classic: 2^(-UE/S/dampening)
  long double level_fs = 0;   // Fair Tree only
};

class FairShare {
 public:
  FairShare(const AssocTree& tree, FairShareSettings settings);

  /// One pass: `user_usage` holds raw usage per association id (only user entries are read;
  /// account usage is rebuilt from them, as slurmctld does when associations load).
  std::vector<AssocShare> compute(const std::vector<long double>& user_usage) const;

  /// Classic and depth-oblivious: one user's fair-share factor as slurmctld's decay pass
  /// computes it mid-loop, from the account values of the pass's start (`at_start`, a
  /// compute() result) and the user's and root's live raw usage.
  double classic_user_factor(std::uint32_t user, const std::vector<AssocShare>& at_start, long double user_raw,
                             long double root_raw) const;

  const AssocTree& tree() const { return tree_; }
  const FairShareSettings& settings() const { return settings_; }
  /// The fair-share parent: the nearest ancestor that is not FairShare=parent.
  std::uint32_t fs_parent(std::uint32_t id) const { return fs_parent_[id]; }
  /// The level (siblings) list an association is ranked in.
  const std::vector<std::uint32_t>& fs_children(std::uint32_t id) const { return fs_children_[id]; }
  std::uint32_t level_shares(std::uint32_t id) const { return level_shares_[id]; }
  /// The association's target fraction of the whole cluster: the classic product of
  /// shares down the tree, whatever the algorithm.
  double target_share(std::uint32_t id) const { return classic_shares_[id]; }

 private:
  void rebuild_usage(std::vector<AssocShare>& out, const std::vector<long double>& user_usage) const;
  void fair_tree(std::vector<AssocShare>& out) const;
  void classic(std::vector<AssocShare>& out) const;
  double depth_oblivious_usage(const std::vector<AssocShare>& out, std::uint32_t id) const;
  void rank_level(std::vector<AssocShare>& out, const std::vector<std::uint32_t>& siblings, std::uint32_t& rank,
                  std::uint32_t& rnt, bool account_tied) const;

  const AssocTree& tree_;
  FairShareSettings settings_;
  std::vector<std::uint32_t> fs_parent_;
  std::vector<std::vector<std::uint32_t>> fs_children_;
  std::vector<std::uint32_t> level_shares_;  // the level_shares each association is divided by
  std::vector<double> fair_tree_shares_;
  std::vector<double> classic_shares_;
  std::uint32_t user_count_ = 0;
};

/// Slurm's per-second decay factor 1 - 0.693/half_life (not 2^(-1/HL)); 1 when no decay.
double decay_per_second(std::int64_t half_life_seconds);
/// The factor usage is multiplied by over `seconds`, floored at DBL_MIN like Slurm.
double decay_over(std::int64_t half_life_seconds, std::int64_t seconds);
/// Usage newly charged over `seconds` (billable TRES x usage factor per second), decayed as
/// Slurm does: the whole slice as if it had accrued at the start of the period.
double decayed_charge(std::int64_t half_life_seconds, std::int64_t seconds, double rate);
/// The first PriorityUsageResetPeriod boundary strictly after `after` (UTC), or -1 for NONE.
std::int64_t next_usage_reset(UsageReset period, std::int64_t after);

}  // namespace sa::engine
