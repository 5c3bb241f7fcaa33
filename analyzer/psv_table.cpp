#include "analyzer/psv_table.h"

#include <fmt/format.h>

#include "analyzer/text_util.h"

namespace sa {

namespace {

std::string squeeze(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (c != ' ') out.push_back(c);
  }
  return to_lower(out);
}

}  // namespace

std::optional<std::size_t> PsvTable::column(const std::string& name) const {
  const std::string wanted = squeeze(name);
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (squeeze(header[i]) == wanted) return i;
  }
  return std::nullopt;
}

const std::string& PsvTable::field(const Row& row, std::size_t column) const {
  static const std::string kEmpty;
  return column < row.fields.size() ? row.fields[column] : kEmpty;
}

SourceLoc PsvTable::loc(const Row& row, std::size_t column) const {
  int col = 1;
  for (std::size_t i = 0; i < column && i < row.fields.size(); ++i) col += static_cast<int>(row.fields[i].size()) + 1;
  return {file, row.line, col};
}

PsvTable read_psv(const SourceManager& sources, FileId file, DiagnosticSink& sink, const std::string& code) {
  PsvTable table;
  table.file = file;
  const std::string& content = sources.file(file).content;
  int line_no = 0;
  bool trailing_bar = false;
  char delimiter = '|';
  for (const std::string& raw : split(content, '\n')) {
    ++line_no;
    std::string line = raw;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    // Blank lines, and '#' comments (sacct never writes one; saved loads carry their
    // provenance in them).
    if (trim(line).empty() || line[0] == '#') continue;
    // `sacct -P --delimiter=$'\t'` (a header without '|' but with tabs) keeps values that
    // hold a '|' (--constraint "a|b", SubmitLine) readable.
    if (table.header.empty() && line.find('|') == std::string::npos && line.find('\t') != std::string::npos)
      delimiter = '\t';
    std::vector<std::string> fields = split(line, delimiter);
    if (table.header.empty()) {
      trailing_bar = fields.size() > 1 && fields.back().empty();  // `-p` output
      if (trailing_bar) fields.pop_back();
      table.header = fields;
      continue;
    }
    // A trailing '|' on rows only (-p rows under a hand-written header) adds one empty field.
    if ((trailing_bar || fields.size() == table.header.size() + 1) && !fields.empty() && fields.back().empty()) {
      fields.pop_back();
    }
    if (fields.size() != table.header.size()) {
      sink.error(code, {file, line_no, 1},
                 fmt::format("this row has {} fields but the header has {}; a '|' inside a value breaks "
                             "parsable output (sacct --delimiter=$'\\t' keeps such values whole)",
                             fields.size(), table.header.size()));
      continue;
    }
    table.rows.push_back({line_no, std::move(fields)});
  }
  return table;
}

}  // namespace sa
