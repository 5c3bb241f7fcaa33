#pragma once
// Reads a `sacctmgr dump` file (formats.md §5.1) into an association tree, with a
// diagnostic at file:line:col for everything malformed: unknown titles and options, an
// undefined parent, duplicate associations, a cycle, negative or absurd shares.
#include <string>

#include "analyzer/assoc_model.h"
#include "analyzer/diagnostics.h"
#include "analyzer/result.h"

namespace sa {

/// Reads the file at `path` (registered in `sources`); fails only if it cannot be read.
Result<AssocTree> read_assoc_dump(const std::string& path, SourceManager& sources, DiagnosticSink& sink);
/// The same for text already in `sources`.
AssocTree read_assoc_dump_text(FileId file, const SourceManager& sources, DiagnosticSink& sink);

/// Parses a TRES string ("cpu=512,mem=2T,gres/gpu:a100=4"); memory is converted to MB.
Result<TresMap> parse_tres_string(const std::string& text);

}  // namespace sa
