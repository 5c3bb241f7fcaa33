// `slurm-advisor tune`: searches a grid of settings for the admin's goals, every candidate
// simulated on the same K seeds of the load, and recommends the change as a diff of slurm.conf.
// Exit status: 0 the recommended candidate meets every goal, 1 none does, 2 bad input.
#include "cli/cmd_tune.h"

#include <iostream>
#include <memory>
#include <sstream>
#include <thread>

#include "cli/common.h"
#include "cli/site_inputs.h"
#include "cli/tune_options.h"
#include "engine/workload/default_load.h"
#include "report/tune_html.h"
#include "tune/search.h"
#include "tune/tune_report.h"

namespace sa::cli {

namespace {

// Parses each text with `parse`, printing every error with a caret; false when any failed.
template <typename T, typename Parse>
bool parse_each(const std::vector<std::string>& texts, const char* flag, Parse parse, std::vector<T>& out) {
  bool ok = true;
  for (const std::string& text : texts) {
    auto parsed = parse(text);
    if (auto* e = std::get_if<tune::SpecError>(&parsed)) {
      std::cerr << "slurm-advisor: " << e->render(flag, text) << "\n";
      ok = false;
    } else {
      out.push_back(std::get<T>(std::move(parsed)));
    }
  }
  return ok;
}

bool parse_spec(const TuneOptions& o, tune::SearchSpec& spec) {
  const bool goals = parse_each(o.goals, "--goal", tune::parse_goal, spec.goals);
  const bool vary = parse_each(o.vary, "--vary", tune::parse_vary, spec.dims);
  spec.max_candidates = o.max_candidates;
  spec.jobs = o.jobs;
  return goals && vary;
}

// The K loads every candidate runs: the default load at seeds seed..seed+K-1, or the user's
// own load once (a recorded or profiled load does not change with a seed).
std::string build_loads(const TuneOptions& o, const SiteInputs& in, tune::SearchSite& s) {
  if (in.has_workload) {
    if (o.seeds > 1) std::cerr << "slurm-advisor: a given load is the same on every seed; running it once\n";
    s.loads.push_back(in.workload);
    return in.workload.description;
  }
  std::string description;
  for (std::size_t k = 0; k < o.seeds; ++k) {
    engine::DefaultLoadOptions d = o.site.default_load();
    d.seed = o.site.seed + k;
    engine::DefaultLoad load = engine::default_load(in.site, d);
    if (k == 0) description = load.description;
    s.loads.push_back(std::move(load.workload));
  }
  return description +
         (o.seeds > 1 ? " (seeds " + std::to_string(o.site.seed) + "-" + std::to_string(o.site.seed + o.seeds - 1) + ")"
                      : "");
}

}  // namespace

int setup_session(TuneOptions& o, TuneSession& t) {
  if (!parse_spec(o, t.spec) || !merge_spec_file(o.search, o.seeds, t.spec, t.spec_text)) return kExitUsage;
  t.in = load_site(o.site, false);
  if (!t.in) return kExitUsage;
  tune::SearchSite& s = t.site;
  s.base = t.in.get();
  s.conf_path = o.site.paths.conf;
  s.conf_text = t.in->conf->sources.file(t.in->conf->root).content;
  s.analyze = {t.in->conf->config.version, ConfKind::kSlurm, {}, {}};
  if (!o.site.input.resolve(s.analyze.includes, s.analyze.limits)) return kExitUsage;
  t.load = build_loads(o, *t.in, s);
  return kExitOk;
}

namespace {

// Nothing to recommend: usually a misspelt key, which the analyzer refuses in every candidate.
int refused_every_candidate(const tune::CandidateResult& first) {
  std::cerr << "slurm-advisor: the analyzer refused every candidate; the first: " << *first.skip_reason << "\n";
  return kExitUsage;
}

}  // namespace

int check_plan(const tune::SearchPlan& plan) {
  return plan.runnable().size() > 1 ? kExitOk : refused_every_candidate(plan.candidates[1]);
}

int report_outcome(const TuneOptions& o, const TuneSession& t, const Result<tune::SearchOutcome>& outcome) {
  if (!outcome) {
    std::cerr << "slurm-advisor: " << outcome.error() << "\n";
    return kExitUsage;
  }
  return report_outcome(o, t, *outcome);
}

int report_outcome(const TuneOptions& o, const TuneSession& t, const tune::SearchOutcome& outcome) {
  const tune::ReportContext ctx{&t.spec, o.site.paths.conf, t.load};
  std::ostringstream text;
  if (o.format == "json") {
    write_json(text, tune::tune_json(outcome, ctx));
  } else if (o.format == "html") {
    text << report::tune_html(outcome, ctx);
  } else {
    tune::print_tune_text(text, outcome, ctx);
  }
  if (!write_text(o.output, text.str(), o.format == "text")) return kExitUsage;
  const tune::CandidateResult* r = outcome.recommended();
  return r && r->passes == t.spec.goals.size() ? kExitOk : kExitFindings;
}

bool uses_halving(const TuneOptions& o, const TuneSession& t) {
  return tune::resolve_strategy(strategy(o.search), t.spec) == tune::Strategy::kHalving;
}

int run_halving(const TuneOptions& o, const TuneSession& t) {
  auto outcome = tune::run_halving(t.site, t.spec, halving(o.search, o.site.seed));
  if (!outcome) {
    std::cerr << "slurm-advisor: " << outcome.error() << "\n";
    return kExitUsage;
  }
  if (outcome->ranked.empty()) {
    // Refused by the analyzer, or (after the runs) every simulation stopped at the step limit.
    std::cerr << "slurm-advisor: no candidate could be ranked; the first: " << *outcome->skipped.front().skip_reason
              << "\n";
    return kExitUsage;
  }
  return report_outcome(o, t, *outcome);
}

void add_tune_options(CLI::App* cmd, TuneOptions* o) {
  add_site_options(*cmd, o->site, false);
  // Required unless --merge DIR, which reads them from the run's manifest (tune_exec.cpp).
  cmd->get_option("slurm.conf")->required(false);
  cmd->add_option("--goal,-g", o->goals,
                  "A goal METRIC[SELECTOR] OP VALUE, e.g. 'wait_p95[partition=batch]<=2h' (repeatable)");
  cmd->add_option("--vary", o->vary,
                  "A setting and its values: KEY=a,b,c or KEY=lo..hi[:log|:int][:N] (repeatable); KEY is a "
                  "slurm.conf key, SchedulerParameters.OPTION (or bf_OPTION), Partition[P].FIELD or QOS[Q].FIELD");
  CLI::Option* seeds =
      cmd->add_option("--seeds", o->seeds, "Seeds of the default load every candidate runs on (default 5)")
          ->check(CLI::Range(1, 100));
  add_tune_search_options(*cmd, o->search, seeds);
  cmd->add_option("--jobs,-j", o->jobs, "Simulations run at once on this machine (default 1)")
      ->check(CLI::Range(1u, 256u));
  cmd->add_option("--max-candidates", o->max_candidates,
                  "The largest grid (a larger one is an error with --search grid, sampled with auto) and the "
                  "largest --sample (default 500)")
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--format", o->format, "Output format")->check(CLI::IsMember({"text", "json", "html"}));
  cmd->add_option("--output,-o", o->output, "Write the report here instead of stdout");
  add_exec_options(*cmd, o->exec);
}

void register_tune(CLI::App& app, std::function<int()>& runner) {
  auto o = std::make_shared<TuneOptions>();
  CLI::App* cmd = app.add_subcommand("tune", "Search settings for goals (waits, shares, utilisation) across seeds");
  add_tune_options(cmd, o.get());
  cmd->footer(
      "Every candidate is the slurm.conf text with the values replaced, read again by the analyzer: a "
      "combination it refuses is skipped with its message. Goal values are means over the seeds with a 95% "
      "interval. A space too large for the grid is sampled and searched by successive halving (--search).\nExit "
      "status: 0 the recommended candidate meets every goal, 1 none does, 2 bad input.");
  cmd->callback([o, cmd, &runner] { runner = [o, cmd] { return run_tune(*o, *cmd); }; });
}

}  // namespace sa::cli
