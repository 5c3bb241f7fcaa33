#pragma once
// Reads node state events: the periods in which nodes were DOWN or DRAINed. The format is
// told apart by the first line that is not blank:
//
// 1. `sacctmgr show event -P` (or -p) output: a header of '|'-separated column names, e.g.
//        Cluster|NodeName|TimeStart|TimeEnd|State|Reason|User
//    NodeName, TimeStart, TimeEnd and State are needed, in any order; other columns are
//    ignored. Rows with an empty NodeName are cluster events and are skipped. TimeEnd
//    `Unknown` or empty leaves the event open. States are Slurm's compact or long node
//    states: DOWN if a '+'-separated part is DOWN (DOWN*, DOWN+DRAIN), otherwise DRAIN if a
//    part is DRAIN, DRNG, DRAINED, DRAINING, FAIL or FAILG (IDLE+DRAIN, MIXED+DRAIN, FAIL);
//    a row in any other state (IDLE, MAINT...) is reported and skipped.
//
// 2. A hand-written events file, one event a line, fields separated by blanks:
//        # START                END                  HOSTLIST   STATE  [REASON...]
//        2026-11-21T10:00:00    2026-11-21T12:00:00  n[1-4]     DOWN   power maintenance
//        1795280679             -                    gpu01      drain  fan failure
//    '#' starts a comment line. START and END are YYYY-MM-DDTHH:MM:SS or epoch seconds; END
//    `-` leaves the event open (until the end of the run). STATE is DOWN or DRAIN in any
//    case (the sacctmgr spellings above are accepted too). REASON is the rest of the line.
//
// sacctmgr's aligned table (without -P) is recognised by its TimeStart header and refused.
// Times are read as UTC (sacctmgr prints local time; only differences matter). A line or
// row with an error is left out; events come in file order.
#include <string>
#include <vector>

#include "analyzer/diagnostics.h"
#include "analyzer/input_limits.h"
#include "analyzer/reservation_model.h"
#include "analyzer/result.h"

namespace sa {

/// Reads the file at `path` (registered in `sources`); fails only if it cannot be read.
Result<std::vector<NodeEvent>> read_node_events(const std::string& path, SourceManager& sources, DiagnosticSink& sink,
                                                const InputLimits& limits = {});
/// The same for text already in `sources`.
std::vector<NodeEvent> read_node_events_text(FileId file, const SourceManager& sources, DiagnosticSink& sink,
                                             const InputLimits& limits = {});

/// "DOWN" or "DRAIN" for a Slurm node state as sacctmgr, sinfo or a person writes it
/// (case-insensitive, flag suffixes like '*' ignored); "" for any other state.
std::string normalize_node_state(const std::string& state);

}  // namespace sa
