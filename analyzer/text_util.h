#pragma once
// Small string helpers shared by the analyzer (case folding, splitting, suggestions).
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sa {

/// A-Z to a-z and nothing else: what tolower() does in the C locale the tool runs in, without
/// the call.
inline char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
std::string to_lower(std::string_view text);
std::string to_upper(std::string_view text);
bool iequals(std::string_view a, std::string_view b);
bool istarts_with(std::string_view text, std::string_view prefix);
/// Case-insensitive substring search, as Slurm's xstrcasestr(); npos when absent.
std::size_t ifind(std::string_view haystack, std::string_view needle, std::size_t from = 0);
std::string_view trim(std::string_view text);
/// Splits on `sep`, keeping empty fields.
std::vector<std::string> split(std::string_view text, char sep);
/// The items with `sep` between them (split's inverse).
std::string join(const std::vector<std::string>& items, std::string_view sep);
/// The words of `text` between runs of spaces and tabs (no empty words).
std::vector<std::string> split_whitespace(std::string_view text);
/// The rows of a tab-separated table after its header line; blank lines are skipped.
std::vector<std::vector<std::string>> tsv_rows(std::string_view tsv);
/// Control bytes (C0, DEL, C1) and invalid UTF-8 shown as \xNN so a message never carries
/// them (analyzer/printable.h); cut after `max_length` bytes.
std::string printable(std::string_view text, std::size_t max_length = 80);
/// Optimal-string-alignment distance on lower-cased text (typo distance).
std::size_t edit_distance(std::string_view a, std::string_view b);
/// The candidate closest to `word` if it is close enough to be a plausible typo.
std::string closest_match(std::string_view word, const std::vector<std::string>& candidates);
std::string closest_match(std::string_view word, std::span<const std::string_view> candidates);

/// closest_match over a fixed list asked many times (a table's keys, one per unknown key):
/// each word's characters are kept as bits, which rule most candidates out by two popcounts.
class TypoCandidates {
 public:
  explicit TypoCandidates(std::vector<std::string_view> words);
  std::string closest(std::string_view word) const;

 private:
  std::vector<std::string_view> words_;
  std::vector<std::uint64_t> masks_;
};

}  // namespace sa
