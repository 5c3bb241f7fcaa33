#include "tune/tune_report.h"

#include <algorithm>
#include <ostream>
#include <vector>

#include <fmt/format.h>

namespace sa::tune {

namespace {

constexpr std::size_t kContext = 3;
constexpr std::size_t kTextRows = 20;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t eol = text.find('\n', at);
    if (eol == std::string::npos) eol = text.size();
    out.push_back(text.substr(at, eol - at));
    at = eol + 1;
  }
  return out;
}

nlohmann::json candidate_json(const CandidateResult& c, const ReportContext& ctx, bool ranked, std::size_t rungs) {
  const SearchSpec& spec = *ctx.spec;
  nlohmann::json settings = nlohmann::json::object();
  for (std::size_t d = 0; d < spec.dims.size(); ++d) settings[spec.dims[d].name()] = c.values[d];
  nlohmann::json goals = nlohmann::json::array();
  for (std::size_t g = 0; g < c.goals.size(); ++g) {
    const GoalResult& r = c.goals[g];
    goals.push_back(
        {{"goal", spec.goals[g].text}, {"value", r.value.mean}, {"ci", {r.value.lo, r.value.hi}}, {"pass", r.pass}});
  }
  nlohmann::json j = {{"settings", settings}, {"goals", goals}};
  if (ranked) {
    j["rank"] = c.rank;
    j["seeds"] = c.seeds;
    if (rungs > 0) j["rung"] = c.rung + 1;
  }
  return j;
}

std::string settings_text(const CandidateResult& c, const SearchSpec& spec) {
  std::string out;
  for (std::size_t d = 0; d < spec.dims.size(); ++d) {
    out += fmt::format("{}{}={}", out.empty() ? "" : " ", spec.dims[d].name(),
                       c.values[d].empty() ? "(unset)" : c.values[d]);
  }
  return out;
}

std::string goal_cell(const Goal& g, const GoalResult& r, bool mark_beats) {
  return fmt::format("{} [{}, {}] {}{}", format_value(g, r.value.mean), format_value(g, std::max(0.0, r.value.lo)),
                     format_value(g, r.value.hi), r.pass ? "pass" : "FAIL", mark_beats && r.beats_baseline ? " *" : "");
}

void print_row(std::ostream& out, const std::string& label, const CandidateResult& c, const SearchSpec& spec,
               bool mark_beats, const std::string& rung = {}) {
  out << fmt::format("{:>5}  {}  ({}/{} goals{})\n", label, settings_text(c, spec), c.passes, spec.goals.size(), rung);
  for (std::size_t g = 0; g < spec.goals.size(); ++g) {
    out << fmt::format("         {:<32} {}\n", spec.goals[g].text, goal_cell(spec.goals[g], c.goals[g], mark_beats));
  }
}

}  // namespace

nlohmann::json tune_json(const SearchOutcome& o, const ReportContext& ctx) {
  nlohmann::json j;
  j["baseline"] = candidate_json(o.baseline, ctx, false, 0);
  j["recommended"] = o.recommended() ? candidate_json(*o.recommended(), ctx, false, 0) : nlohmann::json(nullptr);
  j["candidates"] = nlohmann::json::array();
  for (const CandidateResult& c : o.ranked) j["candidates"].push_back(candidate_json(c, ctx, true, o.rungs));
  if (o.rungs > 0) {
    j["search"] = {{"strategy", "halving"}, {"rungs", o.rungs}, {"sample_seed", o.sample_seed}};
  }
  return j;
}

void print_tune_text(std::ostream& out, const SearchOutcome& o, const ReportContext& ctx) {
  const SearchSpec& spec = *ctx.spec;
  out << fmt::format("{}: {} candidate(s) simulated, {} skipped, {} seed(s) each on {}\n", ctx.conf_path,
                     o.ranked.size(), o.skipped.size(), o.baseline.seeds, ctx.load);
  out << "goal values are the mean over seeds [95% interval]; * beats the baseline beyond the interval\n";
  if (o.rungs > 0) {
    out << fmt::format(
        "successive halving: candidates sampled with seed {}, {} rung(s); a candidate dropped before rung {} "
        "shows its numbers on that rung's shorter load (fewer seeds)\n",
        o.sample_seed, o.rungs, o.rungs);
  }
  out << "\n";
  print_row(out, "base", o.baseline, spec, false);
  for (std::size_t i = 0; i < o.ranked.size() && i < kTextRows; ++i) {
    const CandidateResult& c = o.ranked[i];
    const std::string rung = o.rungs > 0 ? fmt::format(", rung {}/{}", c.rung + 1, o.rungs) : "";
    print_row(out, fmt::format("#{}", c.rank), c, spec, true, rung);
  }
  if (o.ranked.size() > kTextRows)
    out << fmt::format("  ... {} more (--format json lists all)\n", o.ranked.size() - kTextRows);
  if (o.conflict) {
    out << "\nthe goals conflict; the Pareto front (no candidate is better on every goal):\n";
    for (const CandidateResult& c : o.ranked) {
      if (c.pareto) out << fmt::format("  #{} {}\n", c.rank, settings_text(c, spec));
    }
  }
  if (!o.skipped.empty())
    out << "\nskipped, not ranked (the analyzer refused the combination, or a run stopped early, WORK008):\n";
  for (const CandidateResult& c : o.skipped) out << fmt::format("  {}: {}\n", settings_text(c, spec), *c.skip_reason);
  const CandidateResult* r = o.recommended();
  if (!r) {
    out << "\nno candidate could be simulated\n";
    return;
  }
  out << fmt::format("\nrecommended: {} ({} of {} goals pass)\n", settings_text(*r, spec), r->passes,
                     spec.goals.size());
  const std::string diff = unified_diff(o.baseline.conf_text, r->conf_text, ctx.conf_path);
  out << (diff.empty() ? "the recommended settings are the current ones (no change)\n" : diff);
}

std::string unified_diff(const std::string& before, const std::string& after, const std::string& path) {
  const std::vector<std::string> a = lines_of(before), b = lines_of(after);
  std::vector<std::size_t> changed;  // indices into b that differ from a
  for (std::size_t i = 0; i < b.size(); ++i) {
    if (i >= a.size() || a[i] != b[i]) changed.push_back(i);
  }
  if (changed.empty() && a.size() == b.size()) return {};
  std::string out = fmt::format("--- {}\n+++ {}\n", path, path);
  std::size_t k = 0;
  while (k < changed.size()) {
    std::size_t last = k;
    while (last + 1 < changed.size() && changed[last + 1] - changed[last] <= 2 * kContext) ++last;
    const std::size_t from = changed[k] > kContext ? changed[k] - kContext : 0;
    const std::size_t to_b = std::min(b.size(), changed[last] + kContext + 1);
    const std::size_t to_a = std::min(a.size(), to_b);
    std::string body;
    for (std::size_t i = from; i < to_b; ++i) {
      const bool diff = i >= a.size() || a[i] != b[i];
      if (diff && i < a.size()) body += "-" + a[i] + "\n";
      body += (diff ? "+" : " ") + b[i] + "\n";
    }
    out += fmt::format("@@ -{},{} +{},{} @@\n", from + 1, to_a - from, from + 1, to_b - from) + body;
    k = last + 1;
  }
  return out;
}

}  // namespace sa::tune
