#include "rules/framework/lint.h"

#include <algorithm>
#include <atomic>
#include <deque>
#include <exception>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "rules/framework/consolidate.h"
#include "rules/framework/fix_effect.h"
#include "rules/framework/rule.h"
#include "rules/framework/run_json.h"
#include "rules/framework/sink.h"
#include "rules/framework/suppression.h"
#include "rules/framework/withhold.h"

namespace sa::rules {

namespace {

void surface_diagnostics(const DiagnosticSink& diagnostics, const SourceManager& sources, FindingSink& sink) {
  for (const Diagnostic& d : diagnostics.sorted()) {
    Location loc;
    if (d.loc.valid()) loc = {sources.path(d.loc.file), d.loc.line, d.loc.column, {}};
    Finding& f = sink.report_as(d.code, diagnostic_check(d.code), d.severity, loc, d.message);
    if (!d.hint.empty()) f.fix = Fix{d.hint, {}, {}, {}};
  }
}

// Every file read for the site, from both source managers (the slurm.conf family's and the
// other inputs'), by path.
using InputFiles = std::map<std::string, std::pair<const SourceManager*, FileId>>;

InputFiles input_files(const engine::LoadedSite& site) {
  InputFiles files;
  for (const SourceManager* sm : std::initializer_list<const SourceManager*>{&site.conf->sources, &site.sources}) {
    for (std::size_t i = 0; i < sm->file_count(); ++i) {
      const auto id = static_cast<FileId>(i);
      files.emplace(sm->path(id), std::make_pair(sm, id));
    }
  }
  return files;
}

std::string fnv1a(const std::string& text) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return fmt::format("{:016x}", h);
}

// Stable across edits elsewhere in the file: the code, the file's name and the flagged
// line's text (not its number), and which occurrence of that triple this is.
// A line's text without its indentation, for snippets, notes and fingerprints.
std::optional<std::string> line_at(const InputFiles& files, const Location& loc) {
  auto at = files.find(loc.file);
  if (at == files.end() || loc.line <= 0) return std::nullopt;
  std::string line(at->second.first->line_text(at->second.second, loc.line));
  line.erase(0, line.find_first_not_of(" \t"));
  return line;
}

// Cut for a note, never inside a UTF-8 character.
std::string note_text(std::string line) {
  if (line.size() <= 72) return line;
  std::size_t cut = 69;
  while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80) --cut;
  return line.substr(0, cut) + "...";
}

void fingerprint(const engine::LoadedSite& site, std::vector<Finding>& findings) {
  const InputFiles files = input_files(site);
  std::map<std::string, int> seen;
  for (Finding& f : findings) {
    const std::string base = f.loc.file.substr(f.loc.file.find_last_of('/') + 1);
    if (auto it = files.find(f.loc.file); it != files.end() && f.loc.line > 0) {
      f.snippet = it->second.first->line_text(it->second.second, f.loc.line);
    }
    std::string text = line_at(files, f.loc).value_or("");
    // A finding that gathers places is a different finding when its places change: the
    // related lines' texts (not numbers) join the key. The places gathered into one finding,
    // and related places that say nothing of themselves, are named by their own line.
    std::vector<std::string> places;
    for (Location& r : f.related) {
      const std::optional<std::string> line = line_at(files, r);
      if (!line) continue;
      places.push_back(*line);
      if (r.note == kSameFinding || r.note.empty()) r.note = note_text(*line);
    }
    std::sort(places.begin(), places.end());
    for (const std::string& p : places) text += "|" + p;
    const std::string key = f.code + "|" + base + "|" + text;
    f.fingerprint = fnv1a(fmt::format("{}|{}", key, seen[key]++));
  }
}

bool selected(const LintOptions& o, const std::string& code) { return o.only.empty() || o.only.count(code); }

// Rules whose evidence is fair share itself: without a sacctmgr dump every association's
// fair share would be an invented zero, so they are skipped and the summary says why.
bool needs_association_tree(const std::string& code) {
  static const std::set<std::string> kCodes = {"FAIR001", "FAIR002", "FAIR003", "FAIR004",
                                               "FAIR005", "FAIR006", "PRIO005"};
  return kCodes.count(code) > 0;
}

