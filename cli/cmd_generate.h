#pragma once
// Hidden commands the build runs to write the man pages and the shell completions from the
// CLI definition itself: `slurm-advisor man` and `slurm-advisor completion bash|zsh`.
#include <CLI/CLI.hpp>
#include <functional>

namespace sa::cli {

void register_generators(CLI::App& app, std::function<int()>& runner);

}  // namespace sa::cli
