#include "analyzer/source_manager.h"

#include <algorithm>

#include <fmt/format.h>

#include "analyzer/safe_file.h"
#include "analyzer/text_util.h"

namespace sa {

Result<FileId> SourceManager::load(const std::string& path, const std::string& display, const AdmitPath& admit) {
  const std::int64_t left = limits_.total_bytes - loaded_bytes_;
  if (left <= 0) {
    return Error{fmt::format("not reading '{}': the inputs already hold {} bytes, the limit (raise it with "
                             "--limit total-bytes=N)",
                             printable(path, 200), limits_.total_bytes),
                 ErrorKind::kTooLarge};
  }
  auto content = read_regular_file(path, std::min(limits_.file_bytes, left), admit);
  if (!content) return content.failure();
  loaded_bytes_ += static_cast<std::int64_t>(content->size());
  return add(display.empty() ? path : display, std::move(*content));
}

FileId SourceManager::add(std::string path, std::string content) {
  auto file = std::make_unique<SourceFile>();
  file->path = std::move(path);
  file->content = std::move(content);
  file->line_starts.push_back(0);
  const std::string_view text = file->content;
  for (std::size_t nl = text.find('\n'); nl != std::string_view::npos; nl = text.find('\n', nl + 1)) {
    file->line_starts.push_back(nl + 1);
  }
  files_.push_back(std::move(file));
  return static_cast<FileId>(files_.size() - 1);
}

std::string_view SourceManager::line_text(FileId id, int line) const {
  if (id < 0 || static_cast<std::size_t>(id) >= files_.size() || line < 1) return {};
  const SourceFile& f = file(id);
  if (f.shed) {
    const auto at = std::lower_bound(f.kept.begin(), f.kept.end(), line,
                                     [](const std::pair<int, std::string>& k, int l) { return k.first < l; });
    return at != f.kept.end() && at->first == line ? std::string_view(at->second) : std::string_view();
  }
  auto index = static_cast<std::size_t>(line - 1);
  if (index >= f.line_starts.size()) return {};
  std::size_t begin = f.line_starts[index];
  std::size_t end = index + 1 < f.line_starts.size() ? f.line_starts[index + 1] : f.content.size();
  std::string_view text(f.content.data() + begin, end - begin);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
  return text;
}

void SourceManager::keep_lines(FileId id, std::vector<int> lines) {
  if (id < 0 || static_cast<std::size_t>(id) >= files_.size()) return;
  std::sort(lines.begin(), lines.end());
  lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
  std::vector<std::pair<int, std::string>> kept;
  for (int l : lines) {
    const std::string_view text = line_text(id, l);
    if (!text.empty()) kept.emplace_back(l, std::string(text));
  }
  SourceFile& f = *files_[static_cast<std::size_t>(id)];
  f.kept = std::move(kept);
  f.shed = true;
  f.content = std::string();
  f.line_starts = std::vector<std::size_t>();
}

}  // namespace sa
