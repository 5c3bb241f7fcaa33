#pragma once
// The lint driver: runs every registered rule over a loaded site, surfaces the inputs' own
// diagnostics as `config` findings, simulates once when a rule needs it (the user's load,
// or a default load derived from the cluster), then applies suppressions, severity
// overrides and the baseline, and sorts by (file, line, column, code).
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analyzer/result.h"
#include "engine/coverage.h"
#include "engine/site_loader.h"
#include "engine/workload/default_load.h"
#include "rules/framework/context.h"
#include "rules/framework/finding.h"
#include "rules/framework/severity_file.h"

namespace sa::rules {

struct LintOptions {
  bool simulate = true;
  std::set<std::string> only;     // run only these codes (empty: every rule)
  bool input_diagnostics = true;  // surface CONF/ACCT/WORK diagnostics as findings
  SeverityOverrides overrides;
  std::set<std::string> baseline;  // fingerprints of findings already accepted
  engine::DefaultLoadOptions default_load;
  /// A default load generated elsewhere, simulated instead of this site's own (diff runs
  /// both configs on the old one's); `load_description` names it in the report.
  const engine::Workload* load = nullptr;
  std::string load_description;
  std::function<void(double)> progress;  // the base simulation's progress (a terminal bar)
};

struct LintReport {
  std::vector<Finding> findings;     // sorted
  std::optional<Scenario> scenario;  // set when the site was simulated
  nlohmann::json metrics;            // headline metrics of that run (empty when not simulated)
  SimulationPtr simulation;          // that run itself (diff compares two)
  std::size_t suppressed = 0, switched_off = 0, baselined = 0;
  std::size_t rules_run = 0;
  /// Re-simulations the rules ran for their fixes' evidence (each a full run of the load):
  /// one per rule's fix, never one per partition, so a config cannot multiply them.
  std::size_t resimulations = 0;
  std::vector<std::string> skipped;              // rules not run: "BF002 (needs a simulation)"
  std::optional<engine::LoadCoverage> coverage;  // how much of the load ran (when simulated)
  std::vector<std::string> idle_partitions;      // partitions the default load gave no jobs, with why
  std::string conf_path, slurm_version;
  /// Findings at or above `level` that are not in the baseline.
  std::size_t count_at_or_above(Severity level) const;
  std::size_t count(Severity level) const;
};

LintReport run_lint(const engine::LoadedSite& site, const LintOptions& options);

/// The fingerprints of a previous `lint --format json` output.
Result<std::set<std::string>> read_baseline(const std::string& path);

/// The check family an input diagnostic code belongs to (most are `config`).
Check diagnostic_check(const std::string& code);

}  // namespace sa::rules
