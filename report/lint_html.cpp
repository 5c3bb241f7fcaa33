// The policy-review report: one self-contained HTML file (inline style, inline SVG, a few
// lines of script; nothing fetched) with the verdict, counts by severity and check family,
// every finding with its evidence and fix, and the charts of the simulated run.
#include <array>
#include <map>
#include <set>

#include <fmt/format.h>

#include "analyzer/text_util.h"
#include "report/coverage_report.h"
#include "report/evidence_glossary.h"
#include "report/evidence_html.h"
#include "report/html_writer.h"
#include "report/lint_report.h"
#include "report/sim_charts.h"
#include "rules/analysis/evidence.h"
#include "rules/framework/rule.h"

namespace sa::report {

namespace {

using rules::Finding;

// The verdict says what the exit status says: findings at or above --fail-on fail, the
// baseline's findings never count, and anything else at warning or above asks for a review.
std::string verdict_html(const rules::LintReport& r, Severity fail_on) {
  const std::size_t blocking = r.count_at_or_above(fail_on);
  const std::size_t review = r.count_at_or_above(Severity::kWarning);
  const std::string baseline = r.baselined ? fmt::format(" ({} finding{} in the baseline not counted.)", r.baselined,
                                                         r.baselined == 1 ? "" : "s")
                                           : "";
  if (blocking) {
    return fmt::format(
        "<div class=\"verdict fail\" id=\"verdict\">Do not deploy: {} finding{} at or above {}.{}</div>\n", blocking,
        blocking == 1 ? "" : "s", rules::level_name(fail_on), baseline);
  }
  if (review) {
    return fmt::format(
        "<div class=\"verdict warn\" id=\"verdict\">Review before deploying: {} finding{} at warning "
        "or above, none at or above {}.{}</div>\n",
        review, review == 1 ? "" : "s", rules::level_name(fail_on), baseline);
  }
  // A run that did not exercise the site is no clean bill, whatever was suppressed.
  if (r.coverage && r.coverage->coverage() < engine::kMinCoverage) {
    return fmt::format(
        "<div class=\"verdict warn\" id=\"verdict\">Not judged: only {} of {} simulated jobs started, "
        "so the simulated checks rest on nothing.{}</div>\n",
        r.coverage->total.started, r.coverage->total.offered, baseline);
  }
  return "<div class=\"verdict pass\" id=\"verdict\">No errors or warnings." + baseline + "</div>\n";
}

std::string summary_html(const rules::LintReport& r, Severity fail_on) {
  std::string out = "<section id=\"summary\"><h2>Summary</h2>\n" + verdict_html(r, fail_on) + "<div class=\"cards\">";
  auto card = [&](const char* label, std::size_t n) {
    out += fmt::format("<div class=\"card\"><b>{}</b>{}</div>", n, label);
  };
  card("errors", r.count(Severity::kError));
  card("warnings", r.count(Severity::kWarning));
  card("info", r.count(Severity::kInfo));
  card("rules run", r.rules_run);
  if (r.suppressed) card("suppressed", r.suppressed);
  if (r.baselined) card("in the baseline", r.baselined);
  if (r.switched_off) card("switched off", r.switched_off);
  out += "</div>\n";
  // Counts by check family and severity.
  std::map<std::string, std::array<std::size_t, 3>> by_check;
  for (const Finding& f : r.findings) ++by_check[rules::check_name(f.check)][static_cast<std::size_t>(f.severity)];
  out += "<table id=\"by-check\"><thead><tr>" + sort_th("check family", false) + sort_th("errors", true) +
         sort_th("warnings", true) + sort_th("info", true) + "</tr></thead><tbody>\n";
  for (const auto& [check, n] : by_check) {
    out += "<tr><td>" + esc(check) + "</td>";
    for (std::size_t v : n) out += num_td(static_cast<double>(v), std::to_string(v));
    out += "</tr>\n";
  }
  out += "</tbody></table>\n";
  if (r.scenario) {
    const engine::Metrics& m = r.simulation->metrics;
    out += fmt::format(
        "<p><b>Simulated load:</b> {}.</p>\n<table id=\"headline\"><tbody>"
        "<tr><td>jobs</td><td class=\"n\">{}</td></tr><tr><td>utilisation</td><td class=\"n\">{}</td></tr>"
        "<tr><td>wait mean / median / p95</td><td class=\"n\">{} / {} / {}</td></tr>"
        "<tr><td>started by backfill</td><td class=\"n\">{}</td></tr>"
        "<tr><td>pending at the end</td><td class=\"n\">{}</td></tr></tbody></table>\n",
        esc(r.scenario->load), fmt_count(static_cast<double>(m.jobs)), fmt_percent(m.utilization),
        fmt_duration(m.overall.mean), fmt_duration(m.overall.median), fmt_duration(m.overall.p95),
        fmt_percent(m.backfill_share), fmt_count(static_cast<double>(m.pending_at_end)));
    if (r.coverage) out += coverage_html(*r.coverage, r.idle_partitions);
  } else {
    out += "<p class=\"muted\">Not simulated (--no-simulate): static checks only, no charts.</p>\n";
  }
  if (!r.skipped.empty()) {
    out += fmt::format("<p class=\"muted\">{} rules not run:</p><ul class=\"muted\" id=\"skipped\">", r.skipped.size());
    for (const auto& [reason, codes] : skipped_by_reason(r.skipped)) {
      out += "<li>" + esc(join(codes, ", ")) + (reason.empty() ? "" : " — " + esc(reason)) + "</li>";
    }
    out += "</ul>\n";
  }
  return out + "</section>\n";
}

std::string index_html(const rules::LintReport& r) {
  std::string out = "<table id=\"finding-index\"><thead><tr>" + sort_th("severity", true) + sort_th("code", false) +
                    sort_th("check", false) + sort_th("location", false) + sort_th("message", false) +
                    "</tr></thead><tbody>\n";
  for (std::size_t i = 0; i < r.findings.size(); ++i) {
    const Finding& f = r.findings[i];
    const char* level = rules::level_name(f.severity);
    const std::string msg = truncate_utf8(f.message, 140);
    out += fmt::format(
        "<tr><td data-v=\"{}\" class=\"n\"><span class=\"sev {}\">{}</span></td>"
        "<td><a href=\"#finding-{}\">{}</a></td><td>{}</td><td class=\"mono\">{}</td><td>{}</td></tr>\n",
        3 - static_cast<int>(f.severity), level, level, i, esc(f.code), esc(rules::check_name(f.check)),
        esc(location_text(f.loc)), esc(msg));
  }
  return out + "</tbody></table>\n";
}

}  // namespace

// Every evidence key the page shows, in plain language (each is also a tooltip where it appears).
std::string glossary_html(const rules::LintReport& r) {
  std::set<std::string> keys;
  for (const Finding& f : r.findings) {
    collect_evidence_keys(f.evidence, keys);
    if (f.fix) collect_evidence_keys(f.fix->resimulated, keys);
  }
  std::string items;
  for (const std::string& k : keys) {
    const std::string meaning = evidence_meaning(k);
    if (!meaning.empty()) items += "<dt>" + esc(k) + "</dt><dd>" + esc(meaning) + "</dd>";
  }
  if (items.empty()) return {};
  return "<section id=\"glossary\"><h2>What the evidence says</h2><dl class=\"glossary\">" + items +
         "</dl></section>\n";
}

std::string lint_html(const rules::LintReport& r, Severity fail_on) {
  std::string out =
      page_begin({"slurm-advisor policy review: " + r.conf_path,
                  "Slurm " + r.slurm_version + " · " + std::to_string(r.findings.size()) + " finding" +
                      (r.findings.size() == 1 ? "" : "s") + " · " + std::to_string(r.rules_run) + " rules"});
  out += "<nav class=\"toc\"><a href=\"#summary\">Summary</a><a href=\"#findings\">Findings</a>";
  if (r.simulation) out += "<a href=\"#charts\">Charts</a>";
  out += "</nav>\n" + summary_html(r, fail_on);
  out += "<section id=\"findings\"><h2>Findings</h2>\n";
  if (r.findings.empty())
    out += "<p>No findings.</p>\n";
  else
    out += index_html(r);
  for (std::size_t i = 0; i < r.findings.size(); ++i) out += finding_html(r.findings[i], i);
  out += "</section>\n";
  if (r.simulation) {
    out += "<section id=\"charts\"><h2>The simulated run</h2>\n" + simulation_charts(*r.simulation) + "</section>\n";
  }
  out += glossary_html(r);
  return out + page_end();
}

}  // namespace sa::report
