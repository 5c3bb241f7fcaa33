#pragma once
#include <CLI/CLI.hpp>
#include <functional>

namespace sa::cli {

/// `squeue`: what `squeue -o '%i|%u|%a|%P|%q|%T|%r'` would print at a time of a simulation.
void register_squeue(CLI::App& app, std::function<int()>& runner);

/// `explain JOBID`: the chain of what held a job back, and what-if starts.
void register_explain(CLI::App& app, std::function<int()>& runner);

}  // namespace sa::cli
