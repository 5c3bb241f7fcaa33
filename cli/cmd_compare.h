#pragma once
#include <functional>

#include <CLI/CLI.hpp>

namespace sa::cli {

/// `slurm-advisor compare REAL SIM`: how far a simulated (or second real) run is from a
/// recorded one, in waits per group, makespan, backfill share and placements.
void register_compare(CLI::App& app, std::function<int()>& runner);

}  // namespace sa::cli
