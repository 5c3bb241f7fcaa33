// PartitionName, NodeSet and DownNodes records. Precedences follow Slurm's partition parser:
// every key from the line, then from the DEFAULT snapshot; the legacy Priority= overrides
// PriorityTier and PriorityJobFactor (even from DEFAULT) while the legacy Shared= loses to
// any OverSubscribe=; DefMemPerNode beats DefMemPerCPU; the last Default=YES wins.
#include <fmt/format.h>
#include <algorithm>
#include <set>

#include "analyzer/hostlist.h"
#include "analyzer/key_table.h"
#include "analyzer/resolve.h"
#include "analyzer/text_util.h"
#include "analyzer/value_reader.h"

namespace sa {

namespace {

std::vector<std::string> lower_list(const std::string& text) {
  std::vector<std::string> out;
  for (const std::string& item : split(to_lower(text), ',')) {
    if (!item.empty()) out.push_back(item);
  }
  if (out.size() == 1 && out[0] == "all") out.clear();  // ALL means no restriction
  return out;
}

Result<OverSubscribe> parse_oversubscribe(const std::string& text) {
  OverSubscribe os;
  auto count_after = [&](std::size_t prefix) { return std::strtol(text.c_str() + prefix, nullptr, 10); };
  if (iequals(text, "NO")) return os;
  if (iequals(text, "EXCLUSIVE")) return OverSubscribe{OverSubscribe::Mode::kExclusive, 0};
  if (iequals(text, "YES")) return OverSubscribe{OverSubscribe::Mode::kYes, 4};
  if (iequals(text, "FORCE")) return OverSubscribe{OverSubscribe::Mode::kForce, 4};
  if (istarts_with(text, "YES:")) {
    long n = count_after(4);
    if (n <= 1) return Error{"YES:n needs n of at least 2; Slurm ignores it and uses NO"};
    return OverSubscribe{OverSubscribe::Mode::kYes, static_cast<std::uint32_t>(n)};
  }
  if (istarts_with(text, "FORCE:")) {
    long n = count_after(6);
    if (n < 1) return Error{"FORCE:n needs n of at least 1; Slurm ignores it and uses NO"};
    return OverSubscribe{OverSubscribe::Mode::kForce, static_cast<std::uint32_t>(n)};
  }
  return Error{"fatal"};
}

class PartitionResolver {
 public:
  PartitionResolver(const RawConfig& raw, Config& config, DiagnosticSink& sink, std::int64_t* names_left)
      : raw_(raw), config_(config), sink_(sink), names_left_(names_left) {}

  void run() {
    std::map<std::string, SourceLoc> seen;
    const RawRecord* last_default = nullptr;
    for (const RawRecord* rec : raw_.of_kind("PartitionName")) {
      RecordReader r(*rec, sink_);
      const std::string& name = rec->head.value;
      if (auto [it, fresh] = seen.emplace(name, rec->head.value_loc); !fresh) {
        sink_.error("CONF015", rec->head.value_loc,
                    fmt::format("partition '{}' is defined again (first at line {}); slurmctld stops with "
                                "\"duplicate entry for partition\"",
                                printable(name), it->second.line));
        continue;
      }
      Partition p = build(r);
      if (p.is_default) {
        if (last_default) {
          sink_.warning("CONF016", rec->head.value_loc,
                        fmt::format("more than one partition has Default=YES; the last one, '{}', wins "
                                    "over '{}'",
                                    printable(name), printable(last_default->head.value)),
                        "keep Default=YES on the one partition jobs without -p should go to");
          for (Partition& other : config_.partitions) other.is_default = false;
        }
        last_default = rec;
      }
      config_.partitions.push_back(std::move(p));
    }
  }

