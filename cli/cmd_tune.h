#pragma once
#include <functional>

#include <CLI/CLI.hpp>

namespace sa::cli {

/// `slurm-advisor tune slurm.conf --goal G --vary KEY=VALUES`: searches settings for the goals.
void register_tune(CLI::App& app, std::function<int()>& runner);

}  // namespace sa::cli
