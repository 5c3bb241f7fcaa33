// slurm-advisor tune: the goal language and the --vary parser (values and error columns), the
// slurm.conf text edits behind each candidate, the interval logic on hand-made numbers, and
// searches end to end on a small site whose answer is known.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/cli_util.h"
#include "tune/goal.h"
#include "tune/search.h"
#include "tune/space.h"
#include "tune/stats.h"
#include "tune/tune_report.h"

namespace {

using namespace sa::tune;

// The parsed value (or the error) of `text`, failing the test when it is the other one.
template <typename Want, typename Parse>
Want expect_parse(Parse parse, const std::string& text) {
  auto parsed = parse(text);
  EXPECT_TRUE(std::holds_alternative<Want>(parsed)) << text;
  return std::holds_alternative<Want>(parsed) ? std::get<Want>(parsed) : Want{};
}

Goal goal(const std::string& text) { return expect_parse<Goal>(parse_goal, text); }
SpecError goal_error(const std::string& text) { return expect_parse<SpecError>(parse_goal, text); }
Dimension vary(const std::string& text) { return expect_parse<Dimension>(parse_vary, text); }
SpecError vary_error(const std::string& text) { return expect_parse<SpecError>(parse_vary, text); }

TEST(TuneGoal, ParsesTheIssueExamples) {
  Goal g = goal("wait_p95[partition=batch]<=2h");
  EXPECT_EQ(g.metric, Metric::kWaitP95);
  EXPECT_EQ(g.selector.partition, "batch");
  EXPECT_EQ(g.op, Op::kLe);
  EXPECT_DOUBLE_EQ(g.target, 7200);
  EXPECT_DOUBLE_EQ(goal("share_error<=5%").target, 0.05);
  g = goal("wait_p50[size=1-16]<=10m");
  EXPECT_EQ(g.selector.size_lo, 1u);
  EXPECT_EQ(g.selector.size_hi, 16u);
  EXPECT_DOUBLE_EQ(g.target, 600);
  g = goal("utilisation >= 85%");
  EXPECT_EQ(g.op, Op::kGe);
  EXPECT_DOUBLE_EQ(g.target, 0.85);
  EXPECT_EQ(goal("backfill_share>=20%").metric, Metric::kBackfillShare);
  g = goal("starved[qos=low]==0");
  EXPECT_EQ(g.selector.qos, "low");
  EXPECT_EQ(g.op, Op::kEq);
  g = goal("findings[warning]==0");
  EXPECT_EQ(g.selector.severity, "warning");
  g = goal("wait_mean[account=chem,tier=2]<1d");
  EXPECT_EQ(g.selector.account, "chem");
  EXPECT_EQ(g.selector.tier, 2);
  EXPECT_EQ(g.op, Op::kLt);
  EXPECT_DOUBLE_EQ(g.target, 86400);
}

TEST(TuneGoal, ErrorsPointAtTheColumn) {
  EXPECT_EQ(goal_error("wait_p96<=2h").column, 1);
  EXPECT_EQ(goal_error("wait_p95[partition=batch<=2h").column, 9);
  EXPECT_EQ(goal_error("wait_p95=>2h").column, 9);
  EXPECT_EQ(goal_error("wait_p95<=").column, 11);
  EXPECT_EQ(goal_error("wait_p95<=5%").column, 11);  // a wait is a duration
  EXPECT_EQ(goal_error("wait_p95<=2w").column, 11);
  EXPECT_EQ(goal_error("wait_p95[color=red]<=1h").column, 10);
  EXPECT_EQ(goal_error("wait_p50[size=16-1]<=1m").column, 15);
  EXPECT_EQ(goal_error("findings[fatal]==0").column, 10);
  const SpecError e = goal_error("utilisation>=85");
  EXPECT_EQ(e.column, 14);
  EXPECT_EQ(e.render("--goal", "utilisation>=85"),
            "--goal 'utilisation>=85': column 14: this metric takes a percentage (e.g. 85%)\n"
            "  utilisation>=85\n"
            "               ^");
}

TEST(TuneGoal, PassMarginAndFormat) {
  const Goal le = goal("wait_p95<=2h"), ge = goal("utilisation>=80%"), eq = goal("starved==0");
  EXPECT_TRUE(passes(le, 7200));
  EXPECT_FALSE(passes(le, 7201));
  EXPECT_DOUBLE_EQ(margin(le, 3600), 0.5);
  EXPECT_DOUBLE_EQ(margin(ge, 0.6), -0.25);
  EXPECT_DOUBLE_EQ(margin(eq, 3), -3);
  EXPECT_EQ(format_value(le, 3723), "1h02m");
  EXPECT_EQ(format_value(ge, 0.855), "85.5%");
  EXPECT_EQ(format_value(eq, 2), "2");
}

TEST(TuneSpace, ParsesKeysAndValues) {
  Dimension d = vary("PriorityWeightFairshare=1000..100000:log:3");
  EXPECT_EQ(d.kind, KeyKind::kSetting);
  EXPECT_EQ(d.values, (std::vector<std::string>{"1000", "10000", "100000"}));
  d = vary("bf_window=60..180:3");
  EXPECT_EQ(d.kind, KeyKind::kSchedParam);
  EXPECT_EQ(d.name(), "SchedulerParameters.bf_window");
  EXPECT_EQ(d.values, (std::vector<std::string>{"60", "120", "180"}));
  EXPECT_EQ(vary("bf_window=60..180").values.size(), 5u);  // five points by default
  d = vary("SchedulerParameters.default_queue_depth=100,500");
  EXPECT_EQ(d.kind, KeyKind::kSchedParam);
  EXPECT_EQ(d.key, "default_queue_depth");
  d = vary("Partition[gpu].PriorityJobFactor=1,10");
  EXPECT_EQ(d.kind, KeyKind::kPartition);
  EXPECT_EQ(d.scope, "gpu");
  EXPECT_EQ(d.key, "PriorityJobFactor");
  d = vary("QOS[high].Priority=0..100:int:3");
  EXPECT_EQ(d.kind, KeyKind::kQos);
  EXPECT_EQ(d.values, (std::vector<std::string>{"0", "50", "100"}));
  EXPECT_EQ(vary("UsageFactorX=0.5..1.5:3").values, (std::vector<std::string>{"0.5", "1", "1.5"}));
  EXPECT_EQ(vary("bf_window=1..2:int:5").values, (std::vector<std::string>{"1", "2"}));  // duplicates dropped
}

TEST(TuneSpace, ErrorsPointAtTheColumn) {
  EXPECT_EQ(vary_error("bf_window").column, 10);
  EXPECT_EQ(vary_error("=1,2").column, 1);
  EXPECT_EQ(vary_error("bf_window=10..x").column, 15);
  EXPECT_EQ(vary_error("bf_window=9..1").column, 11);
  EXPECT_EQ(vary_error("bf_window=1..9:sqrt").column, 16);
  EXPECT_EQ(vary_error("bf_window=0..9:log").column, 11);
  EXPECT_EQ(vary_error("bf_window=1,,2").column, 13);
  EXPECT_EQ(vary_error("PriorityWeightAge=").column, 19);
  EXPECT_EQ(vary_error("Node[n1].CPUs=1").column, 1);
  EXPECT_EQ(vary_error("Partition[gpu]=1").column, 15);
  EXPECT_EQ(vary_error("Partition[gpu.Weight=1").column, 10);
}

TEST(TuneEdit, ReplacesTheValueWhereItIsWritten) {
  const std::string text = "A=1\nPriorityWeightAge=10 # why\nPriorityWeightAge=20\nB=2\n";
  // The last of a repeated key is the one Slurm keeps; keys match without regard to case.
  EXPECT_EQ(set_conf_key(text, "priorityweightage", "30"),
            "A=1\nPriorityWeightAge=10 # why\nPriorityWeightAge=30\nB=2\n");
  EXPECT_EQ(set_conf_key("A=1\nC=3 # c\n", "C", "4"), "A=1\nC=4 # c\n");
  EXPECT_EQ(set_conf_key("A=1", "PriorityWeightQOS", "5"), "A=1\nPriorityWeightQOS=5\n");
}

TEST(TuneEdit, EditsOneSchedulerParametersItem) {
  const std::string text = "X=1\nSchedulerParameters=bf_window=60,bf_continue\n";
  EXPECT_EQ(set_sched_param(text, "", "bf_window", "120"), "X=1\nSchedulerParameters=bf_window=120,bf_continue\n");
  EXPECT_EQ(set_sched_param(text, "", "bf_max_job_test", "50"),
            "X=1\nSchedulerParameters=bf_window=60,bf_continue,bf_max_job_test=50\n");
  EXPECT_EQ(set_sched_param(text, "", "bf_continue", "off"), "X=1\nSchedulerParameters=bf_window=60\n");
  // Written only in an Include'd file: the resolved list, edited, on a line of its own.
  EXPECT_EQ(set_sched_param("X=1\n", "bf_interval=30", "bf_window", "120"),
            "X=1\nSchedulerParameters=bf_interval=30,bf_window=120\n");
}

TEST(TuneEdit, EditsPartitionFieldsAndQos) {
  std::string text = "PartitionName=gpu Nodes=g1 PriorityJobFactor=1\nPartitionName=cpu Nodes=c1 # cpus\n";
  ASSERT_TRUE(set_partition_field(text, "gpu", "PriorityJobFactor", "10"));
  ASSERT_TRUE(set_partition_field(text, "cpu", "PriorityTier", "2"));
  EXPECT_EQ(text,
            "PartitionName=gpu Nodes=g1 PriorityJobFactor=10\nPartitionName=cpu Nodes=c1 PriorityTier=2 # cpus\n");
  EXPECT_FALSE(set_partition_field(text, "gp", "PriorityTier", "2"));
  sa::QosTable qos;
  qos.records.push_back({});
  qos.records.back().name = "high";
  EXPECT_EQ(set_qos_field(qos, "high", "Priority", "500"), "");
  EXPECT_EQ(qos.records.back().priority, 500u);
  EXPECT_NE(set_qos_field(qos, "high", "Priority", "-1"), "");
  EXPECT_NE(set_qos_field(qos, "high", "Colour", "1").find("cannot be varied"), std::string::npos);
  EXPECT_NE(set_qos_field(qos, "low", "Priority", "1").find("not in the QOS table"), std::string::npos);
}

TEST(TuneEdit, UnifiedDiffOfReplacedAndAppendedLines) {
  const std::string before = "a\nb\nc\nd\ne\nf\ng\nh\n";
  const std::string after = "a\nB\nc\nd\ne\nf\ng\nh\ni\n";
  EXPECT_EQ(unified_diff(before, after, "s.conf"),
            "--- s.conf\n+++ s.conf\n@@ -1,5 +1,5 @@\n a\n-b\n+B\n c\n d\n e\n@@ -6,3 +6,4 @@\n f\n g\n h\n+i\n");
  EXPECT_EQ(unified_diff(before, before, "s.conf"), "");
}

TEST(TuneStats, MeanIntervalUsesStudentsT) {
  const Interval i = mean_interval({1, 2, 3});
  EXPECT_DOUBLE_EQ(i.mean, 2);
  EXPECT_NEAR(i.hi - i.mean, 4.303 / std::sqrt(3.0), 1e-9);  // sd 1, t(0.975, 2) = 4.303
  const Interval one = mean_interval({5});
  EXPECT_EQ(one.lo, 5);
  EXPECT_EQ(one.hi, 5);
  std::vector<double> many(40, 1.0);
  many[0] = 3;
  const Interval big = mean_interval(many);
  EXPECT_GT(big.hi, big.mean);
}

TEST(TuneStats, BeatsOnlyWithoutOverlap) {
  const Goal le = goal("wait_p95<=1h"), ge = goal("utilisation>=80%"), eq = goal("starved==0");
  EXPECT_TRUE(beats(le, {100, 50, 150}, {300, 200, 400}));
  EXPECT_FALSE(beats(le, {100, 50, 250}, {300, 200, 400}));  // intervals overlap
  EXPECT_FALSE(beats(le, {300, 200, 400}, {100, 50, 150}));  // worse
  EXPECT_TRUE(beats(ge, {0.9, 0.85, 0.95}, {0.7, 0.6, 0.8}));
  EXPECT_FALSE(beats(ge, {0.7, 0.6, 0.8}, {0.9, 0.85, 0.95}));
  EXPECT_TRUE(beats(eq, {0.5, 0, 1}, {5, 3, 7}));
  EXPECT_FALSE(beats(eq, {2, 0, 4}, {5, 3, 7}));
}

TEST(TuneRank, PassesFirstThenMarginsAndTheParetoFront) {
  const std::vector<Goal> goals = {goal("wait_p95<=1h"), goal("utilisation>=80%")};
  auto make = [](std::size_t index, double wait, double util) {
    CandidateResult c;
    c.index = index;
    c.goals = {{{wait, wait, wait}, wait <= 3600}, {{util, util, util}, util >= 0.8}};
    c.passes = (wait <= 3600) + (util >= 0.8);
    c.score = (3600 - wait) / 3600 + (util - 0.8) / 0.8;
    return c;
  };
  std::vector<CandidateResult> all = {make(0, 7200, 0.9), make(1, 1800, 0.85), make(2, 600, 0.7), make(3, 3000, 0.95)};
  bool conflict = false;
  rank_candidates(all, goals, conflict);
  EXPECT_EQ(all[0].index, 1u);  // both pass, the larger summed margin
  EXPECT_EQ(all[1].index, 3u);
  EXPECT_TRUE(conflict);
  EXPECT_TRUE(all[0].pareto && all[1].pareto);
  EXPECT_EQ(all[3].index, 0u);
  EXPECT_TRUE(all[2].pareto);   // index 2: the shortest wait
  EXPECT_FALSE(all[3].pareto);  // index 0: 3 waits less and uses more
}

// End to end on tests/data/tune/small.conf: a FIFO site (sched/builtin), so only
// sched/backfill can meet a backfill_share goal; sched/bogus is refused by the analyzer.
const std::string kSmall = std::string(SA_SOURCE_DIR) + "/tests/data/tune/small.conf";
const std::string kSearch = "tune " + kSmall +
                            " --goal 'backfill_share>=5%' --goal 'starved==0' --seeds 2 --days 1 "
                            "--vary SchedulerType=sched/builtin,sched/backfill,sched/bogus --vary bf_window=30,240";

TEST(TuneCli, FindsTheKnownAnswerAndSkipsTheInvalidCandidate) {
  sa::test::CommandResult r = sa::test::run(kSearch + " --format json");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["baseline"]["settings"]["SchedulerType"], "sched/builtin");
  EXPECT_EQ(j["baseline"]["settings"]["SchedulerParameters.bf_window"], "");
  EXPECT_FALSE(j["baseline"]["goals"][0]["pass"]);
  EXPECT_EQ(j["recommended"]["settings"]["SchedulerType"], "sched/backfill");
  EXPECT_TRUE(j["recommended"]["goals"][0]["pass"]);
  ASSERT_EQ(j["candidates"].size(), 4u);  // the two sched/bogus candidates are skipped
  EXPECT_EQ(j["candidates"][0]["rank"], 1);
  EXPECT_EQ(j["candidates"][0]["seeds"], 2);
  const auto& g = j["candidates"][0]["goals"][0];
  EXPECT_EQ(g["goal"], "backfill_share>=5%");
  EXPECT_LE(g["ci"][0].get<double>(), g["value"].get<double>());
  EXPECT_GE(g["ci"][1].get<double>(), g["value"].get<double>());
  for (const auto& c : j["candidates"]) EXPECT_NE(c["settings"]["SchedulerType"], "sched/bogus");
}

