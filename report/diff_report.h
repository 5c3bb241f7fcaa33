#pragma once
// Renderings of `slurm-advisor diff`: text for review, JSON for CI.
#include <iosfwd>
#include <string>

#include <nlohmann/json.hpp>

#include "rules/framework/diff.h"

namespace sa::report {

void print_diff_text(std::ostream& out, const rules::LintDiff& diff, const std::string& old_path,
                     const std::string& new_path);
nlohmann::json diff_json(const rules::LintDiff& diff, const std::string& old_path, const std::string& new_path);

}  // namespace sa::report
