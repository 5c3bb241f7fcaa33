#include "cli/site_inputs.h"

#include <iostream>

#include "analyzer/accounting_readers.h"
#include "analyzer/assoc_links.h"
#include "analyzer/assoc_reader.h"
#include "analyzer/node_events_reader.h"
#include "analyzer/reservation_reader.h"
#include "cli/common.h"
#include "engine/workload/synthetic.h"
#include "engine/workload/trace_fields.h"
#include "report/diagnostic_printer.h"

namespace sa::cli {

void add_site_options(CLI::App& cmd, SiteOptions& o, bool workload_required) {
  cmd.add_option("slurm.conf", o.conf, "The cluster's slurm.conf")->required();
  cmd.add_option("--assoc", o.assoc, "Association tree: a `sacctmgr dump` file (without it: no fair share)");
  cmd.add_option("--qos", o.qos, "QOS table: `sacctmgr show qos -P` output (default: Slurm's single `normal`)");
  cmd.add_option("--usage", o.usage, "Starting usage: `sshare -a -l -P` or `sshare -a -P` output");
  cmd.add_option("--reservations", o.reservations,
                 "Advanced reservations: `scontrol show reservation` output (or the same key=value records by hand)");
  cmd.add_option("--events", o.events,
                 "Node DOWN/DRAIN periods: `sacctmgr show event -P` output or an events file (START END NODES STATE)");
  auto* w = cmd.add_option("--workload", o.workload, "Recorded load: an SWF trace or a `sacct -P` dump");
  auto* s = cmd.add_option("--synthetic", o.synthetic, "Synthetic load: a profile file (see corpora/*/profile.txt)");
  w->excludes(s);
  (void)workload_required;
  cmd.add_flag("--stop-on-error", o.stop_on_error, "Stop reading the workload at its first malformed line");
  cmd.add_option("--map-partition", o.partition_map,
                 "TRACE=SITE: run a trace's partition or queue in a site partition (repeatable; "
                 "unknown names go to the default partition)");
  cmd.add_option("--slurm-version", o.version, "Slurm version the config is read as (default 24.05)");
}

std::unique_ptr<SiteInputs> load_site(const SiteOptions& o, bool need_workload) {
  auto in = std::make_unique<SiteInputs>();
  VersionOption vo{o.version};
  SlurmVersion version;
  if (!vo.resolve(version)) return nullptr;
  in->conf = analyze_file(o.conf, {version, 16, ConfKind::kSlurm});
  if (!in->conf->ok()) {
    std::cerr << "slurm-advisor: " << in->conf->failure << "\n";
    return nullptr;
  }
  in->site.config = &in->conf->config;
  if (!o.assoc.empty()) {
    auto tree = read_assoc_dump(o.assoc, in->sources, in->diagnostics);
    if (!tree) {
      std::cerr << "slurm-advisor: " << tree.error() << "\n";
      return nullptr;
    }
    in->tree = std::move(*tree);
  }
  if (!o.qos.empty()) {
    auto qos = read_qos_table(o.qos, in->sources, in->diagnostics);
    if (!qos) {
      std::cerr << "slurm-advisor: " << qos.error() << "\n";
      return nullptr;
    }
    in->site.qos = std::move(*qos);
  }
  if (in->tree) {
    in->site.tree = &*in->tree;
    check_accounting_links(in->conf->config, *in->tree, in->site.qos, in->diagnostics);
  }
  if (!o.usage.empty()) {
    if (!in->tree) {
      std::cerr << "slurm-advisor: --usage needs --assoc (usage belongs to associations)\n";
      return nullptr;
    }
    auto usage = read_sshare_usage(o.usage, in->sources, in->diagnostics);
    if (!usage) {
      std::cerr << "slurm-advisor: " << usage.error() << "\n";
      return nullptr;
    }
    in->site.initial_usage = usage_by_association(*in->tree, *usage, in->diagnostics);
  }
  if (!o.reservations.empty()) {
    auto resv = read_reservations(o.reservations, in->sources, in->diagnostics);
    if (!resv) {
      std::cerr << "slurm-advisor: " << resv.error() << "\n";
      return nullptr;
    }
    in->site.reservations = std::move(*resv);
  }
  if (!o.events.empty()) {
    auto events = read_node_events(o.events, in->sources, in->diagnostics);
    if (!events) {
      std::cerr << "slurm-advisor: " << events.error() << "\n";
      return nullptr;
    }
    in->site.node_events = std::move(*events);
  }
  for (const std::string& m : o.partition_map) {
    auto eq = m.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == m.size()) {
      std::cerr << "slurm-advisor: --map-partition expects TRACE=SITE, got '" << m << "'\n";
      return nullptr;
    }
    in->partition_map[m.substr(0, eq)] = m.substr(eq + 1);
  }
  if (!o.workload.empty()) {
    auto w = engine::read_workload(o.workload, in->sources, in->diagnostics, {o.stop_on_error});
    if (!w) {
      std::cerr << "slurm-advisor: " << w.error() << "\n";
      return nullptr;
    }
    in->workload = std::move(*w);
  } else if (!o.synthetic.empty()) {
    auto p = engine::read_profile_file(o.synthetic, in->sources, in->diagnostics);
    if (!p) {
      std::cerr << "slurm-advisor: " << p.error() << "\n";
      return nullptr;
    }
    in->workload = engine::generate(*p, in->conf->config, in->site.tree);
    for (const Reservation& r : in->workload.reservations) in->site.reservations.push_back(r);
  } else if (need_workload) {
    std::cerr << "slurm-advisor: give a load with --workload FILE or --synthetic PROFILE\n";
    return nullptr;
  }
  return in;
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
