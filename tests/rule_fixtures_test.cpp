// One parameterised test walks every rule folder (rules/<area>/<slug>/): each fires/*.conf
// must produce the rule's findings exactly on the lines marked `# expect: CODE`, each
// quiet/*.conf none at all. Side files beside a fixture, named after it, bring the rest of
// a site: NAME.assoc.cfg (sacctmgr dump), NAME.qos.psv, NAME.usage.psv, NAME.profile.txt,
// NAME.sacct.psv (a recorded load, `sacct -P`), NAME.version (the Slurm release the config
// is read as, e.g. 22.05; default 24.05).
// Expectation forms:
//   `... # expect: CODE[,CODE]`          a finding on this line
//   `# expect-next: CODE`                a finding on the next line (files whose syntax
//                                        allows only whole-line comments: sacctmgr dumps)
//   `# expect-file: CODE`                a finding about the file as a whole (line 0)
//   `# expect-at: SUFFIX:LINE CODE`      in the .conf: a finding at LINE of NAME.SUFFIX
//                                        (files without comments: QOS and usage tables)
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "engine/site_loader.h"
#include "rules/framework/lint.h"
#include "rules/framework/rule.h"

namespace fs = std::filesystem;

namespace {

struct Fixture {
  std::string rule_folder;  // rules/<area>/<slug>
  std::string path;         // the .conf
  bool fires = false;
};

std::vector<Fixture> collect() {
  std::vector<Fixture> out;
  const fs::path root = fs::path(SA_SOURCE_DIR) / "rules";
  std::vector<fs::path> confs;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.path().extension() == ".conf") confs.push_back(e.path());
  }
  std::sort(confs.begin(), confs.end());
  for (const fs::path& p : confs) {
    const std::string kind = p.parent_path().filename().string();
    if (kind != "fires" && kind != "quiet") continue;
    const fs::path folder = p.parent_path().parent_path();
    out.push_back({fs::relative(folder, SA_SOURCE_DIR).generic_string(), p.string(), kind == "fires"});
  }
  return out;
}

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

using Expect = std::set<std::pair<std::string, int>>;  // (file, line)

// Codes named after `tag` on a line.
std::vector<std::string> codes_after(const std::string& line, const std::string& tag) {
  std::vector<std::string> codes;
  auto at = line.find(tag);
  if (at == std::string::npos) return codes;
  std::istringstream words(line.substr(at + tag.size()));
  std::string w;
  words >> w;
  std::stringstream list(w);
  for (std::string c; std::getline(list, c, ',');) codes.push_back(c);
  return codes;
}

void expectations(const std::string& file, const std::string& code, const std::string& stem, Expect& out) {
  std::istringstream in(read(file));
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    auto has = [&](const std::string& tag) {
      auto c = codes_after(line, tag);
      return std::find(c.begin(), c.end(), code) != c.end();
    };
    if (has("# expect: ")) out.insert({file, n});
    if (has("# expect-next: ")) out.insert({file, n + 1});
    if (has("# expect-file: ")) out.insert({file, 0});
    auto at = line.find("# expect-at: ");
    if (at != std::string::npos) {
      std::istringstream words(line.substr(at + 13));
      std::string where, c;
      words >> where >> c;
      const auto colon = where.rfind(':');
      if (c == code && colon != std::string::npos) {
        out.insert({stem + "." + where.substr(0, colon), std::stoi(where.substr(colon + 1))});
      }
    }
  }
}

class RuleFixture : public ::testing::TestWithParam<Fixture> {};

TEST_P(RuleFixture, FindingsMatchExpectations) {
  const Fixture& fx = GetParam();
  const sa::rules::Rule* rule = nullptr;
  for (const auto& r : sa::rules::registry()) {
    if (r.folder == fx.rule_folder) rule = &r;
  }
  ASSERT_NE(rule, nullptr) << "no registered rule for folder " << fx.rule_folder;
  const std::string stem = fx.path.substr(0, fx.path.size() - 5);
  sa::engine::SitePaths paths;
  paths.conf = fx.path;
  auto side = [&](const char* suffix) { return fs::exists(stem + suffix) ? stem + suffix : std::string(); };
  paths.assoc = side(".assoc.cfg");
  paths.qos = side(".qos.psv");
  paths.usage = side(".usage.psv");
  paths.synthetic = side(".profile.txt");
  paths.workload = side(".sacct.psv");
  if (const std::string v = side(".version"); !v.empty()) {
    std::string text = read(v);
    text.erase(text.find_last_not_of(" \n\r\t") + 1);
    auto version = sa::SlurmVersion::parse(text);
    ASSERT_TRUE(version) << v << ": not a Slurm version: " << text;
    paths.version = *version;
  }
  auto site = sa::engine::load_site(paths);
  ASSERT_TRUE(site.ok()) << site.error();
  sa::rules::LintOptions options;
  options.only = {rule->code};
  const auto report = sa::rules::run_lint(**site, options);
  Expect expected, got;
  for (const std::string& f : {paths.conf, paths.assoc, paths.qos, paths.usage, paths.synthetic}) {
    if (!f.empty()) expectations(f, rule->code, stem, expected);
  }
  std::string listing;
  for (const auto& f : report.findings) {
    got.insert({f.loc.file, f.loc.line});
    listing += "\n  " + f.loc.file + ":" + std::to_string(f.loc.line) + ": " + f.message;
  }
  if (fx.fires) {
    EXPECT_FALSE(expected.empty()) << fx.path << " has no `# expect: " << rule->code << "`";
  } else {
    EXPECT_TRUE(expected.empty()) << "a quiet fixture expects nothing";
  }
  EXPECT_EQ(got, expected) << fx.path << " findings:" << listing;
  for (const auto& f : report.findings) {
    EXPECT_FALSE(f.message.empty());
    EXPECT_EQ(f.code, rule->code);
  }
}

std::string fixture_name(const ::testing::TestParamInfo<Fixture>& info) {
  std::string name = info.param.rule_folder.substr(6) + "_" + (info.param.fires ? "fires_" : "quiet_") +
                     fs::path(info.param.path).stem().string();
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Rules, RuleFixture, ::testing::ValuesIn(collect()), fixture_name);

// Every rule folder is complete: code, documentation with its four sections, and fixtures
// on both sides.
TEST(RuleRegistry, EveryRuleHasDocAndFixtures) {
  std::set<std::string> codes;
  ASSERT_FALSE(sa::rules::registry().empty());
  for (const auto& r : sa::rules::registry()) {
    SCOPED_TRACE(r.code);
    EXPECT_TRUE(codes.insert(r.code).second) << "duplicate code";
    const std::string doc(r.doc);
    for (const char* section : {"## What", "## Why", "## Example", "## Fix"}) {
      EXPECT_NE(doc.find(section), std::string::npos) << r.folder << "/rule.md lacks " << section;
    }
    const fs::path folder = fs::path(SA_SOURCE_DIR) / std::string(r.folder);
    auto count = [&](const char* sub) {
      int n = 0;
      if (fs::exists(folder / sub)) {
        for (const auto& e : fs::directory_iterator(folder / sub)) n += e.path().extension() == ".conf";
      }
      return n;
    };
    EXPECT_GE(count("fires"), 1) << r.folder;
    EXPECT_GE(count("quiet"), 1) << r.folder;
    EXPECT_EQ(std::string(r.slug).find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-"), std::string::npos);
  }
}

}  // namespace
