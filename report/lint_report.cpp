#include "report/lint_report.h"

#include <algorithm>
#include <ostream>

#include <fmt/format.h>

#include "report/coverage_report.h"
#include "rules/analysis/evidence.h"
#include "rules/framework/rule.h"

namespace sa::report {

namespace {

using rules::Finding;

nlohmann::json location_json(const rules::Location& l) {
  nlohmann::json j = {{"file", l.file}, {"line", l.line}, {"column", l.column}};
  if (!l.note.empty()) j["note"] = l.note;
  return j;
}

}  // namespace

nlohmann::json finding_json(const Finding& f) {
  const rules::Rule* rule = rules::find_rule(f.code);
  nlohmann::json j = {{"check", rules::check_name(f.check)},
                      {"code", f.code},
                      {"severity", rules::level_name(f.severity)},
                      {"message", f.message},
                      {"file", f.loc.file},
                      {"line", f.loc.line},
                      {"column", f.loc.column},
                      {"evidence", f.evidence},
                      {"fingerprint", f.fingerprint}};
  if (rule) j["slug"] = rule->slug;
  if (!f.related.empty()) {
    j["related"] = nlohmann::json::array();
    for (const auto& r : f.related) j["related"].push_back(location_json(r));
  }
  if (f.fix) {
    j["fix"] = {{"description", f.fix->description}};
    if (!f.fix->key.empty()) j["fix"]["key"] = f.fix->key;
    if (!f.fix->value.empty()) j["fix"]["value"] = f.fix->value;
    if (!f.fix->resimulated.is_null()) j["fix"]["resimulated"] = f.fix->resimulated;
  }
  if (f.baselined) j["baselined"] = true;
  return j;
}

std::vector<std::pair<std::string, std::vector<std::string>>> skipped_by_reason(
    const std::vector<std::string>& skipped) {
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  for (const std::string& s : skipped) {
    const auto open = s.find(" (");
    const std::string code = s.substr(0, open);
    const std::string reason = open == std::string::npos ? "" : s.substr(open + 2, s.size() - open - 3);
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& g) { return g.first == reason; });
    if (it == out.end())
      out.push_back({reason, {code}});
    else
      it->second.push_back(code);
  }
  return out;
}

nlohmann::json lint_summary(const rules::LintReport& r) {
  nlohmann::json by_check = nlohmann::json::object();
  for (const Finding& f : r.findings)
    by_check[rules::check_name(f.check)] = by_check.value(rules::check_name(f.check), 0) + 1;
  nlohmann::json j = {{"errors", r.count(Severity::kError)},
                      {"warnings", r.count(Severity::kWarning)},
                      {"info", r.count(Severity::kInfo)},
                      {"by_check", by_check},
                      {"suppressed", r.suppressed},
                      {"switched_off", r.switched_off},
                      {"baselined", r.baselined},
                      {"rules_run", r.rules_run},
                      {"skipped", r.skipped},
                      {"conf", r.conf_path},
                      {"slurm_version", r.slurm_version},
                      {"simulated", r.scenario.has_value()}};
  if (r.scenario) {
    j["scenario"] = rules::scenario_json(*r.scenario);
    j["metrics"] = r.metrics;
  }
  if (r.coverage) j["load"] = coverage_json(*r.coverage, r.idle_partitions);
  return j;
}

nlohmann::json lint_json(const rules::LintReport& r) {
  nlohmann::json findings = nlohmann::json::array();
  for (const Finding& f : r.findings) findings.push_back(finding_json(f));
  return {{"findings", findings}, {"summary", lint_summary(r)}};
}

}  // namespace sa::report
