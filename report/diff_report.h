#pragma once
// Renderings of `slurm-advisor diff`: text for review, JSON for CI, HTML for a policy review.
#include <iosfwd>
#include <string>

#include <nlohmann/json.hpp>

#include "rules/analysis/diff.h"

namespace sa::report {

void print_diff_text(std::ostream& out, const rules::LintDiff& diff, const std::string& old_path,
                     const std::string& new_path);
struct DiffPaths {
  std::string old_conf, new_conf;
};
/// The self-contained HTML page; `fail_on` sets the verdict as the exit status does;
/// `seeds_section` (diff --seeds) goes last.
std::string diff_html(const rules::LintDiff& diff, const rules::LintReport& before, const rules::LintReport& after,
                      const DiffPaths& paths, Severity fail_on, const std::string& seeds_section = {});
nlohmann::json diff_json(const rules::LintDiff& diff, const std::string& old_path, const std::string& new_path);

}  // namespace sa::report