TEST(TuneCli, TextShowsTheDiffAndTheSkippedReason) {
  sa::test::CommandResult r = sa::test::run(kSearch);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("-SchedulerType=sched/builtin\n+SchedulerType=sched/backfill\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("sched/bogus"), std::string::npos);
  EXPECT_NE(r.out.find("[CONF020]"), std::string::npos) << r.out;
}

TEST(TuneCli, JobsDoNotChangeTheOutput) {
  sa::test::CommandResult one = sa::test::run(kSearch + " --format json --jobs 1");
  sa::test::CommandResult two = sa::test::run(kSearch + " --format json --jobs 2");
  ASSERT_EQ(one.status, 0);
  EXPECT_EQ(one.out, two.out);
}

TEST(TuneCli, ExitStatus) {
  // No candidate reaches 99 % backfill starts.
  EXPECT_EQ(sa::test::run("tune " + kSmall +
                          " --goal 'backfill_share>=99%' --seeds 1 --days 1 "
                          "--vary SchedulerType=sched/builtin,sched/backfill")
                .status,
            1);
  sa::test::CommandResult bad = sa::test::run("tune " + kSmall + " --goal 'wait_p95<=5%' --vary bf_window=1,2", true);
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.out.find("column 11: this metric takes a duration"), std::string::npos) << bad.out;
  bad = sa::test::run("tune " + kSmall + " --goal 'starved==0' --vary PriortyWeightAge=1,2", true);
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.out.find("refused every candidate"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("PriortyWeightAge"), std::string::npos) << bad.out;
  bad = sa::test::run("tune " + kSmall + " --goal 'wait_p95[partition=gpu]<=1h' --vary bf_window=1,2", true);
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.out.find("no partition 'gpu' in slurm.conf"), std::string::npos) << bad.out;
  bad = sa::test::run("tune " + kSmall + " --goal 'starved==0' --vary 'Partition[gpu].PriorityTier=1,2'", true);
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.out.find("partition 'gpu' is not defined"), std::string::npos) << bad.out;
  bad = sa::test::run("tune " + kSmall +
                          " --goal 'starved==0' --vary bf_window=1..1000:100 --vary "
                          "PriorityWeightAge=1..10:10 --max-candidates 50 --search grid",
                      true);
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.out.find("more than 50 candidates"), std::string::npos) << bad.out;
}

}  // namespace

