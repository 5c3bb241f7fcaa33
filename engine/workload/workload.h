#pragma once
// Workloads the engine replays: recorded traces (SWF from the Parallel Workloads Archive,
// `sacct -P` dumps) and synthetic loads from a profile. Readers never throw: a malformed
// line is a WORK diagnostic with its line number, then skipped or, with stop_on_error, the
// end of the read.
#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/diagnostics.h"
#include "analyzer/reservation_model.h"
#include "analyzer/result.h"
#include "analyzer/source_manager.h"
#include "engine/job.h"

namespace sa::engine {

enum class WorkloadFormat { kSwf, kSacct, kSynthetic };

struct Workload {
  WorkloadFormat format = WorkloadFormat::kSwf;
  std::vector<JobRequest> jobs;   // sorted by (submit, id)
  std::int64_t epoch_offset = 0;  // time + epoch_offset = Unix time (SWF UnixStartTime)
  bool names_accounts = false;    // the trace names real users/accounts/partitions
  std::size_t skipped_lines = 0;
  std::string source;                     // path or profile name, for reports
  std::vector<Reservation> reservations;  // a synthetic profile's reservation list
  // A generated load (or its saved copy, read back): how it was made and how far to run it,
  // so a replay simulates exactly what the original run did.
  std::string description;                   // empty for recorded traces
  std::uint64_t seed = 0;                    // 0: not generated from a seed
  std::int64_t until = kNoTime;              // the simulated span's end; kNoTime: run to the end
  std::vector<std::string> assumed_qos;      // QOS the load uses that a site without a QOS table lacks
  std::vector<std::string> idle_partitions;  // partitions it gives no jobs, with why: "debug (RootOnly, ...)"
};

struct ReadOptions {
  bool stop_on_error = false;  // stop at the first malformed line instead of skipping it
};

/// Reads SWF (with its ';' header) or a `sacct -P`/`-p` dump, chosen by content.
Result<Workload> read_workload(const std::string& path, SourceManager& sources, DiagnosticSink& sink,
                               const ReadOptions& options = {});
Workload read_swf(FileId file, const SourceManager& sources, DiagnosticSink& sink, const ReadOptions& options);
Workload read_sacct(FileId file, const SourceManager& sources, DiagnosticSink& sink, const ReadOptions& options);
/// True when the text looks like SWF rather than a pipe-separated sacct dump.
bool looks_like_swf(const std::string& text);

/// Sorts by (submit, id) and renumbers duplicate ids so every job id is unique. Jobs beyond
/// the limits (submitted or running past sim-span after the first submit, or past the
/// sim-jobs count) are dropped with one WORK006 warning each kind.
void normalise_jobs(Workload& workload, DiagnosticSink& sink, FileId file, const InputLimits& limits = {});

}  // namespace sa::engine
