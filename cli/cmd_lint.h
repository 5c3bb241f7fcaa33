#pragma once
#include <functional>

#include <CLI/CLI.hpp>

namespace sa::cli {

/// `slurm-advisor lint`: every rule over a site, with simulated evidence.
void register_lint(CLI::App& app, std::function<int()>& runner);
/// `slurm-advisor rules [CODE]`: the rule catalogue and each rule's documentation.
void register_rules(CLI::App& app, std::function<int()>& runner);

}  // namespace sa::cli