 private:
  Partition build(const RecordReader& r) {
    Partition p;
    p.name = r.record().head.value;
    p.loc = r.record().head.value_loc;
    record_raw(r.record(), p);
    resolve_nodes(r, p);
    p.is_default = r.boolean("Default").value_or(false);
    p.hidden = r.boolean("Hidden").value_or(false);
    p.lln = r.boolean("LLN").value_or(false);
    p.root_only = r.boolean("RootOnly").value_or(false);
    p.req_resv = r.boolean("ReqResv").value_or(false);
    if (auto ex = r.record().get_own("exclusiveuser")) {
      p.exclusive_user = read_bool(*ref_of(ex, "ExclusiveUser"), sink_).value_or(false);
    }
    resolve_state(r, p);
    resolve_times(r, p);
    p.max_nodes = static_cast<std::uint32_t>(r.uint("MaxNodes", IntWidth::k32).value_or(kInfinite32));
    p.min_nodes = static_cast<std::uint32_t>(r.uint("MinNodes", IntWidth::k32).value_or(0));
    p.max_cpus_per_node = static_cast<std::uint32_t>(r.uint("MaxCPUsPerNode", IntWidth::k32).value_or(kInfinite32));
    p.grace_time = static_cast<std::uint32_t>(r.uint("GraceTime", IntWidth::k32).value_or(0));
    resolve_priority(r, p);
    resolve_oversubscribe(r, p);
    resolve_preempt_mode(r, p);
    resolve_access(r, p);
    resolve_memory(r, p);
    p.qos = r.string("QOS").value_or("");
    if (auto tres = r.get("TRESBillingWeights")) {
      auto weights = parse_tres_weights(tres->value);
      if (weights) {
        p.tres_billing_weights = *weights;
      } else {
        sink_.error("CONF009", tres->loc, fmt::format("invalid TRESBillingWeights: {}", weights.error()));
      }
    }
    resolve_over_time_limit(r, p);
    resolve_select(r, p);
    return p;
  }

  void record_raw(const RawRecord& rec, Partition& p) {
    const KeyTable& keys = KeyTable::builtin();
    auto add = [&](const std::map<std::string, Pair>& pairs) {
      for (const auto& [lower, pair] : pairs) {
        KeyLookup found = keys.find("PartitionName", lower, config_.version);
        std::string key = found.info ? found.info->key : pair.key;
        p.raw.emplace(key, pair.value);  // own pairs first: they win over DEFAULT
      }
    };
    add(rec.own);
    add(rec.defaults);
  }

  void resolve_nodes(const RecordReader& r, Partition& p) {
    auto nodes = r.get("Nodes");
    if (!nodes) return;
    p.nodes_expr = nodes->value;
    std::vector<char> added(config_.nodes.size(), 0);
    auto add = [&](std::uint32_t index) {
      if (!added[index]) {
        added[index] = 1;
        p.nodes.push_back(index);
      }
    };
    HostlistOptions options{config_.version, 1'000'000, names_left_};
    HostlistBuilder unknown;  // numbers, not names: a hostile list may name millions
    for (const std::string& item : split_hostlist_items(nodes->value)) {
      if (iequals(item, "ALL")) {
        for (std::uint32_t i = 0; i < config_.nodes.size(); ++i) add(i);
        continue;
      }
      if (const NodeSet* set = find_nodeset(item)) {
        for (std::uint32_t i : set->nodes) add(i);
        continue;
      }
      auto names = expand_hostlist(item, options);
      if (!names) {
        report_hostlist_error(sink_, nodes->loc, "CONF012", fmt::format("Nodes for partition '{}'", printable(p.name)),
                              names.failure());
        continue;
      }
      for (const std::string& name : *names) {
        auto it = config_.node_index.find(name);
        if (it == config_.node_index.end()) {
          unknown.add(name);
        } else {
          add(it->second);
        }
      }
    }
    if (unknown.size() > 0) {
      sink_.error("CONF017", nodes->loc,
                  fmt::format("partition '{}' lists {} node(s) no NodeName line defines: {}; slurmctld refuses "
                              "to start",
                              printable(p.name), unknown.size(), printable(unknown.str(), 120)));
    }
  }

  const NodeSet* find_nodeset(const std::string& name) const {
    for (const NodeSet& set : config_.nodesets) {
      if (set.name == name) return &set;
    }
    return nullptr;
  }

