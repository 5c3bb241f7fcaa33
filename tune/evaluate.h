#pragma once
// A goal's number on one simulated run. Waits and starved jobs are counted over the jobs the
// selector picks (so `size=1-16` is any CPU range, not only metrics.h's size classes);
// utilisation, backfill share and delivered shares come from engine::compute_metrics, the
// same numbers `simulate` prints.
#include <cstddef>

#include "engine/metrics.h"
#include "engine/simulator.h"
#include "tune/goal.h"

namespace sa::tune {

/// Lint findings of one candidate, by the lowest severity counted: [0] errors, [1] errors and
/// warnings, [2] all.
struct FindingCounts {
  std::size_t at_or_above[3] = {0, 0, 0};
};

struct RunView {
  const engine::SimResult& result;
  const engine::Metrics& metrics;
  const engine::Site& site;
  const FindingCounts* findings = nullptr;  // null when no goal asks for them
};

double evaluate(const Goal& goal, const RunView& run);

}  // namespace sa::tune
