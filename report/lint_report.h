#pragma once
// Renderings of a lint run: text for an admin at a terminal, JSON for scripts and
// baselines, SARIF 2.1.0 for code-scanning services (GitHub, GitLab), and HTML for policy
// reviews.
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "rules/framework/lint.h"

namespace sa::report {

struct LintTextOptions {
  bool color = false;
  bool evidence = true;  // print each finding's evidence and fix under it
};

void print_lint_text(std::ostream& out, const rules::LintReport& report, const LintTextOptions& options);
nlohmann::json lint_json(const rules::LintReport& report);
/// `source_root`: paths under it are written relative to it, against %SRCROOT%.
nlohmann::json lint_sarif(const rules::LintReport& report, const std::string& source_root);
/// "file:line:col", "file" for a finding about a file as a whole.
std::string location_text(const rules::Location& location);
/// One finding as the JSON output writes it.
nlohmann::json finding_json(const rules::Finding& finding);
/// The self-contained HTML policy-review report (summary, findings, charts of the run); its
/// verdict follows `fail_on` as the exit status does.
std::string lint_html(const rules::LintReport& report, Severity fail_on);
/// The rules not run, grouped by why ("needs --assoc: ..." -> FAIR001, FAIR002, ...), in the
/// order each reason first appears; entries are "CODE (reason)".
std::vector<std::pair<std::string, std::vector<std::string>>> skipped_by_reason(
    const std::vector<std::string>& skipped);
/// The summary block shared by the JSON output and the text footer.
nlohmann::json lint_summary(const rules::LintReport& report);

}  // namespace sa::report
