#pragma once
// What changes if a new slurm.conf is deployed: both configs linted and simulated on the
// identical load and seed, then compared: findings added and removed, settings changed,
// waits and delivered shares per partition, account and size class, and the jobs whose
// start moved most.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/coverage.h"
#include "rules/framework/lint.h"

namespace sa::rules {

struct SettingChange {
  std::string what;           // "SchedulerParameters", "PartitionName=long MaxTime", "nodes"
  std::string before, after;  // empty: not set
};

struct MetricChange {
  std::string group;  // "partition", "account", "size"
  std::string name;
  engine::WaitStats before, after;
  std::optional<double> share_before, share_after;  // accounts: delivered share of usage
  std::optional<double> share_target;               // accounts: target share (classic product)
};

/// An outcome the new config makes worse on the same load, beyond a threshold.
struct Regression {
  std::string what;   // "p95 wait", "jobs never started", "share off target"
  std::string group;  // "partition", "size", "account", "run"
  std::string name;
  double before = 0, after = 0;
  std::string text;  // one line for reports
};

struct MovedJob {
  std::uint32_t job = 0;
  std::string user, account, partition;
  std::int64_t submit = 0, start_before = -1, start_after = -1;  // -1: never started
};

/// A finding that gathers places (one cause, many partitions) and covers other places in
/// the new config: `gained` when it covers a place the old one did not.
struct ChangedFinding {
  Finding before, after;
  bool gained = false;
};

struct LintDiff {
  std::vector<Finding> added, removed;  // new-only and old-only findings
  std::vector<ChangedFinding> changed;
  /// Findings the new config makes worse: added ones, and changed ones that gained places.
  std::vector<const Finding*> worse() const;
  std::size_t unchanged = 0;
  std::vector<SettingChange> settings;
  std::vector<MetricChange> metrics;  // groups in both runs, sorted by group and name
  std::optional<double> utilization_before, utilization_after;
  std::vector<MovedJob> moved;  // at most 10, largest |start change| first
  std::optional<Scenario> scenario;
  std::optional<engine::LoadCoverage> coverage_before, coverage_after;  // how much of the load ran
  /// Runs that stopped at the sim-steps limit (WORK008), each said in one line ("the old
  /// config's simulation stopped ..."). Two runs cut at a step count cover different spans of
  /// the load, and a cut run against a whole one compares a part with the whole: no outcome
  /// (utilisation, coverage, waits, moved jobs, regressions) is compared then.
  std::vector<std::string> cut_runs;
  bool stalled_run = false;  // one of them stopped because its clock stood still (a bug to report)
  /// Outcomes worse beyond the threshold (outcome_regressions), and whether
  /// --fail-on-regression was given, which makes any of them fail the diff.
  std::vector<Regression> regressions;
  double regression_pct = 100;
  bool regressions_gated = false;
};

/// The outcomes worse by more than `pct` percent: the p95 wait of a partition or size class
/// (by at least ten minutes, so seconds of noise are not a regression), jobs left never
/// started (any increase of more than pct% and at least one job), and an account's delivered
/// share further from its target (by more than pct% of the target).
std::vector<Regression> outcome_regressions(const LintDiff& diff, double pct);

/// Compares two lint runs of the same load; findings match on code and flagged line text.
LintDiff diff_lints(const LintReport& before, const LintReport& after, const Config& old_config,
                    const Config& new_config);

}  // namespace sa::rules
