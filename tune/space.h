#pragma once
// The search space of `slurm-advisor tune`: each `--vary` names one setting and the values to
// try. A setting is a top-level slurm.conf key (`PriorityWeightFairshare`), one option inside
// SchedulerParameters (`SchedulerParameters.bf_window`, or `bf_window`: any name starting
// with bf_ or otherwise known to be a SchedulerParameters option), a partition field
// (`Partition[gpu].PriorityJobFactor`) or a QOS field (`QOS[high].Priority`). Values are a
// list `a,b,c` or a range `lo..hi[:log|:int][:N]` (N grid points, default 5).
//
// Candidates are slurm.conf TEXT: the value is replaced on the line that sets it (the last
// one, as Slurm keeps the last), one comma item of SchedulerParameters is edited, and a key
// the main file does not set gets a line appended. The text is then read again by the
// analyzer, so an invalid combination is a diagnostic, not a run.
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "analyzer/assoc_model.h"
#include "tune/goal.h"

namespace sa::tune {

enum class KeyKind { kSetting, kSchedParam, kPartition, kQos };

/// A `lo..hi` range as written, for the sampler (the grid uses `values`).
struct Range {
  double lo = 0, hi = 0;
  bool log = false, integer = false;
};

struct Dimension {
  std::string spec;  // as written
  KeyKind kind = KeyKind::kSetting;
  std::string key;    // the slurm.conf key, option, or field
  std::string scope;  // the partition or QOS name
  std::vector<std::string> values;
  std::optional<Range> range;  // set for `lo..hi`; a list is sampled from `values`
  /// "PriorityWeightFairshare", "SchedulerParameters.bf_window", "Partition[gpu].PriorityJobFactor".
  std::string name() const;
};

std::variant<Dimension, SpecError> parse_vary(const std::string& text);
/// A range point as written into the config: rounded when the range is integer, else 6 digits.
std::string format_point(double v, bool integer);

/// Replaces (or appends) a top-level `key=value` in slurm.conf text.
std::string set_conf_key(const std::string& text, const std::string& key, const std::string& value);
/// Sets one SchedulerParameters item. `resolved` is the list in effect when the main file
/// does not write SchedulerParameters itself (it may come from an Include): it is edited and
/// written as a new line, so the other items survive.
std::string set_sched_param(const std::string& text, const std::string& resolved, const std::string& option,
                            const std::string& value);
/// Sets `field=value` on the PartitionName=`partition` line; false when the main file has no
/// such line (an Include'd partition is not edited).
bool set_partition_field(std::string& text, const std::string& partition, const std::string& field,
                         const std::string& value);
/// Sets a QOS field in the table (Priority, UsageFactor, MaxJobsPerUser, MaxSubmitJobsPerUser,
/// GrpJobs, MaxWall in minutes or [D-]HH:MM:SS); an error message when the QOS or field is
/// unknown or the value does not read.
std::string set_qos_field(QosTable& table, const std::string& qos, const std::string& field, const std::string& value);

/// The value the main text writes for a dimension ("" when it does not).
std::string current_value(const std::string& text, const std::string& resolved_sched, const QosTable& qos,
                          const Dimension& d);

}  // namespace sa::tune
