#pragma once
// Writes a load as the `sacct -P` dump the workload reader reads back: `--save-load` keeps
// the exact jobs a lint or simulation ran, so a finding's jobs can be replayed, explained and
// shared. A comment block before the header carries what a replay needs beyond the jobs (the
// span simulated, the seed, the QOS the load assumed); `sacct` itself never writes '#' lines.
#include <ostream>

#include "engine/workload/workload.h"

namespace sa::engine {

void write_sacct_load(std::ostream& out, const Workload& workload);

/// The comment line's prefix.
inline constexpr const char* kSavedLoadMark = "# slurm-advisor load:";

}  // namespace sa::engine
