#include "analyzer/topology.h"

#include <fmt/format.h>
#include <algorithm>
#include <cstdlib>
#include <unordered_map>

#include "analyzer/hostlist.h"
#include "analyzer/raw_config.h"
#include "analyzer/resolve.h"
#include "analyzer/text_util.h"

namespace sa {

namespace {

constexpr const char* kCode = "CONF051";
constexpr int kNotResolved = -1;
// _validate_switches gives up after this many passes over the table ("is not a tree").
constexpr int kLevelPasses = 21;

// One SwitchName line before its Switches= names are looked up (they may come later).
struct Pending {
  std::string children;  // Switches= as written; empty for a leaf
  SourceLoc children_loc;
};

class TopologyReader {
 public:
  TopologyReader(const InputLimits& limits, const Config& config, DiagnosticSink& sink)
      : config_(config), sink_(sink), budget_(limits), memberships_left_(limits.hostlist_names) {}

  // Every step stops at the first problem that makes slurmctld refuse the file.
  bool run(const RawConfig& raw, SourceLoc file_loc) {
    file_loc_ = file_loc;
    for (const RawRecord* rec : raw.of_kind("SwitchName")) {
      if (!read_switch(*rec)) return false;
    }
    if (switches_.empty()) {
      sink_.warning(kCode, file_loc_,
                    "topology.conf has no SwitchName line; Slurm logs \"No switches configured\" "
                    "and places jobs without a topology");
      return false;
    }
    return link_children() && resolve_levels() && collect_nodes() && check_coverage();
  }

  std::vector<Switch> take() { return std::move(switches_); }

 private:
  bool fatal(SourceLoc at, const std::string& message, const std::string& hint = {}) {
    sink_.error(kCode, at, message + "; slurmctld refuses to start, and the simulation uses no topology", hint);
    return false;
  }

  bool read_switch(const RawRecord& rec) {
    const std::string& name = rec.head.value;
    if (switches_.size() >= kMaxTopologySwitches) {
      sink_.error(
          "CONF049", rec.head.key_loc,
          fmt::format("topology.conf has more than {} switches; the topology is not read", kMaxTopologySwitches));
      return false;
    }
    if (name.empty()) return fatal(rec.head.key_loc, "SwitchName without a name");
    auto [it, fresh] = index_.emplace(name, static_cast<std::uint32_t>(switches_.size()));
    if (!fresh) {
      return fatal(rec.head.value_loc,
                   fmt::format("switch '{}' is defined again (first at line {}): Slurm's \"Switch ({}) has "
                               "already been defined\"",
                               printable(name), switches_[it->second].loc.line, printable(name)),
                   "give each switch its own name");
    }
    const Pair* nodes = rec.get_own("nodes");
    const Pair* children = rec.get_own("switches");
    if ((nodes != nullptr) == (children != nullptr)) {
      // topology_tree.c _parse_switches: "has both child switches and nodes" / "neither".
      return fatal(rec.head.value_loc,
                   fmt::format("switch '{}' has {} Nodes= and Switches=; it needs exactly one of them", printable(name),
                               nodes ? "both" : "neither"),
                   "give a leaf switch Nodes= and an upper switch Switches=");
    }
    Switch sw;
    sw.name = name;
    sw.loc = rec.head.key_loc;
    if (const Pair* speed = rec.get_own("linkspeed")) read_link_speed(*speed, sw);
    Pending pending;
    if (nodes) {
      if (!read_nodes(*nodes, sw)) return false;
    } else {
      sw.level = kNotResolved;
      pending = {children->value, children->value_loc};
    }
    switches_.push_back(std::move(sw));
    pending_.push_back(std::move(pending));
    return true;
  }

  // LinkSpeed is only logged by 22.05 (no scheduling decision reads it); a bad value keeps 1.
  void read_link_speed(const Pair& p, Switch& sw) {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(p.value.c_str(), &end, 0);  // s_p_ uint32: strtoul base 0
    if (p.value.empty() || *end != '\0' || v > 0xFFFFFFFFULL) {
      sink_.warning(kCode, p.value_loc, fmt::format("LinkSpeed '{}' is not a number; 1 is used", printable(p.value)));
      return;
    }
    sw.link_speed = static_cast<std::uint32_t>(v);
  }