  void resolve_state(const RecordReader& r, Partition& p) {
    auto state = r.get("State");
    if (!state) return;
    // Slurm compares by prefix, so "UPPER" counts as UP.
    if (istarts_with(state->value, "DOWN")) {
      p.state = PartitionState::kDown;
    } else if (istarts_with(state->value, "UP")) {
      p.state = PartitionState::kUp;
    } else if (istarts_with(state->value, "DRAIN")) {
      p.state = PartitionState::kDrain;
    } else if (istarts_with(state->value, "INACTIVE")) {
      p.state = PartitionState::kInactive;
    } else {
      sink_.error("CONF009", state->loc,
                  fmt::format("invalid partition State '{}'; use UP, DOWN, DRAIN "
                              "or INACTIVE",
                              printable(state->value)));
    }
  }

  void resolve_times(const RecordReader& r, Partition& p) {
    p.max_time = r.time_minutes("MaxTime").value_or(kInfiniteTime);
    if (auto def = r.time_minutes("DefaultTime")) {
      p.default_time = *def;
      p.default_time_set = true;
    } else {
      p.default_time = kInfiniteTime;
    }
    if (p.default_time_set && p.max_time != kInfiniteTime &&
        (p.default_time == kInfiniteTime || p.default_time > p.max_time)) {
      sink_.warning("CONF027", r.get("DefaultTime")->loc,
                    fmt::format("DefaultTime ({}) of partition '{}' exceeds its MaxTime ({}); slurmctld "
                                "drops the DefaultTime",
                                format_duration(p.default_time), printable(p.name), format_duration(p.max_time)),
                    fmt::format("give partition '{}' a DefaultTime of at most {} (jobs without --time get it)",
                                printable(p.name), format_duration(p.max_time)));
      p.default_time = kInfiniteTime;
      p.default_time_set = false;
    }
  }

  void resolve_priority(const RecordReader& r, Partition& p) {
    p.priority_tier = static_cast<std::uint16_t>(r.uint("PriorityTier", IntWidth::k16).value_or(1));
    p.priority_job_factor = static_cast<std::uint16_t>(r.uint("PriorityJobFactor", IntWidth::k16).value_or(1));
    if (auto legacy = r.uint("Priority", IntWidth::k16)) {
      // The legacy key sets both and overrides explicit values, even from a DEFAULT line.
      p.priority_tier = p.priority_job_factor = static_cast<std::uint16_t>(*legacy);
      auto ref = r.get("Priority");
      bool explicit_too = r.get("PriorityTier") || r.get("PriorityJobFactor");
      sink_.note("CONF038", ref->loc,
                 fmt::format("legacy 'Priority={}' sets both PriorityTier and PriorityJobFactor of "
                             "partition '{}'{}",
                             *legacy, printable(p.name), explicit_too ? " and overrides the explicit values" : ""),
                 "write PriorityTier= and PriorityJobFactor= instead");
    }
  }

  void resolve_oversubscribe(const RecordReader& r, Partition& p) {
    auto ref = r.get("OverSubscribe");
    if (!ref) {
      ref = r.get("Shared");
      if (ref) sink_.note("CONF038", ref->loc, "legacy 'Shared' is an alias of OverSubscribe", "write OverSubscribe=");
    }
    if (!ref) return;
    auto parsed = parse_oversubscribe(ref->value);
    if (parsed) {
      p.oversubscribe = *parsed;
    } else if (parsed.error() == "fatal") {
      sink_.error(
          "CONF009", ref->loc,
          fmt::format("invalid {} '{}'; use NO, EXCLUSIVE, YES[:n] or FORCE[:n]", ref->key, printable(ref->value)));
    } else {
      sink_.warning("CONF009", ref->loc, fmt::format("{}={}: {}", ref->key, printable(ref->value), parsed.error()));
    }
  }

  void resolve_preempt_mode(const RecordReader& r, Partition& p) {
    auto ref = r.get("PreemptMode");
    if (!ref) return;
    auto mode = parse_preempt_mode(ref->value, config_.version);
    if (!mode) {
      sink_.error("CONF009", ref->loc,
                  fmt::format("invalid PreemptMode '{}' for partition '{}': {}", printable(ref->value),
                              printable(p.name), mode.error()));
      return;
    }
    if (mode->gang) {
      sink_.warning("CONF021", ref->loc,
                    "GANG in a partition's PreemptMode is ignored; Slurm only "
                    "reads GANG from the cluster-wide PreemptMode");
      mode->gang = false;
    }
    p.preempt_mode = *mode;
  }

