#pragma once
#include <functional>

#include <CLI/CLI.hpp>

namespace sa::cli {

/// `slurm-advisor diff OLD.conf NEW.conf`: what deploying NEW changes, on the same load.
void register_diff(CLI::App& app, std::function<int()>& runner);

}  // namespace sa::cli
