// `slurm-advisor diff`: lints two configs, simulates both on the identical load and seed,
// and reports what changes. The exit status follows --fail-on over the findings the new
// config adds, so CI can block a change that makes the policy worse.
#include "cli/cmd_diff.h"

#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "cli/common.h"
#include "cli/engine_options.h"
#include "cli/site_inputs.h"
#include "report/diff_report.h"
#include "report/diff_seeds_report.h"
#include "rules/analysis/diff.h"
#include "tune/seed_compare.h"

namespace sa::cli {

namespace {

struct DiffOptions {
  SiteOptions site;  // site.paths.conf is the old config
  std::string new_conf;
  std::string format = "text", fail_on = "error", output;
  bool no_simulate = false;
  bool quiet = false;
  std::string progress = "auto";
  std::optional<double> fail_on_regression;  // percent
  std::size_t seeds = 1;                     // > 1: every outcome over this many seeds, with intervals
};

int run_diff(const DiffOptions& o) {
  SiteOptions new_site = o.site;
  new_site.paths.conf = o.new_conf;
  const bool own_load = !o.site.paths.workload.empty() || !o.site.paths.synthetic.empty();
  if (o.seeds > 1 && (own_load || o.no_simulate)) {
    std::cerr << "slurm-advisor: --seeds runs the default load on each seed; it does not go with "
              << (o.no_simulate ? "--no-simulate"
                                : "--workload or --synthetic (a given load is the same on every seed)")
              << "\n";
    return kExitUsage;
  }
  auto before = load_site(o.site, !o.no_simulate);
  if (!before) return kExitUsage;
  auto after = load_site(new_site, false);
  if (!after) return kExitUsage;
  rules::LintOptions lo;
  lo.simulate = !o.no_simulate;
  lo.default_load = o.site.default_load();
  lo.progress = progress_bar(o.quiet ? "never" : o.progress);
  // One load for both: the old config's default load unless the user gave one.
  if (!own_load && lo.simulate) {
    lo.load = &before->workload;
    lo.load_description = before->workload.description + " (from the old config, used for both)";
  }
  if (lo.simulate && !save_load(o.site, before->workload)) return kExitUsage;
  const rules::LintReport old_report = rules::run_lint(*before, lo);
  const rules::LintReport new_report = rules::run_lint(*after, lo);
  rules::LintDiff diff = rules::diff_lints(old_report, new_report, before->conf->config, after->conf->config);
  // Outcomes, not only findings: without the flag a doubled p95 wait is still reported (and
  // keeps the HTML banner from green); with it, anything worse than PCT fails the diff.
  diff.regressions_gated = o.fail_on_regression.has_value();
  diff.regression_pct = o.fail_on_regression.value_or(100.0);
  diff.regressions = rules::outcome_regressions(diff, diff.regression_pct);
  const Severity threshold = *rules::parse_level(o.fail_on);
  std::optional<tune::SeedComparison> seeds;
  if (o.seeds > 1) seeds = tune::compare_over_seeds(*before, *after, o.site.default_load(), o.seeds);
  std::ostringstream text;
  if (o.format == "json") {
    nlohmann::json j = report::diff_json(diff, o.site.paths.conf, o.new_conf);
    if (seeds) j["seeds"] = report::seeds_json(*seeds);
    write_json(text, j);
  } else if (o.format == "html") {
    text << report::diff_html(diff, old_report, new_report, {o.site.paths.conf, o.new_conf}, threshold,
                              seeds ? report::seeds_html(*seeds) : std::string());
  } else {
    report::print_diff_text(text, diff, o.site.paths.conf, o.new_conf);
    if (seeds) report::print_seeds_text(text, *seeds);
  }
  if (!write_text(o.output, text.str(), o.format == "text")) return kExitUsage;
  // A run cut at the step limit leaves the outcomes unproven: the gate fails closed.
  if (diff.regressions_gated && (!diff.regressions.empty() || !diff.cut_runs.empty())) return kExitFindings;
  for (const rules::Finding* f : diff.worse()) {
    if (static_cast<int>(f->severity) <= static_cast<int>(threshold)) return kExitFindings;
  }
  return kExitOk;
}

}  // namespace

void register_diff(CLI::App& app, std::function<int()>& runner) {
  auto o = std::make_shared<DiffOptions>();
  CLI::App* cmd = app.add_subcommand("diff", "What deploying a new slurm.conf changes, simulated on the same load");
  add_site_options(*cmd, o->site, false);
  cmd->add_option("new.conf", o->new_conf, "The new slurm.conf")->required();
  cmd->add_option("--format", o->format, "Output format")->check(CLI::IsMember({"text", "json", "html"}));
  cmd->add_option("--output,-o", o->output, "Write the report here instead of stdout");
  cmd->add_option("--fail-on", o->fail_on, "Exit 1 when the new config adds a finding at or above this severity")
      ->check(CLI::IsMember({"error", "warning", "info"}));
  cmd->add_flag("--no-simulate", o->no_simulate, "Compare findings and settings only");
  add_save_load_option(*cmd, o->site);
  cmd->add_option("--fail-on-regression", o->fail_on_regression,
                  "Exit 1 when an outcome is worse by more than PCT percent on the same load: a partition's or size "
                  "class's p95 wait, jobs never started, an account's share further from its target; also when a run "
                  "stopped at the step limit, as its outcomes are not compared")
      ->check(CLI::Range(0.0, 10000.0));
  cmd->add_option("--progress", o->progress,
                  "Progress bar on stderr: auto (on a terminal, runs over a second), always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  cmd->add_flag("--quiet,-q", o->quiet, "No progress bar");
  cmd->add_option("--seeds", o->seeds,
                  "Also run both configs on this many seeds of the default load (--seed, --seed+1, ...) and report "
                  "each outcome as a mean with a 95% interval, and whether the change is significant (default 1: off)")
      ->check(CLI::Range(1, 100));
  cmd->footer(
      "The first positional is the old slurm.conf. The accounting files and the load apply to both.\n"
      "Exit status: 0 no new finding at or above --fail-on, 1 the new config adds one, 2 the tool could not run.");
  cmd->callback([o, &runner] { runner = [o] { return run_diff(*o); }; });
}

}  // namespace sa::cli
