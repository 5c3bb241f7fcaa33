#include "tune/goal.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace sa::tune {

namespace {

struct MetricName {
  const char* name;
  Metric metric;
};

constexpr MetricName kMetrics[] = {
    {"share_error", Metric::kShareError},  {"wait_mean", Metric::kWaitMean},
    {"wait_p50", Metric::kWaitP50},        {"wait_p95", Metric::kWaitP95},
    {"wait_max", Metric::kWaitMax},        {"utilisation", Metric::kUtilisation},
    {"utilization", Metric::kUtilisation}, {"backfill_share", Metric::kBackfillShare},
    {"starved", Metric::kStarved},         {"findings", Metric::kFindings},
};

std::string metric_list() {
  std::string out;
  for (const MetricName& m : kMetrics) out += (out.empty() ? "" : ", ") + std::string(m.name);
  return out;
}

// A cursor over the goal text; columns are 1-based for messages.
struct Cursor {
  const std::string& s;
  std::size_t at = 0;
  int column() const { return static_cast<int>(at) + 1; }
  void skip_space() {
    while (at < s.size() && std::isspace(static_cast<unsigned char>(s[at]))) ++at;
  }
};

std::optional<std::pair<std::uint32_t, std::uint32_t>> parse_range(const std::string& v) {
  const std::size_t dash = v.find('-');
  const std::string lo = dash == std::string::npos ? v : v.substr(0, dash);
  const std::string hi = dash == std::string::npos ? v : v.substr(dash + 1);
  auto num = [](const std::string& t) -> std::optional<std::uint32_t> {
    if (t.empty() || t.size() > 9 || t.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    return static_cast<std::uint32_t>(std::stoul(t));
  };
  auto a = num(lo);
  auto b = hi.empty() && dash != std::string::npos ? std::optional<std::uint32_t>(UINT32_MAX) : num(hi);
  if (!a || !b || *a > *b) return std::nullopt;
  return std::make_pair(*a, *b);
}

// One `key=value` (or a bare severity for findings) inside the brackets.
std::optional<SpecError> apply_selector(Goal& g, const std::string& item, int column) {
  const std::size_t eq = item.find('=');
  if (g.metric == Metric::kFindings) {
    if (item == "error" || item == "warning" || item == "info") {
      g.selector.severity = item;
      return std::nullopt;
    }
    return SpecError{column, "findings takes a severity: findings[error], findings[warning] or findings[info]"};
  }
  if (eq == std::string::npos)
    return SpecError{column, fmt::format("expected KEY=VALUE in the selector, got '{}'", item)};
  const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
  const int vcol = column + static_cast<int>(eq) + 1;
  if (value.empty()) return SpecError{vcol, fmt::format("selector '{}' has no value", key)};
  if (key == "partition") {
    g.selector.partition = value;
  } else if (key == "qos") {
    g.selector.qos = value;
  } else if (key == "account") {
    g.selector.account = value;
  } else if (key == "tier") {
    auto r = parse_range(value);
    if (!r || r->first != r->second || r->first > 65535) return SpecError{vcol, "tier= takes a PriorityTier (0-65535)"};
    g.selector.tier = static_cast<int>(r->first);
  } else if (key == "size") {
    auto r = parse_range(value);
    if (!r) return SpecError{vcol, fmt::format("size= takes CPUs as N or LO-HI (e.g. 1-16, 129-), got '{}'", value)};
    g.selector.size_lo = r->first;
    g.selector.size_hi = r->second;
  } else {
    return SpecError{column, fmt::format("unknown selector '{}'; use partition=, qos=, account=, tier= or size=", key)};
  }
  return std::nullopt;
}

std::optional<SpecError> parse_selectors(Cursor& c, Goal& g) {
  const std::size_t close = c.s.find(']', c.at);
  if (close == std::string::npos) return SpecError{c.column(), "'[' without a closing ']'"};
  ++c.at;  // '['
  while (c.at <= close) {
    std::size_t end = c.s.find(',', c.at);
    if (end == std::string::npos || end > close) end = close;
    const std::string item = c.s.substr(c.at, end - c.at);
    if (item.empty()) return SpecError{c.column(), "empty selector"};
    if (auto e = apply_selector(g, item, c.column())) return e;
    c.at = end + 1;
  }
  if (g.metric == Metric::kUtilisation || g.metric == Metric::kBackfillShare) {
    if (!g.selector.partition.empty() || !g.selector.qos.empty() || !g.selector.account.empty() ||
        g.selector.tier >= 0 || g.selector.size_lo != 0 || g.selector.size_hi != UINT32_MAX) {
      return SpecError{1, "utilisation and backfill_share are measured over the whole cluster; drop the selector"};
    }
  }
  return std::nullopt;
}

std::optional<Op> parse_op(Cursor& c) {
  static const std::pair<const char*, Op> kOps[] = {
      {"<=", Op::kLe}, {">=", Op::kGe}, {"==", Op::kEq}, {"<", Op::kLt}, {">", Op::kGt}};
  for (const auto& [text, op] : kOps) {
    if (c.s.compare(c.at, std::char_traits<char>::length(text), text) == 0) {
      c.at += std::char_traits<char>::length(text);
      return op;
    }
  }
  return std::nullopt;
}

// Checks the value's unit against the metric's, so `wait_p95<=5%` is an error, not a surprise.
std::optional<SpecError> check_unit(const Goal& g, Unit written, int column) {
  const Unit want = g.unit();
  if (written == want) return std::nullopt;
  if (want == Unit::kSeconds && written == Unit::kCount) return std::nullopt;  // bare seconds
  if (want == Unit::kFraction && written == Unit::kCount && g.target <= 1) return std::nullopt;
  static const char* kNames[] = {"a percentage (e.g. 85%)", "a duration (e.g. 30s, 10m, 2h, 1d)", "a plain count"};
  return SpecError{column, fmt::format("this metric takes {}", kNames[static_cast<int>(want)])};
}

}  // namespace

Unit Goal::unit() const {
  switch (metric) {
    case Metric::kShareError:
    case Metric::kUtilisation:
    case Metric::kBackfillShare:
      return Unit::kFraction;
    case Metric::kStarved:
    case Metric::kFindings:
      return Unit::kCount;
    default:
      return Unit::kSeconds;
  }
}

std::string SpecError::render(const std::string& what, const std::string& text) const {
  const std::size_t pad = static_cast<std::size_t>(std::max(column, 1) - 1);
  return fmt::format("{} '{}': column {}: {}\n  {}\n  {}^", what, text, column, message, text, std::string(pad, ' '));
}

std::optional<double> parse_quantity(const std::string& text, Unit& unit) {
  if (text.empty()) return std::nullopt;
  const char* begin = text.c_str();
  char* end = nullptr;
  const double v = std::strtod(begin, &end);
  if (end == begin || !std::isfinite(v) || v < 0 || text.find_first_of("eExXnN") != std::string::npos)
    return std::nullopt;
  const std::string suffix(end);
  static const std::pair<const char*, double> kTimes[] = {{"s", 1}, {"m", 60}, {"h", 3600}, {"d", 86400}};
  if (suffix.empty()) {
    unit = Unit::kCount;
    return v;
  }
  if (suffix == "%") {
    unit = Unit::kFraction;
    return v / 100.0;
  }
  for (const auto& [s, mult] : kTimes) {
    if (suffix == s) {
      unit = Unit::kSeconds;
      return v * mult;
    }
  }
  return std::nullopt;
}

std::variant<Goal, SpecError> parse_goal(const std::string& text) {
  Goal g;
  g.text = text;
  Cursor c{text};
  c.skip_space();
  const std::size_t name_start = c.at;
  while (c.at < text.size() && (std::isalnum(static_cast<unsigned char>(text[c.at])) || text[c.at] == '_')) ++c.at;
  const std::string name = text.substr(name_start, c.at - name_start);
  bool known = false;
  for (const MetricName& m : kMetrics) {
    if (name == m.name) {
      g.metric = m.metric;
      known = true;
    }
  }
  if (!known) {
    return SpecError{static_cast<int>(name_start) + 1,
                     fmt::format("unknown metric '{}'; the metrics are {}", name, metric_list())};
  }
  if (c.at < text.size() && text[c.at] == '[') {
    if (auto e = parse_selectors(c, g)) return *e;
  }
  if (g.metric == Metric::kFindings && g.selector.severity.empty()) g.selector.severity = "warning";
  c.skip_space();
  const int op_column = c.column();
  auto op = parse_op(c);
  if (!op) return SpecError{op_column, "expected an operator: <=, >=, <, > or =="};
  g.op = *op;
  c.skip_space();
  const int value_column = c.column();
  std::string value = text.substr(c.at);
  while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back()))) value.pop_back();
  if (value.empty()) return SpecError{value_column, "expected a value after the operator"};
  Unit unit = Unit::kCount;
  auto v = parse_quantity(value, unit);
  if (!v)
    return SpecError{value_column,
                     fmt::format("'{}' is not a value (a number, N%, or a duration with s/m/h/d)", value)};
  g.target = *v;
  if (auto e = check_unit(g, unit, value_column)) return *e;
  return g;
}

