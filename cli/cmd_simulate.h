#pragma once
#include <CLI/CLI.hpp>
#include <functional>

namespace sa::cli {

/// `simulate`: replay or synthesise a load on a site and report what the scheduler did.
void register_simulate(CLI::App& app, std::function<int()>& runner);
/// `sprio`: what `sprio -l` would print at a time, from a queue snapshot or a simulation.
void register_sprio(CLI::App& app, std::function<int()>& runner);

}  // namespace sa::cli
