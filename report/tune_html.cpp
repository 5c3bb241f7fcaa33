#include "report/tune_html.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "report/html_writer.h"
#include "report/svg_interval.h"

namespace sa::report {

namespace {

using tune::CandidateResult;
using tune::Goal;
using tune::GoalResult;
using tune::SearchOutcome;
using tune::SearchSpec;

std::string settings_cells(const CandidateResult& c) {
  std::string out;
  for (const std::string& v : c.values) {
    out += "<td class=\"code\">" + (v.empty() ? std::string("<i>unset</i>") : esc(v)) + "</td>";
  }
  return out;
}

std::string goal_text(const Goal& g, const GoalResult& r) {
  return fmt::format("{} [{}, {}]", tune::format_value(g, r.value.mean), tune::format_value(g, r.value.lo),
                     tune::format_value(g, r.value.hi));
}

std::string verdict(const SearchOutcome& o, const SearchSpec& spec) {
  const CandidateResult* r = o.recommended();
  if (r && r->passes == spec.goals.size()) {
    return fmt::format("<div class=\"verdict pass\" id=\"verdict\">The recommended settings meet all {} goals.</div>\n",
                       spec.goals.size());
  }
  return fmt::format(
      "<div class=\"verdict fail\" id=\"verdict\">No candidate meets every goal; the best meets {} of {}.</div>\n",
      r ? r->passes : 0, spec.goals.size());
}

// Baseline and recommended on each goal: the mean with its 95 % interval, against the target.
std::string goal_charts(const SearchOutcome& o, const SearchSpec& spec) {
  std::string out = "<section id=\"goals\"><h2>Goals: baseline and recommended</h2>\n";
  const CandidateResult* r = o.recommended();
  for (std::size_t g = 0; g < spec.goals.size(); ++g) {
    const Goal& goal = spec.goals[g];
    std::vector<IntervalRow> rows = {{"baseline", o.baseline.goals[g].value.mean, o.baseline.goals[g].value.lo,
                                      o.baseline.goals[g].value.hi, goal_text(goal, o.baseline.goals[g])}};
    if (r) {
      rows.push_back({"recommended", r->goals[g].value.mean, r->goals[g].value.lo, r->goals[g].value.hi,
                      goal_text(goal, r->goals[g]) + (r->goals[g].beats_baseline ? " *" : "")});
    }
    const std::string target = fmt::format("{} {}", tune::op_text(goal.op), tune::format_value(goal, goal.target));
    out += interval_chart({fmt::format("chart-goal-{}", g + 1), goal.text,
                           "Mean over the seeds with its 95% interval; * the recommended settings beat the baseline "
                           "beyond the interval."},
                          rows,
                          {[&goal](double v) { return tune::format_value(goal, v); },
                           goal.unit() == tune::Unit::kSeconds, &goal.target, target});
  }
  return out + "</section>\n";
}

// Pearson's correlation of two goals' margins over `cands` (0 when either does not vary).
double correlation(const std::vector<const CandidateResult*>& cands, const SearchSpec& spec, std::size_t a,
                   std::size_t b) {
  auto m = [&](const CandidateResult* c, std::size_t g) { return tune::margin(spec.goals[g], c->goals[g].value.mean); };
  double ma = 0, mb = 0;
  for (const CandidateResult* c : cands) ma += m(c, a), mb += m(c, b);
  ma /= static_cast<double>(cands.size()), mb /= static_cast<double>(cands.size());
  double sab = 0, saa = 0, sbb = 0;
  for (const CandidateResult* c : cands) {
    const double da = m(c, a) - ma, db = m(c, b) - mb;
    sab += da * db, saa += da * da, sbb += db * db;
  }
  return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : 0;
}

// The two goals whose margins pull hardest apart over the ranked candidates (the most
// negative correlation); the first two when nothing pulls apart.
std::pair<std::size_t, std::size_t> conflicting_pair(const SearchOutcome& o, const SearchSpec& spec) {
  std::vector<const CandidateResult*> last;  // numbers from a shorter load (an early halving rung) do not compare
  for (const CandidateResult& c : o.ranked) {
    if (c.rung + 1 >= o.rungs) last.push_back(&c);
  }
  std::pair<std::size_t, std::size_t> best{0, 1};
  double lowest = 2;
  for (std::size_t a = 0; a < spec.goals.size() && !last.empty(); ++a) {
    for (std::size_t b = a + 1; b < spec.goals.size(); ++b) {
      const double r = correlation(last, spec, a, b);
      if (r < lowest) lowest = r, best = {a, b};
    }
  }
  return best;
}

std::string pareto_section(const SearchOutcome& o, const SearchSpec& spec) {
  if (!o.conflict || spec.goals.size() < 2) return {};
  const auto [a, b] = conflicting_pair(o, spec);
  std::vector<ScatterPoint> points;
  for (const CandidateResult& c : o.ranked) {
    if (c.rung + 1 < o.rungs) continue;  // numbers from a shorter load do not compare
    points.push_back({fmt::format("#{}: {} / {}", c.rank, goal_text(spec.goals[a], c.goals[a]),
                                  goal_text(spec.goals[b], c.goals[b])),
                      c.goals[a].value.mean, c.goals[b].value.mean, c.pareto});
  }
  auto axis = [&](std::size_t g) {
    const Goal goal = spec.goals[g];
    return ScatterAxis{goal.text, [goal](double v) { return tune::format_value(goal, v); },
                       goal.unit() == tune::Unit::kSeconds};
  };
  std::string out = "<section id=\"pareto\"><h2>The goals conflict: the Pareto front</h2>\n";
  out += scatter_chart({"chart-pareto", fmt::format("{} against {}", spec.goals[a].text, spec.goals[b].text),
                        "Each candidate's means on the two goals that pull hardest apart; the joined points are the "
                        "Pareto front (no candidate is better on every goal)."},
                       axis(a), axis(b), points,
                       "<div class=\"legend\"><span><i style=\"background:" + palette(1) +
                           "\"></i>Pareto front</span><span><i style=\"background:" + palette(7) +
                           "\"></i>other candidates</span></div>\n");
  out += "<div class=\"wide\"><table id=\"pareto-front\"><thead><tr><th>rank</th>";
  for (const tune::Dimension& d : spec.dims) out += "<th>" + esc(d.name()) + "</th>";
  for (const Goal& g : spec.goals) out += "<th>" + esc(g.text) + "</th>";
  out += "</tr></thead><tbody>\n";
  for (const CandidateResult& c : o.ranked) {
    if (!c.pareto) continue;
    out += fmt::format("<tr><td>#{}</td>{}", c.rank, settings_cells(c));
    for (std::size_t g = 0; g < spec.goals.size(); ++g)
      out += "<td>" + esc(goal_text(spec.goals[g], c.goals[g])) + "</td>";
    out += "</tr>\n";
  }
  return out + "</tbody></table></div></section>\n";
}

std::string ranked_table(const SearchOutcome& o, const SearchSpec& spec) {
  std::string out =
      "<section id=\"ranked\"><h2>Candidates, best first</h2>\n<div class=\"wide\"><table "
      "id=\"ranked-candidates\"><thead><tr>" +
      sort_th("rank", true) + (o.rungs > 0 ? sort_th("rung", true) : "");
  for (const tune::Dimension& d : spec.dims) out += sort_th(d.name(), false);
  for (const Goal& g : spec.goals) out += sort_th(g.text, true);
  out += sort_th("goals met", true) + sort_th("seeds", true) + "</tr></thead><tbody>\n";
  auto row = [&](const CandidateResult& c, const std::string& rank) {
    std::string tr =
        "<tr>" + num_td(c.rank, rank) +
        (o.rungs > 0 ? num_td(static_cast<double>(c.rung + 1), fmt::format("{}/{}", c.rung + 1, o.rungs)) : "") +
        settings_cells(c);
    for (std::size_t g = 0; g < spec.goals.size(); ++g) {
      const GoalResult& r = c.goals[g];
      tr += fmt::format("<td class=\"n {}\" data-v=\"{}\">{} {}{}</td>", r.pass ? "removed" : "added",
                        std::isfinite(r.value.mean) ? r.value.mean : 0.0, esc(goal_text(spec.goals[g], r)),
                        r.pass ? "pass" : "FAIL", r.beats_baseline ? " *" : "");
    }
    return tr + num_td(static_cast<double>(c.passes), fmt::format("{}/{}", c.passes, spec.goals.size())) +
           num_td(static_cast<double>(c.seeds), std::to_string(c.seeds)) + "</tr>\n";
  };
  out += row(o.baseline, "base");
  for (const CandidateResult& c : o.ranked) out += row(c, fmt::format("#{}", c.rank));
  out += "</tbody></table></div>\n";
  if (o.rungs > 0) {
    out += fmt::format(
        "<p class=\"muted\">Successive halving over {} rungs (sample seed {}): a candidate dropped "
        "before rung {} shows its numbers on that rung's shorter load and fewer seeds.</p>\n",
        o.rungs, o.sample_seed, o.rungs);
  }
  return out + "</section>\n";
}

std::string skipped_section(const SearchOutcome& o, const SearchSpec& spec) {
  if (o.skipped.empty()) return {};
  std::string out =
      "<section id=\"skipped\"><h2>Skipped: not ranked (the analyzer refused the combination, or a run stopped "
      "early, WORK008)</h2>\n<table "
      "id=\"skipped-candidates\"><thead><tr>";
  for (const tune::Dimension& d : spec.dims) out += "<th>" + esc(d.name()) + "</th>";
  out += "<th>reason</th></tr></thead><tbody>\n";
  for (const CandidateResult& c : o.skipped)
    out += "<tr>" + settings_cells(c) + "<td>" + esc(*c.skip_reason) + "</td></tr>\n";
  return out + "</tbody></table></section>\n";
}

std::string diff_section(const SearchOutcome& o, const tune::ReportContext& ctx) {
  const CandidateResult* r = o.recommended();
  std::string out = "<section id=\"diff\"><h2>The recommended change</h2>\n";
  if (!r) return out + "<p>No candidate could be simulated.</p></section>\n";
  const std::string diff = tune::unified_diff(o.baseline.conf_text, r->conf_text, ctx.conf_path);
  if (diff.empty()) return out + "<p>The recommended settings are the current ones (no change).</p></section>\n";
  return out + "<pre class=\"snippet\" id=\"recommended-diff\">" + esc(diff) + "</pre></section>\n";
}

}  // namespace

std::string tune_html(const SearchOutcome& o, const tune::ReportContext& ctx) {
  const SearchSpec& spec = *ctx.spec;
  std::string out = page_begin(
      {"slurm-advisor tune: " + ctx.conf_path,
       fmt::format("{} candidate(s) simulated, {} seed(s) each on {}", o.ranked.size(), o.baseline.seeds, ctx.load)});
  out += "<nav class=\"toc\"><a href=\"#summary\">Summary</a><a href=\"#goals\">Goals</a>";
  if (o.conflict) out += "<a href=\"#pareto\">Pareto front</a>";
  out += "<a href=\"#ranked\">Candidates</a><a href=\"#diff\">Diff</a></nav>\n";
  out += "<section id=\"summary\"><h2>Summary</h2>\n" + verdict(o, spec);
  out += fmt::format(
      "<div class=\"cards\"><div class=\"card\"><b>{}</b>candidates simulated</div><div class=\"card\"><b>{}</b>"
      "skipped</div><div class=\"card\"><b>{}/{} → {}/{}</b>goals met, baseline → "
      "recommended</div></div>\n</section>\n",
      o.ranked.size(), o.skipped.size(), o.baseline.passes, spec.goals.size(),
      o.recommended() ? o.recommended()->passes : 0, spec.goals.size());
  out += goal_charts(o, spec) + pareto_section(o, spec) + ranked_table(o, spec) + skipped_section(o, spec) +
         diff_section(o, ctx);
  return out + page_end();
}

}  // namespace sa::report
