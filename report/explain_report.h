#pragma once
// `explain` output: a job's wait, interval by interval, and the what-if starts.
#include <ostream>

#include <nlohmann/json.hpp>

#include "engine/explain.h"

namespace sa::report {

void print_explanation(std::ostream& out, const engine::Explanation& e);
nlohmann::json explanation_json(const engine::Explanation& e);

/// "+1d 02:03:04" style offsets (or "+00:42:10" under a day).
std::string offset_text(std::int64_t seconds);

}  // namespace sa::report