namespace {

// A partition field edited end to end: with 'low' a tier below 'high' on the same nodes, its
// jobs wait behind every high job; one tier for both shortens low's waits. The two goals pull
// apart, so the text report prints a Pareto front; --output writes the JSON to a file.
TEST(TuneCli, PartitionTierEditShortensTheLowerTiersWaits) {
  const auto dir = sa::test::fresh_test_dir("tune");
  const std::string out = (dir / "tune.json").string();
  const std::string conf = std::string(SA_SOURCE_DIR) + "/tests/data/tune/tiers.conf";
  const std::string args = "tune " + conf +
                           " --goal 'wait_p95[partition=low]<=4h' --goal 'wait_p95[partition=high]<=8h' "
                           "--vary 'Partition[low].PriorityTier=1,2' --seeds 3 --days 1";
  sa::test::CommandResult r = sa::test::run(args + " --format json --output " + out);
  ASSERT_NE(r.status, 2);
  std::ifstream in(out);
  const auto j = nlohmann::json::parse(in);
  ASSERT_EQ(j["candidates"].size(), 2u);
  double low_wait[3] = {0, 0, 0};
  for (const auto& c : j["candidates"]) {
    low_wait[std::stoi(c["settings"]["Partition[low].PriorityTier"].get<std::string>())] =
        c["goals"][0]["value"].get<double>();
  }
  EXPECT_LT(low_wait[2], low_wait[1]);
  EXPECT_EQ(j["baseline"]["settings"]["Partition[low].PriorityTier"], "1");
  r = sa::test::run(args);
  EXPECT_NE(r.out.find("Pareto front"), std::string::npos) << r.out;
}

}  // namespace
