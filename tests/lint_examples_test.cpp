// The example sites in corpora/ produce the findings their READMEs promise ("What a linter
// should report"), and none of those the READMEs rule out. Each site is linted once, with
// its accounting files and the default synthetic load, as `make demo` does.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "engine/site_loader.h"
#include "rules/framework/lint.h"

namespace {

struct Example {
  const char* dir;
  const char* conf;
  bool accounting;
  std::set<std::string> present;  // codes the README promises
  std::set<std::string> absent;   // codes it rules out
};

std::map<std::string, int> lint_codes(const Example& e) {
  const std::string dir = std::string(SA_SOURCE_DIR) + "/corpora/" + e.dir + "/";
  sa::engine::SitePaths paths;
  paths.conf = dir + e.conf;
  if (e.accounting) {
    paths.assoc = dir + "sacctmgr_dump.cfg";
    paths.qos = dir + "qos.psv";
    paths.usage = dir + "sshare_usage.psv";
  }
  auto site = sa::engine::load_site(paths);
  EXPECT_TRUE(site.ok()) << site.error();
  std::map<std::string, int> codes;
  if (!site.ok()) return codes;
  for (const auto& f : sa::rules::run_lint(**site, {}).findings) ++codes[f.code];
  return codes;
}

class ExampleSite : public ::testing::TestWithParam<Example> {};

TEST_P(ExampleSite, ProducesTheFindingsItsReadmePromises) {
  const Example& e = GetParam();
  const auto codes = lint_codes(e);
  std::string got;
  for (const auto& [c, n] : codes) got += " " + c + ":" + std::to_string(n);
  for (const std::string& c : e.present) EXPECT_TRUE(codes.count(c)) << c << " missing; got" << got;
  for (const std::string& c : e.absent) EXPECT_FALSE(codes.count(c)) << c << " unexpected; got" << got;
}

INSTANTIATE_TEST_SUITE_P(
    Corpora, ExampleSite,
    ::testing::Values(
        // tier-dominance, weight-resolution, backfill-limits, config (DefaultTime dropped).
        Example{"tiered-university",
                "slurm.conf",
                true,
                {"TIER001", "TIER002", "PRIO002", "BF001", "CONF027"},
                {"GANG001", "GANG003"}},
        // gang-oversubscription on select/linear without CR_Memory; no backfill; FIFO, one partition.
        Example{"gang-timeslice",
                "slurm.conf",
                true,
                {"GANG001", "BF007"},
                {"TIER001", "TIER002", "TIER003", "TIER004", "PRIO001", "PRIO002", "PRIO005", "FAIR001", "FAIR006"}},
        // The negative control: memory tracked, two rows fit.
        Example{"gang-timeslice",
                "slurm-cons-tres.conf",
                true,
                {"BF007"},
                {"GANG001", "TIER001", "TIER002", "PRIO001", "PRIO002"}},
        Example{"overlap-suspend",
                "slurm.conf",
                true,
                {"GANG001", "TIER002", "TIER004", "PRIO002", "BF001", "FAIR007"},
                // Tier order is its preemption design (partition_prio suspends lower tiers).
                {"CONF100", "TIER001"}}),
    [](const ::testing::TestParamInfo<Example>& param) {
      std::string n = std::string(param.param.dir) + "_" + param.param.conf;
      for (char& c : n) {
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      }
      return n;
    });

}  // namespace
