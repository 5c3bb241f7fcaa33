#pragma once
// One line of plain language for every key a finding's evidence may hold, so the HTML
// report never shows a bare "fairshare_prefers_behind": each key is explained where it
// appears (a tooltip) and once in the page's glossary.
#include <set>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace sa::report {

/// What an evidence key means; empty when it has no entry. Keys made of the run's own
/// names ("gpu ahead of batch", "higher tier debug", a size class "17-128") are explained by
/// their pattern.
std::string evidence_meaning(std::string_view key);

/// Whether a number under `key` (inside an object under `parent`, or "" at the top) is a
/// span of seconds that reads as a duration: waits (whole words: "jobs_waiting" is a
/// share), time limits, "*_seconds" except CPU-seconds (an amount of work), and every
/// figure of a wait object but its job count. The text and HTML reports share it.
bool is_duration_key(const std::string& parent, const std::string& key);

/// Every key under `evidence` (objects and arrays walked), for the glossary.
void collect_evidence_keys(const nlohmann::json& evidence, std::set<std::string>& keys);

}  // namespace sa::report
