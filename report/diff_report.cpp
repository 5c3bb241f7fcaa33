#include "report/diff_report.h"

#include <ostream>

#include <fmt/format.h>

#include "engine/site_loader.h"
#include "report/coverage_report.h"
#include "report/lint_report.h"
#include "rules/analysis/evidence.h"

namespace sa::report {

namespace {

std::string start_text(std::int64_t start, std::int64_t submit) {
  return start < 0 ? "never" : "+" + rules::slurm_duration(start - submit);
}

std::string waits(const engine::WaitStats& w) {
  return fmt::format("{} / {}", rules::slurm_duration(std::llround(w.mean)),
                     rules::slurm_duration(std::llround(w.p95)));
}

void print_finding_line(std::ostream& out, char sign, const rules::Finding& f) {
  out << "  " << sign << " " << location_text(f.loc) << ": " << rules::level_name(f.severity) << ": " << f.message
      << " [" << f.code << "]\n";
}

void print_metrics(std::ostream& out, const rules::LintDiff& d) {
  out << fmt::format("utilisation: {:.3f} -> {:.3f}\n", *d.utilization_before, *d.utilization_after);
  if (!d.regressions.empty()) {
    out << fmt::format("outcomes worse by more than {:g}% on the same load{}:\n", d.regression_pct,
                       d.regressions_gated ? " (--fail-on-regression)" : "");
    for (const auto& r : d.regressions) out << "  ! " << r.text << "\n";
  }
  if (d.coverage_before) {
    out << "old config ";
    print_coverage_text(out, *d.coverage_before);
    out << "new config ";
    print_coverage_text(out, *d.coverage_after);
  }
  out << fmt::format("{:<34} {:>10} {:>27} {:>27}\n", "waits (mean / p95)", "jobs", "before", "after");
  for (const auto& m : d.metrics) {
    std::string row = fmt::format("  {:<9} {:<22} {:>10} {:>27} {:>27}", m.group, m.name, m.after.jobs, waits(m.before),
                                  waits(m.after));
    if (m.share_before && m.share_after)
      row += fmt::format("  share {:.3f} -> {:.3f}", *m.share_before, *m.share_after);
    out << row << "\n";
  }
  if (d.moved.empty()) return;
  out << "jobs whose start moved most:\n";
  for (const auto& j : d.moved) {
    out << fmt::format("  job {} {}/{} {}: started {} after submit, now {}\n", j.job, j.user, j.account, j.partition,
                       start_text(j.start_before, j.submit), start_text(j.start_after, j.submit));
  }
}

}  // namespace

void print_diff_text(std::ostream& out, const rules::LintDiff& d, const std::string& old_path,
                     const std::string& new_path) {
  out << "slurm-advisor diff " << old_path << " -> " << new_path << "\n";
  if (d.scenario) out << "simulated both on: " << d.scenario->load << "\n";
  out << "settings changed: " << d.settings.size() << "\n";
  for (const auto& s : d.settings) {
    out << "  " << s.what << ": " << (s.before.empty() ? "(unset)" : s.before) << " -> "
        << (s.after.empty() ? "(unset)" : s.after) << "\n";
  }
  out << fmt::format("findings: {} added, {} removed, {} changed, {} unchanged\n", d.added.size(), d.removed.size(),
                     d.changed.size(), d.unchanged);
  for (const auto& f : d.added) print_finding_line(out, '+', f);
  for (const auto& f : d.removed) print_finding_line(out, '-', f);
  for (const auto& c : d.changed) {
    print_finding_line(out, '~', c.after);
    out << fmt::format("    was: {} ({})\n", c.before.message,
                       c.gained ? "the new config adds places" : "fewer places now");
  }
  if (!d.cut_runs.empty()) {
    out << "outcomes not compared:\n";
    for (const std::string& r : d.cut_runs) out << "  ! " << r << "\n";
    out << (d.stalled_run
                ? std::string("  (") + engine::kStalledHint
                : std::string("  (raise the limit with --limit sim-steps=N if the load is meant to be this long"))
        << (d.regressions_gated ? "; --fail-on-regression fails the diff, as nothing shows the outcomes are no worse"
                                : "")
        << ")\n";
  }
  if (d.utilization_before) print_metrics(out, d);
}

nlohmann::json diff_json(const rules::LintDiff& d, const std::string& old_path, const std::string& new_path) {
  nlohmann::json added = nlohmann::json::array(), removed = nlohmann::json::array();
  for (const auto& f : d.added) added.push_back(finding_json(f));
  for (const auto& f : d.removed) removed.push_back(finding_json(f));
  nlohmann::json changed = nlohmann::json::array();
  for (const auto& c : d.changed) {
    changed.push_back(
        {{"before", finding_json(c.before)}, {"after", finding_json(c.after)}, {"gained_places", c.gained}});
  }
  nlohmann::json settings = nlohmann::json::array();
  for (const auto& s : d.settings) settings.push_back({{"setting", s.what}, {"before", s.before}, {"after", s.after}});
  nlohmann::json j = {
      {"old", old_path},
      {"new", new_path},
      {"findings", {{"added", added}, {"removed", removed}, {"changed", changed}, {"unchanged", d.unchanged}}},
      {"settings", settings}};
  if (!d.cut_runs.empty()) {
    // No outcome is compared; under --fail-on-regression the diff fails, as nothing shows them no worse.
    j["outcomes_not_compared"] = d.cut_runs;
    j["regressions"] = {{"threshold_percent", d.regression_pct},
                        {"gated", d.regressions_gated},
                        {"fails", d.regressions_gated},
                        {"items", nlohmann::json::array()}};
  }
  if (d.utilization_before) {
    nlohmann::json groups = nlohmann::json::array();
    for (const auto& m : d.metrics) {
      nlohmann::json g = {{"group", m.group},
                          {"name", m.name},
                          {"before", rules::wait_json(m.before)},
                          {"after", rules::wait_json(m.after)}};
      if (m.share_before) g["share_before"] = *m.share_before;
      if (m.share_after) g["share_after"] = *m.share_after;
      groups.push_back(g);
    }
    nlohmann::json moved = nlohmann::json::array();
    for (const auto& m : d.moved) {
      moved.push_back({{"job", m.job},
                       {"user", m.user},
                       {"account", m.account},
                       {"partition", m.partition},
                       {"submit", m.submit},
                       {"start_before", m.start_before},
                       {"start_after", m.start_after}});
    }
    j["metrics"] = {{"utilization", {{"before", *d.utilization_before}, {"after", *d.utilization_after}}},
                    {"groups", groups}};
    j["moved_jobs"] = moved;
    j["scenario"] = rules::scenario_json(*d.scenario);
    if (d.coverage_before)
      j["load"] = {{"old", coverage_json(*d.coverage_before)}, {"new", coverage_json(*d.coverage_after)}};
    nlohmann::json regs = nlohmann::json::array();
    for (const auto& r : d.regressions) {
      regs.push_back({{"what", r.what},
                      {"group", r.group},
                      {"name", r.name},
                      {"before", r.before},
                      {"after", r.after},
                      {"text", r.text}});
    }
    // "gated": --fail-on-regression was given; "fails": it was, and some outcome crossed it.
    j["regressions"] = {{"threshold_percent", d.regression_pct},
                        {"gated", d.regressions_gated},
                        {"fails", d.regressions_gated && !regs.empty()},
                        {"items", regs}};
  }
  return j;
}

}  // namespace sa::report
