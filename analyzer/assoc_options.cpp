// The option names of `sacctmgr dump` lines: the table sacctmgr load reads, with its aliases
// and the abbreviations it accepts. A vocabulary, kept apart from the line reader (assoc_reader.cpp).
#include "analyzer/assoc_options.h"

#include "analyzer/text_util.h"

namespace sa::assoc_detail {

namespace {

struct OptionName {
  const char* name;
  Option option;
};

// The options the dump writer emits (and sacctmgr load reads), plus the aliases it accepts.
const OptionName kOptions[] = {
    {"Fairshare", Option::kFairshare},
    {"Shares", Option::kFairshare},
    {"DefaultAccount", Option::kDefaultAccount},
    {"DefaultQOS", Option::kDefaultQos},
    {"QOS", Option::kQos},
    {"QosLevel", Option::kQos},
    {"Priority", Option::kPriority},
    {"Description", Option::kDescription},
    {"Organization", Option::kOrganization},
    {"Partition", Option::kPartition},
    {"GrpTRES", Option::kGrpTres},
    {"GrpTRESMins", Option::kGrpTresMins},
    {"GrpTRESRunMins", Option::kGrpTresRunMins},
    {"GrpJobs", Option::kGrpJobs},
    {"GrpJobsAccrue", Option::kGrpJobsAccrue},
    {"GrpSubmitJobs", Option::kGrpSubmitJobs},
    {"GrpWall", Option::kGrpWall},
    {"MaxTRESMinsPerJob", Option::kMaxTresMinsPerJob},
    {"MaxTRESRunMins", Option::kMaxTresRunMins},
    {"MaxTRESPerJob", Option::kMaxTresPerJob},
    {"MaxTRESPerNode", Option::kMaxTresPerNode},
    {"MaxJobs", Option::kMaxJobs},
    {"MaxJobsAccrue", Option::kMaxJobsAccrue},
    {"MaxSubmitJobs", Option::kMaxSubmitJobs},
    {"MaxWallDurationPerJob", Option::kMaxWallDurationPerJob},
    {"MaxWall", Option::kMaxWallDurationPerJob},
    {"Classification", Option::kIgnored},
    {"DefaultWCKey", Option::kIgnored},
    {"AdminLevel", Option::kIgnored},
    {"Coordinator", Option::kIgnored},
    {"WCKeys", Option::kIgnored},
    {"Comment", Option::kIgnored},
    {"GrpCPUs", Option::kIgnored},
    {"MaxCPUs", Option::kIgnored},
    {"GrpCPUMins", Option::kIgnored},
};

}  // namespace

Option find_option(const std::string& key) {
  for (const OptionName& o : kOptions) {
    if (iequals(key, o.name)) return o.option;
  }
  // sacctmgr load also accepts unambiguous prefixes of at least three letters.
  Option found = Option::kUnknown;
  int matches = 0;
  for (const OptionName& o : kOptions) {
    if (key.size() >= 3 && istarts_with(o.name, key)) {
      if (found != o.option) ++matches;
      found = o.option;
    }
  }
  return matches == 1 ? found : Option::kUnknown;
}

std::vector<std::string> option_names() {
  std::vector<std::string> names;
  for (const OptionName& o : kOptions) names.push_back(o.name);
  return names;
}

}  // namespace sa::assoc_detail
