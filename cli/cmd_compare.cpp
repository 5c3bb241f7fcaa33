// `slurm-advisor compare`: reads both runs (engine/fidelity_input.h), compares them
// (engine/fidelity.h) and prints the report (report/compare_report.h). Input problems are
// diagnostics with file:line on stderr; a missing file is a usage failure (exit 2).
#include "cli/cmd_compare.h"

#include <iostream>
#include <memory>
#include <sstream>

#include "cli/common.h"
#include "engine/fidelity_input.h"
#include "report/compare_report.h"
#include "report/diagnostic_printer.h"

namespace sa::cli {

namespace {

struct CompareOptions {
  std::string real, sim, format = "text", output;
};

int run_compare(const CompareOptions& o) {
  SourceManager sources;
  DiagnosticSink sink;
  Result<engine::Run> real = engine::read_run(o.real, sources, sink);
  Result<engine::Run> sim = real ? engine::read_run(o.sim, sources, sink) : Result<engine::Run>(Error{});
  if (!real || !sim) {
    std::cerr << "slurm-advisor: " << (real ? sim.error() : real.error()) << "\n";
    return kExitUsage;
  }
  const engine::Fidelity f = engine::compare_runs(*real, *sim);
  if (f.common == 0 && !real->jobs.empty() && !sim->jobs.empty()) {
    // Both files held jobs, so the ids do not match: most likely a trace of another load.
    const FileId file = static_cast<FileId>(sources.file_count()) - 1;
    sink.error("WORK003", {file, 1, 1}, "no job id of this run appears in " + o.real,
               "simulate the recorded load itself: simulate slurm.conf --workload " + o.real + " --trace FILE");
  }
  report::print_diagnostics_text(std::cerr, sink.sorted(), sources, {false, false});
  if (f.common == 0) return kExitFindings;
  std::ostringstream text;
  const report::CompareSources names{o.real, o.sim};
  if (o.format == "json")
    write_json(text, report::compare_json(f, names));
  else
    report::print_compare_text(text, f, names);
  if (!write_text(o.output, text.str(), o.format == "text")) return kExitUsage;
  return sink.has_errors() ? kExitFindings : kExitOk;
}

}  // namespace

void register_compare(CLI::App& app, std::function<int()>& runner) {
  auto o = std::make_shared<CompareOptions>();
  CLI::App* cmd = app.add_subcommand(
      "compare", "Compare a simulated (or second real) run with a recorded one: waits by group, makespan, placements");
  cmd->add_option("real", o->real, "The reference run: a `sacct -P` dump (SWF also read)")->required();
  cmd->add_option("sim", o->sim, "The run to judge: a `simulate --trace` CSV or another sacct dump")->required();
  cmd->add_option("--format", o->format, "Output: text or json")->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("--output,-o", o->output, "Write the report here instead of stdout");
  cmd->footer(
      "Jobs are matched by id; groups (partition, QOS, account, CPU size class) follow the real run.\n"
      "Exit status: 0 compared, 1 an input had errors or no job in common, 2 a file could not be read.");
  cmd->callback([o, &runner] { runner = [o] { return run_compare(*o); }; });
}

}  // namespace sa::cli
