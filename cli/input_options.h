#pragma once
// The options every command that reads a slurm.conf (or any other input) shares: where
// Include files may come from, and the limits on how much work an input may cause.
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "analyzer/conf_loader.h"
#include "analyzer/input_limits.h"

namespace sa::cli {

struct InputOptions {
  std::vector<std::string> include_roots, include_maps, limits;
  bool allow_outside_includes = false;
  /// The include policy and limits these options name; false (with a message) on a bad one.
  bool resolve(IncludePolicy& policy, InputLimits& limits_out) const;
};

/// Adds --include-root, --include-map, --allow-outside-includes and --limit.
void add_input_options(CLI::App& cmd, InputOptions& o);

}  // namespace sa::cli
