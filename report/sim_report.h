#pragma once
// Renderings of a simulation: the per-job trace CSV, `sprio -l` as Slurm prints it, and
// the summary metrics as text or JSON.
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/metrics.h"
#include "engine/simulator.h"

namespace sa::report {

/// One CSV row per job: ids, times in the workload's time base, where and how it started,
/// its priority and the weighted priority factors at start.
void write_trace_csv(std::ostream& out, const engine::SimResult& result, const engine::Site& site);

/// The weighted factors sprio prints for one row (weight x factor; site, nice raw).
struct WeightedFactors {
  double age = 0, assoc = 0, fairshare = 0, job_size = 0, partition = 0, qos = 0;
  double site = 0, nice = 0;
  std::vector<std::pair<std::string, double>> tres;  // only non-zero terms
  double priority = 0;                               // get_priority_from_factors
};
WeightedFactors weighted_factors(const engine::PriorityFactors& f, const PrioritySettings& priority);

/// `sprio -l` (22.05 layout: "%.15i %9r %.8u %.10Y %.10S %.10A %.10B %.10F %.10J %.10P %.10Q %.11N %.20T").
void print_sprio_long(std::ostream& out, const engine::PendingSnapshot& snapshot, const PrioritySettings& priority);
nlohmann::json sprio_json(const engine::PendingSnapshot& snapshot, const PrioritySettings& priority);

void print_metrics_text(std::ostream& out, const engine::Metrics& metrics, const engine::SimCounters& counters);
nlohmann::json metrics_json(const engine::Metrics& metrics, const engine::SimCounters& counters);
/// Per-partition CPU-seconds running and suspended per time bucket (what the HTML report
/// draws), and the nodes asked to hold the most memory at once, worst first (at most 20).
nlohmann::json timeline_json(const engine::SimResult& result, const Config& config);
nlohmann::json node_peaks_json(const engine::SimResult& result, const Config& config);

}  // namespace sa::report
