#include "analyzer/psv_table.h"

#include <cctype>
#include <cstring>

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

std::optional<std::size_t> free_text_column(const PsvTable& table, const std::vector<std::string>& names) {
  std::optional<std::size_t> found;
  for (const std::string& n : names) {
    if (auto c = table.column(n)) {
      if (found) return std::nullopt;  // two could share the extra fields: no way to tell
      found = c;
    }
  }
  return found;
}

// Whether a line begins a sacct row (a job id, then a delimiter) rather than continuing a
// value's text: "123|", "123_4|", "123.batch|", "123+1|".
bool starts_row(const std::string& line, char delimiter) {
  std::size_t i = 0;
  while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i]))) ++i;
  if (i == 0) return false;
  while (i < line.size() && line[i] != delimiter &&
         (std::isalnum(static_cast<unsigned char>(line[i])) || std::strchr("_+.[]-", line[i])))
    ++i;
  return i < line.size() && line[i] == delimiter;
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

PsvTable read_psv(const SourceManager& sources, FileId file, DiagnosticSink& sink, const std::string& code,
                  const std::vector<std::string>& free_text) {
  PsvTable table;
  table.file = file;
  const std::string& content = sources.file(file).content;
  int line_no = 0;
  bool trailing_bar = false;
  char delimiter = '|';
  std::optional<std::size_t> text_col;  // the one free-text column, once the header is read
  const std::vector<std::string> lines = split(content, '\n');
  for (std::size_t li = 0; li < lines.size(); ++li) {
    ++line_no;
    std::string line = lines[li];
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
      text_col = free_text_column(table, free_text);
      continue;
    }
    const int first_line = line_no;
    if (text_col && fields.size() < table.header.size() && fields.size() > *text_col) {
      // A value with line breaks: the row goes on over the next physical lines (bounded), and
      // is taken only if that gives exactly the header's field count; otherwise the short row
      // stays what it was (reported below) and the lines after it are read as rows again.
      const std::size_t want = table.header.size() + (trailing_bar ? 1 : 0);
      std::vector<std::string> joined = fields;
      std::size_t at = li;
      for (int more = 0; joined.size() < table.header.size() && at + 1 < lines.size() && more < 1000; ++more) {
        if (starts_row(lines[at + 1], delimiter)) break;  // a short row, not a broken value
        std::string next = lines[++at];
        if (!next.empty() && next.back() == '\r') next.pop_back();
        std::vector<std::string> rest = split(next, delimiter);
        joined.back() += "\n" + rest.front();
        joined.insert(joined.end(), std::make_move_iterator(rest.begin() + 1), std::make_move_iterator(rest.end()));
      }
      if (joined.size() == want || (!trailing_bar && joined.size() == want + 1 && joined.back().empty())) {
        line_no += static_cast<int>(at - li);
        li = at;
        fields = std::move(joined);
      }
    }
    // A trailing '|' on rows only (-p rows under a hand-written header) adds one empty field.
    if ((trailing_bar || fields.size() == table.header.size() + 1) && !fields.empty() && fields.back().empty()) {
      fields.pop_back();
    }
    if (fields.size() != table.header.size()) {
      sink.error(code, {file, first_line, 1},
                 fmt::format("this row has {} fields but the header has {}; a '|' inside a value breaks "
                             "parsable output (sacct --delimiter=$'\\t' keeps such values whole)",
                             fields.size(), table.header.size()));
      continue;
    }
    table.rows.push_back({first_line, std::move(fields)});
  }
  return table;
}

}  // namespace sa
