#pragma once
// QOS and association limits as slurmctld's acct_policy.c applies them (Slurm 22.05):
// submit-time checks (acct_policy_validate), the checks before and after node selection
// (acct_policy_job_runnable_pre_select / _post_select) in Slurm's order, so the Reason a
// blocked job shows is the one Slurm would print, and the usage counters behind them
// (running jobs, submitted jobs, TRES in use, TRES-run-minutes, decayed TRES-minutes), kept
// for every association up the tree and for each QOS, its users and its accounts.
//
// Precedence: the partition QOS is checked before the job QOS unless the job QOS has
// OverPartQOS; a limit the first QOS sets hides the same limit of the second QOS and of
// every association. Max* association limits are pre-propagated down the tree (the
// analyzer's `effective`), so only the job's own association is checked for them; Grp*
// limits are checked at every level up to root.
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/assoc_model.h"
#include "analyzer/model.h"

namespace sa::engine {

// TRES positions in Slurm's array order (cpu, mem, [energy], node, billing, then GRES).
enum TresPos : std::uint8_t { kTresCpu, kTresMem, kTresNode, kTresBilling, kTresGpu, kTresCount };
using TresCounts = std::array<std::int64_t, kTresCount>;
constexpr std::int64_t kUnlimited = -1;

/// The TRES the engine tracks from a limit map ("cpu=32,mem=100G,gres/gpu=4"); others are
/// not limits the simulation can hit. Unset or negative entries are kUnlimited.
TresCounts tres_limits(const std::optional<TresMap>& map);
const char* tres_name(int pos);

/// The billable TRES of `t` (CPUs, memory in MB, nodes, GPUs) under `part`'s
/// TRESBillingWeights, as assoc_mgr_tres_weighted computes it: the weighted sum; under
/// PriorityFlags=MAX_TRES the largest weighted term (these four are all node TRES); under
/// MAX_TRES_GRES (25.05) the largest of CPUs, memory and nodes plus the GPUs' term. Without
/// weights: the CPUs.
double weighted_billing(const Config& config, const Partition& part, const TresCounts& t);

/// One association's or QOS's limits, compiled. Times in minutes, as Slurm keeps them.
struct LimitTable {
  TresCounts grp_tres, grp_tres_mins, grp_tres_run_mins, max_tres_pj, max_tres_pn, max_tres_mins_pj, max_tres_pu,
      max_tres_pa, min_tres;
  std::int64_t grp_jobs = kUnlimited, grp_submit = kUnlimited;
  std::int64_t max_jobs = kUnlimited, max_submit = kUnlimited;        // assoc MaxJobs/MaxSubmitJobs; QOS per user
  std::int64_t max_jobs_pa = kUnlimited, max_submit_pa = kUnlimited;  // QOS per account
  std::int64_t grp_wall = kUnlimited, max_wall = kUnlimited;
  bool deny_on_limit = false, over_part_qos = false;
  bool no_reserve = false;  // QOS Flags=NoReserve: backfill plans nothing for its jobs
  double usage_factor = 1.0;
  bool any = false;  // some limit is set
  LimitTable();
};

/// Usage counted against one entity.
struct UsedLimits {
  std::int64_t jobs = 0, submit = 0;
  TresCounts tres{};
  std::array<double, kTresCount> run_secs{};    // TRES x remaining time limit (grp_used_tres_run_secs)
  std::array<double, kTresCount> usage_secs{};  // decayed TRES-seconds (usage_tres_raw)
  double wall_secs = 0;                         // decayed job-seconds (grp_used_wall)
};

/// What a job presents to the limits.
struct LimitKey {
  std::uint32_t assoc = 0xFFFFFFFF;
  std::int32_t qos1 = -1, qos2 = -1;  // in precedence order; -1 = none
  std::int32_t job_qos = -1;          // the job's own QOS (its UsageFactor applies)
  std::uint32_t user = 0, account = 0;
};

/// Why a job may not start (or be submitted): Slurm's Reason and the numbers behind it.
/// (Also names a limit to lift in what-if runs: reason + QOS or association + TRES.)
struct LimitBlock {
  const char* reason = nullptr;      // nullptr: not blocked
  std::int32_t qos = -1;             // the QOS whose limit binds, or -1
  std::uint32_t assoc = 0xFFFFFFFF;  // the association whose limit binds
  int tres = -1;                     // TRES position for TRES limits
  std::int64_t limit = 0, used = 0, want = 0;
  explicit operator bool() const { return reason != nullptr; }
};

class Limits {
 public:
  Limits(const Config& config, const AssocTree* tree, const QosTable& qos);

