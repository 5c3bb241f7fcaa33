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
/// `free_text` names columns whose values may hold line breaks (sacct's SubmitLine with a
/// script's lines): when exactly one of them is in the header, a row that stops short inside
/// or after it is continued on the next physical lines, as sacct printed the value's
/// newlines, if that gives exactly the header's field count. (A '|' inside a value cannot be
/// mended: several columns hold free text; sacct --delimiter avoids it.)
PsvTable read_psv(const SourceManager& sources, FileId file, DiagnosticSink& sink, const std::string& code,
                  const std::vector<std::string>& free_text = {});

}  // namespace sa
