// libFuzzer target: topology.conf (TopologyPlugin=topology/tree) beside a fixed slurm.conf
// (fuzz_util.h kTopologySlurmConf), all from an in-memory tree. The input is split on
// "\n%%\n": the first part is /site/topology.conf, the others /site/f1.conf, f2.conf, ... for
// its Include lines. Every bad input must end as diagnostics, never a crash or a hang.
#include <map>

#include "analyzer/analyze.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > sa::fuzz::kMaxInput) return 0;
  std::vector<std::string> parts = sa::fuzz::split_files(data, size);
  std::map<std::string, std::string> tree{{"/site/topology.conf", parts[0]}};
  sa::fuzz::add_include_files(parts, tree);
  sa::AnalyzeOptions options;
  options.version = *sa::SlurmVersion::parse("22.05");
  options.limits = sa::fuzz::fuzz_limits();
  options.includes.memory_tree = &tree;
  auto analysis = sa::analyze_text("/site/slurm.conf", sa::fuzz::kTopologySlurmConf, options);
  sa::fuzz::no_internal_error(analysis->diagnostics);
  // A topology kept must be a tree over the slurm.conf nodes: every index in range.
  const auto& switches = analysis->config.topology.switches;
  for (const sa::Switch& sw : switches) {
    for (std::uint32_t n : sw.nodes) {
      if (n >= analysis->config.nodes.size()) __builtin_trap();
    }
    for (std::uint32_t c : sw.children) {
      if (c >= switches.size()) __builtin_trap();
    }
  }
  return 0;
}
