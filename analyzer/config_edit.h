#pragma once
// A change to slurm.conf as a site would write it, and the model Slurm would build from the
// config with that change. A fix is an edit of what is written, never of the resolved model:
// values that Slurm derives from others (bf_node_space_size from bf_max_job_test, bf_max_time
// from bf_interval, max_sched_time from MessageTimeout, the memory mode from
// SelectTypeParameters) then follow as the resolver derives them, in one place.
#include <memory>
#include <string>
#include <vector>

#include "analyzer/analyze.h"

namespace sa {

struct ConfigEdit {
  enum class Kind { kSetting, kSchedulerParameter, kPartitionKey };
  Kind kind = Kind::kSetting;
  std::string key;        // the key, or the SchedulerParameters option's name
  std::string value;      // empty for a SchedulerParameters flag (bf_continue)
  std::string partition;  // kPartitionKey: the partition whose line gets the key

  /// A top-level key: Key=value.
  static ConfigEdit setting(std::string key, std::string value);
  /// An option of SchedulerParameters: name=value, or the flag `name` when `value` is empty.
  static ConfigEdit scheduler_parameter(std::string name, std::string value = {});
  /// A key on the line of partition `partition`: PartitionName=partition ... key=value.
  static ConfigEdit partition_key(std::string partition, std::string key, std::string value);
};

/// Applies `edits` in order to the settings `analysis` read and resolves them again with the
/// same options; the diagnostics of that resolution are dropped (the edits are ours). Without
/// the settings (an analysis that failed before reading them) the model is copied unchanged.
std::unique_ptr<Config> resolve_edited(const Analysis& analysis, const std::vector<ConfigEdit>& edits);

/// SchedulerParameters text with option `name` set: every comma item that Slurm's
/// first-match search could read as it (case-insensitively) is dropped, and name[=value] is
/// appended, so it is the only one.
std::string with_scheduler_parameter(const std::string& params, const std::string& name, const std::string& value);

}  // namespace sa
