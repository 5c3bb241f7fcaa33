#pragma once
// Readers for the other accounting inputs: `sacctmgr show qos -P` and `sshare -a [-l] -P`.
#include <string>

#include "analyzer/assoc_model.h"
#include "analyzer/diagnostics.h"
#include "analyzer/result.h"

namespace sa {

/// QOS table from `sacctmgr show qos -P` (header required, columns in any order).
Result<QosTable> read_qos_table(const std::string& path, SourceManager& sources, DiagnosticSink& sink);
QosTable read_qos_table_text(FileId file, const SourceManager& sources, DiagnosticSink& sink);

/// RawUsage per user association from `sshare -a -l -P` or `sshare -a -P`. Account rows are
/// ignored: Slurm rebuilds account usage from its users.
Result<UsageSnapshot> read_sshare_usage(const std::string& path, SourceManager& sources, DiagnosticSink& sink);
UsageSnapshot read_sshare_usage_text(FileId file, const SourceManager& sources, DiagnosticSink& sink);

/// Applies recorded usage to the tree's user associations; unknown associations are
/// reported. Returns raw usage per association id (users only; accounts are rebuilt later).
std::vector<double> usage_by_association(const AssocTree& tree, const UsageSnapshot& usage, DiagnosticSink& sink);

}  // namespace sa
