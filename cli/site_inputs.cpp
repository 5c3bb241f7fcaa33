#include "cli/site_inputs.h"

#include <iostream>
#include <sstream>

#include "analyzer/printable.h"
#include "cli/common.h"
#include "engine/coverage.h"
#include "engine/workload/sacct_writer.h"
#include "engine/workload/trace_fields.h"
#include "report/coverage_report.h"
#include "report/diagnostic_printer.h"

namespace sa::cli {

void add_site_options(CLI::App& cmd, SiteOptions& o, bool workload_required) {
  cmd.add_option("slurm.conf", o.paths.conf, "The cluster's slurm.conf")->required();
  cmd.add_option("--assoc", o.paths.assoc, "Association tree: a `sacctmgr dump` file (without it: no fair share)");
  cmd.add_option("--qos", o.paths.qos, "QOS table: `sacctmgr show qos -P` output (default: Slurm's single `normal`)");
  cmd.add_option("--usage", o.paths.usage, "Starting usage: `sshare -a -l -P` or `sshare -a -P` output");
  cmd.add_option("--reservations", o.paths.reservations,
                 "Advanced reservations: `scontrol show reservation` output (or the same key=value records by hand)");
  cmd.add_option("--events", o.paths.events,
                 "Node DOWN/DRAIN periods: `sacctmgr show event -P` output or an events file (START END NODES STATE)");
  auto* w = cmd.add_option("--workload", o.paths.workload, "Recorded load: an SWF trace or a `sacct -P` dump");
  auto* s =
      cmd.add_option("--synthetic", o.paths.synthetic, "Synthetic load: a profile file (see corpora/*/profile.txt)");
  w->excludes(s);
  (void)workload_required;
  cmd.add_flag("--stop-on-error", o.paths.stop_on_error, "Stop reading the workload at its first malformed line");
  cmd.add_option("--seed", o.seed,
                 "Seed of the default synthetic load, used without --workload/--synthetic (default 1)");
  cmd.add_option("--days", o.days, "Days of arrivals in the default synthetic load (default 3)")
      ->check(CLI::Range(1, 90));
  cmd.add_option("--scale-to-site", o.scale_to_site,
                 "A recorded trace from another machine: scale job sizes to this site's CPUs and the arrivals to this "
                 "offered load (e.g. 0.9)")
      ->check(CLI::Range(0.01, 10.0))
      ->needs(w);
  cmd.add_option("--map-partition", o.partition_map,
                 "TRACE=SITE: run a trace's partition or queue in a site partition (repeatable; "
                 "unknown names go to the default partition)");
  cmd.add_option("--slurm-version", o.version, "Slurm version the config is read as (default 24.05)");
  add_input_options(cmd, o.input);
}

std::unique_ptr<SiteInputs> load_site(const SiteOptions& o, bool need_workload) {
  VersionOption vo{o.version};
  engine::SitePaths paths = o.paths;
  if (!vo.resolve(paths.version)) return nullptr;
  if (!o.input.resolve(paths.includes, paths.limits)) return nullptr;
  for (const std::string& m : o.partition_map) {
    auto eq = m.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == m.size()) {
      std::cerr << "slurm-advisor: --map-partition expects TRACE=SITE, got '" << m << "'\n";
      return nullptr;
    }
    paths.partition_map[m.substr(0, eq)] = m.substr(eq + 1);
  }
  paths.scale_to_site = o.scale_to_site;
  auto loaded = engine::load_site(paths);
  if (!loaded) {
    std::cerr << "slurm-advisor: " << loaded.error() << "\n";
    return nullptr;
  }
  if (need_workload && !(*loaded)->has_workload) engine::use_default_load(**loaded, o.default_load());
  return std::move(*loaded);
}

engine::DefaultLoadOptions SiteOptions::default_load() const {
  engine::DefaultLoadOptions d;
  d.seed = seed;
  d.duration = std::int64_t{days} * 86400;
  return d;
}

void add_save_load_option(CLI::App& cmd, SiteOptions& o) {
  cmd.add_option("--save-load", o.save_load,
                 "Write the jobs that were simulated as a `sacct -P` dump: `--workload FILE` replays them exactly");
}

bool save_load(const SiteOptions& o, const engine::Workload& load) {
  if (o.save_load.empty()) return true;
  std::ostringstream text;
  engine::write_sacct_load(text, load);
  return write_text(o.save_load, text.str());
}

void print_coverage_stderr(const engine::SimResult& result, const engine::Site& site) {
  std::ostringstream text;  // partition names and refusal details come from the inputs
  report::print_coverage_text(text, engine::load_coverage(result, *site.config));
  std::cerr << terminal_text(text.str());
}

void add_step_limit_diagnostic(SiteInputs& in, const std::optional<engine::StepLimitStop>& stop) {
  if (auto d = engine::step_limit_diagnostic(stop, in)) in.conf->diagnostics.report(std::move(*d));
}

bool report_site_diagnostics(const SiteInputs& in) {
  report::print_diagnostics_text(std::cerr, in.conf->diagnostics.sorted(), in.conf->sources, {false, false});
  report::print_diagnostics_text(std::cerr, in.diagnostics.sorted(), in.sources, {false, false});
  return in.conf->diagnostics.has_errors() || in.diagnostics.has_errors();
}

std::optional<std::int64_t> parse_time_option(const std::string& text, std::int64_t origin) {
  if (!text.empty() && text[0] == '+') {
    if (auto d = engine::parse_trace_duration(text.substr(1))) {
      // A bare number after '+' is seconds, not minutes.
      if (text.find_first_of(":-", 1) == std::string::npos) {
        try {
          return origin + std::stoll(text.substr(1));
        } catch (...) {
          return std::nullopt;
        }
      }
      return origin + *d;
    }
    return std::nullopt;
  }
  return engine::parse_trace_time(text);
}

}  // namespace sa::cli