void run_rule(const Rule& rule, const LintContext& context, FindingSink& sink) {
  const LintContext::RuleRuns runs;  // the re-simulations the rule asks for live until it returns
  sink.begin_rule(&rule);
  const std::size_t before = sink.findings().size();
  try {
    rule.run(context, sink);
  } catch (const std::exception& e) {
    // A rule bug must not hide the other findings or crash the run.
    sink.report(context.conf_file(), fmt::format("internal error in rule {}: {}", rule.code, e.what())).severity =
        Severity::kError;
  }
  if (!runs.read_cut_run()) return;
  for (std::size_t i = before; i < sink.findings().size(); ++i) sink.findings()[i].read_cut_run = true;
}

// Static rules run here; rules that read the simulation run on worker threads while the base
// run is still going, so their re-simulations overlap it. Each rule has its own sink and the
// sinks are merged in registry order: the output does not depend on the thread timing.
void run_rules(LintContext& context, const LintOptions& o, FindingSink& sink, LintReport& report) {
  std::vector<const Rule*> simulated;
  const bool can = o.simulate && context.can_simulate();
  for (const Rule& rule : registry()) {
    if (!selected(o, rule.code)) continue;
    if (!context.tree() && needs_association_tree(rule.code)) {
      report.skipped.push_back(
          fmt::format("{} (needs --assoc: it judges fair share, which a site without its "
                      "sacctmgr dump does not have)",
                      rule.code));
      continue;
    }
    if (rule.simulation == SimUse::kRequired && !can) {
      report.skipped.push_back(fmt::format("{} ({})", rule.code, o.simulate ? "no load to simulate" : "--no-simulate"));
      continue;
    }
    ++report.rules_run;
    if (rule.simulation != SimUse::kStatic && can) {
      simulated.push_back(&rule);
    } else {
      run_rule(rule, context, sink);
    }
  }
  if (simulated.empty()) return;
  context.start_simulation();
  std::vector<FindingSink> sinks(simulated.size());
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i = next++; i < simulated.size(); i = next++) run_rule(*simulated[i], context, sinks[i]);
  };
  const unsigned threads = std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), 4));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads && t < simulated.size(); ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();
  for (FindingSink& s : sinks) {
    for (Finding& f : s.findings()) sink.findings().push_back(std::move(f));
  }
}

}  // namespace

Check diagnostic_check(const std::string& code) {
  if (code == "CONF033" || code == "CONF043") return Check::kWeightResolution;
  if (code == "CONF028") return Check::kGangOversubscription;
  return Check::kConfig;
}

std::size_t LintReport::count_at_or_above(Severity level) const {
  return static_cast<std::size_t>(std::count_if(findings.begin(), findings.end(), [&](const Finding& f) {
    return !f.baselined && static_cast<int>(f.severity) <= static_cast<int>(level);
  }));
}

std::size_t LintReport::count(Severity level) const {
  return static_cast<std::size_t>(
      std::count_if(findings.begin(), findings.end(), [&](const Finding& f) { return f.severity == level; }));
}

