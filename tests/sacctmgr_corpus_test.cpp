// The real sacctmgr files in ../shared/corpora/sacctmgr/ (dumps and load scripts) are read
// without crashing and give exactly the reviewed diagnostics of
// tests/sacctmgr_expectations.tsv (SA_UPDATE_EXPECTATIONS=1 rewrites it; review the diff).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "analyzer/assoc_reader.h"

namespace sa {
namespace {

namespace fs = std::filesystem;

TEST(SacctmgrCorpus, DumpsMatchTheirReviewedExpectation) {
  fs::path root = fs::path(SA_SHARED_DIR) / "corpora" / "sacctmgr";
  if (!fs::exists(root)) GTEST_SKIP() << "no corpora at " << root;
  fs::path list = fs::path(SA_SOURCE_DIR) / "tests" / "sacctmgr_expectations.tsv";
  std::map<std::string, std::string> expected;
  std::ifstream in(list);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    auto tab = line.find('\t');
    expected[line.substr(0, tab)] = line.substr(tab + 1);
  }
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(root)) {
    std::string name = e.path().filename().string();
    // Only dump-format files: the squeue/sshare/scontrol captures are other formats.
    if (name.find(".cfg") != std::string::npos || name.find("sacctmgr") != std::string::npos) files.push_back(name);
  }
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty());
  std::ostringstream rewritten;
  rewritten << "# Reviewed diagnostics per sacctmgr corpus file (tests/sacctmgr_corpus_test.cpp).\n";
  for (const std::string& name : files) {
    SourceManager sources;
    DiagnosticSink sink;
    auto tree = read_assoc_dump((root / name).string(), sources, sink);
    ASSERT_TRUE(tree.ok()) << name;
    std::map<std::string, int> counts;
    for (const Diagnostic& d : sink.all()) ++counts[d.code];
    std::string got = counts.empty() ? "clean" : "";
    for (const auto& [code, n] : counts) got += (got.empty() ? "" : ",") + code + ":" + std::to_string(n);
    got += "\tassociations:" + std::to_string(tree->assocs.size());
    rewritten << name << "\t" << got << "\n";
    if (std::getenv("SA_UPDATE_EXPECTATIONS")) continue;
    ASSERT_TRUE(expected.count(name)) << name << " has no entry; got " << got;
    EXPECT_EQ(got, expected[name]) << name;
  }
  if (std::getenv("SA_UPDATE_EXPECTATIONS")) std::ofstream(list) << rewritten.str();
}

}  // namespace
}  // namespace sa
