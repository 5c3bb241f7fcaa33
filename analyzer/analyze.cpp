#include "analyzer/analyze.h"

#include <fmt/format.h>
#include <exception>
#include <filesystem>
#include <new>

#include "analyzer/conf_loader.h"
#include "analyzer/include_files.h"
#include "analyzer/raw_config.h"
#include "analyzer/resolve.h"
#include "analyzer/text_util.h"
#include "analyzer/topology.h"

namespace sa {

namespace {

void resolve_all(const LoadedConf& loaded, Analysis& a, const AnalyzeOptions& options) {
  a.config.version = options.version;
  a.options = options;
  if (options.kind != ConfKind::kSlurm) {
    // topology.conf and gres.conf: key and syntax checks only; they do not feed the model yet.
    collect_raw_config(loaded, options.version, a.diagnostics,
                       options.kind == ConfKind::kGres ? "gres.conf" : "topology.conf");
    return;
  }
  auto raw = std::make_shared<RawConfig>(collect_raw_config(loaded, options.version, a.diagnostics));
  validate_scalar_types(*raw, options.version, a.diagnostics);
  validate_record_types(*raw, options.version, a.diagnostics);
  resolve_model(*raw, options, a.config, a.diagnostics);
  a.raw = std::move(raw);
}

// TopologyPlugin=topology/tree reads topology.conf from slurm.conf's directory
// (read_config.c get_extra_conf_path). It is opened as an Include is (include_files.h): the
// same roots, --include-map and symlink checks, so a hostile topology.conf symlink reads nothing
// outside them.
void load_topology(Analysis& a, const AnalyzeOptions& options) {
  if (!uses_topology_tree(a.config)) return;
  const std::string root_path = a.sources.path(a.root);
  IncludeFiles files(options.includes, root_path, a.sources);
  const std::filesystem::path target = std::filesystem::path(root_path).parent_path() / "topology.conf";
  const IncludeOpen opened = files.open(target);
  const Setting* plugin = a.config.setting("TopologyPlugin");
  if (opened.file == kNoFile && opened.kind == ErrorKind::kRefused) {
    a.diagnostics.error("CONF048", plugin->value_loc,
                        fmt::format("TopologyPlugin=topology/tree reads '{}', which is refused: {}; the simulation "
                                    "uses no topology",
                                    printable(target.string(), 200), opened.error),
                        "include roots: " + files.roots_text());
    return;
  }
  if (opened.file == kNoFile) {
    // slurmctld stops ("something wrong with opening/reading", _read_topo_file); a warning here:
    // a repository often keeps slurm.conf without the topology.conf deployed beside it.
    a.diagnostics.warning("CONF051", plugin->value_loc,
                          fmt::format("TopologyPlugin=topology/tree reads topology.conf beside slurm.conf, which "
                                      "cannot be read: {}; slurmctld would not start, and the simulation uses no "
                                      "topology",
                                      opened.error),
                          "put topology.conf beside slurm.conf");
    return;
  }
  LoadedConf loaded =
      load_conf_text(opened.file, a.sources, a.diagnostics, {options.version, options.includes, options.limits});
  read_topology(loaded, options.version, options.limits, a.config, a.diagnostics);
}

// What an unreadable Include may have defined is not certainly missing: say so, and keep the
// include error itself as the one error.
void soften_after_missing_includes(const LoadedConf& loaded, Analysis& a) {
  a.unreadable_includes = loaded.unreadable_includes;
  if (loaded.unreadable_includes == 0) return;
  a.diagnostics.downgrade_errors({"CONF017", "CONF030", "CONF047"},
                                 " (it may be defined in an Include file that could not be read)");
}

// Last line of defence: a bug in the analyzer must surface as a diagnostic, not a crash.
template <typename Fn>
void guarded(Analysis& a, Fn&& fn) {
  try {
    fn();
  } catch (const std::bad_alloc&) {
    a.diagnostics.error("CONF049", {a.root, 1, 1}, "this config is too large for the memory available",
                        "lower the limits with --limit (docs/limits.md) or give the tool more memory");
  } catch (const std::exception& e) {
    a.diagnostics.error("CONF000", {a.root, 1, 1},
                        fmt::format("internal error while analysing this file: {}", e.what()),
                        "please report this with the file that caused it");
  } catch (...) {
    a.diagnostics.error("CONF000", {a.root, 1, 1}, "internal error while analysing this file");
  }
}

// A file `lint` was given as slurm.conf that is another member of its family: one note, and
// for gres.conf and topology.conf the key checks of that file. Nothing is resolved, so lint
// runs no rule and no simulation on it.
void note_other_role(const LoadedConf& loaded, Analysis& a, const AnalyzeOptions& options) {
  const SourceLoc top{a.root, 1, 1};
  const char* hint = "lint the slurm.conf that reads it";
  switch (a.role) {
    case ConfRole::kGres:
    case ConfRole::kTopology: {
      const bool gres = a.role == ConfRole::kGres;
      a.diagnostics.note("CONF052", top,
                         gres ? "this file reads as gres.conf, not slurm.conf (every line names a GRES with Name= or "
                                "AutoDetect=): only its keys were checked"
                              : "this file reads as topology.conf, not slurm.conf (every line is a SwitchName or "
                                "Block line): only its keys were checked; a slurm.conf with "
                                "TopologyPlugin=topology/tree reads it from its own directory",
                         hint);
      collect_raw_config(loaded, options.version, a.diagnostics, gres ? "gres.conf" : "topology.conf");
      break;
    }
    case ConfRole::kCgroup:
      a.diagnostics.note("CONF052", top, "this file reads as cgroup.conf, not slurm.conf: it was not checked", hint);
      break;
    case ConfRole::kFragment:
      a.diagnostics.note("CONF052", top,
                         "this file has only node and partition lines (NodeName, PartitionName, GresTypes; no "
                         "ClusterName, no SlurmctldHost): "
                         "it reads as a part that a slurm.conf Includes, and lint checks and simulates a whole "
                         "configuration",
                         "lint the slurm.conf that Includes it");
      break;
    case ConfRole::kWhole:
      break;
  }
}

// Everything after the root file is in memory: includes, checks, resolution.
void analyze_root(Analysis& a, const AnalyzeOptions& options) {
  guarded(a, [&] {
    LoadedConf loaded =
        load_conf_text(a.root, a.sources, a.diagnostics, {options.version, options.includes, options.limits});
    if (options.sniff_role && options.kind == ConfKind::kSlurm) a.role = sniff_conf_role(loaded);
    if (a.role != ConfRole::kWhole) {
      a.config.version = options.version;
      a.options = options;
      note_other_role(loaded, a, options);
      return;
    }
    resolve_all(loaded, a, options);
    if (options.kind == ConfKind::kSlurm) load_topology(a, options);
    soften_after_missing_includes(loaded, a);
  });
}

}  // namespace

void resolve_model(const RawConfig& raw, const AnalyzeOptions& options, Config& config, DiagnosticSink& sink) {
  config.version = options.version;
  resolve_cluster(raw, config, sink);
  std::int64_t names_left = options.limits.hostlist_names;
  resolve_nodes(raw, config, sink, options.limits.nodes, &names_left);
  resolve_down_nodes(raw, config, sink, &names_left);
  resolve_nodesets(raw, config, sink, &names_left);
  resolve_partitions(raw, config, sink, &names_left);
  resolve_priority(raw, config, sink);
  resolve_scheduler(raw, config, sink);
  resolve_select(raw, config, sink);
  resolve_preempt(raw, config, sink);
  check_plugins(raw, config, sink);
  check_cross_settings(raw, config, sink);
  check_option_lists(raw, config, sink);
}

ConfKind guess_conf_kind(const std::string& path) {
  std::string name = std::filesystem::path(path).filename().string();
  if (name.find("gres") != std::string::npos) return ConfKind::kGres;
  if (name.find("topology") != std::string::npos) return ConfKind::kTopology;
  return ConfKind::kSlurm;
}

std::unique_ptr<Analysis> analyze_file(const std::string& path, const AnalyzeOptions& options) {
  auto a = std::make_unique<Analysis>();
  a->sources.set_limits(options.limits);
  auto root = a->sources.load(path);
  if (!root) {
    a->failure = root.error();
    return a;
  }
  a->root = *root;
  analyze_root(*a, options);
  return a;
}

std::unique_ptr<Analysis> analyze_text(const std::string& path, std::string text, const AnalyzeOptions& options) {
  auto a = std::make_unique<Analysis>();
  a->sources.set_limits(options.limits);
  a->root = a->sources.add(path, std::move(text));
  analyze_root(*a, options);
  return a;
}

}  // namespace sa