bool passes(const Goal& g, double v) {
  switch (g.op) {
    case Op::kLe:
      return v <= g.target + 1e-12;
    case Op::kGe:
      return v + 1e-12 >= g.target;
    case Op::kLt:
      return v < g.target;
    case Op::kGt:
      return v > g.target;
    case Op::kEq:
      return std::fabs(v - g.target) <= 1e-9;
  }
  return false;
}

bool higher_is_better(const Goal& g) { return g.op == Op::kGe || g.op == Op::kGt; }

double margin(const Goal& g, double v) {
  const double scale = std::fabs(g.target) > 0 ? std::fabs(g.target) : 1.0;
  if (g.op == Op::kEq) return -std::fabs(v - g.target) / scale;
  return (higher_is_better(g) ? v - g.target : g.target - v) / scale;
}

std::string format_value(const Goal& g, double v) { return format_quantity(g.unit(), v); }

std::string format_quantity(Unit unit, double v) {
  switch (unit) {
    case Unit::kFraction:
      return fmt::format("{:.1f}%", v * 100);
    case Unit::kCount:
      return std::fabs(v - std::round(v)) < 1e-9 ? fmt::format("{:.0f}", v) : fmt::format("{:.2f}", v);
    case Unit::kSeconds: {
      // A change can be negative: the sign, then the duration.
      const auto s = static_cast<std::int64_t>(std::llround(std::fabs(v)));
      const char* sign = v < 0 && s > 0 ? "-" : "";
      if (s < 60) return fmt::format("{}{}s", sign, s);
      if (s < 3600) return fmt::format("{}{}m{:02}s", sign, s / 60, s % 60);
      return fmt::format("{}{}h{:02}m", sign, s / 3600, (s % 3600) / 60);
    }
  }
  return {};
}

const char* op_text(Op op) {
  static const char* kText[] = {"<=", ">=", "<", ">", "=="};
  return kText[static_cast<int>(op)];
}

}  // namespace sa::tune
