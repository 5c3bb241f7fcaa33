#include "report/evidence_html.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <set>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "report/evidence_glossary.h"
#include "report/html_writer.h"
#include "report/lint_report.h"
#include "report/svg_chart.h"
#include "rules/framework/rule.h"

namespace sa::report {

namespace {

using nlohmann::json;

std::string scalar_text(const std::string& parent, const std::string& key, const json& v) {
  if (v.is_string()) return esc(v.get<std::string>());
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_null()) return "–";
  if (v.is_number()) {
    const double d = v.get<double>();
    // Points in time print as seconds from the run's start; spans as durations.
    if (key == "job") return std::to_string(v.get<long long>());
    if (key == "at" || key == "submit" || key == "start" || key == "end") return esc(fmt_count(d) + " s");
    if (is_duration_key(parent, key))
      return fmt::format("<span title=\"{} s\">{}</span>", fmt_count(d), esc(fmt_duration(d)));
    return esc(fmt_number(d));
  }
  return esc(v.dump());
}

double scalar_value(const json& v) {
  const double d = v.is_number() ? v.get<double>() : 0.0;
  return std::isfinite(d) ? d : 0.0;
}

bool all_scalars(const json& o) {
  return std::all_of(o.begin(), o.end(), [](const json& v) { return !v.is_structured(); });
}

// Weighted factors as a small stacked bar, so the dominating term shows at a glance.
std::string factor_bar(const json& factors) {
  double total = 0;
  for (const auto& [k, v] : factors.items()) total += std::max(0.0, scalar_value(v));
  std::string tip, bars;
  double x = 0;
  std::size_t i = 0;
  for (const auto& [k, v] : factors.items()) {
    const double d = std::max(0.0, scalar_value(v));
    tip += fmt::format("{}{} {}", tip.empty() ? "" : ", ", k, fmt_number(scalar_value(v)));
    if (total > 0 && d > 0) {
      const double w = 120 * d / total;
      bars += fmt::format("<rect x=\"{:.1f}\" y=\"0\" width=\"{:.1f}\" height=\"10\" fill=\"{}\"/>", x, w, palette(i));
      x += w;
    }
    ++i;
  }
  return fmt::format(
      "<svg width=\"120\" height=\"10\" role=\"img\" aria-label=\"{0}\"><title>{0}</title>{1}</svg>"
      "<div class=\"muted\">{0}</div>",
      esc(tip), bars);
}

std::string jobs_table(const json& jobs) {
  static const std::vector<std::pair<const char*, const char*>> cols{
      {"job", "job"},           {"user", "user"},        {"account", "account"}, {"partition", "partition"},
      {"cpus", "CPUs"},         {"nodes", "nodes"},      {"submit", "submit"},   {"start", "start"},
      {"wait_seconds", "wait"}, {"priority", "priority"}};
  std::string out = "<table class=\"jobs\"><thead><tr>";
  for (const auto& [key, label] : cols)
    out +=
        sort_th(label, std::string(key) != "user" && std::string(key) != "account" && std::string(key) != "partition");
  out += "<th>weighted factors</th></tr></thead><tbody>\n";
  for (const json& j : jobs) {
    if (!j.is_object()) continue;
    out += "<tr>";
    for (const auto& [key, label] : cols) {
      const json v = j.value(key, json());
      if (v.is_number()) {
        out += fmt::format("<td class=\"n\" data-v=\"{}\">{}</td>", scalar_value(v), scalar_text("", key, v));
      } else {
        const bool pending = key == std::string("start") && j.value("pending_at_end", false);
        out += "<td>" + (pending ? std::string("pending") : scalar_text("", key, v)) + "</td>";
      }
    }
    out += "<td>" + (j.contains("factors") && j["factors"].is_object() ? factor_bar(j["factors"]) : std::string()) +
           "</td></tr>\n";
  }
  return out + "</tbody></table>\n";
}

// Objects of flat objects ("partition A ahead of B": {...}) and arrays of them read best as
// one table; rows keep their order (an array's is its own, not its indices' text order).
using Rows = std::vector<std::pair<std::string, json>>;

std::string object_table(const Rows& o, const std::string& key) {
  std::vector<std::string> columns;
  std::set<std::string> seen;
  for (const auto& [k, v] : o) {
    for (const auto& [c, x] : v.items()) {
      if (seen.insert(c).second) columns.push_back(c);
    }
  }
  std::string out = "<table><thead><tr>" + sort_th("", false);
  for (const std::string& c : columns) out += sort_th(c, true);
  out += "</tr></thead><tbody>\n";
  for (const auto& [k, v] : o) {
    out += "<tr><td>" + esc(k) + "</td>";
    for (const std::string& c : columns) {
      const json x = v.value(c, json());
      out += x.is_number()
                 ? fmt::format("<td class=\"n\" data-v=\"{}\">{}</td>", scalar_value(x), scalar_text(key, c, x))
                 : "<td>" + scalar_text(key, c, x) + "</td>";
    }
    out += "</tr>\n";
  }
  return out + "</tbody></table>\n";
}

void flatten(const json& v, const std::string& path, std::vector<std::pair<std::string, json>>& out) {
  if (v.is_object()) {
    for (const auto& [k, x] : v.items()) {
      if (k == "scenario" || k == "examples") continue;
      flatten(x, path.empty() ? k : path + " › " + k, out);
    }
  } else if (!v.is_array()) {
    out.push_back({path, v});
  }
}

std::string last_key(const std::string& path) {
  const auto at = path.rfind(" › ");
  return at == std::string::npos ? path : path.substr(at + 5);
}

std::string parent_key(const std::string& path) {
  const auto at = path.rfind(" › ");
  return at == std::string::npos ? "" : path.substr(0, at);
}

std::string fix_html(const rules::Fix& fix, const json& evidence, const char* label = "Fix:") {
  std::string out = std::string("<div class=\"fix\"><b>") + label + "</b> " + esc(fix.description);
  if (evidence.value("fix_effect", "") == "mixed") {
    out +=
        "<div class=\"muted\">Re-simulated, it improves some of these outcomes and worsens others: weigh them.</div>";
  }
  if (!fix.key.empty()) {
    out += fmt::format("<div>Set <code>{}</code>{}</div>", esc(fix.key),
                       fix.value.empty() ? "" : " to <code>" + esc(fix.value) + "</code>");
  }
  if (!fix.resimulated.is_null()) {
    // The same metrics, re-simulated on the same load and seed with the fix applied.
    std::vector<std::pair<std::string, json>> now, after;
    flatten(evidence.contains("metrics") ? evidence["metrics"] : evidence, "", now);
    flatten(fix.resimulated, "", after);
    out +=
        "<table><thead><tr><th>metric</th><th class=\"n\">now</th><th class=\"n\">with the "
        "fix</th></tr></thead><tbody>\n";
    for (const auto& [path, v] : after) {
      // Clang 14 (Debian 12's, used for the fuzz build) cannot capture a structured binding.
      const std::string& wanted = path;
      const auto it = std::find_if(now.begin(), now.end(), [&](const auto& p) { return p.first == wanted; });
      const std::string key = last_key(path), parent = parent_key(path);
      out += fmt::format("<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>\n", esc(path),
                         it == now.end() ? "–" : scalar_text(parent, key, it->second), scalar_text(parent, key, v));
    }
    out += "</tbody></table>";
    if (fix.resimulated.contains("scenario") && fix.resimulated["scenario"].contains("variant")) {
      out += "<div class=\"muted\">Re-simulated on the same load and seed with <code>" +
             esc(fix.resimulated["scenario"].value("variant", "")) + "</code>.</div>";
    }
  }
  return out + "</div>\n";
}

}  // namespace

