// libFuzzer targets for the single-file readers, one binary each since each format wants its
// own corpus: SA_FUZZ_READER picks swf_fuzz (1), sacct_fuzz (2), profile_fuzz (3),
// resv_fuzz (`scontrol show reservation`, 4) or events_fuzz (node events, 5).
#include "analyzer/node_events_reader.h"
#include "analyzer/reservation_reader.h"
#include "engine/workload/synthetic.h"
#include "engine/workload/workload.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > sa::fuzz::kMaxInput) return 0;
  sa::SourceManager sources;
  sa::DiagnosticSink sink;
  sa::FileId id = sources.add("input", std::string(reinterpret_cast<const char*>(data), size));
#if SA_FUZZ_READER == 1
  sa::engine::read_swf(id, sources, sink, {});
#elif SA_FUZZ_READER == 2
  sa::engine::read_sacct(id, sources, sink, {});
#elif SA_FUZZ_READER == 3
  sa::engine::read_profile(id, sources, sink, sa::fuzz::fuzz_limits());
#elif SA_FUZZ_READER == 4
  sa::read_reservations_text(id, sources, sink, sa::fuzz::fuzz_limits());
#else
  sa::read_node_events_text(id, sources, sink, sa::fuzz::fuzz_limits());
#endif
  return 0;
}