  /// AccountingStorageEnforce has `limits` (or `safe`) and some limit is set somewhere.
  bool active() const { return active_; }
  /// Some active limit reads decayed usage or run-minutes (GrpTRESMins, GrpTRESRunMins,
  /// GrpWall): only then does the decay thread's bookkeeping (job_ran, decay) matter.
  bool tracks_usage() const { return tracks_usage_; }
  std::uint32_t user_id(const std::string& user);
  std::uint32_t account_id(const std::string& account);
  const LimitTable& qos_table(std::int32_t qos) const { return qos_[static_cast<std::size_t>(qos)]; }
  void refresh_active();
  /// Removes the one limit behind `block` (for what-if runs: "if this limit were lifted").
  void lift(const LimitBlock& block);

  /// acct_policy_validate: submit limits always; per-job limits only under DenyOnLimit
  /// (or without any QOS). A block here means the submission is refused.
  LimitBlock validate_submit(const LimitKey& key, const TresCounts& req, std::int64_t limit_secs) const;
  /// The MaxWall (minutes) a job without a time limit is given: the first QOS in
  /// precedence order that sets one, else its association's; kUnlimited if none or not enforced.
  std::int64_t default_wall(const LimitKey& key) const;
  /// For a job that would run with `req` for `limit_secs` (kUnlimited: no limit): job counts
  /// and wall limits (pre_select, before node selection), TRES limits (post_select, after).
  LimitBlock runnable_pre(const LimitKey& key, std::int64_t limit_secs) const;
  LimitBlock runnable_post(const LimitKey& key, const TresCounts& req, std::int64_t limit_secs) const;

  void add_submit(const LimitKey& key);
  void remove_submit(const LimitKey& key);
  void job_begin(const LimitKey& key, const TresCounts& alloc, std::int64_t limit_secs);
  void job_fini(const LimitKey& key, const TresCounts& alloc, double run_secs_left);
  /// The decay thread's share for one running job over `secs`: TRES-seconds and wall
  /// charged (times `charge_factor`, which carries the decay and UsageFactor), run-seconds
  /// consumed.
  void job_ran(const LimitKey& key, const TresCounts& alloc, std::int64_t secs, double charge_factor);
  void decay(double factor);

 private:
  template <typename F>
  void for_each_entity(const LimitKey& key, F&& f);
  UsedLimits& qos_user(std::int32_t qos, std::uint32_t user) const;
  UsedLimits& qos_account(std::int32_t qos, std::uint32_t account) const;
  LimitBlock qos_pre(const LimitKey& key, std::int32_t q, LimitTable& out, std::int64_t limit_min) const;
  LimitBlock qos_post(const LimitKey& key, std::int32_t q, LimitTable& out, const TresCounts& req,
                      const TresCounts& req_mins) const;
  LimitBlock qos_submit(const LimitKey& key, std::int32_t q, LimitTable& out, const TresCounts& req,
                        std::int64_t limit_min, bool strict) const;

  const AssocTree* tree_;
  std::vector<LimitTable> assoc_, qos_;
  std::vector<UsedLimits> assoc_used_, qos_used_;
  mutable std::vector<std::vector<UsedLimits>> qos_user_used_, qos_account_used_;
  std::vector<std::string> users_, accounts_;
  std::map<std::string, std::uint32_t> user_ids_, account_ids_;
  bool enforce_ = false, safe_ = false, active_ = false, tracks_usage_ = false;
};

}  // namespace sa::engine
