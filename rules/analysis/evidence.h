#pragma once
// Building blocks of a finding's evidence, so every rule shows jobs, waits and metrics the
// same way: the scenario, wait statistics, and example jobs with their weighted priority
// factors (headline metrics and wait JSON come from rules/framework/run_json.h).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyzer/config_edit.h"
#include "engine/metrics.h"
#include "rules/framework/context.h"
#include "rules/framework/run_json.h"

namespace sa::rules {

/// Count, mean, median, p95 and max of a list of waits (seconds), as the metrics compute them.
engine::WaitStats wait_stats(std::vector<double> waits);
/// Names joined with commas, as slurm.conf lists them.
std::string join_names(const std::vector<std::string>& names);
/// A rule that flags many partitions re-simulates its fix on all of them at once (one run per
/// rule, however many partitions a config has): `key`=value on each (partition, value), and
/// the run's label, made once for all the rule's findings. The label names three partitions
/// and counts the rest ("OverSubscribe=FORCE:1 on a, b, c and 4 more partitions" where the
/// values agree, else each change in turn: "DefaultTime=04:00:00 on a, DefaultTime=05:00:00
/// on b").
struct PartitionsFix {
  std::string label;
  std::vector<ConfigEdit> edits;
};
PartitionsFix partitions_fix(const std::string& key, const std::vector<std::pair<std::string, std::string>>& values);

/// One job of a simulation: who, where, how big, when it was submitted and started, its
/// wait, priority and weighted factors (at start, or at the end for jobs still pending).
nlohmann::json job_json(const Simulation& sim, const engine::SimJob& job);
/// Weighted factors of one record, named as sprio names its columns.
nlohmann::json weighted_factors(const Config& config, const engine::PriorityFactors& f);

/// Seconds a job waited (to the end of the run if it never started).
std::int64_t wait_of(const Simulation& sim, const engine::SimJob& job);
/// The partition a job ran in (or its first choice).
const std::string& partition_of(const Simulation& sim, const engine::SimJob& job);

/// "2-00:00:00", "45:00", as Slurm prints times.
std::string slurm_duration(std::int64_t seconds);

/// A minute-valued time key (PriorityMaxAge, PriorityCalcPeriod, DefaultTime, ...) as the
/// message shows it: "PriorityMaxAge=7 is 7 minutes (a bare number is minutes)",
/// "PriorityMaxAge=00:10:00" (written as a duration), or "PriorityMaxAge (default 7-00:00:00)".
std::string minutes_key_text(const Config& config, const std::string& key, std::int64_t seconds);

/// The finding's evidence with its scenario filled in.
nlohmann::json simulated_evidence(const Simulation& sim);

}  // namespace sa::rules
