#pragma once
// Reads a slurm.conf and splices in its Include files as Slurm does (formats.md §1.5): one
// sequential stream of lines, '%c' replaced by the lower-cased ClusterName seen so far,
// relative paths against the including file (<= 22.05) or slurm.conf's directory (>= 23.02),
// no globs. Unlike Slurm, cycles and runaway nesting are diagnosed instead of recursing.
#include <string>
#include <vector>

#include "analyzer/conf_reader.h"
#include "analyzer/diagnostics.h"
#include "analyzer/source_manager.h"
#include "analyzer/version.h"

namespace sa {

struct LoadOptions {
  SlurmVersion version = kDefaultSlurmVersion;
  int max_include_depth = 16;
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
LoadedConf load_conf_text(FileId root, SourceManager& sources, DiagnosticSink& sink,
                          const LoadOptions& options = {});

}  // namespace sa
