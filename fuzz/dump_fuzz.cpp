// libFuzzer target for the accounting readers: any bytes as a sacctmgr dump, a QOS table or
// an sshare usage file must give diagnostics, never a crash or sanitizer report.
#include <cstddef>
#include <cstdint>
#include <string>

#include "analyzer/accounting_readers.h"
#include "analyzer/assoc_reader.h"
#include "engine/fair_share.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 64 * 1024) return 0;
  std::string text(reinterpret_cast<const char*>(data), size);
  sa::SourceManager sources;
  sa::DiagnosticSink sink;
  sa::FileId id = sources.add("fuzz.cfg", text);
  sa::AssocTree tree = sa::read_assoc_dump_text(id, sources, sink);
  sa::read_qos_table_text(id, sources, sink);
  sa::UsageSnapshot usage = sa::read_sshare_usage_text(id, sources, sink);
  std::vector<double> raw = sa::usage_by_association(tree, usage, sink);
  std::vector<long double> user_usage(raw.begin(), raw.end());
  for (auto algorithm : {sa::engine::FairShareAlgorithm::kFairTree, sa::engine::FairShareAlgorithm::kClassic}) {
    sa::engine::FairShare(tree, {algorithm, 1}).compute(user_usage);
  }
  return 0;
}
