#pragma once
// Owns the text of every file the analyzer reads, so diagnostics can point into it long
// after parsing, and maps (line, column) back to the source line for caret display.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analyzer/input_limits.h"
#include "analyzer/result.h"
#include "analyzer/safe_file.h"

namespace sa {

using FileId = std::int32_t;
constexpr FileId kNoFile = -1;

/// A position in a source file; line and column are 1-based, column counts characters.
struct SourceLoc {
  FileId file = kNoFile;
  int line = 0;
  int column = 0;
  bool valid() const { return file != kNoFile; }
};

struct SourceFile {
  std::string path;     // as given or resolved, used for display
  std::string content;  // raw bytes (empty once shed)
  std::vector<std::size_t> line_starts;
  // After SourceManager::keep_lines: the only lines left, by line number.
  bool shed = false;
  std::vector<std::pair<int, std::string>> kept;
};

class SourceManager {
 public:
  /// Reads a regular file from disk (analyzer/safe_file.h), within the file and total byte
  /// caps. Fails with a message that names the path, never the content.
  /// `display` (default: `path`) is the name diagnostics show.
  /// `admit` checks the opened file's real path (analyzer/safe_file.h).
  Result<FileId> load(const std::string& path, const std::string& display = {}, const AdmitPath& admit = {});
  /// Caps for later loads; the total counts every byte this manager has read so far.
  void set_limits(const InputLimits& limits) { limits_ = limits; }
  const InputLimits& limits() const { return limits_; }
  /// Registers in-memory text (tests, fuzzing, stdin).
  FileId add(std::string path, std::string content);

  const SourceFile& file(FileId id) const { return *files_.at(static_cast<std::size_t>(id)); }
  const std::string& path(FileId id) const { return file(id).path; }
  /// The text of a 1-based line without its line terminator; empty if out of range.
  std::string_view line_text(FileId id, int line) const;
  std::size_t file_count() const { return files_.size(); }
  /// Drops a file's text but for `lines` (1-based), which line_text still gives. A workload of
  /// 100,000 jobs is megabytes of text that only its diagnostics' snippets read again; a
  /// caller sheds it once every diagnostic about it has been made and nothing re-reads it.
  void keep_lines(FileId id, std::vector<int> lines);

 private:
  std::vector<std::unique_ptr<SourceFile>> files_;
  InputLimits limits_;
  std::int64_t loaded_bytes_ = 0;
};

}  // namespace sa
