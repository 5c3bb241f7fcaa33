#include "analyzer/date_time.h"

#include <cctype>

namespace sa {

namespace {

// The value of text[pos, pos + width) when those are all digits, else -1.
int digits_at(std::string_view text, std::size_t pos, std::size_t width) {
  if (pos + width > text.size()) return -1;
  int value = 0;
  for (std::size_t i = pos; i < pos + width; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) return -1;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

bool is_leap(int year) { return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0; }

int days_in_month(int year, int month) {
  static constexpr int kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && is_leap(year) ? 29 : kDays[month - 1];
}

// HH:MM[:SS] starting at `pos` and running to the end of `text`, as seconds; -1 if malformed.
int time_of_day(std::string_view text, std::size_t pos) {
  std::size_t length = text.size() - pos;
  if ((length != 5 && length != 8) || text[pos + 2] != ':') return -1;
  int hour = digits_at(text, pos, 2), minute = digits_at(text, pos + 3, 2), second = 0;
  if (length == 8) {
    if (text[pos + 5] != ':') return -1;
    second = digits_at(text, pos + 6, 2);
  }
  // A leap second (:60) is kept, as timegm() would: it reads as the next minute.
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 60) return -1;
  return hour * 3600 + minute * 60 + second;
}

}  // namespace

std::int64_t days_from_civil(std::int64_t year, int month, int day) {
  // Howard Hinnant's algorithm: count in 400-year eras starting on 1 March.
  year -= month <= 2 ? 1 : 0;
  const std::int64_t era = (year >= 0 ? year : year - 399) / 400;
  const std::int64_t year_of_era = year - era * 400;
  const std::int64_t day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const std::int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era - 719468;
}

std::optional<std::int64_t> parse_iso_datetime(std::string_view text) {
  if (text.size() < 10 || text[4] != '-' || text[7] != '-') return std::nullopt;
  const int year = digits_at(text, 0, 4), month = digits_at(text, 5, 2), day = digits_at(text, 8, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > days_in_month(year, month)) {
    return std::nullopt;
  }
  int seconds = 0;
  if (text.size() > 10) {
    if (text[10] != 'T' && text[10] != ' ') return std::nullopt;
    seconds = time_of_day(text, 11);
    if (seconds < 0) return std::nullopt;
  }
  return days_from_civil(year, month, day) * 86400 + seconds;
}

std::optional<std::int64_t> parse_datetime(std::string_view text) {
  if (text.empty() || text.size() > 12) return parse_iso_datetime(text);
  std::int64_t value = 0;
  for (char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return parse_iso_datetime(text);
    value = value * 10 + (c - '0');
  }
  return value;
}

}  // namespace sa
