#pragma once
// `tune --spec FILE`: the goals and the space written down once, in TOML (toml++; YAML has no
// C++ library among the project's dependencies):
//
//   goals = ["wait_p95[partition=batch]<=2h", "share_error<=5%"]
//   vary = ["bf_window=60..2880:log:5", "PriorityWeightAge=100,1000"]
//   seeds = 5            # optional, as --seeds
//   search = "auto"      # optional: grid, halving or auto, as --search
//   sample = 27          # optional, as --sample
//
// Every problem is an error at FILE:LINE:COL: an unknown key (with the closest known one), a
// value of the wrong type, and a goal or --vary syntax error at the character inside the
// string that is wrong.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "tune/goal.h"
#include "tune/space.h"

namespace sa::tune {

struct SpecFileError {
  std::string file;
  int line = 0, column = 0;
  std::string message;
  std::string source_line;  // the line, for a caret under the column; empty when not known
  /// "FILE:LINE:COL: error: MESSAGE", then the line and a caret when known.
  std::string render() const;
};

struct SpecFile {
  std::vector<Goal> goals;
  std::vector<Dimension> dims;
  std::optional<std::size_t> seeds, sample;
  std::optional<std::string> search;
  std::vector<SpecFileError> errors;  // in file order
  std::string text;                   // the file's contents (read_spec_file)
};

SpecFile parse_spec_file(const std::string& path, const std::string& text);
/// Reads (at most 1 MiB) and parses; an unreadable file is an error at 1:1.
SpecFile read_spec_file(const std::string& path);

}  // namespace sa::tune
