#include "cli/about.h"

#include "analyzer/version.h"
#include "cli/version_info.h"

namespace sa::cli {

std::string version_text() {
  return std::string("slurm-advisor ") + kToolVersion + "\nchecks configurations against Slurm " +
         kOldestKnownVersion.to_string() + " to " + kNewestKnownVersion.to_string() + " (default " +
         kDefaultSlurmVersion.to_string() + "; --slurm-version selects one)";
}

}  // namespace sa::cli
