// Replays every input the fuzzer ever crashed on (fuzz/crashers/): each must now analyse to
// diagnostics with no internal error.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "analyzer/accounting_readers.h"
#include "analyzer/analyze.h"
#include "analyzer/assoc_reader.h"
#include "analyzer/node_events_reader.h"
#include "analyzer/reservation_reader.h"
#include "engine/fair_share.h"
#include "engine/workload/synthetic.h"
#include "engine/workload/workload.h"
#include "fuzz/fuzz_util.h"

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
    if (entry.path().parent_path().filename() == "topology_fuzz") {
      // topology_fuzz's inputs are a topology.conf (and its Include files) beside its slurm.conf.
      const std::string body = text.str();
      std::vector<std::string> parts =
          fuzz::split_files(reinterpret_cast<const std::uint8_t*>(body.data()), body.size());
      std::map<std::string, std::string> tree{{"/site/topology.conf", parts[0]}};
      fuzz::add_include_files(parts, tree);
      AnalyzeOptions options;
      options.version = *SlurmVersion::parse("22.05");
      options.includes.memory_tree = &tree;
      auto t = analyze_text("/site/slurm.conf", fuzz::kTopologySlurmConf, options);
      for (const Diagnostic& d : t->diagnostics.all()) EXPECT_NE(d.code, "CONF000") << entry.path();
    }
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
