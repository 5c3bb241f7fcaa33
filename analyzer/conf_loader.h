#pragma once
// Reads a slurm.conf and splices in its Include files as Slurm does (formats.md §1.5): one
// sequential stream of lines, '%c' replaced by the lower-cased ClusterName seen so far,
// relative paths against the including file (<= 22.05) or slurm.conf's directory (>= 23.02),
// no globs. Unlike Slurm, cycles and runaway nesting are diagnosed instead of recursing, and
// an Include must stay inside the include roots: the config under review may come from an
// untrusted pull request, and a line of /etc/shadow must never reach a report.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/conf_reader.h"
#include "analyzer/diagnostics.h"
#include "analyzer/input_limits.h"
#include "analyzer/source_manager.h"
#include "analyzer/version.h"

namespace sa {

/// Where Include files may come from.
struct IncludePolicy {
  /// Directories an Include may resolve into (after symlinks); empty means the directory of
  /// the top-level config.
  std::vector<std::string> roots;
  /// FROM=DIR: an Include under the production path FROM is read from DIR (a checkout).
  std::vector<std::pair<std::string, std::string>> maps;
  /// Follow any Include (an admin on their own controller).
  bool allow_outside = false;
  /// Tests and fuzzing: Include files come from this tree (normalised path -> text), never disk.
  const std::map<std::string, std::string>* memory_tree = nullptr;
};

/// Parses `FROM=DIR` into `policy.maps`; false when it is not of that form.
bool add_include_map(const std::string& spec, IncludePolicy& policy);

struct LoadOptions {
  SlurmVersion version = kDefaultSlurmVersion;
  IncludePolicy includes{};
  InputLimits limits{};
};

struct LoadedConf {
  FileId root = kNoFile;
  std::vector<ConfLine> lines;  // in Slurm's reading order, includes spliced in
  int unreadable_includes = 0;  // includes that could not be read (the model may lack their content)
};

/// Loads `path` and everything it includes. Fails only if the root file cannot be read;
/// problems with included files are diagnostics.
Result<LoadedConf> load_conf(const std::string& path, SourceManager& sources, DiagnosticSink& sink,
                             const LoadOptions& options = {});
/// The same for text already registered in `sources` (tests, fuzzing).
LoadedConf load_conf_text(FileId root, SourceManager& sources, DiagnosticSink& sink, const LoadOptions& options = {});

}  // namespace sa
