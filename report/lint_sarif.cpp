// SARIF 2.1.0 for code-scanning services. GitHub reads ruleId, level, message, the first
// physical location and partialFingerprints; evidence and fixes travel in property bags.
#include <filesystem>
#include <map>

#include "report/lint_report.h"
#include "rules/framework/rule.h"

namespace sa::report {

namespace {

// SARIF levels are severity_name's words (error, warning, note).
// A path under the source root becomes relative to %SRCROOT%, as code scanning expects;
// anything else stays a file path.
nlohmann::json artifact(const std::string& file, const std::string& root) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path abs = fs::weakly_canonical(fs::absolute(file, ec), ec);
  const fs::path base = fs::weakly_canonical(fs::absolute(root.empty() ? "." : root, ec), ec);
  const fs::path rel = abs.lexically_relative(base);
  if (!rel.empty() && *rel.begin() != "..") return {{"uri", rel.generic_string()}, {"uriBaseId", "%SRCROOT%"}};
  return {{"uri", "file://" + abs.generic_string()}};
}

std::string artifact_root(const std::string& root) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::string base = fs::weakly_canonical(fs::absolute(root.empty() ? "." : root, ec), ec).generic_string();
  if (base.empty() || base.back() != '/') base += '/';
  return "file://" + base;
}

nlohmann::json physical(const rules::Location& l, const std::string& root, const std::string& snippet) {
  // A finding about a file as a whole points at its first line: code scanning wants a region.
  nlohmann::json region = {{"startLine", std::max(1, l.line)}};
  if (l.line > 0 && l.column > 0) region["startColumn"] = l.column;
  if (!snippet.empty()) region["snippet"] = {{"text", snippet}};
  return {{"physicalLocation", {{"artifactLocation", artifact(l.file, root)}, {"region", region}}}};
}

nlohmann::json rule_json(const rules::Rule& r) {
  const std::string doc(r.doc);
  return {{"id", r.code},
          {"name", r.slug},
          {"shortDescription", {{"text", r.summary}}},
          {"fullDescription", {{"text", r.summary}}},
          {"help", {{"text", doc.empty() ? r.summary : doc}, {"markdown", doc.empty() ? r.summary : doc}}},
          {"defaultConfiguration", {{"level", severity_name(r.severity)}}},
          {"properties", {{"check", rules::check_name(r.check)}, {"tags", {rules::check_name(r.check)}}}}};
}

}  // namespace

nlohmann::json lint_sarif(const rules::LintReport& report, const std::string& root) {
  nlohmann::json rule_list = nlohmann::json::array();
  std::map<std::string, std::size_t> index;
  auto rule_index = [&](const rules::Finding& f) -> std::size_t {
    if (auto it = index.find(f.code); it != index.end()) return it->second;
    const rules::Rule* r = rules::find_rule(f.code);
    rule_list.push_back(r ? rule_json(*r)
                          : nlohmann::json{{"id", f.code},
                                           {"shortDescription", {{"text", "input diagnostic " + f.code}}},
                                           {"properties", {{"check", rules::check_name(f.check)}}}});
    return index[f.code] = rule_list.size() - 1;
  };
  nlohmann::json results = nlohmann::json::array();
  for (const rules::Finding& f : report.findings) {
    nlohmann::json res = {{"ruleId", f.code},
                          {"ruleIndex", rule_index(f)},
                          {"level", severity_name(f.severity)},
                          {"message", {{"text", f.message}}},
                          {"locations", {physical(f.loc, root, f.snippet)}},
                          {"partialFingerprints", {{"slurmAdvisor/v1", f.fingerprint}}},
                          {"properties", {{"check", rules::check_name(f.check)}, {"evidence", f.evidence}}}};
    if (f.baselined) res["baselineState"] = "unchanged";
    if (f.fix) {
      res["properties"]["fix"] = {{"description", f.fix->description}, {"key", f.fix->key}, {"value", f.fix->value}};
      if (!f.fix->resimulated.is_null()) res["properties"]["fix"]["resimulated"] = f.fix->resimulated;
    }
    nlohmann::json related = nlohmann::json::array();
    for (std::size_t i = 0; i < f.related.size(); ++i) {
      if (f.related[i].file.empty()) continue;
      nlohmann::json loc = physical(f.related[i], root, "");
      loc["id"] = static_cast<int>(i) + 1;
      if (!f.related[i].note.empty()) loc["message"] = {{"text", f.related[i].note}};
      related.push_back(loc);
    }
    if (!related.empty()) res["relatedLocations"] = related;
    results.push_back(res);
  }
  nlohmann::json run = {
      {"tool",
       {{"driver",
         {{"name", "slurm-advisor"}, {"version", "0.1.0"}, {"semanticVersion", "0.1.0"}, {"rules", rule_list}}}}},
      {"results", results},
      {"invocations", {{{"executionSuccessful", true}, {"properties", lint_summary(report)}}}},
      {"originalUriBaseIds", {{"%SRCROOT%", {{"uri", artifact_root(root)}}}}},
      {"columnKind", "unicodeCodePoints"}};
  return {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"}, {"version", "2.1.0"}, {"runs", {run}}};
}

}  // namespace sa::report
