#pragma once
// Shared by the libFuzzer targets: inputs are capped (the readers' own caps are tested
// elsewhere; here the point is speed), read diagnostics must never include CONF000 (an
// internal error is a bug), and a multi-file input is split on "\n%%\n".
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/diagnostics.h"
#include "analyzer/input_limits.h"

namespace sa::fuzz {

constexpr std::size_t kMaxInput = 16 * 1024;

// Caps far below the defaults: a 4 KB input may still name 65,536 nodes per range, and each
// exec that expands them is one less exec spent on the logic; the caps' own diagnostics are
// reached far more often this way, which is coverage too.
inline InputLimits fuzz_limits() {
  InputLimits limits;
  limits.nodes = 2048;
  limits.conf_lines = 20000;
  limits.include_files = 64;
  limits.model_node_names = 256;
  // A partition's Nodes=n[0-999999] otherwise expands (and sorts, to report the unknown ones)
  // a million names on every exec: that was a third of conf_fuzz's time. Twice the node cap
  // still reaches every branch of the lists and the cap's own diagnostic.
  limits.hostlist_names = 4096;
  return limits;
}

inline std::vector<std::string> split_files(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> parts;
  for (std::size_t at = 0;;) {
    const std::size_t sep = text.find("\n%%\n", at);
    parts.emplace_back(text.substr(at, sep == std::string_view::npos ? std::string_view::npos : sep - at));
    if (sep == std::string_view::npos) return parts;
    at = sep + 4;
  }
}

// The parts after the first are the Include files /site/f1.conf, /site/f2.conf, ...
inline void add_include_files(const std::vector<std::string>& parts, std::map<std::string, std::string>& tree) {
  for (std::size_t i = 1; i < parts.size(); ++i) tree["/site/f" + std::to_string(i) + ".conf"] = parts[i];
}

// The slurm.conf topology_fuzz reads its topology.conf beside (and tests/fuzz_regression_test.cpp
// replays its crashers with): topology/tree and a few node names, some in ranges, for Nodes= to
// name, with more nodes than a leaf usually lists so coverage warnings are reached.
inline constexpr const char* kTopologySlurmConf =
    "ClusterName=c\nSlurmctldHost=h\nTopologyPlugin=topology/tree\n"
    "NodeName=n[1-8] CPUs=16 RealMemory=64000\nNodeName=gpu[01-04] CPUs=32 RealMemory=128000\n"
    "PartitionName=batch Nodes=ALL Default=YES\n";

inline void no_internal_error(const DiagnosticSink& sink) {
  for (const Diagnostic& d : sink.all()) {
    if (d.code == "CONF000") __builtin_trap();
  }
}

}  // namespace sa::fuzz
