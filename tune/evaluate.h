#pragma once
// A goal's number on one simulated run. Waits and starved jobs are counted over the jobs the
// selector picks (so `size=1-16` is any CPU range, not only metrics.h's size classes);
// utilisation, backfill share and delivered shares come from engine::compute_metrics, the
// same numbers `simulate` prints.
#include <cstddef>

#include "engine/metrics.h"
#include "engine/simulator.h"
#include "engine/site_loader.h"
#include "engine/workload/workload.h"
#include "tune/goal.h"

namespace sa::tune {

/// Lint findings of one candidate, by the lowest severity counted: [0] errors, [1] errors and
/// warnings, [2] all.
struct FindingCounts {
  std::size_t at_or_above[3] = {0, 0, 0};
};

/// A site simulated on one load as tune runs each candidate and seed (and diff --seeds each
/// config): the load's assumed QOS added, the run ending where the load says. Built in place
/// and not copied, as a RunView refers to its members.
struct SeedRun {
  SeedRun(const engine::LoadedSite& in, const engine::Workload& load);
  SeedRun(const SeedRun&) = delete;
  SeedRun& operator=(const SeedRun&) = delete;
  engine::Site site;
  engine::SimResult result;
  engine::Metrics metrics;
};

struct RunView {
  const engine::SimResult& result;
  const engine::Metrics& metrics;
  const engine::Site& site;
  const FindingCounts* findings = nullptr;  // null when no goal asks for them
};

double evaluate(const Goal& goal, const RunView& run);

}  // namespace sa::tune
