// `slurm-advisor simulate` and `slurm-advisor sprio`.
#include "cli/cmd_simulate.h"

#include <unistd.h>
#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "cli/common.h"
#include "cli/engine_options.h"
#include "cli/site_inputs.h"
#include "engine/coverage.h"
#include "engine/metrics.h"
#include "report/coverage_report.h"
#include "report/sim_report.h"

namespace sa::cli {

namespace {

int run_simulate(const SiteOptions& so, const EngineOptions& e) {
  auto in = load_site(so);
  if (!in) return kExitUsage;
  engine::SimOptions opt;
  opt.bf_test_cost_us = e.bf_test_cost_us;
  opt.main_decision_cost_us = e.main_decision_cost_us;
  opt.partition_map = in->partition_map;
  if (in->workload.until != engine::kNoTime) opt.until = in->workload.until;  // a generated load's span
  if (!save_load(so, in->workload)) return kExitUsage;
  if (!e.until.empty()) {
    auto t = parse_time_option(e.until, first_submit(in->workload));
    if (!t) {
      std::cerr << "slurm-advisor: --until '" << e.until << "' is not a time (epoch, ISO or +DURATION)\n";
      return kExitUsage;
    }
    opt.until = *t;
  }
  opt.progress = progress_bar(e.progress);
  if (!apply_start(e, in->workload, opt)) return kExitUsage;
  engine::shed_workload_text(*in);  // (read; the run cites none of its lines)
  engine::Simulator sim(in->site, opt);
  const std::size_t jobs = in->workload.jobs.size();
  engine::SimResult result = sim.run(std::move(in->workload));  // (its jobs are not read again)
  add_step_limit_diagnostic(*in, result.step_limit_stop());
  const bool errors = report_site_diagnostics(*in);
  if (!e.trace.empty()) {
    std::ofstream out(e.trace);
    if (!out) {
      std::cerr << "slurm-advisor: cannot write " << e.trace << "\n";
      return kExitUsage;
    }
    report::write_trace_csv(out, result, in->site);
  }
  const engine::Metrics m = engine::compute_metrics(result, in->site);
  if (e.format == "json") {
    nlohmann::json j = report::metrics_json(m, result.counters);
    j["workload"] = {{"source", in->workload.source}, {"jobs", jobs}, {"skipped_lines", in->workload.skipped_lines}};
    j["timeline"] = report::timeline_json(result, *in->site.config);
    j["node_peaks"] = report::node_peaks_json(result, *in->site.config);
    j["load"] = report::coverage_json(engine::load_coverage(result, *in->site.config), in->workload.idle_partitions);
    if (!in->workload.description.empty()) j["workload"]["description"] = in->workload.description;
    if (result.step_limit) j["step_limit"] = {{"steps", result.steps}, {"stopped_at", result.end}};
    write_json(std::cout, j);
  } else {
    std::ostringstream text;
    if (!in->workload.description.empty()) text << "load: " << in->workload.description << "\n";
    report::print_coverage_text(text, engine::load_coverage(result, *in->site.config));
    report::print_metrics_text(text, m, result.counters);
    print_text(text.str());
  }
  return errors ? kExitFindings : kExitOk;
}

int run_sprio(const SiteOptions& so, const EngineOptions& e) {
  SiteOptions o = so;
  const bool snapshot_mode = !e.jobs.empty();
  if (snapshot_mode) {
    if (!o.paths.workload.empty() || !o.paths.synthetic.empty()) {
      std::cerr << "slurm-advisor: --jobs (a queue snapshot) and --workload/--synthetic (a simulation) exclude "
                   "each other\n";
      return kExitUsage;
    }
    o.paths.workload = e.jobs;
  }
  auto in = load_site(o);
  if (!in) return kExitUsage;
  auto at = parse_time_option(e.at, first_submit(in->workload));
  if (!at) {
    std::cerr << "slurm-advisor: --at '" << e.at << "' is not a time (epoch, ISO or +DURATION)\n";
    return kExitUsage;
  }
  engine::SimOptions opt;
  opt.bf_test_cost_us = e.bf_test_cost_us;
  opt.main_decision_cost_us = e.main_decision_cost_us;
  opt.partition_map = in->partition_map;
  engine::PendingSnapshot snap;
  nlohmann::json coverage;  // of the simulation (a queue snapshot simulates nothing)
  if (snapshot_mode) {
    std::int64_t calc_at = engine::kNoTime;
    if (!e.calc_at.empty()) {
      auto t = parse_time_option(e.calc_at, first_submit(in->workload));
      if (!t) {
        std::cerr << "slurm-advisor: --calc-at '" << e.calc_at << "' is not a time\n";
        return kExitUsage;
      }
      calc_at = *t;
    }
    engine::Simulator sim(in->site, opt);
    snap = sim.queue_snapshot(in->workload, *at, calc_at);
  } else {
    opt.until = *at;
    if (in->workload.until != engine::kNoTime) opt.until = std::min(*at, in->workload.until);
    opt.snapshot_at = {*at};
    opt.progress = progress_bar(e.progress);
    if (!apply_start(e, in->workload, opt)) return kExitUsage;
    engine::Simulator sim(in->site, opt);
    engine::SimResult r = sim.run(in->workload);
    add_step_limit_diagnostic(*in, r.step_limit_stop());
    if (!r.snapshots.empty()) snap = r.snapshots.back();
    snap.at = *at;
    coverage = report::coverage_json(engine::load_coverage(r, *in->site.config), in->workload.idle_partitions);
    if (e.format != "json") print_coverage_stderr(r, in->site);
  }
  const bool errors = report_site_diagnostics(*in);
  if (e.format == "json") {
    nlohmann::json j = report::sprio_json(snap, in->conf->config.priority);
    if (!coverage.is_null() && j.is_object()) j["load"] = coverage;
    write_json(std::cout, j);
  } else {
    std::ostringstream text;
    report::print_sprio_long(text, snap, in->conf->config.priority);
    print_text(text.str());
  }
  return errors ? kExitFindings : kExitOk;
}

}  // namespace

void register_simulate(CLI::App& app, std::function<int()>& runner) {
  auto so = std::make_shared<SiteOptions>();
  auto eo = std::make_shared<EngineOptions>();
  CLI::App* cmd = app.add_subcommand("simulate", "Run a recorded or synthetic load through the scheduler engine");
  add_site_options(*cmd, *so);
  add_save_load_option(*cmd, *so);
  add_engine_options(*cmd, *eo);
  cmd->add_option("--until", eo->until, "Stop at this time (epoch, ISO, or +DURATION after the first submit)");
  cmd->add_option("--trace", eo->trace, "Write the per-job trace CSV here");
  cmd->add_option("--progress", eo->progress, "Progress bar: auto (on a terminal), always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  cmd->callback([&runner, so, eo] { runner = [so, eo] { return run_simulate(*so, *eo); }; });
}

void register_sprio(CLI::App& app, std::function<int()>& runner) {
  auto so = std::make_shared<SiteOptions>();
  auto eo = std::make_shared<EngineOptions>();
  CLI::App* cmd = app.add_subcommand(
      "sprio",
      "Print what `sprio -l` would show at a time: from a queue snapshot (--jobs) or a simulation (--workload)");
  add_site_options(*cmd, *so);
  add_engine_options(*cmd, *eo);
  cmd->add_option("--jobs", eo->jobs,
                  "Queue snapshot: a `sacct -P` dump; jobs submitted by --at and not started "
                  "by then are pending, with usage as given by --usage");
  cmd->add_option("--calc-at", eo->calc_at,
                  "With --jobs: when slurmctld's last priority pass ran (default --at); jobs submitted since "
                  "keep their submit-time priority");
  cmd->add_option("--at", eo->at, "The time (epoch, ISO, or +DURATION after the first submit)")->required();
  cmd->add_option("--progress", eo->progress, "Progress bar: auto (on a terminal), always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  cmd->callback([&runner, so, eo] { runner = [so, eo] { return run_sprio(*so, *eo); }; });
}

}  // namespace sa::cli
