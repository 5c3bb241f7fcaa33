// libFuzzer target for `sshare -a [-l] -P` and `sacctmgr show qos -P`: the input is split on
// "\n%%\n" into a dump (for matching usage to associations) and the tables.
#include "analyzer/accounting_readers.h"
#include "analyzer/assoc_reader.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > sa::fuzz::kMaxInput) return 0;
  std::vector<std::string> parts = sa::fuzz::split_files(data, size);
  sa::SourceManager sources;
  sa::DiagnosticSink sink;
  const std::string& table = parts.back();
  sa::AssocTree tree =
      sa::read_assoc_dump_text(sources.add("dump.cfg", parts.size() > 1 ? parts[0] : ""), sources, sink);
  sa::FileId id = sources.add("sshare.psv", table);
  sa::UsageSnapshot usage = sa::read_sshare_usage_text(id, sources, sink);
  sa::usage_by_association(tree, usage, sink);
  sa::read_qos_table_text(id, sources, sink);
  return 0;
}
