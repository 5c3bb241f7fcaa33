// The commands that compare runs when a run stops at the sim-steps limit (WORK008): `diff`
// compares no outcome (two cut runs cover different spans of the load, a cut run against a
// whole one a part with the whole) and fails its --fail-on-regression gate closed; `diff
// --seeds` compares nothing over the seeds; `tune` ranks no candidate with a cut run and
// refuses to compare anything with a cut baseline. Through the binary, as CI runs it.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <string>

#include "tests/cli_util.h"
#include "tests/conf_text.h"

namespace sa {
namespace {

// Two nodes and 200 one-hour whole-node jobs: walked every second (sched_interval=1) the queue
// takes 2,000,000 steps by 02:46:24 of the load; walked every minute the whole run takes fewer.
std::string conf_with(int sched_interval) {
  return test::write_temp(fmt::format("limit_si{}.conf", sched_interval),
                          fmt::format("ClusterName=c\nSlurmctldHost=h\nSchedulerType=sched/backfill\n"
                                      "SchedulerParameters=sched_interval={}\nNodeName=n[1-2] CPUs=4 RealMemory=1000\n"
                                      "PartitionName=p Nodes=ALL Default=YES MaxTime=1-00:00:00\n",
                                      sched_interval));
}

std::string two_hundred_jobs() {
  std::string swf;
  for (int i = 1; i <= 200; ++i) swf += fmt::format("{} {} 0 3600 4 -1 -1 4 3600 -1 1 1 1 -1 1 -1 -1 -1\n", i, i);
  return test::write_temp("limit_jobs.swf", swf);
}

const char* const kLimit = " --limit sim-steps=2000000";
const char* const kOldCut =
    "the old config's simulation stopped at its limit of 2000000 scheduling steps, 02:46:24 into the load: 194 jobs "
    "were pending, 2 running and 0 not yet submitted (WORK008)";

TEST(StepLimitCommands, DiffComparesNoOutcomeOfACutRun) {
  const std::string args = "diff " + conf_with(1) + " " + conf_with(60) + " --workload " + two_hundred_jobs();
  const auto text = test::run(args + kLimit);
  EXPECT_EQ(text.status, 0) << text.out;  // WORK008 went away: no finding is added
  EXPECT_NE(text.out.find("outcomes not compared:\n  ! " + std::string(kOldCut)), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("utilisation:"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("waits (mean / p95)"), std::string::npos) << text.out;

  const auto json = test::run(args + kLimit + " --format json", false);
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["outcomes_not_compared"], nlohmann::json::array({kOldCut}));
  EXPECT_FALSE(j.contains("metrics"));
  EXPECT_FALSE(j.contains("moved_jobs"));
  EXPECT_EQ(j["regressions"]["fails"], false);
  EXPECT_EQ(j["findings"]["removed"][0]["code"], "WORK008");

  // The gate cannot show the outcomes are no worse, so it fails closed, and says why.
  const auto gated = test::run(args + kLimit + " --fail-on-regression 5", true);
  EXPECT_EQ(gated.status, 1) << gated.out;
  EXPECT_NE(gated.out.find("--fail-on-regression fails the diff"), std::string::npos) << gated.out;
  const auto gated_json = test::run(args + kLimit + " --fail-on-regression 5 --format json", false);
  EXPECT_EQ(nlohmann::json::parse(gated_json.out)["regressions"]["fails"], true);

  const auto html = test::run(args + kLimit + " --format html", false);
  EXPECT_NE(html.out.find("<div class=\"verdict warn\" id=\"verdict\">The outcomes on the load were not compared"),
            std::string::npos);
  EXPECT_EQ(html.out.find("href=\"#metrics\""), std::string::npos) << "no link to a section that is not there";

  // Within the limit both runs are whole and every outcome is compared.
  const auto whole = nlohmann::json::parse(test::run(args + " --format json", false).out);
  EXPECT_FALSE(whole.contains("outcomes_not_compared"));
  EXPECT_TRUE(whole.contains("metrics"));
  EXPECT_EQ(whole["regressions"]["fails"], false);
}

TEST(StepLimitCommands, DiffOverSeedsComparesNothingWhenARunIsCut) {
  const auto r = test::run(
      "diff " + conf_with(1) + " " + conf_with(60) + " --days 1 --seeds 2 --format json --limit sim-steps=100000",
      false);
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j["seeds"].contains("outcomes_not_compared")) << r.out;
  EXPECT_TRUE(j["seeds"]["metrics"].empty());
  const std::string first = j["seeds"]["outcomes_not_compared"][0];
  EXPECT_EQ(first.rfind("seed 1: the old config's run stopped at its limit of 100000 scheduling steps", 0), 0u)
      << first;
}

TEST(StepLimitCommands, TuneRanksNoCandidateWithACutRun) {
  const std::string jobs = " --workload " + two_hundred_jobs();
  const std::string tune = "tune " + conf_with(60) + jobs + " --goal 'starved==0' --vary sched_interval=1,60";
  const auto r = test::run(tune + kLimit + " --format json", false);
  EXPECT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["candidates"].size(), 1u);  // sched_interval=60, the current setting
  EXPECT_EQ(j["recommended"]["settings"]["SchedulerParameters.sched_interval"], "60");
  const auto text = test::run(tune + kLimit);
  // (A run's record keeps no cause, so tune names both: its step limit, or a still clock.)
  EXPECT_NE(text.out.find("SchedulerParameters.sched_interval=1: its simulation stopped early (WORK008: its step "
                          "limit, or its clock standing still) on 1 of 1 seed load (load 1): not ranked"),
            std::string::npos)
      << text.out;

  // A resumed run reads the cut run back from its record (null) and reports the same.
  const std::string dir = (test::fresh_test_dir("limit_tune") / "out").string();
  const auto first = test::run(tune + kLimit + " --out " + dir, false);
  const auto again = test::run(tune + kLimit + " --out " + dir, false);
  EXPECT_EQ(first.out, again.out);
  EXPECT_NE(test::read_text(dir + "/candidates/1.json").find("\"seeds\":[null]"), std::string::npos);

  // A cut baseline leaves nothing to compare with: exit 2 and why.
  const auto base =
      test::run("tune " + conf_with(1) + jobs + " --goal 'starved==0' --vary sched_interval=1,60" + kLimit, true);
  EXPECT_EQ(base.status, 2) << base.out;
  EXPECT_NE(base.out.find("the baseline's simulation (the current settings) stopped early (WORK008: its step limit, "
                          "or its clock standing still) on 1 of 1 seed load (load 1): no candidate can be compared "
                          "with it"),
            std::string::npos)
      << base.out;
}

}  // namespace
}  // namespace sa
