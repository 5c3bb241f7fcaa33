#pragma once
// The syntax stage of the dump reader: logical lines of `Title - name:Option=value...`.
#include <string>
#include <vector>

#include "analyzer/diagnostics.h"
#include "analyzer/source_manager.h"

namespace sa {

struct DumpField {
  std::string key;    // empty for the record's name (the first field)
  std::string value;  // quotes stripped, escapes removed
  bool has_equals = false;
  SourceLoc loc;
};

struct DumpLine {
  std::string title;  // as written, blanks collapsed
  SourceLoc loc;
  std::vector<DumpField> fields;
};

std::vector<DumpLine> read_dump_lines(const SourceManager& sources, FileId file, DiagnosticSink& sink);

}  // namespace sa
