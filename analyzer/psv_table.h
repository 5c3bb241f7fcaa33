#pragma once
// Pipe-separated tables as sacctmgr, sacct and sshare print them with -P/-p: a header line,
// then rows; nothing is escaped, -p adds a trailing '|'. Columns are found by header name
// (case-insensitive), so column order and extra columns do not matter.
#include <optional>
#include <string>
#include <vector>

#include "analyzer/diagnostics.h"
#include "analyzer/source_manager.h"

namespace sa {

struct PsvTable {
  FileId file = kNoFile;
  std::vector<std::string> header;
  struct Row {
    int line = 0;
    std::vector<std::string> fields;
  };
  std::vector<Row> rows;

  /// Index of the column named `name` (case-insensitive, blanks ignored), if present.
  std::optional<std::size_t> column(const std::string& name) const;
  /// The field, or "" when the row is short.
  const std::string& field(const Row& row, std::size_t column) const;
  SourceLoc loc(const Row& row, std::size_t column) const;
};

/// Reads the table; rows with a different field count are reported (code) and skipped.
PsvTable read_psv(const SourceManager& sources, FileId file, DiagnosticSink& sink, const std::string& code);

}  // namespace sa
