#include "report/compare_report.h"

#include <fmt/format.h>

namespace sa::report {

namespace {

std::string percent_of(std::size_t part, std::size_t whole) {
  return whole == 0 ? std::string("-")
                    : fmt::format("{:.1f}%", 100.0 * static_cast<double>(part) / static_cast<double>(whole));
}

std::string error_text(std::int64_t error, const std::optional<double>& pct) {
  std::string s = fmt::format("{:+d}", error);
  return pct ? s + fmt::format(" ({:+.1f}%)", *pct) : s;
}

std::string share_text(const std::optional<double>& share) {
  return share ? fmt::format("{:.1f}%", 100.0 * *share) : std::string("not recorded");
}

void print_summary(std::ostream& out, const engine::Fidelity& f, const CompareSources& s) {
  out << fmt::format("real: {} ({} jobs)\nsim:  {} ({} jobs)\n", s.real, f.real_jobs, s.sim, f.sim_jobs);
  out << fmt::format("jobs in both: {}; started in both: {}; started only in real: {}; only in sim: {}\n", f.common,
                     f.started_both, f.started_real_only, f.started_sim_only);
  out << fmt::format("starts within 10 s of the real start: {} of {} ({}); within 60 s: {} ({})\n", f.within_10s,
                     f.started_both, percent_of(f.within_10s, f.started_both), f.within_60s,
                     percent_of(f.within_60s, f.started_both));
  out << fmt::format("makespan: real {} s, sim {} s, error {}\n", f.makespan_real, f.makespan_sim,
                     error_text(f.makespan_sim - f.makespan_real, f.makespan_error_pct));
  out << fmt::format("backfill share of starts: real {}, sim {}\n", share_text(f.backfill_share_real),
                     share_text(f.backfill_share_sim));
  const engine::PlacementFidelity& p = f.placement;
  out << fmt::format("node counts: {} compared, {} the same, {} on more nodes than real, {} on fewer\n", p.compared,
                     p.same_nodes, p.more_nodes, p.fewer_nodes);
  if (p.legality_known == 0)
    out << "constraint legality: not recorded by the second run\n";
  else
    out << fmt::format("constraint legality: {} of {} placements illegal\n", p.illegal, p.legality_known);
}

}  // namespace

void print_compare_text(std::ostream& out, const engine::Fidelity& f, const CompareSources& s) {
  print_summary(out, f, s);
  out << fmt::format(
      "\nwaits in seconds (error = sim - real)\n{:<10} {:<16} {:>5} {:>9} {:>9} {:>17} {:>9} {:>9} {:>17}\n", "group",
      "key", "jobs", "mean real", "mean sim", "error", "p95 real", "p95 sim", "error");
  for (const engine::GroupFidelity& g : f.groups) {
    out << fmt::format("{:<10} {:<16} {:>5} {:>9} {:>9} {:>17} {:>9} {:>9} {:>17}\n", g.kind, g.key, g.real.jobs,
                       g.real.mean, g.sim.mean, error_text(g.mean_error, g.mean_error_pct), g.real.p95, g.sim.p95,
                       error_text(g.p95_error, g.p95_error_pct));
  }
  if (f.worst) {
    const engine::GroupFidelity& w = f.groups[*f.worst];
    out << fmt::format("worst group: {} {} (mean wait {} s real, {} s sim, error {})\n", w.kind, w.key, w.real.mean,
                       w.sim.mean, error_text(w.mean_error, w.mean_error_pct));
  }
}

namespace {

nlohmann::json optional_number(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

nlohmann::json group_json(const engine::GroupFidelity& g) {
  return {{"kind", g.kind},
          {"key", g.key},
          {"jobs", g.real.jobs},
          {"mean_wait_real", g.real.mean},
          {"mean_wait_sim", g.sim.mean},
          {"mean_error_s", g.mean_error},
          {"mean_error_pct", optional_number(g.mean_error_pct)},
          {"p95_wait_real", g.real.p95},
          {"p95_wait_sim", g.sim.p95},
          {"p95_error_s", g.p95_error},
          {"p95_error_pct", optional_number(g.p95_error_pct)}};
}

}  // namespace

nlohmann::json compare_json(const engine::Fidelity& f, const CompareSources& s) {
  nlohmann::json groups = nlohmann::json::array();
  for (const engine::GroupFidelity& g : f.groups) groups.push_back(group_json(g));
  const engine::PlacementFidelity& p = f.placement;
  return {{"real", {{"source", s.real}, {"jobs", f.real_jobs}}},
          {"sim", {{"source", s.sim}, {"jobs", f.sim_jobs}}},
          {"jobs_in_both", f.common},
          {"started_both", f.started_both},
          {"started_real_only", f.started_real_only},
          {"started_sim_only", f.started_sim_only},
          {"within_10s", f.within_10s},
          {"within_60s", f.within_60s},
          {"makespan",
           {{"real", f.makespan_real},
            {"sim", f.makespan_sim},
            {"error_s", f.makespan_sim - f.makespan_real},
            {"error_pct", optional_number(f.makespan_error_pct)}}},
          {"backfill_share",
           {{"real", optional_number(f.backfill_share_real)}, {"sim", optional_number(f.backfill_share_sim)}}},
          {"placement",
           {{"compared", p.compared},
            {"same_nodes", p.same_nodes},
            {"more_nodes", p.more_nodes},
            {"fewer_nodes", p.fewer_nodes},
            {"legality_known", p.legality_known},
            {"illegal", p.illegal}}},
          {"groups", groups},
          {"worst_group", f.worst ? group_json(f.groups[*f.worst]) : nlohmann::json()}};
}

}  // namespace sa::report
