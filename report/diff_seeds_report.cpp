#include "report/diff_seeds_report.h"

#include <ostream>

#include <fmt/format.h>

#include "report/html_writer.h"
#include "report/svg_interval.h"

namespace sa::report {

namespace {

std::string interval_text(tune::Unit unit, const tune::Interval& i) {
  return fmt::format("{} [{}, {}]", tune::format_quantity(unit, i.mean), tune::format_quantity(unit, i.lo),
                     tune::format_quantity(unit, i.hi));
}

std::string change_text(tune::Unit unit, const tune::Interval& i) {
  auto signed_value = [&](double v) { return (v > 0 ? "+" : "") + tune::format_quantity(unit, v); };
  return fmt::format("{} [{}, {}]", signed_value(i.mean), signed_value(i.lo), signed_value(i.hi));
}

std::string subject(const tune::SeedMetric& m) {
  return m.group == "run" ? m.what : fmt::format("{} {}: {}", m.group, m.name, m.what);
}

nlohmann::json interval_json(const tune::Interval& i) { return {{"mean", i.mean}, {"ci", {i.lo, i.hi}}}; }

// The p95 waits per partition, old above new, each with its interval.
std::string partition_chart(const tune::SeedComparison& s) {
  std::vector<IntervalRow> rows;
  for (const tune::SeedMetric& m : s.metrics) {
    if (m.group != "partition" || m.what != "p95 wait") continue;
    rows.push_back({m.name + " · old", m.before.mean, m.before.lo, m.before.hi, interval_text(m.unit, m.before)});
    rows.push_back({m.name + " · new", m.after.mean, m.after.lo, m.after.hi, interval_text(m.unit, m.after)});
  }
  return interval_chart({"chart-seeds-p95", "p95 wait per partition over the seeds: old and new config",
                         "Mean over the seeds with its 95% interval."},
                        rows,
                        {[](double v) { return tune::format_quantity(tune::Unit::kSeconds, v); }, true, nullptr, {}});
}

}  // namespace

void print_seeds_text(std::ostream& out, const tune::SeedComparison& s) {
  out << fmt::format(
      "over {} seeds ({}-{}) of {}: mean [95% interval]; * the change is significant (its interval "
      "excludes 0)\n",
      s.seeds, s.first_seed, s.first_seed + s.seeds - 1, s.load);
  if (!s.cut_runs.empty()) out << "  no outcome compared over the seeds:\n";
  for (const std::string& r : s.cut_runs) out << "  ! " << r << "\n";
  for (const tune::SeedMetric& m : s.metrics) {
    out << fmt::format("  {:<40} {:>27} -> {:<27} change {}{}\n", subject(m), interval_text(m.unit, m.before),
                       interval_text(m.unit, m.after), change_text(m.unit, m.change), m.significant ? " *" : "");
  }
}

nlohmann::json seeds_json(const tune::SeedComparison& s) {
  nlohmann::json metrics = nlohmann::json::array();
  for (const tune::SeedMetric& m : s.metrics) {
    metrics.push_back({{"group", m.group},
                       {"name", m.name},
                       {"metric", m.what},
                       {"before", interval_json(m.before)},
                       {"after", interval_json(m.after)},
                       {"change", interval_json(m.change)},
                       {"significant", m.significant}});
  }
  nlohmann::json j = {{"count", s.seeds}, {"first", s.first_seed}, {"load", s.load}, {"metrics", metrics}};
  if (!s.cut_runs.empty()) j["outcomes_not_compared"] = s.cut_runs;
  return j;
}

std::string seeds_html(const tune::SeedComparison& s) {
  std::string out = fmt::format(
      "<section id=\"seeds\"><h2>Over {} seeds</h2>\n<p>Both configs on seeds {}–{} of {}: each outcome is the mean "
      "with its 95% interval; a change marked * is significant (the interval of the per-seed differences excludes "
      "0).</p>\n",
      s.seeds, s.first_seed, s.first_seed + s.seeds - 1, esc(s.load));
  if (!s.cut_runs.empty()) {
    out +=
        "<p>No outcome is compared over the seeds: a run that stopped early (WORK008) covers only part of its "
        "load.</p>\n<ul>";
    for (const std::string& r : s.cut_runs) out += "<li>" + esc(r) + "</li>";
    return out + "</ul>\n</section>\n";
  }
  out += "<div class=\"wide\"><table id=\"seed-changes\"><thead><tr>" + sort_th("group", false) +
         sort_th("name", false) + sort_th("outcome", false) + sort_th("old", true) + sort_th("new", true) +
         sort_th("change", true) + sort_th("significant", false) + "</tr></thead><tbody>\n";
  for (const tune::SeedMetric& m : s.metrics) {
    out += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td>{}{}<td class=\"n{}\" data-v=\"{}\">{}</td><td>{}</td></tr>\n",
        esc(m.group), esc(m.name), esc(m.what), num_td(m.before.mean, interval_text(m.unit, m.before)),
        num_td(m.after.mean, interval_text(m.unit, m.after)), m.significant ? " sig" : "", m.change.mean,
        esc(change_text(m.unit, m.change)), m.significant ? "yes *" : "no");
  }
  return out + "</tbody></table></div>\n" + partition_chart(s) + "</section>\n";
}

}  // namespace sa::report
