#pragma once
// Options shared by the commands that run the engine (simulate, sprio, squeue, explain):
// the cost model, the clock origin, the output format and the progress bar.
#include <functional>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/site_inputs.h"

namespace sa::cli {

struct EngineOptions {
  std::string until, at, start;
  std::string trace;
  std::string format = "text";
  std::string progress = "auto";
  std::string jobs;  // sprio snapshot mode
  std::string calc_at;
  double bf_test_cost_us = 2000;
  double main_decision_cost_us = 100;
};

void add_engine_options(CLI::App& cmd, EngineOptions& e);
std::function<void(double)> progress_bar(const std::string& mode);
std::int64_t first_submit(const engine::Workload& w);
/// Applies --start; false (with a message) when it is not a time.
bool apply_start(const EngineOptions& e, const engine::Workload& w, engine::SimOptions& opt);
/// SimOptions from the engine options and the loaded site: costs, partition map, --start,
/// the progress bar. False (with a message) on a bad --start.
bool engine_sim_options(const EngineOptions& e, const SiteInputs& in, engine::SimOptions& opt);
/// Parses a time option (--at, --until); prints a message naming `flag` when it is not one.
std::optional<std::int64_t> time_option(const std::string& flag, const std::string& text, const engine::Workload& w);

}  // namespace sa::cli
