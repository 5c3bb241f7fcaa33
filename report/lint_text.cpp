// The terminal rendering of a lint run: one block per finding (location, severity, message,
// the flagged line, related places, evidence, fix), then a summary line.
#include <cmath>
#include <ostream>

#include <fmt/format.h>

#include "analyzer/text_util.h"
#include "report/coverage_report.h"
#include "report/diagnostic_printer.h"
#include "report/evidence_glossary.h"
#include "report/lint_report.h"
#include "rules/analysis/evidence.h"

namespace sa::report {

namespace {

using rules::Finding;

// Keys that hold seconds are printed as Slurm durations (the HTML report's reading).
std::string scalar(const std::string& parent, const std::string& key, const nlohmann::json& v) {
  if (is_duration_key(parent, key) && v.is_number()) return rules::slurm_duration(v.get<std::int64_t>());
  // Three significant digits for fractions and factors; larger figures (points, CPU-seconds)
  // whole, not as 3.25e+04.
  if (v.is_number_float()) {
    const double d = v.get<double>();
    return std::fabs(d) >= 1000 ? fmt::format("{:.0f}", d) : fmt::format("{:.3g}", d);
  }
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

std::string flat(const std::string& key, const nlohmann::json& v) {
  if (!v.is_object()) return scalar("", key, v);
  std::string s;
  for (const auto& [k, x] : v.items()) {
    if (x.is_structured()) continue;
    s += fmt::format("{}{}={}", s.empty() ? "" : " ", k, scalar(key, k, x));
  }
  return s;
}

void print_metrics(std::ostream& out, const nlohmann::json& metrics, const char* indent) {
  for (const auto& [k, v] : metrics.items()) {
    if (k == "scenario" || v.is_array()) continue;
    out << indent << k << ": " << flat(k, v) << "\n";
  }
}

std::string job_line(const nlohmann::json& j) {
  std::string s = fmt::format("job {} {}/{} {} {} CPUs: ", j.value("job", 0), j.value("user", ""),
                              j.value("account", ""), j.value("partition", ""), j.value("cpus", 0));
  s += j.value("pending_at_end", false) ? "still pending after " : "waited ";
  s += rules::slurm_duration(j.value("wait_seconds", std::int64_t{0}));
  if (j.contains("priority")) s += fmt::format(", priority {}", j["priority"].dump());
  if (j.contains("factors")) s += " (" + flat("factors", j["factors"]) + ")";
  return s;
}

void print_finding(std::ostream& out, const Finding& f, const LintTextOptions& o) {
  const char* on = o.color ? severity_color(f.severity) : "";
  const char* off = o.color ? "\033[0m" : "";
  out << location_text(f.loc) << ": " << on << rules::level_name(f.severity) << off << ": " << f.message << " ["
      << f.code << " " << rules::check_name(f.check) << "]" << (f.baselined ? " (baselined)" : "") << "\n";
  if (!o.evidence) return;  // --no-evidence: one line per finding, for grep and quick looks
  if (!f.snippet.empty()) out << "    " << printable(f.snippet, 300) << "\n";
  // A group of many places (one cause on many lines) shows its first few.
  constexpr std::size_t kShown = 5;
  for (std::size_t i = 0; i < f.related.size() && i < kShown; ++i) {
    const auto& r = f.related[i];
    out << "  see " << location_text(r) << (r.note.empty() ? "" : " (" + r.note + ")") << "\n";
  }
  if (f.related.size() > kShown)
    out << "  ... and " << f.related.size() - kShown << " more places (all in JSON and SARIF)\n";
  const nlohmann::json& e = f.evidence;
  if (e.contains("scenario")) {
    const auto& s = e["scenario"];
    out << "  simulated: " << s.value("load", "") << "; " << s.value("jobs", 0) << " jobs over "
        << rules::slurm_duration(s.value("span_seconds", std::int64_t{0})) << "\n";
  }
  if (e.contains("metrics")) print_metrics(out, e["metrics"], "    ");
  for (const auto& [k, v] : e.items()) {
    if (k == "scenario" || k == "metrics" || k == "examples" || k == "fix_effect" || k == "fix_not_suggested" ||
        k == "fix_resimulated") {
      continue;
    }
    out << "  " << k << ": " << (v.is_array() ? std::to_string(v.size()) + " item(s)" : flat(k, v)) << "\n";
  }
  if (e.contains("examples") && !e["examples"].empty()) {
    out << "  example jobs:\n";
    for (const auto& j : e["examples"]) out << "    " << job_line(j) << "\n";
  }
  auto resimulated = [&](const nlohmann::json& r, const std::string& fallback) {
    const std::string label = r.contains("scenario") && r["scenario"].contains("variant")
                                  ? r["scenario"]["variant"].get<std::string>()
                                  : fallback;
    out << "  re-simulated with " << label << ":\n";
    print_metrics(out, r, "    ");
  };
  if (f.fix) {
    out << "  fix: " << f.fix->description << "\n";
    if (e.value("fix_effect", "") == "mixed")
      out << "  (re-simulated, it improves some of these outcomes and worsens others)\n";
    if (!f.fix->resimulated.is_null()) resimulated(f.fix->resimulated, f.fix->key + "=" + f.fix->value);
  }
  // A fix the run did not bear out (beside the finding's own fix, or in its place).
  if (e.contains("fix_resimulated")) {
    out << "  not suggested: " << e.value("fix_not_suggested", "") << "\n";
    resimulated(e["fix_resimulated"], "the fix");
  }
}

}  // namespace

std::string location_text(const rules::Location& l) {
  if (l.file.empty()) return "(run)";
  if (l.line <= 0) return l.file;
  return fmt::format("{}:{}:{}", l.file, l.line, l.column);
}

void print_lint_text(std::ostream& out, const rules::LintReport& r, const LintTextOptions& o) {
  for (const Finding& f : r.findings) {
    print_finding(out, f, o);
    if (o.evidence) out << "\n";
  }
  out << fmt::format("{}: {} error(s), {} warning(s), {} info", r.conf_path, r.count(Severity::kError),
                     r.count(Severity::kWarning), r.count(Severity::kInfo));
  if (r.suppressed) out << fmt::format(", {} suppressed", r.suppressed);
  if (r.baselined) out << fmt::format(", {} in the baseline", r.baselined);
  out << fmt::format(" ({} rules, Slurm {})\n", r.rules_run, r.slurm_version);
  if (r.scenario) {
    out << "simulated: " << r.scenario->load << "; " << r.scenario->jobs << " jobs, "
        << rules::slurm_duration(r.scenario->end - r.scenario->start) << " simulated\n";
  }
  if (r.coverage) print_coverage_text(out, *r.coverage);
  // One line per reason, so "needs --assoc" is said once for every rule it keeps from running.
  for (const auto& [reason, codes] : skipped_by_reason(r.skipped)) {
    out << "not run: " << join(codes, ", ") << (reason.empty() ? "" : " (" + reason + ")") << "\n";
  }
}

}  // namespace sa::report
