// `slurm-advisor diff --seeds K`: both configs on K seeds of the old config's default load,
// every outcome a mean with a 95% interval and the change significant only when its interval
// excludes 0; --seeds 1 leaves the output as it was.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_util.h"
#include "conf_text.h"

namespace {

using sa::test::run;
using sa::test::write_temp;

const std::string kSmall = std::string(SA_SOURCE_DIR) + "/tests/data/tune/small.conf";

std::string small_text() { return sa::test::read_text(kSmall); }
using sa::test::replaced;

// FIFO to backfill on the busy small site: over five seeds the batch partition's mean wait
// drops by hours, far beyond the seeds' noise.
TEST(DiffSeeds, BackfillMakesTheWaitsSignificantlyShorter) {
  const std::string small =
      write_temp("seeds_backfill.conf", replaced(small_text(), "sched/builtin", "sched/backfill"));
  const auto r = run("diff " + kSmall + " " + small + " --days 1 --seeds 5 --format json");
  ASSERT_NE(r.status, 2) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.contains("seeds"));
  EXPECT_EQ(j["seeds"]["count"], 5);
  EXPECT_EQ(j["seeds"]["first"], 1);
  bool found = false;
  for (const auto& m : j["seeds"]["metrics"]) {
    for (const char* side : {"before", "after", "change"}) {
      EXPECT_LE(m[side]["ci"][0].get<double>(), m[side]["mean"].get<double>() + 1e-9);
      EXPECT_GE(m[side]["ci"][1].get<double>(), m[side]["mean"].get<double>() - 1e-9);
    }
    const bool excludes_zero = m["change"]["ci"][0].get<double>() > 0 || m["change"]["ci"][1].get<double>() < 0;
    EXPECT_EQ(m["significant"].get<bool>(), excludes_zero);
    if (m["group"] == "partition" && m["name"] == "batch" && m["metric"] == "mean wait") {
      found = true;
      EXPECT_LT(m["change"]["mean"].get<double>(), -3600);
      EXPECT_TRUE(m["significant"].get<bool>()) << m.dump();
    }
  }
  EXPECT_TRUE(found) << r.out;
  const auto text = run("diff " + kSmall + " " + small + " --days 1 --seeds 3");
  EXPECT_NE(text.out.find("over 3 seeds (1-3)"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("partition batch: mean wait"), std::string::npos) << text.out;
  const auto html = run("diff " + kSmall + " " + small + " --days 1 --seeds 3 --format html");
  EXPECT_NE(html.out.find("id=\"seed-changes\""), std::string::npos);
  EXPECT_NE(html.out.find("id=\"chart-seeds-p95\""), std::string::npos);
  EXPECT_NE(html.out.find("href=\"#seeds\""), std::string::npos);
}

TEST(DiffSeeds, TheSameConfigChangesNothing) {
  const std::string same = write_temp("seeds_same.conf", small_text());
  const auto r = run("diff " + kSmall + " " + same + " --days 1 --seeds 2 --format json");
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_FALSE(j["seeds"]["metrics"].empty());
  for (const auto& m : j["seeds"]["metrics"]) EXPECT_FALSE(m["significant"].get<bool>()) << m.dump();
}

TEST(DiffSeeds, OneSeedIsTheOutputOfToday) {
  const std::string other = write_temp("seeds_other.conf", replaced(small_text(), "sched/builtin", "sched/backfill"));
  for (const char* format : {"text", "json", "html"}) {
    const std::string args = "diff " + kSmall + " " + other + " --days 1 --format " + format;
    EXPECT_EQ(run(args).out, run(args + " --seeds 1").out) << format;
  }
  const auto bad = run("diff " + kSmall + " " + other + " --no-simulate --seeds 3", true);
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.out.find("--seeds runs the default load"), std::string::npos) << bad.out;
}

}  // namespace
