#include "analyzer/source_manager.h"

#include <fstream>
#include <sstream>
#include <system_error>
#include <filesystem>

namespace sa {

Result<FileId> SourceManager::load(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return Error{"'" + path + "' is a directory"};
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{"cannot open '" + path + "'"};
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return Error{"cannot read '" + path + "'"};
  return add(path, buffer.str());
}

FileId SourceManager::add(std::string path, std::string content) {
  auto file = std::make_unique<SourceFile>();
  file->path = std::move(path);
  file->content = std::move(content);
  file->line_starts.push_back(0);
  for (std::size_t i = 0; i < file->content.size(); ++i) {
    if (file->content[i] == '\n') file->line_starts.push_back(i + 1);
  }
  files_.push_back(std::move(file));
  return static_cast<FileId>(files_.size() - 1);
}

std::string_view SourceManager::line_text(FileId id, int line) const {
  if (id < 0 || static_cast<std::size_t>(id) >= files_.size() || line < 1) return {};
  const SourceFile& f = file(id);
  auto index = static_cast<std::size_t>(line - 1);
  if (index >= f.line_starts.size()) return {};
  std::size_t begin = f.line_starts[index];
  std::size_t end = index + 1 < f.line_starts.size() ? f.line_starts[index + 1] : f.content.size();
  std::string_view text(f.content.data() + begin, end - begin);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
  return text;
}

}  // namespace sa
