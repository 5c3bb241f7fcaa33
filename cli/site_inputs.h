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
  std::string version = kDefaultSlurmVersion.to_string();
  // The default load (no --workload or --synthetic): the same seed and span lint uses, so a
  // job a lint finding cites is the same job in simulate, sprio, squeue and explain.
  std::uint64_t seed = 1;
  int days = 3;
  double scale_to_site = 0;  // --scale-to-site: offered load for a recorded trace from elsewhere
  std::string save_load;     // --save-load: write the simulated jobs as a sacct -P dump
  engine::DefaultLoadOptions default_load() const;
  InputOptions input;
};

using SiteInputs = engine::LoadedSite;

/// Adds the slurm.conf positional and --assoc/--qos/--usage/--workload/--synthetic options.
void add_site_options(CLI::App& cmd, SiteOptions& o, bool workload_required = true);
/// Adds --save-load (lint, diff and simulate keep the jobs they ran).
void add_save_load_option(CLI::App& cmd, SiteOptions& o);
/// Writes the load to --save-load's file, if given; false (and a message) when it cannot.
bool save_load(const SiteOptions& o, const engine::Workload& load);
/// Prints the load coverage of a run to stderr (commands whose stdout mimics a Slurm tool).
void print_coverage_stderr(const engine::SimResult& result, const engine::Site& site);

/// Loads everything; without a load of the user's and `need_workload`, the default load.
/// On a fatal problem prints it and returns nullptr.
std::unique_ptr<SiteInputs> load_site(const SiteOptions& o, bool need_workload = true);
/// Adds WORK008 to the site's diagnostics when its run stopped at the step limit.
void add_step_limit_diagnostic(SiteInputs& in, const std::optional<engine::StepLimitStop>& stop);
/// Prints every input diagnostic to stderr; true if any is an error.
bool report_site_diagnostics(const SiteInputs& in);

/// A time on the command line: epoch seconds, YYYY-MM-DDTHH:MM:SS, or +DURATION (seconds
/// or [D-]HH:MM:SS) after `origin`.
std::optional<std::int64_t> parse_time_option(const std::string& text, std::int64_t origin);

}  // namespace sa::cli
