#include "report/coverage_report.h"

#include <fmt/format.h>

#include "report/html_writer.h"

namespace sa::report {

namespace {

nlohmann::json partition_json(const engine::PartitionCoverage& p) {
  nlohmann::json reasons = nlohmann::json::object();
  for (const auto& [reason, n] : p.refused_reasons) reasons[reason] = n;
  nlohmann::json j = {{"name", p.name},       {"offered", p.offered},
                      {"refused", p.refused}, {"refused_reasons", reasons},
                      {"started", p.started}, {"pending_at_end", p.pending_at_end}};
  if (p.cancelled) j["cancelled_while_pending"] = p.cancelled;  // recorded loads only
  return j;
}

std::string reasons_text(const engine::PartitionCoverage& p) {
  std::string out;
  for (const auto& [reason, n] : p.refused_reasons)
    out += fmt::format("{}\"{}\" {}", out.empty() ? "" : ", ", reason, n);
  return out;
}

}  // namespace

nlohmann::json coverage_json(const engine::LoadCoverage& c, const std::vector<std::string>& idle) {
  nlohmann::json parts = nlohmann::json::array();
  for (const engine::PartitionCoverage& p : c.partitions) parts.push_back(partition_json(p));
  nlohmann::json j = {{"coverage", c.coverage()},
                      {"offered", c.total.offered},
                      {"refused", c.total.refused},
                      {"started", c.total.started},
                      {"pending_at_end", c.total.pending_at_end},
                      {"partitions", parts},
                      {"idle_partitions", idle}};
  if (c.total.cancelled) j["cancelled_while_pending"] = c.total.cancelled;
  return j;
}

void print_coverage_text(std::ostream& out, const engine::LoadCoverage& c, const std::string& indent) {
  out << fmt::format("load coverage: {} of {} offered jobs started ({:.0f}%)", c.total.started, c.total.offered,
                     c.total.percent());
  if (c.total.cancelled)
    out << fmt::format("; {} cancelled before starting, as the load recorded, left out of the share",
                       c.total.cancelled);
  out << "\n";
  for (const engine::PartitionCoverage& p : c.partitions) {
    out << fmt::format("{}{}: {} offered, {} started", indent, p.name, p.offered, p.started);
    if (p.pending_at_end) out << fmt::format(", {} pending at the end", p.pending_at_end);
    if (p.cancelled) out << fmt::format(", {} cancelled while pending", p.cancelled);
    if (p.refused) out << fmt::format(", {} refused ({})", p.refused, reasons_text(p));
    if (p.offered && p.coverage() < engine::kMinCoverage) out << "  [below 80%]";
    out << "\n";
  }
}

std::string coverage_html(const engine::LoadCoverage& c, const std::vector<std::string>& idle) {
  std::string out = fmt::format(
      "<table id=\"coverage\"><caption>Load coverage: {} of {} offered jobs started "
      "({:.0f}%{})</caption><thead><tr>{}{}{}{}{}{}"
      "</tr></thead><tbody>\n",
      c.total.started, c.total.offered, c.total.percent(),
      c.total.cancelled ? fmt::format("; {} cancelled while pending, as recorded, left out", c.total.cancelled) : "",
      sort_th("partition", false), sort_th("offered", true), sort_th("started", true),
      sort_th("pending at the end", true), sort_th("refused", true),
      sort_th("refused because (Slurm's message)", false));
  for (const engine::PartitionCoverage& p : c.partitions) {
    const bool thin = p.offered && p.coverage() < engine::kMinCoverage;
    out += fmt::format("<tr{}><td>{}</td>{}{}{}{}<td>{}</td></tr>\n", thin ? " class=\"thin\"" : "", esc(p.name),
                       num_td(static_cast<double>(p.offered), std::to_string(p.offered)),
                       num_td(static_cast<double>(p.started), std::to_string(p.started)),
                       num_td(static_cast<double>(p.pending_at_end), std::to_string(p.pending_at_end)),
                       num_td(static_cast<double>(p.refused), std::to_string(p.refused)), esc(reasons_text(p)));
  }
  out += "</tbody></table>\n";
  if (!idle.empty()) {
    out += "<p class=\"muted\">No jobs offered to: ";
    for (std::size_t i = 0; i < idle.size(); ++i) out += (i ? "; " : "") + esc(idle[i]);
    out += ".</p>\n";
  }
  return out;
}

}  // namespace sa::report
