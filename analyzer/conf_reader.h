#pragma once
// Turns the text of one slurm.conf-family file into logical lines of key=value pairs, using
// the ANTLR grammar in grammar/. Syntax errors become diagnostics (one per logical line) and
// reading goes on with the next line. No semantics here: which keys exist and what their
// values mean is decided by the model builder.
#include <string>
#include <vector>

#include "analyzer/diagnostics.h"
#include "analyzer/source_manager.h"

namespace sa {

struct Pair {
  std::string key;        // continuations removed; case as written
  std::string op;         // "", "+", "-", "*" or "/" (Slurm accepts and ignores it)
  std::string value;      // quotes stripped, continuations and escapes removed
  std::string raw_value;  // the value exactly as written
  bool quoted = false;
  SourceLoc key_loc;
  SourceLoc value_loc;
};

struct ConfLine {
  SourceLoc loc;  // the first token of the logical line
  std::vector<Pair> pairs;
  bool is_include = false;
  std::string include_path;  // escapes removed
  SourceLoc include_path_loc;
  bool has_syntax_error = false;
};

/// Reads one file already held by `sources`. Lines with a syntax error are returned with
/// has_syntax_error set and whatever pairs preceded the error.
std::vector<ConfLine> read_conf(const SourceManager& sources, FileId file, DiagnosticSink& sink);

/// Removes continuations ("\" before a line end) and escapes ("\x" -> "x") from raw text,
/// in Slurm's order: continuation first, then escape removal on the joined text.
std::string unescape_conf_text(std::string_view raw);

}  // namespace sa
