#include "analyzer/printable.h"

#include <array>

namespace sa {

namespace {

void append_escaped(std::string& out, unsigned char c) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += "\\x";
  out.push_back(kHex[c >> 4]);
  out.push_back(kHex[c & 0xf]);
}

// Length of the valid UTF-8 sequence at `text[i]` (RFC 3629: no overlongs, no surrogates,
// at most U+10FFFF), or 0 when it is not one.
std::size_t utf8_length(std::string_view text, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(text[i + k]); };
  const unsigned char c = b(0);
  std::size_t n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
  if (n == 0 || c > 0xf4 || i + n > text.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((b(k) & 0xc0) != 0x80) return 0;
  }
  if ((c == 0xe0 && b(1) < 0xa0) || (c == 0xed && b(1) >= 0xa0)) return 0;  // overlong, surrogate
  if ((c == 0xf0 && b(1) < 0x90) || (c == 0xf4 && b(1) >= 0x90)) return 0;  // overlong, > U+10FFFF
  if (c == 0xc2 && b(1) < 0xa0) return 0;  // U+0080..U+009F: the C1 controls (CSI, OSC, ...)
  return n;
}

// An ESC[ digits/semicolons m colour sequence at text[i]; its length or 0.
std::size_t sgr_length(std::string_view text, std::size_t i) {
  if (i + 2 >= text.size() || text[i] != '\033' || text[i + 1] != '[') return 0;
  for (std::size_t k = i + 2; k < text.size(); ++k) {
    if (text[k] == 'm') return k - i + 1;
    if (!((text[k] >= '0' && text[k] <= '9') || text[k] == ';')) return 0;
  }
  return 0;
}

bool starts_ci_command(std::string_view line) {
  const std::size_t first = line.find_first_not_of(" \t");
  if (first == std::string_view::npos) return false;
  line.remove_prefix(first);
  for (std::string_view prefix : {"::", "##[", "##vso["}) {
    if (line.substr(0, prefix.size()) == prefix) return true;
  }
  return false;
}

}  // namespace

void append_printable(std::string& out, std::string_view text, bool keep_tab) {
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\t' && keep_tab) {
      out.push_back('\t');
      ++i;
    } else if (c < 0x20 || c == 0x7f) {
      append_escaped(out, c);
      ++i;
    } else if (c < 0x80) {
      out.push_back(static_cast<char>(c));
      ++i;
    } else if (std::size_t n = utf8_length(text, i); n > 0) {
      out.append(text.substr(i, n));
      i += n;
    } else {
      append_escaped(out, c);
      ++i;
    }
  }
}

std::string terminal_text(std::string_view text, const TerminalTextOptions& options) {
  std::string out;
  out.reserve(text.size());
  std::size_t begin = 0;
  while (begin < text.size()) {
    std::size_t end = text.find('\n', begin);
    const bool newline = end != std::string_view::npos;
    std::string_view line = text.substr(begin, newline ? end - begin : std::string_view::npos);
    std::string shown;
    for (std::size_t i = 0; i < line.size();) {
      const std::size_t sgr = options.keep_sgr ? sgr_length(line, i) : 0;
      const std::size_t next = sgr ? i + sgr : line.find('\033', i + 1);
      const std::size_t stop = next == std::string_view::npos ? line.size() : next;
      if (sgr)
        shown.append(line.substr(i, sgr));
      else
        append_printable(shown, line.substr(i, stop - i), true);
      i = stop;
    }
    // A visible marker, so a quoted `::error::` line cannot become a CI command.
    if (starts_ci_command(shown)) out += "| ";
    out += shown;
    if (newline) out.push_back('\n');
    begin = newline ? end + 1 : text.size();
  }
  return out;
}

}  // namespace sa
