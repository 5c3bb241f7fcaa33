#pragma once
// The goal language of `slurm-advisor tune`: METRIC[SELECTOR] OP VALUE, e.g.
// `wait_p95[partition=batch]<=2h`, `share_error<=5%`, `findings[warning]==0`. A goal turns a
// simulated run into one number and a pass or a fail; a malformed goal is an error that names
// the column it starts at, so the admin sees which character to fix.
#include <cstdint>
#include <optional>
#include <string>
#include <variant>

namespace sa::tune {

enum class Metric {
  kShareError,
  kWaitMean,
  kWaitP50,
  kWaitP95,
  kWaitMax,
  kUtilisation,
  kBackfillShare,
  kStarved,
  kFindings
};
enum class Op { kLe, kGe, kLt, kGt, kEq };
/// What a goal's number measures: a fraction (written and printed as a percentage),
/// seconds (written with s/m/h/d), or a count.
enum class Unit { kFraction, kSeconds, kCount };

/// Which jobs (or accounts) a goal looks at; empty fields match everything.
struct Selector {
  std::string partition, qos, account;
  int tier = -1;                                    // PriorityTier of the partition a job ran (or queued) in
  std::uint32_t size_lo = 0, size_hi = UINT32_MAX;  // CPUs
  std::string severity;                             // findings[error|warning|info]
};

struct Goal {
  std::string text;  // as written, for reports
  Metric metric = Metric::kWaitP95;
  Selector selector;
  Op op = Op::kLe;
  double target = 0;  // fractions as 0..1, durations in seconds
  Unit unit() const;
};

/// A malformed goal or --vary: `column` is 1-based into the text.
struct SpecError {
  int column = 1;
  std::string message;
  /// "goal 'x<=': column 4: expected a value\n  x<=\n     ^"
  std::string render(const std::string& what, const std::string& text) const;
};

std::variant<Goal, SpecError> parse_goal(const std::string& text);

/// A number with an optional unit suffix: `85%` (0.85), `2h` (7200), `90m`, `30s`, `1d`, `12`.
/// Sets `unit` to the suffix's unit (kCount for a bare number); nullopt when not a number.
std::optional<double> parse_quantity(const std::string& text, Unit& unit);

bool passes(const Goal& goal, double value);
/// Higher values are better (>=, >); for == the distance to the target decides.
bool higher_is_better(const Goal& goal);
/// How far `value` is on the good side of the target, divided by the target's size (1 when the
/// target is 0): positive passes, comparable across goals of different units.
double margin(const Goal& goal, double value);
/// `value` as the goal is written: "12.5%", "1h02m03s", "3".
std::string format_value(const Goal& goal, double value);
/// The same for a bare unit; a negative duration (a change) is written "-1h02m".
std::string format_quantity(Unit unit, double value);
const char* op_text(Op op);

}  // namespace sa::tune
