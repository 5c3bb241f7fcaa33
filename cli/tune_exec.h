#pragma once
// The two halves of the executors of `tune` (tune_exec.cpp: local runs and shards;
// tune_array.cpp: the Slurm job array and the merge) and what they share.
#include <CLI/CLI.hpp>

#include "cli/tune_options.h"
#include "tune/run_dir.h"

namespace sa::cli {

/// The manifest of a run set up from `cmd`'s parsed options (the spec ones, tune_exec.cpp).
tune::Manifest make_manifest(const TuneOptions& o, const CLI::App& cmd, const TuneSession& t,
                             const tune::SearchPlan& plan);
/// --executor slurm: writes the batch script (and submits it with --submit).
int write_array(const TuneOptions& o, tune::Manifest m);
/// --merge DIR.
int run_merge(const TuneOptions& o);

}  // namespace sa::cli
