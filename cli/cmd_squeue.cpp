// `slurm-advisor squeue`: the queue, with each job's Reason, at one moment of a simulation.
#include "cli/cmd_squeue.h"

#include <algorithm>
#include <iostream>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "analyzer/text_util.h"
#include "analyzer/values.h"
#include "cli/common.h"
#include "cli/engine_options.h"
#include "engine/coverage.h"
#include "engine/explain.h"
#include "report/coverage_report.h"
#include "report/explain_report.h"
#include "report/queue_view.h"

namespace sa::cli {

namespace {

int run_squeue(const SiteOptions& so, const EngineOptions& e) {
  auto in = load_site(so);
  if (!in) return kExitUsage;
  auto at = time_option("--at", e.at, in->workload);
  if (!at) return kExitUsage;
  engine::SimOptions opt;
  if (!engine_sim_options(e, *in, opt)) return kExitUsage;
  opt.until = *at;
  engine::Simulator sim(in->site, opt);
  engine::SimResult r = sim.run(in->workload);
  add_step_limit_diagnostic(*in, r.step_limit_stop());
  const bool errors = report_site_diagnostics(*in);
  const std::vector<report::QueueRow> rows = report::queue_at(r, in->site, *at);
  if (e.format == "json") {
    nlohmann::json j = report::squeue_json(rows, *at);
    if (j.is_object())
      j["load"] = report::coverage_json(engine::load_coverage(r, *in->site.config), in->workload.idle_partitions);
    write_json(std::cout, j);
  } else {
    print_coverage_stderr(r, in->site);  // stdout stays what squeue prints
    std::ostringstream text;
    report::print_squeue(text, rows);
    print_text(text.str());
  }
  return errors ? kExitFindings : kExitOk;
}

// " (its 57 jobs have ids 1 to 57)": what an id the load lacks could have been (the default
// load's size follows the cluster, so a small site's has no job 100).
std::string job_ids_text(const engine::Workload& w) {
  if (w.jobs.empty()) return " (it has no jobs)";
  std::uint32_t lo = w.jobs.front().id, hi = lo;
  for (const engine::JobRequest& j : w.jobs) {
    lo = std::min(lo, j.id);
    hi = std::max(hi, j.id);
  }
  if (lo == hi) return fmt::format(" (its only job id is {})", lo);
  return fmt::format(" (its {} jobs have ids {} to {})", w.jobs.size(), lo, hi);
}

// The job `text` names: a workload id (sacct's JobIDRaw, the SWF job number) or an array
// task as sacct's JobID and squeue print it (123_4). nullopt after saying why on stderr.
std::optional<std::uint32_t> resolve_job(const std::string& text, const engine::Workload& w) {
  const std::size_t bar = text.find('_');
  const auto array_id = parse_uint(std::string_view(text).substr(0, bar), IntWidth::k32);
  const auto task =
      bar == std::string::npos ? array_id : parse_uint(std::string_view(text).substr(bar + 1), IntWidth::k32);
  if (!array_id || !task) {
    std::cerr << "slurm-advisor: job '" << printable(text) << "' is neither a job id (123) nor an array task (123_4)\n";
    return std::nullopt;
  }
  if (bar == std::string::npos) return static_cast<std::uint32_t>(*array_id);
  for (const engine::JobRequest& j : w.jobs) {
    const engine::RequestExtras& x = j.extra.get();
    if (x.array_job_id == *array_id && x.array_task_id == *task) return j.id;
  }
  std::cerr << "slurm-advisor: array task " << *array_id << "_" << *task << " is not in the workload\n";
  return std::nullopt;
}

int run_explain(const SiteOptions& so, const EngineOptions& e, const std::string& job_text, bool what_ifs) {
  auto in = load_site(so);
  if (!in) return kExitUsage;
  const std::optional<std::uint32_t> resolved = resolve_job(job_text, in->workload);
  if (!resolved) return kExitUsage;
  const std::uint32_t job_id = *resolved;
  engine::SimOptions opt;
  if (!engine_sim_options(e, *in, opt)) return kExitUsage;
  if (!e.until.empty()) {
    auto until = time_option("--until", e.until, in->workload);
    if (!until) return kExitUsage;
    opt.until = *until;
  }
  const engine::Explanation x = engine::explain_job(in->site, opt, in->workload, job_id, what_ifs);
  add_step_limit_diagnostic(*in, x.step_limit);
  const bool errors = report_site_diagnostics(*in);
  if (!x.found) {
    std::cerr << "slurm-advisor: job " << job_id << " is not in the workload" << job_ids_text(in->workload) << "\n";
    return kExitUsage;
  }
  if (e.format == "json") {
    nlohmann::json j = report::explanation_json(x);
    if (j.is_object()) j["load"] = report::coverage_json(x.coverage, in->workload.idle_partitions);
    write_json(std::cout, j);
  } else {
    std::ostringstream text;
    report::print_explanation(text, x);
    report::print_coverage_text(text, x.coverage);
    print_text(text.str());
  }
  return errors ? kExitFindings : kExitOk;
}

}  // namespace

void register_explain(CLI::App& app, std::function<int()>& runner) {
  auto so = std::make_shared<SiteOptions>();
  auto eo = std::make_shared<EngineOptions>();
  auto id = std::make_shared<std::string>();
  auto no_what_if = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand(
      "explain",
      "Why a job waited in a simulation or replay: each Reason it showed, what lay behind it, and when it "
      "would have started with each blocker lifted");
  cmd->add_option(
         "job", *id,
         "The job id as in the workload (sacct's JobIDRaw), or an array task as sacct's JobID shows it (123_4)")
      ->required();
  add_site_options(*cmd, *so);
  add_engine_options(*cmd, *eo);
  cmd->add_option("--until", eo->until, "Stop the simulation here (epoch, ISO, or +DURATION after the first submit)");
  cmd->add_flag("--no-what-if", *no_what_if, "Skip the re-simulations with each blocker lifted");
  eo->progress = "never";
  cmd->callback([&runner, so, eo, id, no_what_if] {
    runner = [so, eo, id, no_what_if] { return run_explain(*so, *eo, *id, !*no_what_if); };
  });
}

void register_squeue(CLI::App& app, std::function<int()>& runner) {
  auto so = std::make_shared<SiteOptions>();
  auto eo = std::make_shared<EngineOptions>();
  CLI::App* cmd = app.add_subcommand(
      "squeue", "Print what `squeue -o '%i|%u|%a|%P|%q|%T|%r'` would show at a time of a simulation");
  add_site_options(*cmd, *so);
  add_engine_options(*cmd, *eo);
  cmd->add_option("--at", eo->at, "The time (epoch, ISO, or +DURATION after the first submit)")->required();
  cmd->add_option("--progress", eo->progress, "Progress bar: auto (on a terminal), always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  cmd->callback([&runner, so, eo] { runner = [so, eo] { return run_squeue(*so, *eo); }; });
}

}  // namespace sa::cli
