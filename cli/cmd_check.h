#pragma once
#include <CLI/CLI.hpp>
#include <functional>

namespace sa::cli {

/// Registers `check` and `model`; the returned runners give the exit code.
void register_check(CLI::App& app, std::function<int()>& runner);
void register_model(CLI::App& app, std::function<int()>& runner);
void register_codes(CLI::App& app, std::function<int()>& runner);

}  // namespace sa::cli
