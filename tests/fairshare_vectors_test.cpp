// Slurm's own fair-share test vectors (test24.1, test24.4, test_130_2 and the classic fair
// share documentation; see tests/data/fairshare/README.md), replayed through the dump
// reader, the usage reader, the fair-share engine and the sshare formatter. Every field the
// original test checks must match to the printed digit.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "analyzer/accounting_readers.h"
#include "analyzer/assoc_reader.h"
#include "analyzer/text_util.h"
#include "engine/fair_share.h"
#include "report/sshare_table.h"

namespace sa {
namespace {

namespace fs = std::filesystem;

const fs::path kVectors = fs::path(SA_SOURCE_DIR) / "tests" / "data" / "fairshare";

std::map<std::string, std::string> read_settings(const fs::path& file) {
  std::map<std::string, std::string> out;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    auto eq = line.find('=');
    if (eq != std::string::npos) out[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return out;
}

std::vector<std::vector<std::string>> read_rows(const fs::path& file) {
  std::vector<std::vector<std::string>> rows;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) rows.push_back(split(line, '|'));
  }
  return rows;
}

class FairShareVectors : public ::testing::TestWithParam<std::string> {};

TEST_P(FairShareVectors, MatchEveryCheckedField) {
  const fs::path dir = kVectors / GetParam();
  auto settings = read_settings(dir / "settings.txt");
  SourceManager sources;
  DiagnosticSink sink;
  auto tree = read_assoc_dump((dir / "assoc.cfg").string(), sources, sink);
  ASSERT_TRUE(tree.ok());
  auto usage = read_sshare_usage((dir / "usage.psv").string(), sources, sink);
  ASSERT_TRUE(usage.ok());
  for (const Diagnostic& d : sink.all()) EXPECT_NE(d.severity, Severity::kError) << d.message;
  std::vector<double> raw = usage_by_association(*tree, *usage, sink);
  std::vector<long double> user_usage(raw.begin(), raw.end());

  PrioritySettings priority;
  priority.flags.fair_tree = settings["PriorityFlags"].find("NO_FAIR_TREE") == std::string::npos;
  priority.flags.depth_oblivious = settings["PriorityFlags"].find("DEPTH_OBLIVIOUS") != std::string::npos;
  priority.fairshare_dampening_factor = static_cast<std::uint32_t>(std::stoul(settings["FairShareDampeningFactor"]));
  SlurmVersion version = SlurmVersion::parse(settings["SlurmVersion"]).value_or(kDefaultSlurmVersion);
  engine::FairShare fair_share(*tree, engine::FairShareSettings::from(priority));
  auto shares = fair_share.compute(user_usage);
  report::SshareTable table = report::sshare_table(fair_share, shares, version);

  auto expected = read_rows(dir / "expected.psv");
  ASSERT_GT(expected.size(), 1u);
  const std::vector<std::string>& header = expected[0];
  int checked = 0;
  for (std::size_t r = 1; r < expected.size(); ++r) {
    const auto& want = expected[r];
    std::string account = to_lower(std::string(trim(want[0]))), user = to_lower(want[1]);
    const report::SshareRow* got = nullptr;
    for (const report::SshareRow& row : table.rows) {
      if (to_lower(std::string(trim(row.fields[0]))) == account && row.fields[1] == user) got = &row;
    }
    ASSERT_NE(got, nullptr) << GetParam() << ": no row for " << account << "|" << user;
    for (std::size_t c = 2; c < header.size() && c < want.size(); ++c) {
      if (want[c] == "?") continue;
      auto column = std::find(table.header.begin(), table.header.end(), header[c]);
      ASSERT_NE(column, table.header.end()) << header[c];
      EXPECT_EQ(got->fields[static_cast<std::size_t>(column - table.header.begin())], want[c])
          << GetParam() << ": " << account << "|" << user << " " << header[c];
      ++checked;
    }
  }
  RecordProperty("checked_fields", checked);
  EXPECT_GT(checked, 20);
}

INSTANTIATE_TEST_SUITE_P(Slurm, FairShareVectors,
                         ::testing::Values("test24_1_classic", "test24_1_classic_25_11", "test24_4_fair_tree",
                                           "test_130_2", "test_130_2_25_11", "doc_classic"));

}  // namespace
}  // namespace sa