namespace {

// Not a whole slurm.conf (CONF052 says what it is): its own diagnostics and nothing else.
LintReport lint_fragment(const engine::LoadedSite& site, const LintOptions& o, LintReport report) {
  FindingSink sink;
  if (o.input_diagnostics) surface_diagnostics(site.conf->diagnostics, site.conf->sources, sink);
  for (Finding& f : sink.findings()) report.findings.push_back(std::move(f));
  fingerprint(site, report.findings);
  return report;
}

// The load: the one given (diff runs both configs on one), the user's, or the cluster's own.
const engine::Workload* lint_load(const engine::LoadedSite& site, const LintOptions& o,
                                  engine::DefaultLoad& generated) {
  if (o.load) return o.load;
  if (site.has_workload) return &site.workload;
  generated = engine::default_load(site.site, o.default_load);
  return &generated.workload;
}

Scenario scenario_of(const engine::Workload& load, const LintOptions& o) {
  Scenario scenario;
  if (!o.load_description.empty())
    scenario.load = o.load_description;
  else if (!load.description.empty())
    scenario.load = load.description;
  else if (load.format == engine::WorkloadFormat::kSynthetic)
    scenario.load = "synthetic profile " + load.source;
  else
    scenario.load = "workload " + load.source;
  scenario.seed = load.seed;
  scenario.derived = !load.description.empty() && load.seed != 0;  // recorded traces have seed 0
  // A generated load (or its saved copy) stops where it was meant to; a recorded or
  // profiled load runs to its end.
  if (load.until != engine::kNoTime) scenario.end = load.until;
  scenario.jobs = load.jobs.size();
  return scenario;
}

// The findings as reported: suppressed and switched-off ones counted out, repeats of one cause
// gathered, severities overridden, in file order, fingerprinted and matched to the baseline.
void report_findings(const engine::LoadedSite& site, const LintOptions& o, const LintContext& context,
                     std::deque<Finding>& found, LintReport& report) {
  // Suppressions apply per place, before the places of one cause are gathered.
  std::deque<Finding> unsuppressed;
  for (Finding& f : found) {
    if (!selected(o, f.code) && !o.only.empty()) continue;
    if (context.suppressions().suppressed(f)) {
      ++report.suppressed;
      continue;
    }
    unsuppressed.push_back(std::move(f));
  }
  NameSet names;  // what messages quote per place: partitions and nodes
  for (const Partition& p : site.conf->config.partitions) names.insert(p.name);
  for (const Node& n : site.conf->config.nodes) names.insert(n.name);
  consolidate_repeats(unsuppressed, names);
  for (Finding& f : unsuppressed) {
    const auto level = o.overrides.apply(f);
    if (!level) {
      ++report.switched_off;
      continue;
    }
    f.severity = *level;
    report.findings.push_back(std::move(f));
  }
  std::stable_sort(report.findings.begin(), report.findings.end(), [](const Finding& a, const Finding& b) {
    return std::tie(a.loc.file, a.loc.line, a.loc.column, a.code, a.message) <
           std::tie(b.loc.file, b.loc.line, b.loc.column, b.code, b.message);
  });
  fingerprint(site, report.findings);
  for (Finding& f : report.findings) {
    f.baselined = o.baseline.count(f.fingerprint) > 0;
    report.baselined += f.baselined;
  }
}

}  // namespace

LintReport run_lint(const engine::LoadedSite& site, const LintOptions& o) {
  LintReport report;
  report.conf_path = site.conf->sources.path(site.conf->root);
  report.slurm_version = site.conf->config.version.to_string();
  if (site.conf->role != ConfRole::kWhole) return lint_fragment(site, o, std::move(report));
  engine::DefaultLoad generated;
  const engine::Workload* load = lint_load(site, o, generated);
  const Scenario scenario = scenario_of(*load, o);
  report.idle_partitions = load->idle_partitions;
  LintContext context(site, load->jobs.empty() ? nullptr : load, scenario, o.simulate);
  context.set_progress(o.progress);
  FindingSink sink;
  if (o.input_diagnostics) {
    surface_diagnostics(site.conf->diagnostics, site.conf->sources, sink);
    surface_diagnostics(site.diagnostics, site.sources, sink);
  }
  run_rules(context, o, sink, report);
  if (const Simulation* sim = context.simulation()) {
    report.scenario = sim->scenario;
    report.metrics = headline_metrics(sim->metrics);
    report.simulation = context.shared_simulation();
    report.resimulations = context.resimulations();
    report.coverage = engine::load_coverage(sim->result, site.conf->config);
    const LintContext static_context(site, nullptr, scenario, false);
    // A run cut short at the step limit says nothing a finding could rest on.
    std::string stopped;
    if (const auto cut = context.stopped_run()) {
      DiagnosticSink diagnostics;
      const std::string& variant = cut->variant;
      if (auto d = engine::step_limit_diagnostic(cut->stop, site, variant)) {
        diagnostics.report(std::move(*d));
        if (o.input_diagnostics) surface_diagnostics(diagnostics, site.conf->sources, sink);
      }
      stopped = engine::step_limit_subject(variant) +
                (cut->stop.stalled ? " stopped with its clock standing still" : " stopped at its step limit");
    }
    withhold_thin_evidence(*report.coverage, context, static_context, sink.findings(), report.skipped, stopped);
  }
  for (Finding& f : sink.findings()) judge_fix(f);  // a fix that changes nothing is not suggested
  report_findings(site, o, context, sink.findings(), report);
  return report;
}

Result<std::set<std::string>> read_baseline(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{fmt::format("cannot read baseline '{}'", path)};
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("findings") || !j["findings"].is_array()) {
    return Error{fmt::format("baseline '{}' is not the JSON output of `slurm-advisor lint --format json`", path)};
  }
  std::set<std::string> prints;
  for (const auto& f : j["findings"]) {
    if (f.is_object() && f.contains("fingerprint") && f["fingerprint"].is_string()) {
      prints.insert(f["fingerprint"].get<std::string>());
    }
  }
  return prints;
}

}  // namespace sa::rules
