#pragma once
// Wires `.slurm-advisor.toml` into the command line in one place: every command gets --config
// FILE and --no-config, and after parsing, each key of the file sets the option it stands for
// unless the command line gave that option. `slurm-advisor config --show` prints the result.
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace sa::cli {

struct ConfigFlags {
  std::string file;   // --config: this file instead of the one found
  bool none = false;  // --no-config
  // Required options a key of the file can give (sshare's --assoc): CLI11 would refuse the
  // command line before the file is read, so they are checked after it instead.
  std::vector<CLI::Option*> required_after_config;
};

/// Adds --config and --no-config to every subcommand registered so far.
void add_config_options(CLI::App& app, ConfigFlags& flags);
/// After parsing: reads the project config of the chosen command (explicit, or found from its
/// slurm.conf's directory upward, else from the current directory) and fills the options the
/// command line left unset. False (the diagnostics printed on stderr) on a bad file.
bool apply_project_config(CLI::App& app, const ConfigFlags& flags);
/// `slurm-advisor config --show [PATH]`.
void register_config(CLI::App& app, std::function<int()>& runner, const ConfigFlags& flags);

}  // namespace sa::cli
