#pragma once
#include <CLI/CLI.hpp>
#include <functional>

namespace sa::cli {

/// Registers `sshare` (the table sshare -a -l -P prints) and `tree` (the share tree drawn
/// in the terminal).
void register_sshare(CLI::App& app, std::function<int()>& runner);
void register_tree(CLI::App& app, std::function<int()>& runner);

}  // namespace sa::cli