  bool read_nodes(const Pair& p, Switch& sw) {
    auto names = expand_hostlist(p.value, budget_.options());
    if (!names) {
      // _node_name2bitmap fails on a hostlist it cannot read: "Invalid node name ... in switch config".
      report_hostlist_error(sink_, p.value_loc, kCode, "switch Nodes", names.failure());
      return false;
    }
    HostlistBuilder unknown;
    for (const std::string& n : *names) {
      auto found = config_.node_index.find(n);
      if (found == config_.node_index.end()) {
        unknown.add(n);
      } else {
        sw.nodes.push_back(found->second);
      }
    }
    std::sort(sw.nodes.begin(), sw.nodes.end());
    sw.nodes.erase(std::unique(sw.nodes.begin(), sw.nodes.end()), sw.nodes.end());
    if (!spend(sw.nodes.size(), p.value_loc)) return false;
    if (unknown.size()) {
      // Not fatal: _node_name2bitmap collects them and _validate_switches logs "WARNING: Invalid
      // hostnames in switch configuration".
      sink_.warning(kCode, p.value_loc,
                    fmt::format("switch '{}' lists {} node(s) slurm.conf does not define: {}; Slurm ignores them",
                                printable(sw.name), unknown.size(), printable(unknown.str(), 200)),
                    "define them with a NodeName line, or remove them from Nodes=");
    }
    return true;
  }

  // Node memberships over all switches (the nodes each leaf lists and each upper switch copies
  // from its children) are bounded like hostlist names: a few KB of Switches= lines over a large
  // leaf could otherwise copy its node list thousands of times.
  bool spend(std::size_t memberships, SourceLoc at) {
    memberships_left_ -= static_cast<std::int64_t>(memberships);
    if (memberships_left_ >= 0) return true;
    sink_.error("CONF049", at,
                "the switches of topology.conf hold more node memberships than the hostlist-names "
                "limit allows; the topology is not read",
                "raise the limit with --limit hostlist-names=N");
    return false;
  }

  // Switches= names the children; an unknown or self child is fatal (_validate_switches:
  // "has invalid child"). The parent is the last switch listing a child, in file order.
  bool link_children() {
    HostlistOptions options = budget_.options();
    options.max_names = kMaxTopologySwitches;
    for (std::uint32_t i = 0; i < switches_.size(); ++i) {
      if (switches_[i].level != kNotResolved) continue;
      auto names = expand_hostlist(pending_[i].children, options);
      if (!names) {
        report_hostlist_error(sink_, pending_[i].children_loc, kCode, "Switches", names.failure());
        return false;
      }
      for (const std::string& child : *names) {
        auto it = index_.find(child);
        if (it == index_.end() || it->second == i) {
          return fatal(pending_[i].children_loc,
                       fmt::format("switch '{}' has {} child '{}'", printable(switches_[i].name),
                                   it == index_.end() ? "an unknown" : "itself as a", printable(child)),
                       "name switches defined on their own SwitchName lines");
        }
        switches_[i].children.push_back(it->second);
        switches_[it->second].parent = i;
      }
    }
    return true;
  }

  // Slurm's passes: a switch is resolved once all its children are, one level above the
  // highest; switches resolved earlier in a pass count for later ones in the same pass.
  bool resolve_levels() {
    for (int pass = 1;; ++pass) {
      bool resolved = true;
      for (Switch& sw : switches_) {
        if (sw.level != kNotResolved) continue;
        int level = kNotResolved;
        for (std::uint32_t c : sw.children) {
          if (switches_[c].level == kNotResolved) {
            level = kNotResolved;
            break;
          }
          level = std::max(level, switches_[c].level + 1);
        }
        sw.level = level;
        resolved = resolved && level != kNotResolved;
      }
      if (resolved) return true;
      if (pass >= kLevelPasses) break;
    }
    for (std::uint32_t i = 0; i < switches_.size(); ++i) {
      if (switches_[i].level != kNotResolved) continue;
      return fatal(pending_[i].children_loc,
                   fmt::format("switch '{}' has no level after {} passes: its Switches= form a loop, or a chain "
                               "listed top-down deeper than Slurm resolves (\"Switch configuration is not a tree\")",
                               printable(switches_[i].name), kLevelPasses),
                   "list switches leaves first and make each one's children lower switches");
    }
    return true;
  }

