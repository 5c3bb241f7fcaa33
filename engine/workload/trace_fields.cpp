#include "engine/workload/trace_fields.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <string>

#include "analyzer/date_time.h"
#include "analyzer/text_util.h"

namespace sa::engine {

namespace {

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

}  // namespace

std::optional<std::int64_t> parse_trace_int(std::string_view s) {
  s = trim(s);
  if (s.empty()) return std::nullopt;
  std::int64_t v = 0;
  bool neg = false;
  std::size_t i = 0;
  if (s[0] == '-' || s[0] == '+') {
    neg = s[0] == '-';
    i = 1;
  }
  if (i == s.size()) return std::nullopt;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
    v = v * 10 + (s[i] - '0');
    // Checked after each digit, so the next multiplication cannot overflow.
    if (v > kMaxTraceInt) return std::nullopt;
  }
  return neg ? -v : v;
}

std::optional<std::int64_t> parse_trace_time(std::string_view text) {
  text = trim(text);
  if (text.empty()) return std::nullopt;
  if (all_digits(text)) return parse_trace_int(text);
  return parse_iso_datetime(text);  // sacct's default YYYY-MM-DDTHH:MM:SS
}

std::optional<std::int64_t> parse_trace_duration(std::string_view text) {
  text = trim(text);
  if (text.empty()) return std::nullopt;
  std::int64_t days = 0;
  if (auto dash = text.find('-'); dash != std::string_view::npos) {
    auto d = parse_trace_int(text.substr(0, dash));
    if (!d || *d < 0) return std::nullopt;
    days = *d;
    text = text.substr(dash + 1);
  }
  if (auto dot = text.find('.'); dot != std::string_view::npos) text = text.substr(0, dot);
  std::int64_t parts[3] = {0, 0, 0};
  int n = 0;
  for (const std::string& p : split(text, ':')) {
    if (n == 3 || !all_digits(p)) return std::nullopt;
    auto part = parse_trace_int(p);
    if (!part) return std::nullopt;  // too many digits
    parts[n++] = *part;
  }
  if (n == 0) return std::nullopt;
  // Every part at most kMaxTraceSeconds: the sums below stay far from overflow.
  if (days > kMaxTraceSeconds / 86400) return std::nullopt;
  for (int k = 0; k < n; ++k) {
    if (parts[k] > kMaxTraceSeconds) return std::nullopt;
  }
  std::int64_t secs = 0;
  if (n == 3)
    secs = parts[0] * 3600 + parts[1] * 60 + parts[2];
  else if (n == 2)
    secs = days > 0 ? parts[0] * 3600 + parts[1] * 60 : parts[0] * 60 + parts[1];
  else
    secs = days > 0 ? parts[0] * 3600 : parts[0] * 60;  // "D-HH" or plain minutes
  return days * 86400 + secs;
}

std::optional<TraceMemory> parse_trace_memory(std::string_view text) {
  text = trim(text);
  if (text.empty()) return std::nullopt;
  TraceMemory m;
  char last = static_cast<char>(std::tolower(static_cast<unsigned char>(text.back())));
  if (last == 'c' || last == 'n') {
    m.per = last == 'c' ? TraceMemory::Per::kCpu : TraceMemory::Per::kNode;
    text.remove_suffix(1);
  }
  double scale = 1.0;  // MB
  if (!text.empty() && std::isalpha(static_cast<unsigned char>(text.back()))) {
    switch (std::toupper(static_cast<unsigned char>(text.back()))) {
      case 'K':
        scale = 1.0 / 1024;
        break;
      case 'M':
        scale = 1.0;
        break;
      case 'G':
        scale = 1024.0;
        break;
      case 'T':
        scale = 1024.0 * 1024;
        break;
      default:
        return std::nullopt;
    }
    text.remove_suffix(1);
  }
  double v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  // The range check comes before the conversion: a double beyond uint64 converts undefined.
  if (ec != std::errc() || p != text.data() + text.size() || !(v >= 0) || !(v * scale <= kMaxTraceMemoryMb)) {
    return std::nullopt;
  }
  m.mb = static_cast<std::uint64_t>(std::llround(v * scale));  // v >= 0: half rounds up, as before
  return m;
}

}  // namespace sa::engine
