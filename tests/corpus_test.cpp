// Every real slurm.conf-family file in ../shared/corpora (slurm/ and templated/) is read
// and compared with a reviewed expectation list: which diagnostics each must produce. A new
// corpus file without an entry fails, so every file gets looked at once.
// SA_UPDATE_EXPECTATIONS=1 rewrites the list (then review the diff before committing).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "analyzer/analyze.h"

namespace sa {
namespace {

namespace fs = std::filesystem;

const fs::path kShared = SA_SHARED_DIR;
const fs::path kExpectations = fs::path(SA_SOURCE_DIR) / "tests" / "corpus_expectations.tsv";

struct Expectation {
  std::string version;
  std::string codes;
};

std::map<std::string, Expectation> load_expectations() {
  std::map<std::string, Expectation> out;
  std::ifstream in(kExpectations);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string file, version, codes;
    std::getline(fields, file, '\t');
    std::getline(fields, version, '\t');
    std::getline(fields, codes, '\t');
    out[file] = {version, codes};
  }
  return out;
}

std::vector<std::string> corpus_files() {
  std::vector<std::string> files;
  for (const char* dir : {"slurm", "templated"}) {
    fs::path root = kShared / "corpora" / dir;
    if (!fs::exists(root)) continue;
    for (const auto& entry : fs::directory_iterator(root)) {
      if (entry.is_regular_file()) files.push_back(std::string(dir) + "/" + entry.path().filename().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// "CONF003:2,CONF020:1" or "clean".
std::string code_summary(const Analysis& a) {
  std::map<std::string, int> counts;
  for (const Diagnostic& d : a.diagnostics.all()) ++counts[d.code];
  if (counts.empty()) return "clean";
  std::string out;
  for (const auto& [code, n] : counts) out += (out.empty() ? "" : ",") + code + ":" + std::to_string(n);
  return out;
}

TEST(Corpus, EveryFileMatchesItsReviewedExpectation) {
  std::vector<std::string> files = corpus_files();
  if (files.empty()) GTEST_SKIP() << "no corpora at " << kShared;
  auto expectations = load_expectations();
  bool update = std::getenv("SA_UPDATE_EXPECTATIONS") != nullptr;
  std::ostringstream rewritten;
  rewritten << "# Reviewed diagnostics per corpus file (see tests/corpus_test.cpp).\n"
            << "# file\tslurm-version\tcode:count list, or clean\n";
  for (const std::string& file : files) {
    auto found = expectations.find(file);
    std::string version = found != expectations.end() ? found->second.version : "24.05";
    fs::path path = kShared / "corpora" / file;
    auto a = analyze_file(path.string(), {*SlurmVersion::parse(version), guess_conf_kind(path.string())});
    ASSERT_TRUE(a->ok()) << file << ": " << a->failure;
    for (const Diagnostic& d : a->diagnostics.all()) EXPECT_NE(d.code, "CONF000") << file << ": " << d.message;
    std::string got = code_summary(*a);
    rewritten << file << "\t" << version << "\t" << got << "\n";
    if (update) continue;
    ASSERT_NE(found, expectations.end()) << file << " has no entry in " << kExpectations << "; got " << got;
    EXPECT_EQ(got, found->second.codes) << file;
  }
  if (update) std::ofstream(kExpectations) << rewritten.str();
}

}  // namespace
}  // namespace sa
