// Replays every input the fuzzer ever crashed on (fuzz/crashers/): each must now analyse to
// diagnostics with no internal error.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "analyzer/accounting_readers.h"
#include "analyzer/analyze.h"
#include "analyzer/assoc_reader.h"
#include "analyzer/node_events_reader.h"
#include "analyzer/reservation_reader.h"
#include "engine/fair_share.h"
#include "engine/workload/synthetic.h"
#include "engine/workload/workload.h"

namespace sa {
namespace {

TEST(FuzzRegression, CrashersNowAnalyseCleanly) {
  std::filesystem::path dir = std::filesystem::path(SA_SOURCE_DIR) / "fuzz" / "crashers";
  int replayed = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    if (!entry.is_regular_file() || name == "README.md" || name == ".keep") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    auto a = analyze_text("/nonexistent-fuzz-dir/slurm.conf", text.str());
    for (const Diagnostic& d : a->diagnostics.all()) EXPECT_NE(d.code, "CONF000") << entry.path();
    // Every crasher also goes through the accounting readers and fair share.
    SourceManager sources;
    DiagnosticSink sink;
    FileId id = sources.add("fuzz.cfg", text.str());
    AssocTree tree = read_assoc_dump_text(id, sources, sink);
    UsageSnapshot usage = read_sshare_usage_text(id, sources, sink);
    std::vector<double> raw = usage_by_association(tree, usage, sink);
    engine::FairShare(tree, {}).compute(std::vector<long double>(raw.begin(), raw.end()));
    // And through every other reader a fuzz target covers.
    engine::read_swf(id, sources, sink, {});
    engine::read_sacct(id, sources, sink, {});
    engine::read_profile(id, sources, sink);
    read_reservations_text(id, sources, sink);
    read_node_events_text(id, sources, sink);
    ++replayed;
  }
  RecordProperty("replayed", replayed);
}

}  // namespace
}  // namespace sa
