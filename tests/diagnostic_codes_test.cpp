// Every code the analyzer can emit is in the catalogue, and the catalogue has no strays.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "analyzer/diagnostic_codes.h"

namespace sa {
namespace {

TEST(DiagnosticCodes, CatalogueMatchesTheSources) {
  std::set<std::string> used;
  const std::regex code(R"re("((CONF|ACCT|WORK|RESV|EVNT)\d{3})")re");
  const std::filesystem::path root(SA_SOURCE_DIR);
  for (const auto& dir : {root / "analyzer", root / "engine", root / "engine" / "workload"}) {
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      const auto ext = entry.path().extension();
      if ((ext != ".cpp" && ext != ".h") || entry.path().filename() == "diagnostic_codes.cpp") continue;
      std::ifstream in(entry.path());
      std::stringstream text;
      text << in.rdbuf();
      std::string s = text.str();
      for (std::sregex_iterator it(s.begin(), s.end(), code), end; it != end; ++it) used.insert((*it)[1]);
    }
  }
  ASSERT_GT(used.size(), 30u);
  std::set<std::string> listed;
  for (const DiagnosticCode& c : diagnostic_codes()) {
    EXPECT_TRUE(listed.insert(c.code).second) << "listed twice: " << c.code;
  }
  for (const std::string& c : used) EXPECT_TRUE(listed.count(c)) << c << " is emitted but not catalogued";
  for (const std::string& c : listed) EXPECT_TRUE(used.count(c)) << c << " is catalogued but never emitted";
  EXPECT_STREQ(find_diagnostic_code("CONF003")->slug, "unknown-key");
  EXPECT_EQ(find_diagnostic_code("CONF999"), nullptr);
}

}  // namespace
}  // namespace sa
