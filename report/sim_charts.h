#pragma once
// The charts of a simulated run, computed from the engine's result and drawn as inline SVG:
// waits per partition and per PriorityTier, priority composition per job class, target
// versus delivered share per account, backfill coverage per cycle, utilisation over time,
// and running versus suspended CPUs per partition where jobs share CPUs or are suspended.
#include <string>
#include <vector>

#include "report/svg_chart.h"
#include "rules/framework/context.h"

namespace sa::report {

/// Wait distributions of the jobs (started or left pending; rejected ones left out).
std::vector<BoxRow> waits_by_partition(const rules::Simulation& sim);
std::vector<BoxRow> waits_by_tier(const rules::Simulation& sim);
/// Mean weighted priority factors per (partition, size class), at start or at the end.
struct PriorityClasses {
  std::vector<std::string> factors;  // series names, sprio's column names
  std::vector<StackRow> rows;
};
PriorityClasses priority_by_class(const rules::Simulation& sim, std::size_t max_rows = 40);
/// Accounts in tree order: target share (classic product) vs delivered share of usage,
/// a parent's delivered share including its sub-accounts'.
std::vector<PairRow> account_share_rows(const rules::Simulation& sim, std::size_t max_rows = 80);
/// Per-cycle backfill log bucketed over the run: mean queue depth and mean jobs tested.
struct CoverageSeries {
  TimeAxis axis;
  std::vector<Series> series;
  std::size_t cycles = 0, stopped_early = 0;
};
CoverageSeries backfill_coverage(const rules::Simulation& sim, std::size_t max_points = 240);
/// Busy share of each partition's CPUs (and of all CPUs) per timeline bucket.
struct UtilisationSeries {
  TimeAxis axis;
  std::vector<Series> series;
};
UtilisationSeries utilisation(const rules::Simulation& sim, std::size_t max_partitions = 8);

struct ChartOptions {
  std::string id_prefix;  // keeps ids unique when a page shows two runs (diff)
  std::string run_name;   // "old config", "new config" in titles; empty for lint
};

/// Running versus suspended CPUs over time, one chart per partition that suspended jobs or
/// shared CPUs (at most `max_partitions`); a short note where nothing was shared.
std::string gang_charts(const rules::Simulation& sim, const ChartOptions& options, std::size_t max_partitions = 8);

/// Every chart of the run, as HTML figures; the gang timelines only where CPUs were shared
/// or jobs suspended.
std::string simulation_charts(const rules::Simulation& sim, const ChartOptions& options = {});

}  // namespace sa::report
