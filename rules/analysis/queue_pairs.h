#pragma once
// Shared arithmetic and snapshot analysis for the weight-resolution (PRIO) and
// tier-dominance (TIER) rules.
//
// The arithmetic side answers "how many points can this factor move a job", with
// slurmctld's own adjustments applied (no slurmdbd: age and fair-share weights forced to 0).
// The snapshot side reads the simulation's sprio snapshots of the pending queue and puts
// each partition's rows in the order the scheduler walks them (PriorityTier, priority,
// submit time, job id), so a rule can count which neighbouring decisions were settled by a
// tie-breaker, and whether fair share ever put a job of one partition ahead of another's.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rules/framework/context.h"

namespace sa::rules {

// --- weights -------------------------------------------------------------------------

/// The weights slurmctld actually uses (age and fair share forced to 0 without slurmdbd);
/// all 0 when the priority plugin is not multifactor.
struct EffectiveWeights {
  double age = 0, assoc = 0, fairshare = 0, job_size = 0, partition = 0, qos = 0, tres = 0;
  bool any() const { return age + assoc + fairshare + job_size + partition + qos + tres > 0; }
};
EffectiveWeights effective_weights(const Config& config);

/// Fair Tree's rank step: one rank is PriorityWeightFairshare / (user associations) points.
struct FairTreeStep {
  double weight = 0;
  std::size_t users = 0;
  double step = 0;
};
/// Set when fair share is Fair Tree, weighted, and the tree is known.
std::optional<FairTreeStep> fair_tree_step(const LintContext& ctx);

/// The normalised partition factor of a partition (PriorityJobFactor over the largest,
/// `top` = max_job_factor, read once by a loop over partitions; or the raw value with
/// NO_NORMAL_PART), as priority/multifactor computes it.
double partition_factor(const Config& config, const Partition& p, double top);
/// The largest PriorityJobFactor of any partition, at least 1 (DEF_PART_MAX_PRIORITY).
double max_job_factor(const Config& config);

/// The smallest 1, 2 or 5 x 10^k at or above v (a round weight to suggest).
std::uint64_t round_up_125(double v);

/// "1000000": whole points without separators (messages set them beside config values), or
/// three significant digits below 100.
std::string points(double v);

// --- partitions ------------------------------------------------------------------------

/// The list is the single word ALL (every account or QOS), as AllowAccounts=ALL writes it.
bool is_all(const std::vector<std::string>& list);
/// AllowAccounts/AllowGroups/AllowQos (other than ALL), or DenyAccounts, set.
bool restricted(const Partition& p);
/// Has nodes and is neither DOWN nor INACTIVE: it can start jobs, so it competes.
bool schedules_jobs(const Partition& p);
/// Every PriorityTier holds one PriorityJobFactor (and PreemptMode=PRIORITY does not compare
/// priorities across tiers): the partition term is a constant inside each tier and never
/// changes the order of two jobs (TIER002's case).
bool partition_term_constant_in_tiers(const Config& c);
/// Open to ordinary user jobs: UP, not RootOnly or reservation-only (ReqResv), and not Hidden
/// with AllowAccounts/AllowGroups/AllowQos restricting it (the maintenance partitions sites
/// keep for admins). Hidden alone only keeps a partition out of listings: users may submit.
bool takes_user_jobs(const Partition& p);
/// Partition `b` is meant to lose to the higher-tier `a`: preempt/partition_prio lets a's jobs
/// preempt b's (b's PreemptMode is not OFF); under preempt/qos b's jobs run under a scavenger
/// QOS (the partition QOS, or every QOS b admits, is one another QOS preempts; needs `qos`);
/// or `a` is an owner partition (AllowAccounts names accounts) placed above one that admits
/// an account `a` does not name (an open partition, or another group's). Tier order is then
/// the design.
bool meant_to_lose(const Config& c, const Partition& a, const Partition& b, const QosTable* qos = nullptr);
/// Which partitions have a node in common, for the rules that compare every pair of
/// partitions: each partition's nodes sorted once, so a pair costs a walk over the two lists
/// from where their ranges meet (a copy and two sorts per pair made a config of 5,000
/// partitions take minutes).
class PartitionNodes {
 public:
  explicit PartitionNodes(const Config& config);
  bool share(std::size_t a, std::size_t b) const;

