#include "rules/framework/fix_effect.h"

#include <cmath>
#include <string>

#include <fmt/format.h>

namespace sa::rules {

namespace {

// +1 when larger is better, -1 when smaller is better, 0 when the key is no outcome. Which
// scheduler started a job (backfill_share) and whether backfill reached it
// (never_reached_by_backfill, never_tested_waits) are the backfill limits' mechanism: raising
// a limit changes them by construction, and only the waits, jobs left pending and use of the
// machine say whether users gained anything.
int direction(const std::string& path) {
  if (path.find("backfill_share") != std::string::npos || path.find("never") != std::string::npos) return 0;
  for (const char* up : {"utilization", "utilisation", "started"}) {
    if (path.find(up) != std::string::npos) return 1;
  }
  // Nodes whose jobs share RAM with nothing bounding it, or ask for more than it holds: the
  // memory rules' outcome (the swapping and OOM kills the simulation cannot run into).
  for (const char* down : {"wait", "pending", "stretch", "suspended", "lost", "share_error", "delay",
                           "without_memory_bound", "over_memory"}) {
    if (path.find(down) != std::string::npos) return -1;
  }
  return 0;
}

struct Tally {
  int better = 0, worse = 0, same = 0;
};

void compare(const nlohmann::json& before, const nlohmann::json& after, const std::string& path, Tally& t) {
  if (before.is_object() && after.is_object()) {
    for (auto it = before.begin(); it != before.end(); ++it) {
      if (it.key() == "scenario" || it.key() == "jobs" || !after.contains(it.key())) continue;
      compare(it.value(), after[it.key()], path + "/" + it.key(), t);
    }
    return;
  }
  if (!before.is_number() || !after.is_number()) return;
  const int dir = direction(path);
  if (dir == 0) return;
  const double a = before.get<double>(), b = after.get<double>();
  const double tolerance = 0.01 * std::max(std::fabs(a), std::fabs(b));
  if (std::fabs(b - a) <= tolerance)
    ++t.same;
  else if ((b - a) * dir > 0)
    ++t.better;
  else
    ++t.worse;
}

}  // namespace

const char* fix_effect_name(FixEffect e) {
  switch (e) {
    case FixEffect::kUnknown:
      return "unknown";
    case FixEffect::kNone:
      return "none";
    case FixEffect::kBetter:
      return "better";
    case FixEffect::kWorse:
      return "worse";
    case FixEffect::kMixed:
      return "mixed";
  }
  return "unknown";
}

FixEffect fix_effect(const Finding& f) {
  if (!f.fix || !f.fix->resimulated.is_object() || !f.evidence.contains("metrics")) return FixEffect::kUnknown;
  Tally t;
  compare(f.evidence["metrics"], f.fix->resimulated, "", t);
  if (t.better + t.worse + t.same == 0) return FixEffect::kUnknown;
  if (t.better && t.worse) return FixEffect::kMixed;
  if (t.better) return FixEffect::kBetter;
  if (t.worse) return FixEffect::kWorse;
  return FixEffect::kNone;
}

void judge_fix(Finding& f) {
  const FixEffect e = fix_effect(f);
  if (e == FixEffect::kUnknown) return;
  f.evidence["fix_effect"] = fix_effect_name(e);
  if (e != FixEffect::kNone && e != FixEffect::kWorse) return;
  withdraw_fix(f, f.fix->description,
               e == FixEffect::kNone ? "changed none of these outcomes" : "made these outcomes worse");
}

void withdraw_fix(Finding& f, const std::string& tried, const std::string& outcome) {
  // (Formatted before the reset: `tried` may be the fix's own description.)
  f.evidence["fix_not_suggested"] =
      fmt::format("re-simulated on the same load, \"{}\" {}, so it is not suggested", tried, outcome);
  f.evidence["fix_resimulated"] = f.fix->resimulated;
  f.fix.reset();
}

}  // namespace sa::rules
