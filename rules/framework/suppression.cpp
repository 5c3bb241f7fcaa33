#include "rules/framework/suppression.h"

#include <cctype>

namespace sa::rules {

namespace {

bool only_comment(std::string_view line) {
  for (char c : line) {
    if (c == '#') return true;
    if (!std::isspace(static_cast<unsigned char>(c))) return false;
  }
  return false;
}

}  // namespace

std::vector<std::string> directive_codes(std::string_view line, bool file_wide) {
  std::vector<std::string> codes;
  const std::size_t hash = line.find('#');
  if (hash == std::string_view::npos) return codes;
  const std::string_view tag = file_wide ? "slurm-advisor: disable-file=" : "slurm-advisor: disable=";
  const std::size_t at = line.find(tag, hash);
  if (at == std::string_view::npos) return codes;
  std::string current;
  for (std::size_t i = at + tag.size(); i <= line.size(); ++i) {
    const char c = i < line.size() ? line[i] : ',';
    if (c == ',' || std::isspace(static_cast<unsigned char>(c))) {
      if (!current.empty()) codes.push_back(current);
      current.clear();
      if (c != ',') break;
    } else {
      current += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
  }
  return codes;
}

void Suppressions::add_file(const std::string& path, std::string_view text) {
  FileDirectives d;
  int number = 0;
  bool previous_comment_only = false;
  std::vector<std::string> pending;  // a comment-only line's codes apply to the next line
  for (std::size_t pos = 0; pos <= text.size();) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    ++number;
    for (auto& c : directive_codes(line, true)) d.whole_file.insert(c);
    auto codes = directive_codes(line, false);
    for (auto& c : codes) d.by_line[number].insert(c);
    if (previous_comment_only) {
      for (auto& c : pending) d.by_line[number].insert(c);
    }
    previous_comment_only = only_comment(line) && !codes.empty();
    pending = codes;
    pos = eol + 1;
  }
  if (!d.whole_file.empty() || !d.by_line.empty()) files_[path] = std::move(d);
}

bool Suppressions::suppressed(const Finding& f) const { return suppressed(f.code, f.loc); }

bool Suppressions::suppressed(const std::string& code, const Location& loc) const {
  auto it = files_.find(loc.file);
  if (it == files_.end()) return false;
  auto matches = [&](const std::set<std::string>& codes) { return codes.count(code) || codes.count("ALL"); };
  if (matches(it->second.whole_file)) return true;
  auto line = it->second.by_line.find(loc.line);
  return line != it->second.by_line.end() && matches(line->second);
}

}  // namespace sa::rules
