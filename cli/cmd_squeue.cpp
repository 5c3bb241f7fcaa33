// `slurm-advisor squeue`: the queue, with each job's Reason, at one moment of a simulation.
#include "cli/cmd_squeue.h"

#include <iostream>

#include "cli/common.h"
#include "cli/engine_options.h"
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
  const bool errors = report_site_diagnostics(*in);
  const std::vector<report::QueueRow> rows = report::queue_at(r, in->site, *at);
  if (e.format == "json") write_json(std::cout, report::squeue_json(rows, *at));
  else report::print_squeue(std::cout, rows);
  return errors ? kExitFindings : kExitOk;
}

}  // namespace

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
