#include "analyzer/values.h"

#include <fmt/format.h>
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "analyzer/text_util.h"

namespace sa {

namespace {

bool is_infinite_word(std::string_view text) { return iequals(text, "INFINITE") || iequals(text, "UNLIMITED"); }

std::uint64_t width_max(IntWidth width) {
  switch (width) {
    case IntWidth::k16:
      return 0xFFFF;
    case IntWidth::k32:
      return 0xFFFFFFFF;
    case IntWidth::k64:
      return kInfinite64;
  }
  return kInfinite64;
}

}  // namespace

Result<std::uint64_t> parse_uint(std::string_view text, IntWidth width) {
  if (is_infinite_word(text)) return width_max(width);
  std::string copy(text);
  if (copy.empty()) return Error{"empty number"};
  if (copy.find('-') != std::string::npos) return Error{"negative numbers are not allowed"};
  errno = 0;
  char* end = nullptr;
  unsigned long long number = std::strtoull(copy.c_str(), &end, 0);
  if (end == copy.c_str()) return Error{"not a valid number"};
  bool range_error = errno == ERANGE;
  if (width != IntWidth::k16 && (*end == 'k' || *end == 'K')) {
    if (number > kInfinite64 / 1024) range_error = true;
    number *= 1024;
    ++end;
  }
  if (*end != '\0') {
    // Name the classic mistakes: a unit letter, or a leading zero that makes C read octal.
    if (copy.size() > 1 && copy[0] == '0' && std::isdigit(static_cast<unsigned char>(copy[1]))) {
      return Error{"not a valid number: a leading 0 makes it octal, and 8 and 9 are not octal digits"};
    }
    return Error{"not a valid number"};
  }
  if (range_error || number > width_max(width)) {
    return Error{fmt::format("out of range (largest allowed is {})", width_max(width))};
  }
  return static_cast<std::uint64_t>(number);
}

Result<std::int64_t> parse_long(std::string_view text) {
  if (is_infinite_word(text)) return static_cast<std::int64_t>(0x7FFFFFFFFFFFFFFFLL);
  std::string copy(text);
  errno = 0;
  char* end = nullptr;
  long long number = std::strtoll(copy.c_str(), &end, 0);
  if (copy.empty() || end == copy.c_str() || *end != '\0') return Error{"not a valid number"};
  if (errno == ERANGE) return Error{"out of range"};
  return static_cast<std::int64_t>(number);
}

DecimalPrefix read_decimal_prefix(std::string_view text) {
  DecimalPrefix out;
  std::size_t at = 0;
  while (at < text.size() && std::isspace(static_cast<unsigned char>(text[at]))) ++at;
  if (at < text.size() && (text[at] == '+' || text[at] == '-')) out.negative = text[at++] == '-';
  for (; at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])); ++at, ++out.digits) {
    out.value = std::min<std::uint64_t>(out.value * 10 + static_cast<std::uint64_t>(text[at] - '0'), 1ULL << 40);
  }
  out.end = out.digits == 0 ? 0 : at;
  return out;
}

Result<bool> parse_bool(std::string_view text) {
  for (const char* yes : {"YES", "TRUE", "UP", "1"})
    if (iequals(text, yes)) return true;
  for (const char* no : {"NO", "FALSE", "DOWN", "0"})
    if (iequals(text, no)) return false;
  return Error{"not a boolean (use YES or NO)"};
}

Result<double> parse_double(std::string_view text) {
  if (is_infinite_word(text)) return HUGE_VAL;
  std::string copy(text);
  char* end = nullptr;
  double number = std::strtod(copy.c_str(), &end);
  if (copy.empty() || end == copy.c_str() || *end != '\0') return Error{"not a valid number"};
  return number;
}

Result<std::int64_t> parse_time_secs(std::string_view text) {
  if (text == "-1" || is_infinite_word(text)) return kInfiniteTime;
  if (text.empty()) return Error{"empty time"};
  int dashes = 0, colons = 0;
  for (char c : text) {
    if (c == '-') {
      if (colons > 0) return Error{"':' before '-'; times are [days-]hours:minutes:seconds"};
      ++dashes;
    } else if (c == ':') {
      ++colons;
    } else if (!std::isdigit(static_cast<unsigned char>(c))) {
      return Error{"times take only digits, '-' and ':' (no unit letters); e.g. 2-00:00:00 or 90"};
    }
  }
  if (dashes > 1 || colons > 2) return Error{"too many separators; times are [days-]hours:minutes:seconds"};
  std::vector<std::string> groups;
  std::string current;
  for (char c : text) {
    if (c == '-' || c == ':') {
      groups.push_back(current);
      current.clear();
    } else {
      current.push_back(c);
    }
  }
  groups.push_back(current);
  // "D-" (days only) is accepted; every other group must hold digits.
  bool days_only = dashes == 1 && colons == 0 && groups.size() == 2 && groups[1].empty();
  for (std::size_t i = 0; i < groups.size(); ++i) {
    if (groups[i].empty() && !(days_only && i == 1)) return Error{"missing digits in time"};
    if (groups[i].size() > 9) return Error{"time value out of range"};
  }
  auto num = [&](std::size_t i) -> std::int64_t { return groups[i].empty() ? 0 : std::stoll(groups[i]); };
  std::int64_t days = 0, hours = 0, minutes = 0, seconds = 0;
  if (dashes == 1) {
    days = num(0);
    hours = groups.size() > 1 ? num(1) : 0;
    minutes = groups.size() > 2 ? num(2) : 0;
    seconds = groups.size() > 3 ? num(3) : 0;
  } else if (colons == 0) {
    minutes = num(0);
  } else if (colons == 1) {
    minutes = num(0);
    seconds = num(1);
  } else {
    hours = num(0);
    minutes = num(1);
    seconds = num(2);
  }
  return ((days * 24 + hours) * 60 + minutes) * 60 + seconds;
}

Result<std::int64_t> parse_time_minutes_as_secs(std::string_view text) {
  auto secs = parse_time_secs(text);
  if (!secs || *secs == kInfiniteTime) return secs;
  return (*secs + 59) / 60 * 60;
}

std::string format_duration(std::int64_t seconds) {
  if (seconds == kInfiniteTime) return "UNLIMITED";
  std::int64_t days = seconds / 86400;
  std::int64_t rest = seconds % 86400;
  std::string hms = fmt::format("{:02}:{:02}:{:02}", rest / 3600, rest % 3600 / 60, rest % 60);
  return days > 0 ? fmt::format("{}-{}", days, hms) : hms;
}

}  // namespace sa
