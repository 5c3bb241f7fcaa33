#include "engine/site_loader.h"

#include <limits>

#include <fmt/format.h>

#include "analyzer/accounting_readers.h"
#include "analyzer/assoc_links.h"
#include "analyzer/assoc_reader.h"
#include "analyzer/node_events_reader.h"
#include "analyzer/reservation_reader.h"
#include "analyzer/text_util.h"
#include "analyzer/values.h"
#include "engine/workload/scale.h"
#include "engine/workload/synthetic.h"

namespace sa::engine {

namespace {

// Reads the optional accounting and calendar files into `in`; an error string on failure.
std::string load_accounting(const SitePaths& p, LoadedSite& in) {
  if (!p.assoc.empty()) {
    auto tree = read_assoc_dump(p.assoc, in.sources, in.diagnostics);
    if (!tree) return tree.error();
    in.tree = std::move(*tree);
  }
  if (!p.qos.empty()) {
    auto qos = read_qos_table(p.qos, in.sources, in.diagnostics);
    if (!qos) return qos.error();
    in.site.qos = std::move(*qos);
  }
  if (in.tree) {
    in.site.tree = &*in.tree;
    if (in.conf) {
      check_accounting_links(in.conf->config, *in.tree, in.site.qos, in.conf->diagnostics, in.diagnostics);
    }
  }
  if (!p.usage.empty()) {
    if (!in.tree) return "--usage needs --assoc (usage belongs to associations)";
    auto usage = read_sshare_usage(p.usage, in.sources, in.diagnostics);
    if (!usage) return usage.error();
    in.site.initial_usage = usage_by_association(*in.tree, *usage, in.diagnostics);
  }
  if (!p.reservations.empty()) {
    auto resv = read_reservations(p.reservations, in.sources, in.diagnostics, p.limits);
    if (!resv) return resv.error();
    in.site.reservations = std::move(*resv);
  }
  if (!p.events.empty()) {
    auto events = read_node_events(p.events, in.sources, in.diagnostics, p.limits);
    if (!events) return events.error();
    in.site.node_events = std::move(*events);
  }
  return {};
}

std::string load_workload(const SitePaths& p, LoadedSite& in) {
  if (!p.workload.empty()) {
    in.workload_files.first = static_cast<FileId>(in.sources.file_count());
    auto w = read_workload(p.workload, in.sources, in.diagnostics, {p.stop_on_error});
    in.workload_files.second = static_cast<FileId>(in.sources.file_count());
    if (!w) return w.error();
    in.workload = std::move(*w);
    in.workload.jobs.shrink_to_fit();  // the readers grow it by doubling; it lives as long as the run
    if (p.scale_to_site > 0) scale_to_site(in.workload, in.conf->config, p.scale_to_site);
    add_assumed_qos(in.site, in.workload);  // a saved default load names them
    in.has_workload = true;
  } else if (!p.synthetic.empty()) {
    auto profile = read_profile_file(p.synthetic, in.sources, in.diagnostics, p.limits);
    if (!profile) return profile.error();
    in.workload = generate(*profile, in.conf->config, in.site.tree);
    for (const Reservation& r : in.workload.reservations) in.site.reservations.push_back(r);
    in.has_workload = true;
  }
  return {};
}

// A recurring reservation that repeats more often before the load ends than the limit allows
// opens only its first windows; say so where it is defined.
void check_reservation_windows(LoadedSite& in) {
  const std::int64_t horizon = reservation_horizon(in.workload, kNoTime);
  for (const Reservation& r : in.site.reservations) {
    const std::int64_t windows = ReservationBook::windows_until(r, horizon);
    if (windows <= in.site.max_reservation_windows) continue;
    in.diagnostics.warning("WORK006", r.loc,
                           fmt::format("reservation '{}' repeats {} times before the load ends; only its first {} "
                                       "windows are simulated",
                                       printable(r.name), windows, in.site.max_reservation_windows),
                           "raise the limit with --limit reservation-windows=N");
  }
}

}  // namespace

void use_default_load(LoadedSite& in, const DefaultLoadOptions& options) {
  DefaultLoad d = default_load(in.site, options);
  in.workload = std::move(d.workload);
  add_assumed_qos(in.site, in.workload);
  in.has_workload = true;
  check_reservation_windows(in);
}

Result<std::unique_ptr<LoadedSite>> load_site(const SitePaths& p) {
  auto in = std::make_unique<LoadedSite>();
  in->sources.set_limits(p.limits);
  if (!p.conf.empty()) {
    in->conf = analyze_file(p.conf, {p.version, ConfKind::kSlurm, p.includes, p.limits, p.sniff_role});
    if (!in->conf->ok()) return Error{in->conf->failure};
    in->site.config = &in->conf->config;
  } else if (!p.workload.empty() || !p.synthetic.empty()) {
    return Error{"a workload needs a slurm.conf to run on"};
  }
  in->partition_map = p.partition_map;
  if (std::string e = load_accounting(p, *in); !e.empty()) return Error{e};
  in->site.max_reservation_windows = p.limits.reservation_windows;
  in->site.max_sim_steps = p.limits.sim_steps;
  if (std::string e = load_workload(p, *in); !e.empty()) return Error{e};
  if (in->has_workload) check_reservation_windows(*in);
  return in;
}

std::string step_limit_text(const StepLimitStop& stop, std::int64_t limit, const std::string& subject) {
  if (stop.stalled) {
    return fmt::format(
        "{} stopped {} into the load: its clock stood still for millions of events, which only a loop in the engine "
        "does; {} jobs were pending, {} running and {} not yet submitted",
        subject, format_duration(stop.end - stop.start), stop.pending, stop.running, stop.unsubmitted);
  }
  return fmt::format(
      "{} stopped at its limit of {} scheduling steps, {} into the load: {} jobs were pending, {} running and {} not "
      "yet submitted",
      subject, limit, format_duration(stop.end - stop.start), stop.pending, stop.running, stop.unsubmitted);
}

std::string step_limit_subject(const std::string& variant) {
  return variant.empty() ? "the simulation" : "the re-simulation with " + variant;
}

std::optional<Diagnostic> step_limit_diagnostic(const std::optional<StepLimitStop>& stop, const LoadedSite& site,
                                                const std::string& variant) {
  if (!stop || !site.conf) return std::nullopt;
  Diagnostic d;
  d.code = "WORK008";
  d.severity = Severity::kWarning;
  d.loc = {site.conf->root, 1, 1};
  d.message =
      step_limit_text(*stop, site.site.max_sim_steps, step_limit_subject(variant)) +
      (stop->stalled ? ", and what it reports covers only that span" : "; what it reports covers only that span");
  if (stop->stalled) {
    d.hint = std::string(kStalledHint);
    return d;
  }
  d.hint = fmt::format(
      "a deep queue walked often takes most steps (every main-loop run and backfill cycle walks the whole queue); "
      "if the run is meant to be this long, raise the limit with --limit sim-steps={}",
      site.site.max_sim_steps > std::numeric_limits<std::int64_t>::max() / 4 ? std::numeric_limits<std::int64_t>::max()
                                                                             : site.site.max_sim_steps * 4);
  return d;
}

void shed_workload_text(LoadedSite& site, std::size_t min_bytes) {
  for (FileId id = site.workload_files.first; id < site.workload_files.second; ++id) {
    if (site.sources.file(id).content.size() < min_bytes) continue;
    std::vector<int> cited;
    for (const Diagnostic& d : site.diagnostics.all())
      if (d.loc.file == id) cited.push_back(d.loc.line);
    site.sources.keep_lines(id, std::move(cited));
  }
}

}  // namespace sa::engine
