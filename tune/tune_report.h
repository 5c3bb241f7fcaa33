#pragma once
// What `slurm-advisor tune` prints: a ranked table with each goal's mean and 95 % interval,
// the Pareto front when the goals pull apart, the skipped candidates with the analyzer's
// reason, and the recommended change as a unified diff of slurm.conf; or the same as JSON.
#include <iosfwd>
#include <string>

#include <nlohmann/json.hpp>

#include "tune/search.h"

namespace sa::tune {

struct ReportContext {
  const SearchSpec* spec = nullptr;
  std::string conf_path;
  std::string load;  // what was simulated, for the header
};

nlohmann::json tune_json(const SearchOutcome& outcome, const ReportContext& ctx);
void print_tune_text(std::ostream& out, const SearchOutcome& outcome, const ReportContext& ctx);
/// A unified diff (3 lines of context) between two texts whose lines were replaced in place
/// or appended at the end, as the candidates' edits do.
std::string unified_diff(const std::string& before, const std::string& after, const std::string& path);

}  // namespace sa::tune
