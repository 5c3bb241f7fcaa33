#pragma once
// Loading a whole site for the engine commands (simulate, sprio, ...): slurm.conf, the
// accounting files and a workload, with every input's diagnostics kept for stderr.
#include <memory>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "analyzer/analyze.h"
#include "analyzer/assoc_model.h"
#include "cli/input_options.h"
#include "engine/simulator.h"
#include "engine/site_loader.h"
#include "engine/workload/workload.h"

namespace sa::cli {

/// The site files as the command line names them: the paths themselves, plus the two
/// options that still need parsing (--map-partition, --slurm-version).
struct SiteOptions {
  engine::SitePaths paths;
  std::vector<std::string> partition_map;  // trace=site
  std::string version;
  InputOptions input;
};

using SiteInputs = engine::LoadedSite;

/// Adds the slurm.conf positional and --assoc/--qos/--usage/--workload/--synthetic options.
void add_site_options(CLI::App& cmd, SiteOptions& o, bool workload_required = true);
/// Loads everything; on a fatal problem prints it and returns nullopt.
std::unique_ptr<SiteInputs> load_site(const SiteOptions& o, bool need_workload = true);
/// Prints every input diagnostic to stderr; true if any is an error.
bool report_site_diagnostics(const SiteInputs& in);

/// A time on the command line: epoch seconds, YYYY-MM-DDTHH:MM:SS, or +DURATION (seconds
/// or [D-]HH:MM:SS) after `origin`.
std::optional<std::int64_t> parse_time_option(const std::string& text, std::int64_t origin);

}  // namespace sa::cli
