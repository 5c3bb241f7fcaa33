// `slurm-advisor diff --format html`: what deploying the new config does to the users, as one
// self-contained page: the verdict over the findings it adds, setting changes, findings added
// and removed, wait and share changes per group, the jobs whose start moved most, the two
// runs' waits, shares and utilisation side by side, and the new run's full charts. Both runs
// simulate one load, so their timeline buckets line up.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "engine/site_loader.h"
#include "report/coverage_report.h"
#include "report/diff_report.h"
#include "report/evidence_html.h"
#include "report/html_writer.h"
#include "report/sim_charts.h"

namespace sa::report {

namespace {

// A hint (lower case, no stop) as a sentence of its own.
std::string sentence(std::string text) {
  if (!text.empty()) text[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(text[0])));
  return text + ".";
}

std::string verdict(const rules::LintDiff& d, Severity fail_on) {
  std::size_t blocking = 0;
  const std::vector<const rules::Finding*> worse = d.worse();  // added, or a finding that gained places
  for (const rules::Finding* f : worse) blocking += static_cast<int>(f->severity) <= static_cast<int>(fail_on);
  if (blocking) {
    return fmt::format(
        "<div class=\"verdict fail\" id=\"verdict\">The new config adds {} finding{} at or above "
        "{}: this change makes the policy worse.</div>\n",
        blocking, blocking == 1 ? "" : "s", rules::level_name(fail_on));
  }
  // A run that stopped early (its step limit, or a still clock) proves nothing about
  // outcomes: never green over one either.
  if (!d.cut_runs.empty()) {
    std::string items;
    for (const std::string& r : d.cut_runs) items += "<li>" + esc(r) + "</li>";
    return fmt::format(
        "<div class=\"verdict {}\" id=\"verdict\">The outcomes on the load were not compared:<ul>{}</ul>{}</div>\n",
        d.regressions_gated ? "fail" : "warn", items,
        d.stalled_run ? esc(sentence(engine::kStalledHint))
                      : std::string("Raise the limit with <code>--limit sim-steps=N</code> if the load is meant to be "
                                    "this long."));
  }
  // Outcomes count as much as findings: the banner is never green over a doubled p95 wait.
  if (!d.regressions.empty()) {
    std::string items;
    for (const auto& r : d.regressions) items += "<li>" + esc(r.text) + "</li>";
    return fmt::format(
        "<div class=\"verdict {}\" id=\"verdict\">On the same load the new config makes {} outcome{} "
        "worse by more than {:g}%:<ul>{}</ul></div>\n",
        d.regressions_gated ? "fail" : "warn", d.regressions.size(), d.regressions.size() == 1 ? "" : "s",
        d.regression_pct, items);
  }
  if (!worse.empty()) {
    return fmt::format("<div class=\"verdict warn\" id=\"verdict\">The new config adds {} finding{} below {}.</div>\n",
                       worse.size(), worse.size() == 1 ? "" : "s", rules::level_name(fail_on));
  }
  return fmt::format("<div class=\"verdict pass\" id=\"verdict\">The new config adds no finding ({} removed).</div>\n",
                     d.removed.size());
}

std::vector<std::string> split_list(const std::string& v) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at <= v.size() && !v.empty()) {
    const std::size_t comma = std::min(v.find(',', at), v.size());
    out.push_back(v.substr(at, comma - at));
    at = comma + 1;
  }
  return out;
}

// Comma lists (SchedulerParameters, PriorityFlags, ...) differ in a few items: name those.
std::string list_change(const std::string& before, const std::string& after) {
  const std::vector<std::string> a = split_list(before), b = split_list(after);
  std::string out;
  for (const std::string& x : a) {
    if (std::find(b.begin(), b.end(), x) == b.end()) out += "<div class=\"was\">− " + esc(x) + "</div>";
  }
  for (const std::string& x : b) {
    if (std::find(a.begin(), a.end(), x) == a.end()) out += "<div class=\"now\">+ " + esc(x) + "</div>";
  }
  return out;
}

std::string settings_table(const rules::LintDiff& d) {
  // Only comma lists are worth itemising; a plain value's old and new columns say it all.
  auto change = [](const rules::SettingChange& c) {
    const bool list = c.before.find(',') != std::string::npos || c.after.find(',') != std::string::npos;
    return list ? list_change(c.before, c.after) : std::string();
  };
  std::string out = "<section id=\"settings\"><h2>Settings changed</h2>\n";
  if (d.settings.empty()) return out + "<p>None.</p></section>\n";
  out += "<table id=\"setting-changes\"><thead><tr>" + sort_th("setting", false) + sort_th("change", false) +
         sort_th("old", false) + sort_th("new", false) + "</tr></thead><tbody>\n";
  for (const rules::SettingChange& s : d.settings) {
    out += fmt::format(
        "<tr><td>{}</td><td class=\"change\">{}</td><td class=\"code\">{}</td><td class=\"code\">{}</td></tr>\n",
        esc(s.what), change(s), s.before.empty() ? "<i>unset</i>" : esc(s.before),
        s.after.empty() ? "<i>unset</i>" : esc(s.after));
  }
  return out + "</tbody></table></section>\n";
}