  void resolve_access(const RecordReader& r, Partition& p) {
    auto list = [&](const char* key) { return lower_list(r.string(key).value_or("")); };
    p.allow_accounts = list("AllowAccounts");
    p.deny_accounts = list("DenyAccounts");
    p.allow_qos = list("AllowQos");
    p.deny_qos = list("DenyQos");
    p.allow_groups = split(r.string("AllowGroups").value_or(""), ',');
    if (p.allow_groups.size() == 1 && (p.allow_groups[0].empty() || iequals(p.allow_groups[0], "ALL"))) {
      p.allow_groups.clear();
    }
    if (!p.allow_accounts.empty() && r.get("DenyAccounts")) {
      sink_.warning("CONF036", r.get("DenyAccounts")->loc, "DenyAccounts is ignored because AllowAccounts is also set",
                    "keep one list: remove DenyAccounts, or AllowAccounts if the deny list was meant");
      p.deny_accounts.clear();
    }
    if (!p.allow_qos.empty() && r.get("DenyQos")) {
      sink_.warning("CONF036", r.get("DenyQos")->loc, "DenyQos is ignored because AllowQos is also set",
                    "keep one list: remove DenyQos, or AllowQos if the deny list was meant");
      p.deny_qos.clear();
    }
  }

  void resolve_memory(const RecordReader& r, Partition& p) {
    MemoryDefaults m = read_memory_defaults(r, sink_);
    p.def_mem_per_cpu = m.def_per_cpu;
    p.def_mem_per_node = m.def_per_node;
    p.max_mem_per_cpu = m.max_per_cpu;
    p.max_mem_per_node = m.max_per_node;
    p.def_mem_per_gpu = m.def_per_gpu;
    p.def_cpus_per_gpu = m.def_cpus_per_gpu;
  }

  void resolve_over_time_limit(const RecordReader& r, Partition& p) {
    auto ref = r.get("OverTimeLimit");
    if (!ref) return;
    if (iequals(ref->value, "INFINITE") || iequals(ref->value, "UNLIMITED")) {
      p.over_time_limit = 0xFFFF;
      return;
    }
    long minutes = std::strtol(ref->value.c_str(), nullptr, 10);
    if (minutes < 0) {
      sink_.warning("CONF009", ref->loc, fmt::format("bad OverTimeLimit '{}' is ignored", printable(ref->value)));
      return;
    }
    p.over_time_limit = static_cast<std::uint32_t>(std::min<long>(minutes, 0xFFFF));
  }

  void resolve_select(const RecordReader& r, Partition& p) {
    const Pair* own = r.record().get_own("selecttypeparameters");
    if (!own) return;
    // (src/common/read_config.c: the value must start with one of these; "NONE", as
    // `scontrol show partition` prints an unset one, is refused in slurm.conf.)
    for (const char* ok : {"CR_Core_Memory", "CR_Core", "CR_Socket_Memory", "CR_Socket"}) {
      if (istarts_with(own->value, ok)) {
        p.select_own = true;
        p.select_socket = istarts_with(ok, "CR_Socket");
        p.select_memory = std::string_view(ok).ends_with("_Memory");
        return;
      }
    }
    sink_.error("CONF022", own->value_loc,
                fmt::format("partition SelectTypeParameters '{}' must be CR_Core, CR_Core_Memory, "
                            "CR_Socket or CR_Socket_Memory",
                            printable(own->value)));
  }

