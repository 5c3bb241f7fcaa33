#include "analyzer/text_util.h"

#include "analyzer/printable.h"

#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <cstdint>

namespace sa {

std::string to_lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), ascii_lower);
  return out;
}

std::string to_upper(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](char c) { return static_cast<char>(std::toupper(static_cast<unsigned char>(c))); });
  return out;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return ascii_lower(x) == ascii_lower(y); });
}

bool istarts_with(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() && iequals(text.substr(0, prefix.size()), prefix);
}

std::size_t ifind(std::string_view haystack, std::string_view needle, std::size_t from) {
  if (needle.empty()) return from <= haystack.size() ? from : std::string_view::npos;
  if (needle.size() > haystack.size()) return std::string_view::npos;
  for (std::size_t i = from; i + needle.size() <= haystack.size(); ++i) {
    if (iequals(haystack.substr(i, needle.size()), needle)) return i;
  }
  return std::string_view::npos;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += sep;
    out += items[i];
  }
  return out;
}

std::vector<std::string> split(std::string_view text, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == sep) {
      out.emplace_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

std::vector<std::string> split_whitespace(std::string_view text) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    std::size_t j = i;
    while (j < text.size() && !std::isspace(static_cast<unsigned char>(text[j]))) ++j;
    if (j > i) out.emplace_back(text.substr(i, j - i));
    i = j;
  }
  return out;
}

std::vector<std::vector<std::string>> tsv_rows(std::string_view tsv) {
  std::vector<std::vector<std::string>> rows;
  bool header = true;
  for (const std::string& line : split(tsv, '\n')) {
    if (header) {
      header = false;
      continue;
    }
    if (!trim(line).empty()) rows.push_back(split(line, '\t'));
  }
  return rows;
}

std::string printable(std::string_view text, std::size_t max_length) {
  std::string out;
  append_printable(out, text.substr(0, max_length));
  if (text.size() > max_length) out += "...";
  return out;
}

namespace {

// Optimal-string-alignment distance, case-insensitive, or `bound + 1` as soon as two rows in
// a row exceed `bound`: closest_match runs this against hundreds of keys for each unknown
// key, and a fuzzer's random keys are far from all of them. The rows are reused across calls
// (one allocation per thread, not three per candidate).
std::size_t bounded_edit_distance(std::string_view a, std::string_view b, std::size_t bound) {
  const std::size_t m = b.size();
  thread_local std::vector<std::size_t> rows;
  rows.assign(3 * (m + 1), 0);
  std::size_t* before = rows.data();
  std::size_t* previous = before + (m + 1);
  std::size_t* current = previous + (m + 1);
  for (std::size_t j = 0; j <= m; ++j) previous[j] = j;
  std::size_t previous_min = 0;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    const char ai = ascii_lower(a[i - 1]);
    current[0] = i;
    std::size_t row_min = current[0];
    for (std::size_t j = 1; j <= m; ++j) {
      const char bj = ascii_lower(b[j - 1]);
      const std::size_t cost = ai == bj ? 0 : 1;
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost});
      if (i > 1 && j > 1 && ai == ascii_lower(b[j - 2]) && ascii_lower(a[i - 2]) == bj) {
        current[j] = std::min(current[j], before[j - 2] + 1);  // transposition
      }
      row_min = std::min(row_min, current[j]);
    }
    // A transposition reaches back two rows, so both must exceed the bound to stop.
    if (row_min > bound && previous_min > bound) return bound + 1;
    previous_min = row_min;
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return previous[m];
}

}  // namespace

std::size_t edit_distance(std::string_view a, std::string_view b) {
  return bounded_edit_distance(a, b, std::max(a.size(), b.size()));
}

namespace {

// Which characters a word holds, case-insensitively, as bits (letters and digits each their
// own bit, everything else folded onto the rest). Each character of one word that the other
// lacks needs an edit of its own (a transposition brings no new character), so the larger
// count of such bits bounds the distance from below; a shared bit for different characters
// only lowers the bound.
std::uint64_t char_bits(std::string_view word) {
  std::uint64_t bits = 0;
  for (char c : word) bits |= std::uint64_t{1} << (static_cast<unsigned char>(ascii_lower(c)) % 64);
  return bits;
}

template <class Candidates>
std::string closest_in(std::string_view word, const Candidates& candidates, const std::uint64_t* masks = nullptr) {
  if (word.size() > 64) return {};
  const std::uint64_t word_bits = char_bits(word);
  // Allow roughly one typo per four characters, at least one and at most four.
  const std::size_t allowed = std::clamp<std::size_t>(word.size() / 4, 1, 4);
  // Letters of the word not matched in a candidate (and the reverse) each need an edit, so
  // their larger count bounds the distance from below. The check is linear, the distance
  // quadratic; most of the hundreds of keys fail the check.
  std::array<int, 256> counts{};
  for (char c : word) ++counts[static_cast<unsigned char>(ascii_lower(c))];
  std::string best;
  std::size_t best_distance = allowed + 1;
  std::size_t index = 0;
  for (std::string_view c : candidates) {
    const std::uint64_t* mask = masks ? &masks[index++] : nullptr;
    std::size_t gap = c.size() > word.size() ? c.size() - word.size() : word.size() - c.size();
    if (gap >= best_distance) continue;  // the distance is at least the length difference
    if (mask && static_cast<std::size_t>(
                    std::max(std::popcount(*mask & ~word_bits), std::popcount(word_bits & ~*mask))) >= best_distance) {
      continue;
    }
    std::size_t only_in_candidate = 0;
    for (char ch : c) {
      if (--counts[static_cast<unsigned char>(ascii_lower(ch))] < 0) ++only_in_candidate;
    }
    const std::size_t only_in_word = word.size() + only_in_candidate - c.size();
    for (char ch : c) ++counts[static_cast<unsigned char>(ascii_lower(ch))];
    if (std::max(only_in_candidate, only_in_word) >= best_distance) continue;
    std::size_t distance = bounded_edit_distance(word, c, best_distance - 1);
    if (distance < best_distance) {
      best_distance = distance;
      best = std::string(c);
    }
  }
  return best;
}

}  // namespace

std::string closest_match(std::string_view word, const std::vector<std::string>& candidates) {
  return closest_in(word, candidates);
}

std::string closest_match(std::string_view word, std::span<const std::string_view> candidates) {
  return closest_in(word, candidates);
}

TypoCandidates::TypoCandidates(std::vector<std::string_view> words) : words_(std::move(words)) {
  masks_.reserve(words_.size());
  for (std::string_view w : words_) masks_.push_back(char_bits(w));
}

std::string TypoCandidates::closest(std::string_view word) const {
  return closest_in(word, std::span<const std::string_view>(words_), masks_.data());
}

}  // namespace sa