namespace {

// The key's plain-language meaning as a tooltip (the page's glossary lists them all).
std::string titled(const std::string& key) {
  const std::string meaning = evidence_meaning(key);
  return meaning.empty() ? std::string() : " title=\"" + esc(meaning) + "\"";
}

}  // namespace

std::string json_html(const std::string& key, const json& v, const std::string& parent) {
  if (!v.is_structured()) {
    return fmt::format("<div><b{}>{}:</b> {}</div>\n", titled(key), esc(key), scalar_text(parent, key, v));
  }
  if (v.empty()) return {};
  if (key == "examples" && v.is_array()) {
    return "<h4>Example jobs</h4><p class=\"muted\">Submit and start are seconds from the start of the simulated "
           "load; the wait runs from eligibility to start (to the end of the run for jobs still pending).</p>" +
           jobs_table(v);
  }
  if (v.is_array()) {
    if (std::all_of(v.begin(), v.end(), [](const json& x) { return !x.is_structured(); })) {
      std::string items;
      for (const json& x : v) items += (items.empty() ? "" : ", ") + scalar_text(key, "", x);
      return fmt::format("<div><b{}>{}:</b> {}</div>\n", titled(key), esc(key), items);
    }
    if (std::all_of(v.begin(), v.end(), [](const json& x) { return x.is_object() && all_scalars(x); })) {
      Rows rows;
      for (std::size_t i = 0; i < v.size(); ++i) rows.push_back({std::to_string(i + 1), v[i]});
      return "<h4" + titled(key) + ">" + esc(key) + "</h4>" + object_table(rows, key);
    }
    std::string out = "<h4" + titled(key) + ">" + esc(key) + "</h4>";
    for (std::size_t i = 0; i < v.size(); ++i) out += json_html(std::to_string(i + 1), v[i], key);
    return out;
  }
  if (std::all_of(v.begin(), v.end(), [](const json& x) { return x.is_object() && all_scalars(x); })) {
    Rows rows;
    for (const auto& [k, x] : v.items()) rows.push_back({k, x});
    return "<h4" + titled(key) + ">" + esc(key) + "</h4>" + object_table(rows, key);
  }
  std::string out = key.empty() ? "" : "<h4" + titled(key) + ">" + esc(key) + "</h4>";
  out += "<div class=\"kv\">";
  for (const auto& [k, x] : v.items()) out += json_html(k, x, key);
  return out + "</div>\n";
}

