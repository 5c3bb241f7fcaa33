#pragma once
// The options a `sacctmgr dump` line may set (assoc_options.cpp): their names, aliases and
// abbreviations as sacctmgr load reads them. Internal to assoc_reader.cpp.
#include <string>
#include <vector>

namespace sa::assoc_detail {

enum class Option {
  kUnknown,
  kIgnored,
  kFairshare,
  kDefaultAccount,
  kDefaultQos,
  kQos,
  kPriority,
  kDescription,
  kOrganization,
  kPartition,
  kGrpTres,
  kGrpTresMins,
  kGrpTresRunMins,
  kGrpJobs,
  kGrpJobsAccrue,
  kGrpSubmitJobs,
  kGrpWall,
  kMaxTresMinsPerJob,
  kMaxTresRunMins,
  kMaxTresPerJob,
  kMaxTresPerNode,
  kMaxJobs,
  kMaxJobsAccrue,
  kMaxSubmitJobs,
  kMaxWallDurationPerJob
};

// The option `key` names (its full name, an alias or an unambiguous prefix), or kUnknown.
Option find_option(const std::string& key);
// Every option name and alias, for "did you mean" suggestions.
std::vector<std::string> option_names();

}  // namespace sa::assoc_detail
