#pragma once
// How much of a load the site actually ran: per partition, the jobs offered, refused at
// submission (counted by Slurm's own error message), started and still pending at the end.
// A simulation whose jobs were mostly refused says nothing about the site's policy, so every
// command that simulates reports this, and lint withholds evidence that rests on too little.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "analyzer/model.h"
#include "engine/simulator.h"

namespace sa::engine {

struct PartitionCoverage {
  std::string name;
  std::size_t offered = 0, refused = 0, started = 0, pending_at_end = 0;
  /// Never started here before the recorded load's scancel (RequestExtras::cancelled_at).
  std::size_t cancelled = 0;
  std::map<std::string, std::size_t> refused_reasons;  // Slurm's error message -> jobs
  /// started / offered, leaving out the jobs the load cancelled before they started (1 when
  /// nothing else was offered).
  double coverage() const {
    const std::size_t asked = offered - cancelled;
    return asked ? static_cast<double>(started) / static_cast<double>(asked) : 1.0;
  }
  /// coverage() in whole percent, as the reports print it: at most 99 while a job the load
  /// asked for did not start (2,495 of 2,507 is 99 %, not 100 %).
  double percent() const {
    const double p = std::round(100 * coverage());
    return started + cancelled < offered ? std::min(99.0, p) : p;
  }
};

struct LoadCoverage {
  std::vector<PartitionCoverage> partitions;  // slurm.conf order, then names the site lacks
  PartitionCoverage total;                    // named "" : the whole load
  double coverage() const { return total.coverage(); }
  const PartitionCoverage* find(const std::string& partition) const;
};

/// Jobs submitted within the run's span count as offered; a refused job counts in the first
/// partition it named (or the default partition), a queued one in the partition it ran in or
/// would have run in first.
LoadCoverage load_coverage(const SimResult& result, const Config& config);

/// Below this share of offered jobs started, a run is too thin to be evidence (LOAD001).
inline constexpr double kMinCoverage = 0.8;

}  // namespace sa::engine
