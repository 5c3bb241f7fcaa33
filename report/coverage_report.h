#pragma once
// Load coverage (engine/coverage.h) as every simulating command reports it: JSON
// (`summary.load`), a few text lines under the "simulated" line, and an HTML table.
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/coverage.h"

namespace sa::report {

/// {"coverage", "offered", "refused", "started", "pending_at_end", "partitions": [{"name",
/// "offered", "refused", "refused_reasons": {reason: n}, "started", "pending_at_end"}],
/// "idle_partitions": ["debug (RootOnly, no user jobs)", ...]}
nlohmann::json coverage_json(const engine::LoadCoverage& coverage, const std::vector<std::string>& idle = {});
/// "load coverage: 900 of 913 jobs started (99%)", then a line per partition.
void print_coverage_text(std::ostream& out, const engine::LoadCoverage& coverage, const std::string& indent = "  ");
std::string coverage_html(const engine::LoadCoverage& coverage, const std::vector<std::string>& idle);

}  // namespace sa::report