 private:
  std::vector<std::vector<std::uint32_t>> sorted_;  // per partition, ascending
};

// --- snapshot analysis -----------------------------------------------------------------

/// One pending (job x partition) row of a snapshot, with the job it belongs to.
struct QueueRow {
  const engine::SprioRow* row = nullptr;
  const engine::SimJob* job = nullptr;
  std::uint32_t part = 0;
  std::int64_t at = 0;  // the snapshot's time
};

/// Adjacent pairs of each partition's queue (queues of at least `min_queue` rows).
struct TieStats {
  std::size_t queues = 0;      // (snapshot, partition) queues counted
  std::size_t adjacent = 0;    // neighbouring pairs in those queues
  std::size_t tied = 0;        // of them, equal priority: settled by submit time / job id
  std::size_t cross_user = 0;  // neighbours of different users
  std::size_t cross_user_tied = 0;
  std::size_t fairshare_differs_tied = 0;  // fair-share factors differ, priorities equal
  /// Examples: the first tied pairs whose fair-share factors differ (else of different users).
  std::vector<std::pair<QueueRow, QueueRow>> examples;
  double tied_share() const { return adjacent ? static_cast<double>(tied) / static_cast<double>(adjacent) : 0; }
  double cross_user_tied_share() const {
    return cross_user ? static_cast<double>(cross_user_tied) / static_cast<double>(cross_user) : 0;
  }
};
TieStats adjacent_ties(const Simulation& sim, std::size_t min_queue);
nlohmann::json tie_metrics(const TieStats& t);

/// Pairs (a in `first`, b in `second`) pending in the same snapshot.
struct CrossPairStats {
  std::size_t pairs = 0;
  std::size_t fairshare_prefers_second = 0;             // b's weighted fair share is >= 1 point above a's
  std::size_t reversed = 0;                             // of those, b was queued ahead of a
  bool sampled = false;                                 // stopped at the comparison budget
  std::vector<std::pair<QueueRow, QueueRow>> examples;  // fair share preferred b, a stayed ahead
};
/// Every snapshot's queue of each partition, built once for a rule that compares many pairs
/// of partitions (cross_partition_pairs walked every snapshot again for each pair, so a
/// config of thousands of partitions took minutes).
class SnapshotQueues {
 public:
  explicit SnapshotQueues(const Simulation& sim);
  const Simulation& sim() const { return sim_; }
  /// A partition's non-empty queues, snapshot order: (snapshot index, rows in queue order).
  const std::vector<std::pair<std::size_t, std::vector<QueueRow>>>& of(std::uint32_t part) const {
    return by_part_[part];
  }

 private:
  const Simulation& sim_;
  std::vector<std::vector<std::pair<std::size_t, std::vector<QueueRow>>>> by_part_;
};
CrossPairStats cross_partition_pairs(const SnapshotQueues& queues, std::uint32_t first, std::uint32_t second);

/// Adjacent pairs of different users in each partition's queue where one factor (weighted
/// by `weight`) preferred the job behind by at least one point: how often age put the job
/// ahead there anyway (its weighted age lead at least the factor's difference).
struct AgeOverrules {
  std::size_t cross_user = 0;                           // adjacent pairs of different users
  std::size_t factor_prefers = 0;                       // of them, the factor preferred the job behind
  std::size_t age_decided = 0;                          // of those, age kept the other ahead
  std::vector<std::pair<QueueRow, QueueRow>> examples;  // up to two of the last kind
};
AgeOverrules age_overrules(const Simulation& sim, double engine::PriorityFactors::*factor, double weight);

/// Waits of the jobs whose (first) partition is `part`, pending jobs counted to the end.
struct PartitionWaits {
  engine::WaitStats waits;
  std::size_t pending_at_end = 0;
  std::vector<const engine::SimJob*> longest;  // up to five, longest wait first
};
PartitionWaits partition_waits(const Simulation& sim, std::uint32_t part);

/// job_json plus the row's snapshot time, priority and weighted factors.
nlohmann::json row_json(const Simulation& sim, const QueueRow& r);

}  // namespace sa::rules