  const RawConfig& raw_;
  Config& config_;
  DiagnosticSink& sink_;
  std::int64_t* names_left_;
};

// One diagnostic per line for the names it lists that no NodeName line defines: a range of
// 65,536 unknown names is one mistake, not 65,536.
void report_undefined(DiagnosticSink& sink, const SourceLoc& loc, const std::string& what,
                      const HostlistBuilder& unknown) {
  if (unknown.size() == 0) return;
  sink.error("CONF017", loc,
             unknown.size() == 1
                 ? fmt::format("{} undefined node '{}'", what, printable(unknown.str()))
                 : fmt::format("{} {} undefined nodes: {}", what, unknown.size(), printable(unknown.str(), 120)));
}

}  // namespace

void resolve_nodesets(const RawConfig& raw, Config& config, DiagnosticSink& sink, std::int64_t* names_left) {
  HostlistOptions options{config.version, 1'000'000, names_left};
  for (const RawRecord* rec : raw.of_kind("NodeSet")) {
    RecordReader r(*rec, sink);
    NodeSet set;
    set.name = rec->head.value;
    set.loc = rec->head.value_loc;
    if (config.node_index.count(set.name)) {
      sink.error("CONF041", set.loc, fmt::format("NodeSet '{}' has the name of a node", printable(set.name)));
    }
    std::set<std::uint32_t> added;
    set.feature = r.string("Feature").value_or("");
    if (!set.feature.empty()) {
      for (std::uint32_t i = 0; i < config.nodes.size(); ++i) {
        const auto& f = config.nodes[i].features;
        if (std::find(f.begin(), f.end(), set.feature) != f.end() && added.insert(i).second) set.nodes.push_back(i);
      }
    }
    if (auto nodes = r.get("Nodes")) {
      if (iequals(nodes->value, "ALL")) {
        for (std::uint32_t i = 0; i < config.nodes.size(); ++i) {
          if (added.insert(i).second) set.nodes.push_back(i);
        }
      } else if (auto names = expand_hostlist(nodes->value, options)) {
        HostlistBuilder unknown;
        for (const std::string& name : *names) {
          auto it = config.node_index.find(name);
          if (it == config.node_index.end()) {
            unknown.add(name);
          } else if (added.insert(it->second).second) {
            set.nodes.push_back(it->second);
          }
        }
        report_undefined(sink, nodes->loc, fmt::format("NodeSet '{}' lists", printable(set.name)), unknown);
      } else {
        report_hostlist_error(sink, nodes->loc, "CONF012", "NodeSet", names.failure());
      }
    }
    bool duplicate = false;
    for (const NodeSet& other : config.nodesets) duplicate = duplicate || other.name == set.name;
    if (duplicate) {
      sink.warning("CONF041", set.loc,
                   fmt::format("NodeSet '{}' is defined twice; Slurm uses the first", printable(set.name)));
      continue;
    }
    config.nodesets.push_back(std::move(set));
  }
}

void resolve_partitions(const RawConfig& raw, Config& config, DiagnosticSink& sink, std::int64_t* names_left) {
  PartitionResolver(raw, config, sink, names_left).run();
}

void resolve_down_nodes(const RawConfig& raw, Config& config, DiagnosticSink& sink, std::int64_t* names_left) {
  HostlistOptions options{config.version, 1'000'000, names_left};
  for (const RawRecord* rec : raw.of_kind("DownNodes")) {
    RecordReader r(*rec, sink);
    NodeState state = NodeState::kDown;
    if (auto s = r.get("State")) {
      if (istarts_with(s->value, "DRAIN"))
        state = NodeState::kDrain;
      else if (istarts_with(s->value, "FAIL"))
        state = NodeState::kFail;
      else if (iequals(s->value, "FUTURE"))
        state = NodeState::kFuture;
      else if (!iequals(s->value, "DOWN") && !iequals(s->value, "UNKNOWN")) {
        sink.error("CONF009", s->loc, fmt::format("invalid DownNodes State '{}'", printable(s->value)));
      }
    }
    auto names = expand_hostlist(rec->head.value, options);
    if (!names) {
      report_hostlist_error(sink, rec->head.value_loc, "CONF012", "DownNodes", names.failure());
      continue;
    }
    HostlistBuilder unknown;
    for (const std::string& name : *names) {
      auto it = config.node_index.find(name);
      if (it == config.node_index.end()) {
        unknown.add(name);
        continue;
      }
      Node& node = config.nodes[it->second];
      node.state = state;
      node.reason = r.string("Reason").value_or("Set in slurm.conf");
    }
    report_undefined(sink, rec->head.value_loc, "DownNodes names", unknown);
  }
}

}  // namespace sa
