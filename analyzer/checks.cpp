// Plugin names and cross-setting checks: what slurmctld refuses at start-up once every key
// parsed, plus the silent combinations an admin would want to hear about.
#include <fmt/format.h>
#include <set>

#include "analyzer/option_words.h"
#include "analyzer/resolve.h"
#include "analyzer/text_util.h"
#include "analyzer/value_reader.h"

namespace sa {

namespace {

// TRES that Slurm always tracks, whatever AccountingStorageTRES says.
const std::set<std::string> kDefaultTres = {"cpu", "mem", "energy", "node", "billing", "fs/disk", "vmem", "pages"};

void check_tres_listed(const std::vector<TresWeight>& weights, const Config& config, SourceLoc loc,
                       const std::string& key, DiagnosticSink& sink) {
  std::set<std::string> tracked = kDefaultTres;
  for (const std::string& t : split(to_lower(config.accounting.tres), ',')) tracked.insert(std::string(trim(t)));
  for (const TresWeight& w : weights) {
    if (tracked.count(w.tres)) continue;
    // "gres/gpu" also covers typed "gres/gpu:a100" only when listed; the plain type must be.
    sink.error("CONF040", loc,
               fmt::format("{} weights TRES '{}', which AccountingStorageTRES does not track; slurmctld "
                           "refuses to start",
                           key, w.tres),
               fmt::format("add {} to AccountingStorageTRES", w.tres));
  }
}

// A partition's own SelectTypeParameters (cons_common _setup_cr_type): ignored unless the
// cluster's are CR_Core or CR_Socket; where they apply without _Memory under a cluster that
// counts memory, that partition's jobs take no memory from their nodes.
void check_partition_select(const Config& config, DiagnosticSink& sink) {
  const SelectSettings& sel = config.select;
  const bool applies = config.partition_select_allowed();
  for (const Partition& p : config.partitions) {
    if (!p.select_own) continue;
    auto written = p.raw.find("SelectTypeParameters");
    const std::string value = written != p.raw.end() ? written->second : std::string("its own");
    if (!applies) {
      sink.warning("CONF053", p.loc,
                   fmt::format("partition '{}' sets SelectTypeParameters={}, which slurmctld ignores: the cluster's "
                               "{} is neither CR_Core nor CR_Socket",
                               printable(p.name), printable(value), sel.parameters),
                   "remove it, or set the cluster's SelectTypeParameters to CR_Core or CR_Socket");
    } else if (sel.memory && !p.select_memory) {
      sink.warning("CONF053", p.loc,
                   fmt::format("partition '{}' sets SelectTypeParameters={} under the cluster's {}: its jobs take "
                               "no memory from their nodes, so jobs of other partitions on the same nodes are not "
                               "kept from the memory they use",
                               printable(p.name), printable(value), sel.parameters),
                   fmt::format("use {}_Memory unless memory there is meant to be unaccounted",
                               p.select_socket ? "CR_Socket" : "CR_Core"));
    }
  }
}

std::string plugin_prefix(const std::vector<const OptionWord*>& words) {
  for (const OptionWord* w : words) {
    auto slash = w->word.find('/');
    if (slash != std::string::npos) return w->word.substr(0, slash + 1);
  }
  return {};
}

}  // namespace

void check_plugins(const RawConfig& raw, const Config& config, DiagnosticSink& sink) {
  const OptionWords& words = OptionWords::builtin();
  for (const auto& [lower, setting] : raw.scalars) {
    if (lower == "routeplugin" && config.version.at_least(23, 11)) {
      // From 23.11 nothing loads a route plugin; the value is only searched for "tree".
      bool tree = ifind(setting.value, "tree") != std::string::npos;
      sink.warning("CONF020", setting.value_loc,
                   tree ? "RoutePlugin is obsolete since Slurm 23.11; a value containing 'tree' is read as "
                          "TopologyParam=RouteTree"
                        : fmt::format("RoutePlugin is obsolete since Slurm 23.11 and '{}' has no effect",
                                      printable(setting.value)),
                   tree ? "write TopologyParam=RouteTree instead" : "remove it");
      continue;
    }
    std::string family = "plugin:" + setting.key;
    std::vector<const OptionWord*> all = words.family_any(family);
    if (all.empty()) continue;
    std::string prefix = plugin_prefix(all);
    std::vector<std::string> valid;
    for (const OptionWord* w : words.family(family, config.version)) valid.push_back(w->word);
    for (const std::string& item : split(setting.value, ',')) {
      std::string name(trim(item));
      // Slurm treats any value containing "none" as "no plugin" for these keys.
      if (name.empty() || ifind(name, "none") != std::string::npos) continue;
      if (name.find('/') == std::string::npos) name = prefix + name;
      const OptionWord* known = words.find(family, name);
      if (known && known->covers(config.version)) continue;
      std::string message;
      if (known && config.version < known->since) {
        message =
            fmt::format("plugin '{}' for {} needs Slurm {} or later", name, setting.key, known->since.to_string());
      } else if (known) {
        message = fmt::format(
            "plugin '{}' for {} was removed after Slurm {}; Slurm {} cannot load it and "
            "refuses to start",
            name, setting.key, known->until.to_string(), config.version.to_string());
      } else {
        std::string guess = closest_match(name, valid);
        message = fmt::format("unknown plugin '{}' for {}; slurmctld cannot load it{}", printable(name), setting.key,
                              guess.empty() ? "" : fmt::format("; did you mean '{}'?", guess));
      }
      std::string hint = iequals(name, "select/cons_res") ? "use select/cons_tres" : "";
      // Sites build their own job_submit, site_factor and cli_filter plugins: an unknown name
      // there may well be installed in PluginDir, so it is a warning, not an error.
      static const std::set<std::string> kSitePluginKeys = {"jobsubmitplugins", "prioritysitefactorplugin",
                                                            "clifilterplugins"};
      if (!known && kSitePluginKeys.count(lower)) {
        sink.warning("CONF020", setting.value_loc,
                     fmt::format("plugin '{}' for {} is not shipped with Slurm {}; make sure it is installed in "
                                 "PluginDir",
                                 printable(name), setting.key, config.version.to_string()));
        continue;
      }
      sink.error("CONF020", setting.value_loc, message, hint);
    }
  }
}

void check_cross_settings(const RawConfig& raw, const Config& config, DiagnosticSink& sink) {
  SettingReader s(raw, sink);
  const SourceLoc top{raw.root, 1, 1};  // whole-file problems point at the file's first line
  if (config.cluster_name.empty()) {
    sink.error("CONF030", top, "ClusterName is not set; slurmctld refuses to start", "add ClusterName=<name>");
  }
  if (config.slurmctld_hosts.empty()) {
    sink.error("CONF030", top, "no SlurmctldHost is defined; Slurm refuses to start", "add SlurmctldHost=<host>");
  }
  if (raw.of_kind("NodeName").empty() && !s.get("MaxNodeCount")) {
    sink.error("CONF047", top, "no NodeName line defines any node; slurmctld stops with \"no nodes configured\"",
               "define the nodes, or set MaxNodeCount for dynamic nodes");
  }
  if (auto frontends = raw.of_kind("FrontendName"); !frontends.empty()) {
    sink.error("CONF004", frontends.front()->head.key_loc,
               "FrontendName needs a Slurm built with --enable-front-end; a standard build refuses to start",
               "remove the FrontendName lines unless this cluster runs a front-end build");
  }
  std::set<std::string> gres_types(config.gres_types.begin(), config.gres_types.end());
  std::set<std::string> reported;
  for (const Node& node : config.nodes) {
    for (const GresSpec& g : node.gres) {
      if (gres_types.count(g.name) || !reported.insert(g.name).second) continue;
      sink.warning("CONF044", node.loc,
                   fmt::format("node '{}' has Gres '{}' but GresTypes does not list it; Slurm will not "
                               "schedule it",
                               printable(node.name), printable(g.name)),
                   fmt::format("add GresTypes={}", g.name));
    }
  }
  if (auto tres = s.get("PriorityWeightTRES"))
    check_tres_listed(config.priority.weight_tres, config, tres->loc, "PriorityWeightTRES", sink);
  for (const Partition& p : config.partitions) {
    auto it = p.raw.find("TRESBillingWeights");
    if (it != p.raw.end()) check_tres_listed(p.tres_billing_weights, config, p.loc, "TRESBillingWeights", sink);
  }
  if (config.select.memory) {
    std::vector<std::string> unset;
    for (const Node& node : config.nodes) {
      if (node.real_memory_mb <= 1) unset.push_back(node.name);
    }
    if (!unset.empty() && !config.nodes.empty()) {
      const Node& first = config.nodes[config.node_index.at(unset.front())];
      // Without any default memory a job without --mem is given the node's whole memory
      // (algorithms.md: the engine and a real cons_tres agree), which is worse than "too
      // little memory": every such node runs one job at a time, whatever its CPUs.
      // (Asked of the cluster, even one without partitions: not Config::no_default_memory.)
      bool any_default = config.select.def_mem_per_cpu || config.select.def_mem_per_node;
      for (const Partition& p : config.partitions) any_default = any_default || p.def_mem_per_cpu || p.def_mem_per_node;
      // DefMemPerCPU=0 written gives such jobs 0 MB: only jobs asking for memory are kept off.
      const std::string effect =
          !any_default && config.select.def_mem_per_cpu_zero
              ? "a job asking for memory cannot run there (DefMemPerCPU=0 gives a job without --mem none)"
          : any_default ? "a job given the default memory or asking for memory cannot run there (Slurm refuses it at "
                          "submission when no node of its partition has the memory)"
                        : "with no DefMemPerCPU or DefMemPerNode a job without --mem is given that whole 1 MB and runs "
                          "alone on its node, so each of these nodes runs one job at a time; a job asking for memory "
                          "cannot run there";
      sink.warning("CONF045", first.loc,
                   fmt::format("memory is a consumable resource ({}{}) but {} node(s) have no RealMemory, so each "
                               "offers 1 MB: {}",
                               config.select.parameters, s.get("SelectTypeParameters") ? "" : ", the default",
                               unset.size(), effect),
                   "set RealMemory (in MB) on every NodeName line");
    }
  }
  check_partition_select(config, sink);
  if (config.scheduler.type == "sched/builtin" && ifind(config.scheduler.parameters, "bf_") != std::string::npos) {
    sink.warning("CONF018", s.get("SchedulerParameters")->loc,
                 "bf_* options have no effect with SchedulerType=sched/builtin, which never backfills");
  }
}

}  // namespace sa