std::string findings_section(const rules::LintDiff& d) {
  std::string out =
      fmt::format("<section id=\"findings\"><h2>Findings: {} added, {} removed, {} changed, {} unchanged</h2>\n",
                  d.added.size(), d.removed.size(), d.changed.size(), d.unchanged);
  out += "<h3 class=\"added\">Added by the new config</h3>\n";
  if (d.added.empty()) out += "<p>None.</p>\n";
  for (std::size_t i = 0; i < d.added.size(); ++i) out += finding_html(d.added[i], i);
  out += "<h3 class=\"removed\">Removed by the new config</h3>\n";
  if (d.removed.empty()) out += "<p>None.</p>\n";
  for (std::size_t i = 0; i < d.removed.size(); ++i) out += finding_html(d.removed[i], d.added.size() + i);
  if (!d.changed.empty()) {
    out += "<h3>Changed: the same cause over other places</h3>\n";
    for (std::size_t i = 0; i < d.changed.size(); ++i) {
      const rules::ChangedFinding& c = d.changed[i];
      out += finding_html(c.after, d.added.size() + d.removed.size() + i);
      out += "<p class=\"muted\">Before: " + esc(c.before.message) +
             (c.gained ? " The new config adds places.</p>\n" : " Fewer places now.</p>\n");
    }
  }
  return out + "</section>\n";
}

// Waits grown are marked like added findings, waits shrunk like removed ones.
std::string change_td(double before, double after) {
  const double delta = after - before;
  if (std::fabs(delta) < 1) return num_td(0, "0");
  const std::string text = (delta > 0 ? "+" : "−") + fmt_duration(std::fabs(delta));
  return fmt::format("<td class=\"n {}\" data-v=\"{}\">{}</td>", delta > 0 ? "added" : "removed",
                     std::isfinite(delta) ? delta : 0.0, esc(text));
}

std::string metrics_table(const rules::LintDiff& d) {
  std::string out = fmt::format("<section id=\"metrics\"><h2>Waits and shares</h2>\n<p>Utilisation {} → {}.</p>\n",
                                fmt_percent(*d.utilization_before), fmt_percent(*d.utilization_after));
  // Eleven columns: on a narrow screen the table scrolls, not the page.
  out += "<div class=\"wide\"><table id=\"metric-changes\"><thead><tr>" + sort_th("group", false) +
         sort_th("name", false) + sort_th("jobs (new run)", true) + sort_th("mean wait, old", true) +
         sort_th("new", true) + sort_th("change", true) + sort_th("p95 wait, old", true) + sort_th("new", true) +
         sort_th("change", true) + sort_th("delivered share, old", true) + sort_th("new", true) +
         "</tr></thead><tbody>\n";
  for (const rules::MetricChange& m : d.metrics) {
    out += fmt::format("<tr><td>{}</td><td>{}</td>", esc(m.group), esc(m.name));
    out += num_td(static_cast<double>(m.after.jobs), fmt_count(static_cast<double>(m.after.jobs)));
    out += num_td(m.before.mean, fmt_duration(m.before.mean)) + num_td(m.after.mean, fmt_duration(m.after.mean)) +
           change_td(m.before.mean, m.after.mean);
    out += num_td(m.before.p95, fmt_duration(m.before.p95)) + num_td(m.after.p95, fmt_duration(m.after.p95)) +
           change_td(m.before.p95, m.after.p95);
    if (m.share_before && m.share_after) {
      out +=
          num_td(*m.share_before, fmt_percent(*m.share_before)) + num_td(*m.share_after, fmt_percent(*m.share_after));
    } else {
      out += "<td></td><td></td>";
    }
    out += "</tr>\n";
  }
  return out + "</tbody></table></div></section>\n";
}

std::string start_text(std::int64_t start, std::int64_t submit) {
  return start < 0 ? "never" : "+" + fmt_duration(static_cast<double>(start - submit));
}

std::string moved_table(const rules::LintDiff& d) {
  std::string out = "<section id=\"moved\"><h2>Jobs whose start moved most</h2>\n";
  if (d.moved.empty()) return out + "<p>No job's start moved.</p></section>\n";
  out += "<table id=\"moved-jobs\"><thead><tr>" + sort_th("job", true) + sort_th("user", false) +
         sort_th("account", false) + sort_th("partition", false) + sort_th("start after submit, old", true) +
         sort_th("new", true) + "</tr></thead><tbody>\n";
  for (const rules::MovedJob& j : d.moved) {
    // A job that never started sorts as the longest wait, not the shortest.
    auto rel = [&](std::int64_t s) { return s < 0 ? 1e15 : static_cast<double>(s - j.submit); };
    out += fmt::format("<tr>{}<td>{}</td><td>{}</td><td>{}</td>{}{}</tr>\n", num_td(j.job, std::to_string(j.job)),
                       esc(j.user), esc(j.account), esc(j.partition),
                       num_td(rel(j.start_before), start_text(j.start_before, j.submit)),
                       num_td(rel(j.start_after), start_text(j.start_after, j.submit)));
  }
  return out + "</tbody></table></section>\n";
}

