#include "tune/space.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <string_view>

#include <fmt/format.h>

#include "analyzer/text_util.h"

namespace sa::tune {

namespace {

constexpr int kDefaultPoints = 5;
constexpr int kMaxPoints = 100;

// SchedulerParameters options that do not start with bf_ but may be written bare.
constexpr std::string_view kSchedOptions[] = {"default_queue_depth",
                                              "partition_job_depth",
                                              "max_sched_time",
                                              "sched_interval",
                                              "sched_min_interval",
                                              "max_rpc_cnt",
                                              "batch_sched_delay",
                                              "sched_max_job_start",
                                              "max_switch_wait",
                                              "defer_batch",
                                              "defer",
                                              "max_depend_depth",
                                              "sched_max_job_start"};

bool is_sched_option(const std::string& key) {
  if (key.rfind("bf_", 0) == 0) return true;
  return std::find(std::begin(kSchedOptions), std::end(kSchedOptions), key) != std::end(kSchedOptions);
}

bool valid_word(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == '/';
  });
}

// `Partition[gpu].Field`, `QOS[high].Field`, `SchedulerParameters.opt`, `bf_opt` or `Key`.
std::optional<SpecError> parse_key(const std::string& key, Dimension& d) {
  const std::size_t open = key.find('[');
  if (open != std::string::npos) {
    const std::string kind = key.substr(0, open);
    const std::size_t close = key.find(']', open);
    if (close == std::string::npos) return SpecError{static_cast<int>(open) + 1, "'[' without a closing ']'"};
    if (!iequals(kind, "Partition") && !iequals(kind, "QOS")) {
      return SpecError{1, fmt::format("'{}[...]' is not a table; use Partition[NAME].FIELD or QOS[NAME].FIELD", kind)};
    }
    d.kind = iequals(kind, "QOS") ? KeyKind::kQos : KeyKind::kPartition;
    d.scope = key.substr(open + 1, close - open - 1);
    if (!valid_word(d.scope)) return SpecError{static_cast<int>(open) + 2, "expected a name inside the brackets"};
    if (close + 1 >= key.size() || key[close + 1] != '.') {
      return SpecError{static_cast<int>(close) + 2, "expected '.FIELD' after the brackets"};
    }
    d.key = key.substr(close + 2);
    if (!valid_word(d.key)) return SpecError{static_cast<int>(close) + 3, "expected a field name"};
    return std::nullopt;
  }
  if (iequals(key.substr(0, std::min<std::size_t>(key.size(), 20)), "SchedulerParameters.")) {
    d.kind = KeyKind::kSchedParam;
    d.key = key.substr(20);
    if (!valid_word(d.key)) return SpecError{21, "expected a SchedulerParameters option after the dot"};
    return std::nullopt;
  }
  if (!valid_word(key) || key.find('.') != std::string::npos) {
    return SpecError{1, fmt::format("'{}' is not a setting name", key)};
  }
  d.kind = is_sched_option(key) ? KeyKind::kSchedParam : KeyKind::kSetting;
  d.key = key;
  return std::nullopt;
}

std::optional<double> number(const std::string& s) {
  if (s.empty() || s.find_first_not_of("0123456789.+-") != std::string::npos) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (*end != '\0' || !std::isfinite(v)) return std::nullopt;
  return v;
}

