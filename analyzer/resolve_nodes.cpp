// NodeName records -> Config::nodes, following Slurm's own node-line rules: CPUs before
// Procs (each from the line, then DEFAULT), Sockets inferred from CPUs when it divides,
// inconsistent counts reset with an error that is not fatal, Weight=INFINITE stored as
// 0xFFFFFFFE, and a node name defined twice is fatal.
#include <fmt/format.h>
#include <cctype>
#include <unordered_map>

#include "analyzer/hostlist.h"
#include "analyzer/resolve.h"
#include "analyzer/text_util.h"
#include "analyzer/value_reader.h"

namespace sa {

namespace {

std::optional<NodeState> parse_node_state(std::string_view text) {
  static const std::pair<const char*, NodeState> exact[] = {
      {"UNKNOWN", NodeState::kUnknown}, {"DOWN", NodeState::kDown},  {"IDLE", NodeState::kIdle},
      {"ALLOCATED", NodeState::kIdle},  {"ERROR", NodeState::kIdle}, {"MIXED", NodeState::kIdle},
      {"FUTURE", NodeState::kFuture}};
  for (auto [name, state] : exact) {
    if (iequals(text, name)) return state;
  }
  // Slurm matches these three by prefix (FAILING counts as FAIL).
  if (istarts_with(text, "CLOUD")) return NodeState::kCloud;
  if (istarts_with(text, "DRAIN")) return NodeState::kDrain;
  if (istarts_with(text, "FAIL")) return NodeState::kFail;
  return std::nullopt;
}

}  // namespace

// name[:type][:no_consume][:count[KMGTP]] separated by commas; "(S:0-1)" bindings ignored.
Result<std::vector<GresSpec>> parse_gres(std::string_view text) {
  std::vector<GresSpec> out;
  std::string cleaned;
  int depth = 0;
  for (char c : text) {
    if (c == '(') ++depth;
    if (depth == 0) cleaned.push_back(c);
    if (c == ')' && depth > 0) --depth;
  }
  for (const std::string& item : split(cleaned, ',')) {
    if (trim(item).empty()) continue;
    std::vector<std::string> parts = split(item, ':');
    GresSpec spec;
    spec.name = parts[0];
    spec.count = 1;
    if (spec.name.empty()) return Error{fmt::format("GRES '{}' has no name", item)};
    for (std::size_t i = 1; i < parts.size(); ++i) {
      const std::string& p = parts[i];
      bool last = i + 1 == parts.size();
      if (iequals(p, "no_consume")) {
        spec.no_consume = true;
      } else if (last && !p.empty() && std::isdigit(static_cast<unsigned char>(p[0]))) {
        std::string digits = p;
        std::uint64_t scale = 1;
        static const std::string kUnits = "KMGTP";  // GRES counts take binary suffixes
        auto unit = kUnits.find(static_cast<char>(std::toupper(static_cast<unsigned char>(digits.back()))));
        if (unit != std::string::npos) {
          digits.pop_back();
          scale = 1ULL << (10 * (unit + 1));
        }
        auto n = parse_uint(digits, IntWidth::k64);
        if (!n) return Error{fmt::format("invalid GRES count '{}' in '{}'", p, item)};
        spec.count = *n * scale;
      } else if (spec.type.empty() && !p.empty()) {
        spec.type = p;
      } else {
        return Error{fmt::format("cannot read GRES '{}'", item)};
      }
    }
    out.push_back(std::move(spec));
  }
  return out;
}

namespace {

struct Layout {
  std::uint32_t cpus = 1, boards = 1, sockets = 1, cores = 1, threads = 1;
};

// Slurm's node layout rules (read_config.c _parse_nodename) with each reset reported.
Layout resolve_layout(const RecordReader& r, const std::string& names, DiagnosticSink& sink) {
  Layout l;
  auto loc = r.record().head.key_loc;
  auto u16 = [&](const char* key) { return r.uint(key, IntWidth::k16); };
  std::optional<std::uint64_t> cpus = u16("CPUs");
  if (!cpus) cpus = u16("Procs");
  auto boards = u16("Boards"), cores = u16("CoresPerSocket"), threads = u16("ThreadsPerCore");
  auto sockets = u16("Sockets"), per_board = u16("SocketsPerBoard");
  auto zero_reset = [&](std::optional<std::uint64_t>& v, const char* key) {
    if (v && *v == 0) {
      sink.warning("CONF025", loc, fmt::format("{}=0 is invalid for {}; Slurm resets it to 1", key, names));
      v = 1;
    }
  };
  zero_reset(cores, "CoresPerSocket");
  zero_reset(cpus, "CPUs");
  zero_reset(threads, "ThreadsPerCore");
  zero_reset(per_board, "SocketsPerBoard");
  zero_reset(sockets, "Sockets");
  zero_reset(boards, "Boards");
  l.boards = static_cast<std::uint32_t>(boards.value_or(1));
  l.cores = static_cast<std::uint32_t>(cores.value_or(1));
  l.threads = static_cast<std::uint32_t>(threads.value_or(1));
  if (sockets && per_board) {
    sink.warning("CONF025", loc,
                 fmt::format("both Sockets and SocketsPerBoard are set for {}; Slurm "
                             "uses SocketsPerBoard",
                             names));
    sockets.reset();
  }
  if (sockets) {
    l.sockets = static_cast<std::uint32_t>(*sockets);
  } else if (per_board) {
    l.sockets = l.boards * static_cast<std::uint32_t>(*per_board);
  } else if (cpus && *cpus / (l.cores * l.threads) > 0 && *cpus % (l.cores * l.threads) == 0) {
    l.sockets = static_cast<std::uint32_t>(*cpus / (l.cores * l.threads));
  } else {
    l.sockets = l.boards;
  }
  l.cpus = cpus ? static_cast<std::uint32_t>(*cpus) : l.sockets * l.cores * l.threads;
  if (l.sockets < l.boards) {
    sink.warning("CONF025", loc,
                 fmt::format("{} has fewer sockets ({}) than boards ({}); Slurm "
                             "resets Boards to 1",
                             names, l.sockets, l.boards));
    l.boards = 1;
  }
  if (l.cpus != l.sockets && l.cpus != l.sockets * l.cores && l.cpus != l.sockets * l.cores * l.threads) {
    std::uint32_t full = l.sockets * l.cores * l.threads;
    sink.warning("CONF025", loc,
                 fmt::format("CPUs={} for {} matches neither Sockets ({}), Sockets*CoresPerSocket ({}) "
                             "nor Sockets*CoresPerSocket*ThreadsPerCore ({}); Slurm resets CPUs to {}",
                             l.cpus, names, l.sockets, l.sockets * l.cores, full, full),
                 "make CPUs agree with the socket, core and thread counts");
    l.cpus = full;
  }
  return l;
}

void check_address_counts(const RecordReader& r, std::size_t name_count, DiagnosticSink& sink,
                          const HostlistOptions& options) {
  for (const char* key : {"NodeHostname", "NodeAddr", "BcastAddr"}) {
    auto ref = r.get(key);
    if (!ref) continue;
    auto list = expand_hostlist(ref->value, options);
    if (!list) {
      sink.error("CONF012", ref->loc, fmt::format("invalid hostlist in {}: {}", key, list.error()));
    } else if (list->size() == 1 && name_count > 1) {
      // Front-end and multiple-slurmd builds accept one address for many nodes.
      sink.warning("CONF012", ref->loc,
                   fmt::format("{} gives one name for {} nodes: only Slurm built with --enable-front-end or "
                               "--enable-multiple-slurmd accepts that; a standard build refuses to start",
                               key, name_count));
    } else if (list->size() < name_count) {
      sink.error("CONF012", ref->loc,
                 fmt::format("{} lists {} names for {} nodes; Slurm needs at least one per node", key, list->size(),
                             name_count));
    }
  }
}

// Slurm reads the first of two aliases and silently drops the other (read_config.c).
void warn_shadowed_alias(const RecordReader& r, const char* winner, const char* loser, DiagnosticSink& sink) {
  const Pair* kept = r.record().get_own(to_lower(winner));
  const Pair* dropped = r.record().get_own(to_lower(loser));
  if (!kept || !dropped) return;
  sink.warning(
      "CONF010", dropped->key_loc,
      fmt::format("'{}={}' is ignored because '{}' is also set on this line", loser, printable(dropped->value), winner),
      fmt::format("keep only {}", winner));
}

Node build_node(const RecordReader& r, const Layout& layout, DiagnosticSink& sink) {
  warn_shadowed_alias(r, "Feature", "Features", sink);
  warn_shadowed_alias(r, "CPUs", "Procs", sink);
  Node n;
  n.loc = r.record().head.value_loc;
  n.cpus = layout.cpus;
  n.boards = layout.boards;
  n.sockets = layout.sockets;
  n.cores_per_socket = layout.cores;
  n.threads_per_core = layout.threads;
  n.real_memory_mb = r.uint("RealMemory", IntWidth::k64).value_or(1);
  n.mem_spec_limit_mb = r.uint("MemSpecLimit", IntWidth::k64).value_or(0);
  if (n.mem_spec_limit_mb > 0 && n.mem_spec_limit_mb >= n.real_memory_mb) {
    sink.warning("CONF025", r.get("MemSpecLimit")->loc,
                 fmt::format("MemSpecLimit={} is not below RealMemory={}; Slurm resets it to 0", n.mem_spec_limit_mb,
                             n.real_memory_mb));
    n.mem_spec_limit_mb = 0;
  }
  n.tmp_disk_mb = static_cast<std::uint32_t>(r.uint("TmpDisk", IntWidth::k32).value_or(0));
  n.weight = static_cast<std::uint32_t>(r.uint("Weight", IntWidth::k32).value_or(1));
  if (n.weight == kInfinite32) n.weight = kNoVal32;  // Slurm stores INFINITE as 0xFFFFFFFE
  n.core_spec_count = static_cast<std::uint32_t>(r.uint("CoreSpecCount", IntWidth::k16).value_or(0));
  auto features = r.get("Feature");
  if (!features) features = r.get("Features");
  if (features) {
    for (const std::string& f : split(features->value, ',')) {
      if (!f.empty()) n.features.push_back(f);
    }
  }
  n.active_features = n.features;
  if (auto gres = r.get("Gres")) {
    auto parsed = parse_gres(gres->value);
    if (parsed) {
      n.gres = *parsed;
    } else {
      sink.error("CONF044", gres->loc, fmt::format("invalid Gres '{}': {}", printable(gres->value), parsed.error()));
    }
  }
  if (auto state = r.get("State")) {
    auto parsed = parse_node_state(state->value);
    if (parsed) {
      n.state = *parsed;
    } else {
      sink.error("CONF009", state->loc,
                 fmt::format("invalid node State '{}'; use UNKNOWN, IDLE, DOWN, DRAIN, FAIL, FUTURE or "
                             "CLOUD",
                             printable(state->value)));
    }
  }
  n.reason = r.string("Reason").value_or("");
  return n;
}

// One CONF014 per NodeName line however many of its names repeat: `n[0-999][0-999]` twice
// would otherwise print a million errors.
void add_nodes(std::vector<std::string>& names, const RawRecord& rec, const Node& prototype, Config& config,
               std::unordered_map<std::string, SourceLoc>& first_seen, DiagnosticSink& sink) {
  std::size_t repeated = 0;
  std::string first_repeat;
  int first_line = 0;
  for (std::string& name : names) {
    auto [it, fresh] = first_seen.emplace(name, rec.head.value_loc);
    if (!fresh) {
      if (repeated++ == 0) first_repeat = name, first_line = it->second.line;
      continue;
    }
    Node node = prototype;
    node.name = std::move(name);
    config.node_index[node.name] = static_cast<std::uint32_t>(config.nodes.size());
    config.nodes.push_back(std::move(node));
  }
  if (repeated == 0) return;
  sink.error(
      "CONF014", rec.head.value_loc,
      fmt::format("node '{}' is defined again (first at line {}){}; Slurm refuses to start", printable(first_repeat),
                  first_line, repeated > 1 ? fmt::format(", and {} more names of this line", repeated - 1) : ""));
}

}  // namespace

void report_hostlist_error(DiagnosticSink& sink, const SourceLoc& loc, const std::string& code, const std::string& what,
                           const Error& error) {
  if (error.kind == ErrorKind::kTooLarge) {
    sink.error("CONF049", loc, error.message, "raise the limit with --limit hostlist-names=N");
    return;
  }
  sink.error(code, loc, fmt::format("invalid {} hostlist: {}", what, error.message));
}

void resolve_nodes(const RawConfig& raw, Config& config, DiagnosticSink& sink, std::int64_t max_nodes,
                   std::int64_t* names_left) {
  HostlistOptions options{config.version, 1'000'000, names_left};
  std::unordered_map<std::string, SourceLoc> first_seen;  // lookups only
  for (const RawRecord* rec : raw.of_kind("NodeName")) {
    RecordReader r(*rec, sink);
    auto names = expand_hostlist(rec->head.value, options);
    if (!names) {
      report_hostlist_error(sink, rec->head.value_loc,
                            names.error().find("expands to more than") != std::string::npos ? "CONF013" : "CONF012",
                            "NodeName", names.failure());
      continue;
    }
    if (names->empty()) {
      sink.error("CONF012", rec->head.value_loc, "empty NodeName");
      continue;
    }
    if (static_cast<std::int64_t>(config.nodes.size() + names->size()) > max_nodes) {
      sink.error("CONF049", rec->head.value_loc,
                 fmt::format("this line would bring the config past {} nodes; its nodes are not read", max_nodes),
                 "raise the limit with --limit nodes=N");
      continue;
    }
    check_address_counts(r, names->size(), sink, options);
    const std::string label = printable(rec->head.value, 40);
    Node prototype = build_node(r, resolve_layout(r, label, sink), sink);
    add_nodes(*names, *rec, prototype, config, first_seen, sink);
  }
}

}  // namespace sa
