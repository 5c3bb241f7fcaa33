#pragma once
// The analyzer's entry point: path in, typed model and diagnostics out. Never throws; a
// problem with the input is a diagnostic, and only an unreadable root file is a failure.
#include <memory>
#include <string>

#include "analyzer/conf_loader.h"
#include "analyzer/conf_role.h"
#include "analyzer/diagnostics.h"
#include "analyzer/model.h"
#include "analyzer/source_manager.h"

namespace sa {

/// Which file of the slurm.conf family is being read; they share one parser but not keys.
enum class ConfKind { kSlurm, kTopology, kGres };

struct AnalyzeOptions {
  SlurmVersion version = kDefaultSlurmVersion;
  ConfKind kind = ConfKind::kSlurm;
  IncludePolicy includes{};
  InputLimits limits{};
  /// `lint`: a slurm.conf whose lines all belong to gres.conf, topology.conf, cgroup.conf or
  /// an Include fragment is read as what it is, with a note (CONF052), not as a broken
  /// slurm.conf. Off for everything else: tests and `simulate` read small partial configs.
  bool sniff_role = false;
};

/// Guesses the kind from a file name: "*gres*.conf" and "*topology*.conf" are not slurm.conf.
ConfKind guess_conf_kind(const std::string& path);

struct RawConfig;

struct Analysis {
  SourceManager sources;
  DiagnosticSink diagnostics;
  Config config;
  // The checked settings as written and the options they were read with, so a fix can be
  // applied as an edit of them and resolved again (config_edit.h); null for topology.conf and
  // gres.conf, and when the root file could not be read.
  std::shared_ptr<const RawConfig> raw;
  AnalyzeOptions options;
  FileId root = kNoFile;
  std::string failure;               // set when the root file could not be read
  int unreadable_includes = 0;       // Include files not read (refused, missing): the model may lack them
  ConfRole role = ConfRole::kWhole;  // with sniff_role: what the file turned out to be
  bool ok() const { return failure.empty(); }
};

/// Reads, includes, checks and resolves a slurm.conf.
std::unique_ptr<Analysis> analyze_file(const std::string& path, const AnalyzeOptions& options = {});
/// The same for in-memory text (tests, fuzzing); `path` is used for display and includes.
std::unique_ptr<Analysis> analyze_text(const std::string& path, std::string text, const AnalyzeOptions& options = {});

}  // namespace sa
