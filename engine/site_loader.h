#pragma once
// Loading a whole site from files: slurm.conf, the accounting files (association dump, QOS
// table, sshare usage), reservations, node events and a workload. Shared by the CLI's
// engine commands and by lint, which must read exactly what `simulate` reads.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/analyze.h"
#include "analyzer/assoc_model.h"
#include "analyzer/result.h"
#include "engine/simulator.h"
#include "engine/workload/default_load.h"
#include "engine/workload/workload.h"

namespace sa::engine {

struct SitePaths {
  std::string conf, assoc, qos, usage;
  std::string reservations, events;
  std::string workload, synthetic;
  bool stop_on_error = false;
  std::map<std::string, std::string> partition_map;  // trace name -> site partition
  double scale_to_site = 0;                          // > 0: a recorded load scaled to this site at that offered load
  SlurmVersion version = kDefaultSlurmVersion;
  IncludePolicy includes{};
  InputLimits limits{};
  bool sniff_role = false;  // AnalyzeOptions::sniff_role (lint)
};

/// Everything read, with every input's diagnostics: the slurm.conf family's in
/// `conf->diagnostics`, the other files' in `diagnostics`.
struct LoadedSite {
  SourceManager sources;
  DiagnosticSink diagnostics;
  std::unique_ptr<Analysis> conf;
  std::optional<AssocTree> tree;
  Site site;
  Workload workload;
  bool has_workload = false;
  std::map<std::string, std::string> partition_map;
  std::pair<FileId, FileId> workload_files{0, 0};  // the --workload file's ids: [first, second)
};

/// Reads every file named; a file that cannot be read at all (or --usage without --assoc)
/// is the error. Problems inside the files are diagnostics. Without `conf` (the accounting
/// commands) only the accounting files are read: `conf` and `site.config` stay null.
Result<std::unique_ptr<LoadedSite>> load_site(const SitePaths& paths);

/// Gives a site without a load the default load lint simulates (the same jobs for the same
/// seed and span), with the QOS it assumes added to the site.
void use_default_load(LoadedSite& site, const DefaultLoadOptions& options);

/// "<subject> stopped at its limit of N scheduling steps, <span> into the load: P jobs were
/// pending, R running and U not yet submitted" (or, where its clock stood still, says so):
/// WORK008's words, for the commands that say which of several runs stopped.
std::string step_limit_text(const StepLimitStop& stop, std::int64_t limit, const std::string& subject);

/// What to do about a run whose clock stood still: report it, as no limit mends it.
inline constexpr const char* kStalledHint =
    "this is a slurm-advisor bug, not a limit to raise: please report it with these input files";

/// The run WORK008 speaks of: "the simulation" for the site as configured, else "the
/// re-simulation with <variant>" (a lint re-simulation's change).
std::string step_limit_subject(const std::string& variant);

/// A run that stopped at the sim-steps limit (SimResult::step_limit) as a WORK008 warning at
/// the top of slurm.conf (the config and the load took the steps together): when it stopped,
/// what it left unfinished and how to raise the limit. Nothing for a run that ended.
/// `variant` names the change a lint re-simulation made ("": the site as configured).
std::optional<Diagnostic> step_limit_diagnostic(const std::optional<StepLimitStop>& stop, const LoadedSite& site,
                                                const std::string& variant = {});

/// Drops the text of a --workload file of at least `min_bytes` (and of the gzip bytes it was
/// unpacked from) but the lines its diagnostics cite, so a long simulation does not hold a
/// trace it has already read. Only for a command that reads the load's text no more and makes
/// no new diagnostic about it (the site's own files are untouched: the model may point into them).
void shed_workload_text(LoadedSite& site, std::size_t min_bytes = std::size_t{1} << 20);

}  // namespace sa::engine
