#pragma once
// Reads advanced reservations as `scontrol show reservation` prints them (Slurm 22.05-24.x):
//
//     ReservationName=maint StartTime=2026-11-21T10:00:00 EndTime=2026-11-21T12:00:00
//     Duration=02:00:00
//        Nodes=n[1-4] NodeCnt=4 CoreCnt=64 Features=(null) PartitionName=(null)
//        Flags=MAINT,SPEC_NODES
//        ...
//
// A record starts at each ReservationName= and runs until a blank line or the next
// ReservationName=, so `scontrol -o` output and hand-written one-line records read the same
// way. Keys are matched case-insensitively; unknown keys are ignored (each Slurm release
// adds some). Lines starting with '#' and "No reservations in the system" are skipped.
// Times are YYYY-MM-DDTHH:MM:SS (read as UTC) or epoch seconds; without an EndTime the end
// is StartTime + Duration (a Slurm time string; UNLIMITED is a year, as slurmctld sets it).
// A record with an error (RESV001-RESV007) is left out of the result, as is one that
// reserves no nodes; warnings (RESV008) keep it.
#include <string>
#include <vector>

#include "analyzer/diagnostics.h"
#include "analyzer/input_limits.h"
#include "analyzer/reservation_model.h"
#include "analyzer/result.h"

namespace sa {

/// Reads the file at `path` (registered in `sources`); fails only if it cannot be read. Node
/// lists expand within `limits` (NodeListBudget): past them a reservation is an error.
Result<std::vector<Reservation>> read_reservations(const std::string& path, SourceManager& sources,
                                                   DiagnosticSink& sink, const InputLimits& limits = {});
/// The same for text already in `sources`; reservations come in file order.
std::vector<Reservation> read_reservations_text(FileId file, const SourceManager& sources, DiagnosticSink& sink,
                                                const InputLimits& limits = {});

}  // namespace sa
