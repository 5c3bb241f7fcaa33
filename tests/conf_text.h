#pragma once
// Configs edited for a test: a file's text, and that text with one piece replaced.
#include <fstream>
#include <iterator>
#include <string>

namespace sa::test {

/// A file's whole text ("" when it cannot be read).
inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

/// `text` with the first `from` replaced by `to`.
inline std::string replaced(std::string text, const std::string& from, const std::string& to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

}  // namespace sa::test
