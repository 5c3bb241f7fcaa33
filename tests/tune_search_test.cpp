// slurm-advisor tune beyond the grid: the sampler (deterministic, stratified, log and integer
// ranges), the rung plan and the shortened loads of successive halving, the TOML goals/space
// file and its errors at file:line:col, and a halving search end to end whose answer is known.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include <fmt/format.h>

#include "tests/cli_util.h"
#include "tune/halving.h"
#include "tune/sampler.h"
#include "tune/spec_file.h"

namespace {

using namespace sa::tune;

Dimension vary(const std::string& text) { return std::get<Dimension>(parse_vary(text)); }

TEST(TuneSampler, LatinHypercubeCoversEveryStratumOnce) {
  const std::vector<Dimension> dims = {vary("UsageFactorX=0.0..1.0"), vary("bf_window=1..10000:log")};
  const auto points = sample_space(dims, 10, 7);
  ASSERT_EQ(points.size(), 10u);
  std::set<int> linear, log;
  for (const auto& p : points) {
    const double v = std::stod(p[0]);
    EXPECT_GE(v, 0.0);
    EXPECT_LT(v, 1.0);
    linear.insert(static_cast<int>(v * 10));
    const double w = std::stod(p[1]);  // an integer range: a whole number in [1, 10000]
    EXPECT_EQ(p[1].find('.'), std::string::npos) << p[1];
    EXPECT_GE(w, 1);
    EXPECT_LE(w, 10000);
    log.insert(static_cast<int>(std::log10(w) / 4 * 10));
  }
  EXPECT_EQ(linear.size(), 10u);                 // one point in each tenth
  EXPECT_GE(log.size(), 9u);                     // one in each tenth of the decades (flooring can share one)
  EXPECT_EQ(sample_space(dims, 10, 7), points);  // the same seed, the same points
  EXPECT_NE(sample_space(dims, 10, 8), points);
}

TEST(TuneSampler, ListsAndIntegersDropDuplicates) {
  const std::vector<Dimension> dims = {vary("SchedulerType=sched/builtin,sched/backfill")};
  const auto points = sample_space(dims, 10, 1);
  EXPECT_EQ(points.size(), 2u);  // only two distinct points exist
  const auto ints = sample_space({vary("bf_window=1..3:int")}, 30, 1);
  EXPECT_EQ(ints.size(), 3u);
}

TEST(TuneHalving, RungPlanEndsOnTheWholeLoadAndEverySeed) {
  const std::vector<Rung> plan = rung_plan(27, 5, 3);
  ASSERT_EQ(plan.size(), 3u);
  EXPECT_EQ(plan[0].candidates, 27u);
  EXPECT_EQ(plan[0].divisor, 9);
  EXPECT_EQ(plan[0].seeds, 1u);
  EXPECT_EQ(plan[1].candidates, 9u);
  EXPECT_EQ(plan[1].divisor, 3);
  EXPECT_EQ(plan[1].seeds, 2u);
  EXPECT_EQ(plan[2].candidates, 3u);
  EXPECT_EQ(plan[2].divisor, 1);
  EXPECT_EQ(plan[2].seeds, 5u);
  EXPECT_EQ(rung_plan(2, 5, 3).size(), 1u);
  EXPECT_EQ(rung_plan(100000, 5, 3).size(), 4u);  // at most four rungs
}

TEST(TuneHalving, ShortenKeepsTheFirstPartOfTheSpan) {
  sa::engine::Workload w;
  for (int i = 0; i < 10; ++i) {
    w.jobs.push_back({});
    w.jobs.back().submit = 1000 + 100 * i;  // 1000 .. 1900
  }
  w.until = 4000;
  const sa::engine::Workload s = shorten(w, 3);
  EXPECT_EQ(s.jobs.size(), 4u);  // submitted by 1000 + 900 / 3 = 1300
  EXPECT_EQ(s.until, 2000);      // 1000 + 3000 / 3
  EXPECT_EQ(shorten(w, 1).jobs.size(), 10u);
}

// Candidates equal on every goal are one point: the goals conflict only when the front has two
// points that differ (halving's survivors are often equal on a goal that saturates).
TEST(TuneRank, EqualCandidatesAreOnePointOfTheFront) {
  const std::vector<Goal> goals = {std::get<Goal>(parse_goal("backfill_share>=5%")),
                                   std::get<Goal>(parse_goal("starved==0"))};
  auto make = [](std::size_t index, double share, double starved) {
    CandidateResult c;
    c.index = index;
    c.goals = {{{share, share, share}, true}, {{starved, starved, starved}, starved == 0}};
    c.score = share;
    return c;
  };
  std::vector<CandidateResult> same = {make(0, 0.5, 0), make(1, 0.5, 0), make(2, 0.1, 0)};
  bool conflict = true;
  rank_candidates(same, goals, conflict);
  EXPECT_FALSE(conflict);
  EXPECT_TRUE(same[0].pareto && same[1].pareto);
  std::vector<CandidateResult> apart = {make(0, 0.5, 1), make(1, 0.4, 0)};
  rank_candidates(apart, goals, conflict);
  EXPECT_TRUE(conflict);
}

// A spec file's problems, each at its line and column.
std::vector<std::string> spec_errors(const std::string& text) {
  std::vector<std::string> out;
  for (const SpecFileError& e : parse_spec_file("t.toml", text).errors) {
    out.push_back(fmt::format("{}:{}: {}", e.line, e.column, e.message));
  }
  return out;
}

TEST(TuneSpecFile, ReadsGoalsSpaceAndOptions) {
  const SpecFile f = parse_spec_file("t.toml",
                                     "goals = [\"wait_p95<=2h\", \"starved==0\"]\n"
                                     "vary = [\"bf_window=60..2880:log:5\"]\nseeds = 3\nsearch = \"halving\"\n"
                                     "sample = 9\n");
  EXPECT_TRUE(f.errors.empty());
  ASSERT_EQ(f.goals.size(), 2u);
  EXPECT_EQ(f.goals[1].text, "starved==0");
  ASSERT_EQ(f.dims.size(), 1u);
  EXPECT_EQ(f.dims[0].name(), "SchedulerParameters.bf_window");
  EXPECT_EQ(f.seeds, 3u);
  EXPECT_EQ(f.search, "halving");
  EXPECT_EQ(f.sample, 9u);
}

TEST(TuneSpecFile, ErrorsAtLineAndColumn) {
  EXPECT_EQ(spec_errors("goal = [\"starved==0\"]\n"),
            (std::vector<std::string>{"1:1: unknown key 'goal'; did you mean 'goals'?"}));
  EXPECT_EQ(spec_errors("goals = []\nseeds = \"5\"\n"),
            (std::vector<std::string>{"2:9: 'seeds' must be an integer from 1 to 100"}));
  EXPECT_EQ(spec_errors("goals = \"starved==0\"\n"),
            (std::vector<std::string>{"1:9: 'goals' must be an array of strings"}));
  EXPECT_EQ(spec_errors("search = \"random\"\n"),
            (std::vector<std::string>{"1:10: 'search' must be \"grid\", \"halving\" or \"auto\""}));
  // The goal's own column 11 (the value), inside the string whose quote is at column 17.
  EXPECT_EQ(spec_errors("goals = [\n  \"starved==0\", \"wait_p95<=5%\"]\n"),
            (std::vector<std::string>{"2:28: goal 'wait_p95<=5%': this metric takes a duration (e.g. 30s, 10m, "
                                      "2h, 1d)"}));
  EXPECT_EQ(spec_errors("vary = ['bf_window=9..1']\n"),
            (std::vector<std::string>{"1:20: vary 'bf_window=9..1': the range runs backwards: write lo..hi with lo "
                                      "<= hi"}));
  EXPECT_EQ(spec_errors("goals = [\"a\"\n").size(), 1u);  // a TOML syntax error, at its place
  const SpecFileError e = parse_spec_file("t.toml", "goals = [\"wait_p95<=5%\"]\n").errors.at(0);
  EXPECT_EQ(e.render(),
            "t.toml:1:21: error: goal 'wait_p95<=5%': this metric takes a duration (e.g. 30s, 10m, 2h, 1d)\n"
            "  goals = [\"wait_p95<=5%\"]\n"
            "                      ^");
}

// small.conf runs FIFO (sched/builtin): only sched/backfill meets a backfill_share goal. With
// two continuous dimensions the grid has 2 x 100 x 100 points, far past --max-candidates, so
// auto picks successive halving.
const std::string kSmall = std::string(SA_SOURCE_DIR) + "/tests/data/tune/small.conf";
const std::string kHalving = "tune " + kSmall +
                             " --goal 'backfill_share>=5%' --goal 'starved==0' --seeds 2 --days 1 --sample 12 "
                             "--vary SchedulerType=sched/builtin,sched/backfill --vary bf_window=60..2880:log:100 "
                             "--vary PriorityWeightAge=1..100000:log:100 --format json";

TEST(TuneHalvingCli, FindsTheCandidateThatMeetsTheGoalWhateverTheJobs) {
  sa::test::CommandResult r = sa::test::run(kHalving + " --jobs 1");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(sa::test::run(kHalving + " --jobs 2").out, r.out);
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_FALSE(j["baseline"]["goals"][0]["pass"]);
  EXPECT_EQ(j["recommended"]["settings"]["SchedulerType"], "sched/backfill");
  EXPECT_TRUE(j["recommended"]["goals"][0]["pass"]);
  EXPECT_EQ(j["search"]["strategy"], "halving");
  EXPECT_EQ(j["search"]["rungs"], 2);  // 12 candidates: 12, then 4 on the whole load
  ASSERT_EQ(j["candidates"].size(), 12u);
  EXPECT_EQ(j["candidates"][0]["rung"], 2);
  EXPECT_EQ(j["candidates"][0]["seeds"], 2);
  EXPECT_EQ(j["candidates"][11]["rung"], 1);
  EXPECT_EQ(j["candidates"][11]["seeds"], 1);
  EXPECT_EQ(j["baseline"]["goals"].size(), 2u);
}

TEST(TuneSpecCli, FileAndCommandLineAddUp) {
  const auto dir = sa::test::fresh_test_dir("tune_spec");
  const std::string spec = (dir / "spec.toml").string();
  std::ofstream(spec) << "goals = [\"backfill_share>=5%\"]\nvary = [\"SchedulerType=sched/builtin,sched/backfill\"]\n"
                         "seeds = 1\n";
  sa::test::CommandResult r = sa::test::run("tune " + kSmall + " --spec " + spec +
                                            " --goal 'starved==0' --vary bf_window=30,240 --days 1 --format json");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["candidates"].size(), 4u);
  EXPECT_EQ(j["candidates"][0]["seeds"], 1);  // the file's seeds
  EXPECT_EQ(j["baseline"]["goals"][0]["goal"], "backfill_share>=5%");
  EXPECT_EQ(j["baseline"]["goals"][1]["goal"], "starved==0");
  std::ofstream(spec) << "goals = [\"wait_p95<=5%\"]\nvary = [\"bf_window=30,240\"]\n";
  r = sa::test::run("tune " + kSmall + " --spec " + spec, true);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("spec.toml:1:21: error: goal 'wait_p95<=5%'"), std::string::npos) << r.out;
}

}  // namespace
