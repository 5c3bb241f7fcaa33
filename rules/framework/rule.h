#pragma once
// A lint rule: its published identity (code, slug, severity, check family) and a pure check
// over the lint context. Each rule lives in its own folder, rules/<area>/<slug>/, with its
// documentation and fixtures; the build generates the registry from the folder listing, so
// adding a rule touches that folder only (see rules/README.md).
#include <string>
#include <string_view>
#include <vector>

#include "rules/framework/finding.h"

namespace sa::rules {

class LintContext;
class FindingSink;

using CheckFn = void (*)(const LintContext& context, FindingSink& sink);

/// How a rule uses the simulation: not at all; for evidence when there is one (it still
/// runs under --no-simulate, from the arithmetic alone); or to find the defect at all.
enum class SimUse { kStatic, kEvidence, kRequired };

/// What a rule.cpp declares about itself.
struct RuleDef {
  const char* code;     // never changes once published: the SARIF ruleId and suppression key
  const char* slug;     // names the defect, kebab-case
  Severity severity;    // the default; a severity file may override it
  Check check;          // the check family
  SimUse simulation;    // kRequired rules are skipped under --no-simulate
  const char* summary;  // one line, for listings and SARIF shortDescription
  CheckFn run;
};

/// A registered rule: its declaration plus what the generated registry adds.
struct Rule : RuleDef {
  std::string_view doc;     // rule.md
  std::string_view folder;  // rules/<area>/<slug>, relative to the source tree
};

/// Every rule, sorted by code.
const std::vector<Rule>& registry();
/// The rule with this code, or nullptr.
const Rule* find_rule(std::string_view code);

}  // namespace sa::rules

// Defines the rule of the folder being compiled; the build passes SA_RULE_FN, the name the
// generated registry calls. Use once per rule.cpp:
//   SA_RULE({"PRIO001", "slug", Severity::kWarning, Check::kWeightResolution, SimUse::kStatic, "summary", check})
#define SA_RULE(...)                                   \
  namespace sa::rules {                                \
  RuleDef SA_RULE_FN() { return RuleDef __VA_ARGS__; } \
  }
