#pragma once
// `explain`: why one job waited, interval by interval, and when it would have started if
// each thing that held it back were lifted (each answer a fresh simulation of the same
// load with one change: a limit removed, or the job put at the top of its tier).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/coverage.h"
#include "engine/simulator.h"

namespace sa::engine {

struct ExplainSpan {
  std::int64_t from = 0, until = 0;
  std::string reason, detail;
};

struct WhatIf {
  std::string change;            // "lift AssocGrpCpuLimit on account chem", "top priority"
  std::int64_t start = kNoTime;  // kNoTime: still not started by the original start
};

struct Explanation {
  bool found = false;
  SimJob job;  // as simulated (reasons, start, how)
  std::string partition, account, qos;
  std::vector<ExplainSpan> spans;  // while pending, in order
  std::vector<WhatIf> what_ifs;
  std::int64_t run_end = 0;                 // when the simulation stopped
  LoadCoverage coverage;                    // how much of the load that run ran
  std::optional<StepLimitStop> step_limit;  // that run stopped at the sim-steps limit
};

/// Simulates `workload` on `site` with `options`, recording job `job_id`'s reasons in
/// detail; with `what_ifs`, re-simulates once per blocker lifted.
Explanation explain_job(const Site& site, const SimOptions& options, const Workload& workload, std::uint32_t job_id,
                        bool what_ifs = true);

}  // namespace sa::engine