  // An upper switch reaches the union of its children's nodes, built level by level. Each
  // distinct child's nodes are copied once and charged to the memberships budget: merging them
  // one child at a time cost the switch's whole list per child, so a few KB of Switches= naming
  // thousands of one-node leaves beside a large one took seconds per line. (Slurm keeps a child
  // listed twice twice; it adds nothing to the union.)
  bool collect_nodes() {
    std::vector<std::uint32_t> order(switches_.size());
    for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return switches_[a].level < switches_[b].level; });
    std::vector<std::uint32_t> children;
    for (std::uint32_t i : order) {
      Switch& sw = switches_[i];
      if (sw.level == 0) continue;
      children = sw.children;
      std::sort(children.begin(), children.end());
      children.erase(std::unique(children.begin(), children.end()), children.end());
      std::size_t copied = 0;
      for (std::uint32_t c : children) copied += switches_[c].nodes.size();
      if (!spend(copied, pending_[i].children_loc)) return false;
      sw.nodes.reserve(copied);
      for (std::uint32_t c : children)
        sw.nodes.insert(sw.nodes.end(), switches_[c].nodes.begin(), switches_[c].nodes.end());
      std::sort(sw.nodes.begin(), sw.nodes.end());
      sw.nodes.erase(std::unique(sw.nodes.begin(), sw.nodes.end()), sw.nodes.end());
    }
    return true;
  }

  bool check_coverage();

  const Config& config_;
  DiagnosticSink& sink_;
  NodeListBudget budget_;
  std::int64_t memberships_left_;
  SourceLoc file_loc_;
  std::vector<Switch> switches_;
  std::vector<Pending> pending_;
  std::unordered_map<std::string, std::uint32_t> index_;  // lookups only
};

// What _validate_switches only logs: a switch with no nodes, nodes on no leaf ("switches lack
// access to N nodes"), nodes on two leaves; "switches contain no nodes" (no leaf) is fatal.
bool TopologyReader::check_coverage() {
  std::vector<std::uint8_t> leaves_of(config_.nodes.size(), 0);
  bool any_leaf = false;
  for (const Switch& sw : switches_) {
    if (sw.nodes.empty()) sink_.warning(kCode, sw.loc, fmt::format("switch '{}' has no nodes", printable(sw.name)));
    if (sw.level != 0) continue;
    any_leaf = true;
    for (std::uint32_t n : sw.nodes) leaves_of[n] = static_cast<std::uint8_t>(std::min(2, leaves_of[n] + 1));
  }
  if (!any_leaf) return fatal(file_loc_, "no switch of topology.conf has Nodes= (\"switches contain no nodes\")");
  HostlistBuilder uncovered, twice;
  for (std::size_t n = 0; n < leaves_of.size(); ++n) {
    if (leaves_of[n] == 0) uncovered.add(config_.nodes[n].name);
    if (leaves_of[n] == 2) twice.add(config_.nodes[n].name);
  }
  if (uncovered.size()) {
    sink_.warning(kCode, file_loc_,
                  fmt::format("{} node(s) are on no leaf switch: {}; with topology/tree select/cons_tres only "
                              "gives a job nodes under one switch, so no job runs on them",
                              uncovered.size(), printable(uncovered.str(), 200)),
                  "add them to a leaf switch's Nodes=");
  }
  if (twice.size()) {
    sink_.warning(
        kCode, file_loc_,
        fmt::format("{} node(s) are on more than one leaf switch: {}", twice.size(), printable(twice.str(), 200)),
        "list each node under one leaf switch");
  }
  return true;
}

}  // namespace

bool uses_topology_tree(const Config& config) {
  const Setting* plugin = config.setting("TopologyPlugin");
  return plugin && plugin->value == "topology/tree";  // plugin names are case-sensitive
}

void read_topology(const LoadedConf& loaded, const SlurmVersion& version, const InputLimits& limits, Config& config,
                   DiagnosticSink& sink) {
  config.topology = {};
  const RawConfig raw = collect_raw_config(loaded, version, sink, "topology.conf");
  TopologyReader reader(limits, config, sink);
  if (!reader.run(raw, {loaded.root, 1, 1})) return;
  config.topology.switches = reader.take();
  const Setting* param = config.setting("TopologyParam");
  // cons_common.c select_p_reconfigure/init: xstrcasestr(topology_param, "TopoOptional").
  config.topology.optional = param && ifind(param->value, "topooptional") != std::string::npos;
  // topology_tree.c topo_generate_node_ranking (23.02+): xstrcasestr(topology_param, "SwitchAsNodeRank").
  config.topology.switch_as_node_rank =
      version.at_least(23, 2) && param && ifind(param->value, "switchasnoderank") != std::string::npos;
}

}  // namespace sa
