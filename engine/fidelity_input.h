#pragma once
// The two sides of `compare` (engine/fidelity.h): a recorded run, read with the workload
// reader (a `sacct -P` dump, or SWF), and a simulated run, the per-job CSV that `simulate
// --trace` writes (report/sim_report.h); either side may also be a second sacct dump. Bad
// input is a diagnostic with file:line (WORK001 for a row or field, WORK003 for a file that is
// empty, of no known kind or without the columns needed); nothing here throws.
#include <string>

#include "analyzer/diagnostics.h"
#include "analyzer/result.h"
#include "analyzer/source_manager.h"
#include "engine/fidelity.h"

namespace sa::engine {

/// True when the first line that is not a comment is a `simulate --trace` CSV header.
bool looks_like_trace_csv(const std::string& text);

/// A `sacct -P` dump (or SWF) as a run: the reader's jobs with their recorded starts, plus the
/// allocated node count (NNodes) and who started each job (Flags SchedMain/SchedBackfill)
/// where the dump has those columns.
Run read_recorded_run(FileId file, const SourceManager& sources, DiagnosticSink& sink);
/// A `simulate --trace` CSV as a run (columns by header name; job_id, submit and start needed).
Run read_trace_run(FileId file, const SourceManager& sources, DiagnosticSink& sink);
/// Either kind, chosen by content (gzip-compressed files are unpacked first).
Result<Run> read_run(const std::string& path, SourceManager& sources, DiagnosticSink& sink);

}  // namespace sa::engine
