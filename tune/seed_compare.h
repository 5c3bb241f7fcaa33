#pragma once
// `slurm-advisor diff --seeds K`: the old and the new config each run on the same K seeds of
// the default load (the old config's, as diff uses one load for both), and every compared
// outcome is a mean with a 95 % interval. Both configs see the same jobs on a seed, so the
// change is measured per seed (paired) and is significant when the interval of those
// differences excludes 0.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/site_loader.h"
#include "engine/workload/default_load.h"
#include "tune/goal.h"
#include "tune/stats.h"

namespace sa::tune {

struct SeedMetric {
  std::string group;  // "run", "partition", "size", "account"
  std::string name;   // "all", the partition, size class or account
  std::string what;   // "utilisation", "mean wait", "p95 wait", "delivered share", "jobs never started"
  Unit unit = Unit::kSeconds;
  Interval before, after, change;  // change: after - before, per seed
  bool significant = false;
};

struct SeedComparison {
  std::size_t seeds = 0;
  std::uint64_t first_seed = 0;
  std::string load;                 // the first seed's load, described
  std::vector<SeedMetric> metrics;  // the run first, then groups sorted by group and name
  /// Runs that stopped at the sim-steps limit ("seed 3: the new config's simulation stopped
  /// ..."); with any, no outcome is compared (metrics is empty): a cut run covers only part of
  /// its load, so its numbers are not those of the seed.
  std::vector<std::string> cut_runs;
};

/// Runs both sites on `seeds` default loads (seeds options.seed ...), the old site's load for
/// both. A group is compared when every run has jobs in it, and nothing when a run stopped at
/// the step limit.
SeedComparison compare_over_seeds(const engine::LoadedSite& before, const engine::LoadedSite& after,
                                  const engine::DefaultLoadOptions& options, std::size_t seeds);

}  // namespace sa::tune