std::string finding_html(const rules::Finding& f, std::size_t index) {
  const rules::Rule* rule = rules::find_rule(f.code);
  const char* level = rules::level_name(f.severity);
  std::string out = fmt::format(
      "<article class=\"finding\" id=\"finding-{}\" data-code=\"{}\" data-severity=\"{}\">\n"
      "<div><span class=\"sev {}\">{}</span> <b>{}</b>{} <span class=\"muted\">[{}]</span>{}</div>\n"
      "<div class=\"loc\">{}</div>\n<p class=\"msg\">{}</p>\n",
      index, esc(f.code), level, level, level, esc(f.code), rule ? " " + esc(rule->slug) : "",
      esc(rules::check_name(f.check)), f.baselined ? " <span class=\"muted\">(in the baseline)</span>" : "",
      esc(location_text(f.loc)), esc(f.message));
  if (!f.snippet.empty()) out += "<pre class=\"snippet\">" + esc(f.snippet) + "</pre>\n";
  if (!f.related.empty()) {
    // Many places of one cause fold away behind their count.
    const bool fold = f.related.size() > 5;
    if (fold) out += fmt::format("<details class=\"related\"><summary>{} related places</summary>", f.related.size());
    out += "<ul class=\"related\">";
    for (const rules::Location& r : f.related) {
      out += "<li><span class=\"loc\">" + esc(location_text(r)) + "</span> " + esc(r.note) + "</li>";
    }
    out += fold ? "</ul></details>\n" : "</ul>\n";
  }
  if (f.evidence.is_object() && !f.evidence.empty()) {
    std::string body;
    for (const auto& [k, v] : f.evidence.items()) {
      // The page's summary names the run once; the fix's re-simulation has its own block.
      if (k == "scenario" || k == "fix_effect" || k == "fix_not_suggested" || k == "fix_resimulated") continue;
      body += json_html(k, v);
    }
    if (!body.empty()) out += "<section class=\"evidence\"><h4>Evidence</h4>" + body + "</section>\n";
  }
  if (f.fix) out += fix_html(*f.fix, f.evidence);
  if (f.evidence.contains("fix_resimulated")) {
    // A fix the re-simulation showed to change nothing, or to make things worse: shown as such.
    const rules::Fix rejected{f.evidence.value("fix_not_suggested", ""), {}, {}, f.evidence["fix_resimulated"]};
    out += fix_html(rejected, f.evidence, "Not suggested:");
  }
  return out + "</article>\n";
}

}  // namespace sa::report
