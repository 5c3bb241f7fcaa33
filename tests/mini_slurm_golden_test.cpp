// Differential test against real Slurm 22.05 (tests/golden/mini_slurm/, captured with
// ../shared/tools/mini-slurm): from the live tree's `sacctmgr dump`, the usage sshare showed
// and the slurm.conf that ran, `slurm-advisor sshare` must print sshare's table row by row:
// same rows in the same order, same shares, blanks, `parent` and `inf`, same fair-share
// ranks. sshare prints RawUsage truncated to an integer (the captures are small numbers), so
// the usage fed in is rebuilt from NormUsage x root RawUsage, which keeps the ratios every
// derived column depends on; usage-derived columns then match within the precision of
// those printed digits (relative 2e-4), RawUsage within 1.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "analyzer/accounting_readers.h"
#include "analyzer/analyze.h"
#include "analyzer/assoc_reader.h"
#include "analyzer/text_util.h"
#include "engine/fair_share.h"
#include "report/sshare_table.h"

namespace sa {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> lines_of(const fs::path& file) {
  std::vector<std::string> out;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

bool numeric(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789.") == std::string::npos && s.find('.') != std::string::npos;
}

class MiniSlurmGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(MiniSlurmGolden, SshareMatchesRealSlurm) {
  const fs::path dir = fs::path(SA_SOURCE_DIR) / "tests" / "golden" / "mini_slurm" / GetParam();
  auto conf = analyze_file((dir / "slurm.conf").string(), {*SlurmVersion::parse("22.05"), ConfKind::kSlurm});
  ASSERT_TRUE(conf->ok());
  EXPECT_FALSE(conf->diagnostics.has_errors());
  SourceManager sources;
  DiagnosticSink sink;
  auto tree = read_assoc_dump((dir / "assoc.cfg").string(), sources, sink);
  ASSERT_TRUE(tree.ok());
  auto usage = read_sshare_usage((dir / "sshare_long.psv").string(), sources, sink);
  ASSERT_TRUE(usage.ok());
  EXPECT_FALSE(sink.has_errors());
  std::vector<double> raw = usage_by_association(*tree, *usage, sink);
  // Rebuild precise usage from NormUsage (column 5) and root's RawUsage (row 1, column 4).
  auto printed = lines_of(dir / "sshare_long.psv");
  const double root_raw = std::stod(split(printed[1], '|')[4]);
  for (std::size_t r = 2; r < printed.size(); ++r) {
    auto f = split(printed[r], '|');
    if (f[1].empty()) continue;
    std::uint32_t id = tree->find_user(to_lower(f[1]), to_lower(std::string(trim(f[0]))));
    ASSERT_NE(id, kNoAssoc) << printed[r];
    raw[id] = std::stod(f[5]) * root_raw;
  }
  engine::FairShare fair_share(*tree, engine::FairShareSettings::from(conf->config.priority));
  auto shares = fair_share.compute(std::vector<long double>(raw.begin(), raw.end()));
  auto table = report::sshare_table(fair_share, shares, conf->config.version, true,
                                    report::tracked_tres(conf->config.accounting.tres));

  auto expected = lines_of(dir / "sshare_long.psv");
  ASSERT_EQ(expected.size(), table.rows.size() + 1);  // same rows, same order
  EXPECT_EQ(expected[0], fmt::format("{}", fmt::join(table.header, "|")));
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    std::vector<std::string> want = split(expected[r + 1], '|');
    const auto& got = table.rows[r].fields;
    ASSERT_EQ(want.size(), got.size()) << expected[r + 1];
    for (std::size_t c = 0; c < want.size(); ++c) {
      const std::string& column = table.header[c];
      if (column == "RawUsage") {
        EXPECT_NEAR(std::stod(got[c]), std::stod(want[c]), 1.0) << GetParam() << " row " << r + 1;
      } else if (numeric(want[c]) && numeric(got[c])) {
        bool from_usage = column == "NormUsage" || column == "EffectvUsage" || column == "LevelFS" ||
                          (column == "FairShare" && !fair_share.settings().algorithm_is_fair_tree());
        double tolerance = from_usage ? 1.5e-6 + 2e-4 * std::fabs(std::stod(want[c])) : 1.5e-6;
        EXPECT_NEAR(std::stod(got[c]), std::stod(want[c]), tolerance)
            << GetParam() << " row " << r + 1 << " " << column << ": " << expected[r + 1];
      } else {
        EXPECT_EQ(got[c], want[c]) << GetParam() << " row " << r + 1 << " " << table.header[c];
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Slurm2205, MiniSlurmGolden,
                         ::testing::Values("fair_tree_default", "classic", "parent_and_zero",
                                           "parent_and_zero_classic"));

}  // namespace
}  // namespace sa
