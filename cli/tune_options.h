#pragma once
// The options of `slurm-advisor tune` and a run set up from them, shared by cmd_tune.cpp (the
// spec, the site, the report) and tune_exec.cpp (where the candidates run: here, resumable
// with --out, as one --shard, as a Slurm job array, or merged from its shards).
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/site_inputs.h"
#include "cli/tune_search_options.h"
#include "tune/search.h"

namespace sa::cli {

struct TuneExecOptions {
  std::string executor = "local";
  std::string out;          // the run directory: manifest, records, shards, batch script
  std::string shard;        // i/M
  std::string merge;        // a run directory to merge
  std::size_t shards = 0;   // --executor slurm: array tasks (0: the default)
  bool submit = false;      // --executor slurm: run sbatch
  std::string sbatch_args;  // --executor slurm: more #SBATCH options
  bool progress = false, no_progress = false;
};

struct TuneOptions {
  SiteOptions site;
  std::vector<std::string> goals, vary;
  std::size_t seeds = 5, max_candidates = 500;
  unsigned jobs = 1;
  std::string format = "text", output;
  TuneSearchOptions search;
  TuneExecOptions exec;
};

/// A run set up: the spec parsed, the site loaded, the loads built.
struct TuneSession {
  tune::SearchSpec spec;
  std::unique_ptr<SiteInputs> in;
  tune::SearchSite site;
  std::string load;       // what is simulated, for the report's header
  std::string spec_text;  // --spec FILE's contents, for the manifest's hash
};

/// Every option of `tune` (the site's, the search's, the executors'), bound to `o`.
void add_tune_options(CLI::App* cmd, TuneOptions* o);
/// Parses the goals and the space (with --spec FILE's, whose seeds, search and sample it sets
/// in `o` unless the command line gave them), loads the site and builds the loads: kExitOk, or
/// the exit status with the problem printed.
int setup_session(TuneOptions& o, TuneSession& t);
/// kExitOk, or kExitUsage with the reason printed when the analyzer refused every candidate.
int check_plan(const tune::SearchPlan& plan);
/// Whether --search (auto resolved against the grid's size) asks for successive halving.
bool uses_halving(const TuneOptions& o, const TuneSession& t);
/// A successive-halving search on this machine, reported as --format and --output say.
int run_halving(const TuneOptions& o, const TuneSession& t);
/// Prints the outcome as --format and --output say; the exit status of the run.
int report_outcome(const TuneOptions& o, const TuneSession& t, const tune::SearchOutcome& outcome);
/// The same, or kExitUsage with the reason printed when nothing could be ranked (a baseline cut
/// at the step limit).
int report_outcome(const TuneOptions& o, const TuneSession& t, const Result<tune::SearchOutcome>& outcome);

/// tune_exec.cpp: the options of the executors, and the run as they say.
void add_exec_options(CLI::App& cmd, TuneExecOptions& o);
int run_tune(const TuneOptions& o, CLI::App& cmd);

}  // namespace sa::cli
