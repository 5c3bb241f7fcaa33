// Replays every input the fuzzer ever crashed on (fuzz/crashers/): each must now analyse to
// diagnostics with no internal error.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "analyzer/analyze.h"

namespace sa {
namespace {

TEST(FuzzRegression, CrashersNowAnalyseCleanly) {
  std::filesystem::path dir = std::filesystem::path(SA_SOURCE_DIR) / "fuzz" / "crashers";
  int replayed = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (!entry.is_regular_file() || entry.path().filename() == "README.md") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    auto a = analyze_text("/nonexistent-fuzz-dir/slurm.conf", text.str());
    for (const Diagnostic& d : a->diagnostics.all()) EXPECT_NE(d.code, "CONF000") << entry.path();
    ++replayed;
  }
  RecordProperty("replayed", replayed);
}

}  // namespace
}  // namespace sa
