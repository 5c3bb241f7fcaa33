#pragma once
// One finding per root cause: findings of one code with the same message (the same ignored
// key on 98 node lines, the same diagnostic on every partition) become one finding at the
// first place, with every other place as a related location and the count in the message.
// Findings of one code whose messages differ only in the names and numbers they quote (one
// defect repeated per partition with its own values) group the same way, each other place
// keeping its own message as its note. Runs after suppressions: a place a site marked stays out.
#include <deque>
#include <set>
#include <string>
#include <string_view>

#include "rules/framework/finding.h"

namespace sa::rules {

/// The note on the places merged into a group (the driver replaces it with the line's text).
inline constexpr const char* kSameFinding = "the same finding";

/// Partition and node names, found by view (a message's words are looked up without copies).
using NameSet = std::set<std::string, std::less<>>;

/// A message with numbers and the given names (partitions, nodes) blanked out, and quoted
/// names, or with `any_quoted` every quoted text.
std::string message_shape(std::string_view message, const NameSet& names, bool any_quoted);

void consolidate_repeats(std::deque<Finding>& findings, const NameSet& names);

}  // namespace sa::rules