// `lo..hi[:log|:int][:N]`; `col` is the column of lo.
std::optional<SpecError> parse_range(const std::string& spec, int col, Dimension& d) {
  const std::size_t dots = spec.find("..");
  std::size_t colon = spec.find(':', dots);
  const std::string lo_text = spec.substr(0, dots);
  const std::string hi_text = spec.substr(dots + 2, colon == std::string::npos ? std::string::npos : colon - dots - 2);
  auto lo = number(lo_text), hi = number(hi_text);
  if (!lo) return SpecError{col, fmt::format("'{}' is not a number", lo_text)};
  if (!hi) return SpecError{col + static_cast<int>(dots) + 2, fmt::format("'{}' is not a number", hi_text)};
  if (*hi < *lo) return SpecError{col, "the range runs backwards: write lo..hi with lo <= hi"};
  bool log = false, integer = lo_text.find('.') == std::string::npos && hi_text.find('.') == std::string::npos;
  int points = kDefaultPoints;
  while (colon != std::string::npos) {
    const std::size_t next = spec.find(':', colon + 1);
    const std::string opt = spec.substr(colon + 1, next == std::string::npos ? std::string::npos : next - colon - 1);
    const int ocol = col + static_cast<int>(colon) + 1;
    if (opt == "log") {
      log = true;
    } else if (opt == "int") {
      integer = true;
    } else if (auto n = number(opt); n && *n >= 1 && *n <= kMaxPoints && *n == std::floor(*n)) {
      points = static_cast<int>(*n);
    } else {
      return SpecError{ocol, fmt::format("'{}' is not :log, :int or a number of points (1-{})", opt, kMaxPoints)};
    }
    colon = next;
  }
  if (log && *lo <= 0) return SpecError{col, "a :log range needs lo > 0"};
  d.range = Range{*lo, *hi, log, integer};
  for (int i = 0; i < points; ++i) {
    const double f = points == 1 ? 0 : static_cast<double>(i) / (points - 1);
    const double v = log ? *lo * std::pow(*hi / *lo, f) : *lo + (*hi - *lo) * f;
    std::string text = format_point(v, integer);
    if (std::find(d.values.begin(), d.values.end(), text) == d.values.end()) d.values.push_back(std::move(text));
  }
  return std::nullopt;
}

std::optional<SpecError> parse_list(const std::string& spec, int col, Dimension& d) {
  std::size_t at = 0;
  while (at <= spec.size()) {
    std::size_t comma = spec.find(',', at);
    if (comma == std::string::npos) comma = spec.size();
    std::string v = spec.substr(at, comma - at);
    if (v.empty()) return SpecError{col + static_cast<int>(at), "empty value in the list"};
    if (v.find_first_of(" \t#") != std::string::npos) {
      return SpecError{col + static_cast<int>(at), fmt::format("value '{}' holds a space or '#'", v)};
    }
    if (std::find(d.values.begin(), d.values.end(), v) == d.values.end()) d.values.push_back(std::move(v));
    at = comma + 1;
  }
  return std::nullopt;
}

}  // namespace

std::string format_point(double v, bool integer) {
  if (integer) return fmt::format("{}", static_cast<long long>(std::llround(v)));
  return fmt::format("{:.6g}", v);
}

std::string Dimension::name() const {
  switch (kind) {
    case KeyKind::kSchedParam:
      return "SchedulerParameters." + key;
    case KeyKind::kPartition:
      return "Partition[" + scope + "]." + key;
    case KeyKind::kQos:
      return "QOS[" + scope + "]." + key;
    default:
      return key;
  }
}

std::variant<Dimension, SpecError> parse_vary(const std::string& text) {
  Dimension d;
  d.spec = text;
  const std::size_t eq = text.find('=');
  if (eq == std::string::npos) return SpecError{static_cast<int>(text.size()) + 1, "expected KEY=VALUES"};
  if (eq == 0) return SpecError{1, "expected a setting name before '='"};
  if (auto e = parse_key(text.substr(0, eq), d)) return *e;
  const std::string spec = text.substr(eq + 1);
  const int col = static_cast<int>(eq) + 2;
  if (spec.empty()) return SpecError{col, "expected values: a,b,c or lo..hi[:log|:int][:N]"};
  if (spec.find("..") != std::string::npos) {
    if (auto e = parse_range(spec, col, d)) return *e;
  } else if (auto e = parse_list(spec, col, d)) {
    return *e;
  }
  return d;
}

}  // namespace sa::tune
