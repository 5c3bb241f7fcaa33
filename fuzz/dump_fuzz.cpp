// libFuzzer target for `sacctmgr dump`: any bytes as a dump give diagnostics and a tree that
// fair share can walk, never a crash or sanitizer report.
#include "analyzer/assoc_reader.h"
#include "engine/fair_share.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > sa::fuzz::kMaxInput) return 0;
  sa::SourceManager sources;
  sa::DiagnosticSink sink;
  sa::FileId id = sources.add("fuzz.cfg", std::string(reinterpret_cast<const char*>(data), size));
  sa::AssocTree tree = sa::read_assoc_dump_text(id, sources, sink);
  std::vector<long double> usage(tree.assocs.size(), 1.0L);
  for (auto algorithm : {sa::engine::FairShareAlgorithm::kFairTree, sa::engine::FairShareAlgorithm::kClassic}) {
    sa::engine::FairShare(tree, {algorithm, 1}).compute(usage);
  }
  return 0;
}
