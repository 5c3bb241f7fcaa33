#pragma once
// What a re-simulated fix did to the outcomes its finding is about: the waits, jobs left
// pending, utilisation, stretch and share errors in the finding's metrics against the same
// keys re-simulated under the fix. Mechanism counters (plans beyond the window, tests run)
// change by construction and are not outcomes. A fix that changes nothing, or only makes
// things worse, is not suggested: the finding says so instead.
#include "rules/framework/finding.h"

namespace sa::rules {

enum class FixEffect { kUnknown, kNone, kBetter, kWorse, kMixed };
const char* fix_effect_name(FixEffect effect);  // "unknown", "none", "better", "worse", "mixed"

/// Compares evidence["metrics"] with fix->resimulated (1% tolerance).
FixEffect fix_effect(const Finding& finding);

/// Records the effect in the finding's JSON-visible evidence ("fix_effect") and drops a fix
/// whose effect is none or worse, keeping its description under "fix_not_suggested".
void judge_fix(Finding& finding);

/// Drops the finding's fix, keeping its re-simulation as evidence ("fix_resimulated") and
/// why under "fix_not_suggested": re-simulated on the same load, "<tried>" <outcome>, so it
/// is not suggested.
void withdraw_fix(Finding& finding, const std::string& tried, const std::string& outcome);

}  // namespace sa::rules
