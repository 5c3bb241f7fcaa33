#pragma once
// A finding as HTML: its location, message, evidence (metrics as tables, example jobs with
// their weighted priority factors drawn as small stacked bars) and fix, with the fix's
// re-simulated metrics beside the current ones. Shared by the lint and diff reports.
#include <string>

#include <nlohmann/json.hpp>

#include "rules/framework/finding.h"

namespace sa::report {

/// One finding as an <article id="finding-N">.
std::string finding_html(const rules::Finding& finding, std::size_t index);
/// Any evidence value as HTML: objects of objects become tables, scalars a key/value list.
std::string json_html(const std::string& key, const nlohmann::json& value, const std::string& parent = {});

}  // namespace sa::report
