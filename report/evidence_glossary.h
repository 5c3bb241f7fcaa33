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

/// Every key under `evidence` (objects and arrays walked), for the glossary.
void collect_evidence_keys(const nlohmann::json& evidence, std::set<std::string>& keys);

}  // namespace sa::report