// The two runs' waits per partition, interleaved so each partition's pair sits together; a
// partition only one run used (a map to a new partition) shows on its own.
std::string comparison_charts(const rules::Simulation& a, const rules::Simulation& b) {
  const std::vector<BoxRow> old_rows = waits_by_partition(a), new_rows = waits_by_partition(b);
  std::vector<std::string> labels;
  for (const auto* list : {&old_rows, &new_rows}) {
    for (const BoxRow& r : *list) {
      if (std::find(labels.begin(), labels.end(), r.label) == labels.end()) labels.push_back(r.label);
    }
  }
  std::vector<BoxRow> rows;
  for (const std::string& label : labels) {
    for (const auto& [list, run] : {std::pair{&old_rows, " · old"}, std::pair{&new_rows, " · new"}}) {
      for (const BoxRow& r : *list) {
        if (r.label != label) continue;
        rows.push_back(r);
        rows.back().label += run;
      }
    }
  }
  std::string out =
      box_chart({"chart-wait-compare", "Wait time per partition: old and new config",
                 "Each partition's waits on the identical load and seed, old config above new (jobs still "
                 "pending count to the end of their run, so counts can exceed the table's). Log scale."},
                rows);
  std::vector<PairRow> shares = account_share_rows(a);
  const std::vector<PairRow> after = account_share_rows(b);
  for (PairRow& r : shares) {
    r.a = r.b;  // delivered under the old config
    r.b = 0;
    for (const PairRow& n : after) {
      if (n.label == r.label) r.b = n.b;
    }
  }
  out += paired_chart({"chart-shares-compare", "Delivered share per account: old and new config",
                       "Share of charged CPU time per account (sub-accounts included) in each run."},
                      "old config", "new config", shares);
  const UtilisationSeries ua = utilisation(a, 1), ub = utilisation(b, 1);
  TimeAxis axis = ua.axis.x.size() >= ub.axis.x.size() ? ua.axis : ub.axis;
  std::vector<Series> series{{"old config", ua.series.front().values}, {"new config", ub.series.front().values}};
  out += time_chart({"chart-utilisation-compare", "Utilisation over time: old and new config",
                     "Busy share of all CPUs per time bucket in each run."},
                    axis, series);
  return out;
}

}  // namespace

std::string diff_html(const rules::LintDiff& d, const rules::LintReport& before, const rules::LintReport& after,
                      const DiffPaths& paths, Severity fail_on, const std::string& seeds_section) {
  std::string out =
      page_begin({"slurm-advisor diff: " + paths.old_conf + " → " + paths.new_conf,
                  d.scenario ? "Both simulated on: " + d.scenario->load : "Not simulated (--no-simulate)"});
  out +=
      "<nav class=\"toc\"><a href=\"#summary\">Summary</a><a href=\"#settings\">Settings</a><a "
      "href=\"#findings\">Findings</a>";
  if (before.simulation && after.simulation && d.utilization_before) {
    out += "<a href=\"#metrics\">Waits</a><a href=\"#charts\">Charts</a><a href=\"#new-run\">New run</a>";
  }
  if (!seeds_section.empty()) out += "<a href=\"#seeds\">Seeds</a>";
  out += "</nav>\n<section id=\"summary\"><h2>Summary</h2>\n" + verdict(d, fail_on);
  out += fmt::format(
      "<div class=\"cards\"><div class=\"card\"><b>{}</b>settings changed</div><div class=\"card\"><b>{}"
      "</b>findings added</div><div class=\"card\"><b>{}</b>findings removed</div>",
      d.settings.size(), d.added.size(), d.removed.size());
  if (d.utilization_before) {
    out += fmt::format("<div class=\"card\"><b>{} → {}</b>utilisation</div>", fmt_percent(*d.utilization_before),
                       fmt_percent(*d.utilization_after));
  }
  out += "</div>\n";
  if (d.coverage_after) out += coverage_html(*d.coverage_after, {});  // the new config's run
  out += "</section>\n" + settings_table(d) + findings_section(d);
  if (before.simulation && after.simulation && d.utilization_before) {
    out += metrics_table(d) + moved_table(d);
    out += "<section id=\"charts\"><h2>The two runs</h2>\n" + comparison_charts(*before.simulation, *after.simulation) +
           "</section>\n";
    // The new run in full: backfill coverage, priority composition and suspension too.
    out += "<section id=\"new-run\"><h2>The new config's run</h2>\n" +
           simulation_charts(*after.simulation, {"new-", "new config"}) + "</section>\n";
  }
  return out + seeds_section + page_end();
}

}  // namespace sa::report
