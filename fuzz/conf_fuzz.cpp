// libFuzzer target: a slurm.conf and its Include files from an in-memory tree. The input is
// split on "\n%%\n": the first part is /site/slurm.conf, the others /site/f1.conf, f2.conf,
// ... (and /outside/x.conf, which confinement must refuse). No file on disk is ever read.
#include <map>

#include "analyzer/analyze.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > sa::fuzz::kMaxInput) return 0;
  std::vector<std::string> parts = sa::fuzz::split_files(data, size);
  std::map<std::string, std::string> tree{{"/outside/x.conf", "SECRET=1\n"}};
  sa::fuzz::add_include_files(parts, tree);
  sa::AnalyzeOptions options;
  options.limits = sa::fuzz::fuzz_limits();
  options.includes.memory_tree = &tree;
  auto analysis = sa::analyze_text("/site/slurm.conf", std::move(parts[0]), options);
  sa::fuzz::no_internal_error(analysis->diagnostics);
  for (sa::FileId f = 0; f < static_cast<sa::FileId>(analysis->sources.file_count()); ++f) {
    if (analysis->sources.path(f) == "/outside/x.conf") __builtin_trap();  // confinement broken
  }
  return 0;
}
