// `compare` (engine/fidelity.h): the statistics on a hand-computed fixture (tests/data/compare:
// a sacct dump and a trace CSV), bad input as diagnostics with file:line, and the CLI end to
// end on a mini-slurm golden replayed through simulate.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "engine/fidelity_input.h"
#include "tests/cli_util.h"
#include "tests/test_util.h"

namespace sa {
namespace {

const std::string kData = std::string(SA_SOURCE_DIR) + "/tests/data/compare/";

struct Compared {
  SourceManager sources;
  DiagnosticSink sink;
  engine::Fidelity f;
  Compared(const std::string& real, const std::string& sim) {
    f = engine::compare_runs(*engine::read_run(real, sources, sink), *engine::read_run(sim, sources, sink));
  }
  const engine::GroupFidelity& group(const std::string& kind, const std::string& key) const {
    for (const engine::GroupFidelity& g : f.groups) {
      if (g.kind == kind && g.key == key) return g;
    }
    ADD_FAILURE() << "no group " << kind << " " << key;
    return f.groups.front();
  }
};

TEST(Compare, NearestRankPercentile) {
  EXPECT_EQ(engine::nearest_rank({}, 0.95), 0);
  EXPECT_EQ(engine::nearest_rank({300, 0, 20, 90, 10}, 0.95), 300);  // rank ceil(4.75) = 5
  EXPECT_EQ(engine::nearest_rank({5, 1, 4, 2, 3, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}, 0.95), 19);
  EXPECT_EQ(engine::nearest_rank({7}, 0.5), 7);
}

TEST(Compare, FixtureCountsAndOverallWaits) {
  Compared c(kData + "real.psv", kData + "sim.csv");
  // Job 6 is a refused submission in sacct (FAILED, None assigned): never started there.
  EXPECT_EQ(c.f.real_jobs, 7u);
  EXPECT_EQ(c.f.sim_jobs, 7u);
  EXPECT_EQ(c.f.common, 6u);
  EXPECT_EQ(c.f.started_both, 5u);
  EXPECT_EQ(c.f.started_real_only, 0u);
  EXPECT_EQ(c.f.started_sim_only, 1u);
  // |sim - real| starts: 0, 15, 30, 10, 130
  EXPECT_EQ(c.f.within_10s, 2u);
  EXPECT_EQ(c.f.within_60s, 4u);
  // real waits (start - eligible) 0, 20, 90, 10, 300: mean 84, p95 300; sim 0, 5, 120, 0, 170: mean 59, p95 170
  const engine::GroupFidelity& all = c.f.groups.front();
  EXPECT_EQ(all.kind, "all");
  EXPECT_EQ(all.real.jobs, 5u);
  EXPECT_EQ(all.real.mean, 84);
  EXPECT_EQ(all.real.p95, 300);
  EXPECT_EQ(all.sim.mean, 59);
  EXPECT_EQ(all.sim.p95, 170);
  EXPECT_EQ(all.mean_error, -25);
  EXPECT_NEAR(*all.mean_error_pct, -29.762, 0.001);
  EXPECT_EQ(all.p95_error, -130);
  EXPECT_NEAR(*all.p95_error_pct, -43.333, 0.001);
  // first submit 1000; last end 1400 real (job 5), 1270 sim (job 5; job 6 ended at 1040)
  EXPECT_EQ(c.f.makespan_real, 400);
  EXPECT_EQ(c.f.makespan_sim, 270);
  EXPECT_NEAR(*c.f.makespan_error_pct, -32.5, 1e-9);
  EXPECT_NEAR(*c.f.backfill_share_real, 2.0 / 5, 1e-12);  // jobs 2 and 5 of 1-5
  EXPECT_NEAR(*c.f.backfill_share_sim, 2.0 / 6, 1e-12);   // jobs 2 and 6 of 1-6
  EXPECT_EQ(c.f.placement.compared, 5u);
  EXPECT_EQ(c.f.placement.same_nodes, 4u);
  EXPECT_EQ(c.f.placement.more_nodes, 1u);  // job 2: 1 node real, 2 simulated
  EXPECT_EQ(c.f.placement.fewer_nodes, 0u);
  EXPECT_EQ(c.f.placement.legality_known, 5u);
  EXPECT_EQ(c.f.placement.illegal, 1u);  // job 3's placement_legal is 0
  EXPECT_TRUE(test::where(c.sink).empty());
}

TEST(Compare, FixtureGroupsFollowTheRealJobs) {
  Compared c(kData + "real.psv", kData + "sim.csv");
  std::vector<std::string> order;
  for (const engine::GroupFidelity& g : c.f.groups) order.push_back(g.kind + ":" + g.key);
  EXPECT_EQ(order, (std::vector<std::string>{"all:all", "partition:batch", "partition:debug", "qos:high", "qos:low",
                                             "qos:normal", "account:a", "account:b", "size:1", "size:2-16",
                                             "size:17-128", "size:129-1024"}));
  // batch: jobs 1-3, real 0/20/90 (mean 36.7 -> 37), sim 0/5/120 (41.7 -> 42)
  const engine::GroupFidelity& batch = c.group("partition", "batch");
  EXPECT_EQ(batch.real.mean, 37);
  EXPECT_EQ(batch.sim.mean, 42);
  EXPECT_EQ(batch.mean_error, 5);
  EXPECT_NEAR(*batch.mean_error_pct, 13.514, 0.001);
  EXPECT_EQ(batch.real.p95, 90);
  EXPECT_EQ(batch.sim.p95, 120);
  const engine::GroupFidelity& debug = c.group("partition", "debug");  // jobs 4, 5
  EXPECT_EQ(debug.real.mean, 155);
  EXPECT_EQ(debug.sim.mean, 85);
  const engine::GroupFidelity& normal = c.group("qos", "normal");  // jobs 1, 2, 4: 0/20/10 vs 0/5/0
  EXPECT_EQ(normal.real.mean, 10);
  EXPECT_EQ(normal.sim.mean, 2);
  EXPECT_EQ(normal.real.p95, 20);
  EXPECT_EQ(normal.sim.p95, 5);
  const engine::GroupFidelity& a = c.group("account", "a");  // jobs 1, 2, 5: 0/20/300 vs 0/5/170
  EXPECT_EQ(a.real.mean, 107);
  EXPECT_EQ(a.sim.mean, 58);
  const engine::GroupFidelity& small = c.group("size", "2-16");  // jobs 2, 4: 20/10 vs 5/0 (2.5 -> 3)
  EXPECT_EQ(small.real.mean, 15);
  EXPECT_EQ(small.sim.mean, 3);
  const engine::GroupFidelity& one = c.group("size", "1");  // job 1: both 0, so no relative error
  EXPECT_EQ(one.mean_error, 0);
  EXPECT_FALSE(one.mean_error_pct.has_value());
  // qos low and size 129-1024 (job 5 alone) are both -130; the first in report order wins
  ASSERT_TRUE(c.f.worst.has_value());
  EXPECT_EQ(c.f.groups[*c.f.worst].kind + ":" + c.f.groups[*c.f.worst].key, "qos:low");
}

TEST(Compare, TwoRealRunsAndARunWithItself) {
  Compared same(kData + "real.psv", kData + "real.psv");
  EXPECT_EQ(same.f.started_both, 6u);  // job 7 too; job 6 never started on either side
  EXPECT_EQ(same.f.within_10s, 6u);
  EXPECT_EQ(same.f.groups.front().mean_error, 0);
  EXPECT_EQ(same.f.placement.same_nodes, 6u);
  EXPECT_EQ(same.f.placement.legality_known, 0u);  // sacct does not say
  EXPECT_NEAR(*same.f.backfill_share_sim, 2.0 / 6, 1e-12);
}

TEST(Compare, StartsAreComparedFromEachJobsOwnSubmission) {
  // The same load run an hour later: every start 3600 s later, job 2 waiting 12 s more.
  auto job = [](std::uint32_t id, std::int64_t submit, std::int64_t start, std::int64_t end) {
    engine::RunJob j;
    j.id = id;
    j.submit = submit;
    j.start = start;
    j.end = end;
    return j;
  };
  engine::Run first, later;
  first.jobs = {job(1, 100, 105, 200), job(2, 110, 120, 150)};
  later.jobs = {job(1, 3700, 3705, 3800), job(2, 3710, 3732, 3762)};
  const engine::Fidelity f = engine::compare_runs(first, later);
  EXPECT_EQ(f.within_10s, 1u);
  EXPECT_EQ(f.within_60s, 2u);
  EXPECT_EQ(f.makespan_real, 100);  // 100 .. 200
  EXPECT_EQ(f.makespan_sim, 100);
  EXPECT_EQ(f.groups.front().mean_error, 6);  // waits 5, 10 against 5, 22
}

engine::Run trace_of(const std::string& text, SourceManager& sources, DiagnosticSink& sink) {
  return engine::read_trace_run(sources.add("t.csv", text), sources, sink);
}

TEST(Compare, MalformedTraceRowsAreDiagnosticsWithLineAndColumn) {
  SourceManager sources;
  DiagnosticSink sink;
  const engine::Run run = trace_of(
      "job_id,submit,eligible,start,end,started_by,nodes\n"
      "1,100,100,110,200,main,1\n"
      "2,100,100,soon,200,main,1\n"     // start not a number: column 11
      "3,100,100,\"110,200,main,1\n"    // quote left open
      "4,100,100,110,200,main\n"        // a field short
      "x,100,100,110,200,main,1\n"      // id not a number
      "1,100,100,120,200,backfill,1\n"  // id repeats
      "0,100,100,120,200,main,1\n",     // id out of range
      sources, sink);
  ASSERT_EQ(run.jobs.size(), 1u);
  EXPECT_EQ(run.jobs[0].start, 110);
  EXPECT_EQ(test::where(sink), (std::vector<std::string>{"WORK001 3:11", "WORK001 4:1", "WORK001 5:1", "WORK001 6:1",
                                                         "WORK001 7:1", "WORK001 8:1"}));
}

TEST(Compare, TraceColumnsByNameTheFirstOfARepeatedName) {
  SourceManager sources;
  DiagnosticSink sink;
  const engine::Run run = trace_of("start,job_id,submit,start\r\n3,1,2,9\r\n", sources, sink);
  ASSERT_EQ(run.jobs.size(), 1u);
  EXPECT_EQ(run.jobs[0].id, 1u);
  EXPECT_EQ(run.jobs[0].start, 3);
  EXPECT_TRUE(test::where(sink).empty());
}

TEST(Compare, TraceWithoutNeededColumnsOrEmpty) {
  SourceManager sources;
  DiagnosticSink sink;
  EXPECT_TRUE(trace_of("job_id,submit,end\n1,2,3\n", sources, sink).jobs.empty());
  EXPECT_TRUE(trace_of("\n# nothing\n", sources, sink).jobs.empty());
  EXPECT_EQ(test::where(sink), (std::vector<std::string>{"WORK003 1:1", "WORK003 1:1"}));
}

TEST(CompareCli, TextAndJson) {
  test::CommandResult text = test::run("compare " + kData + "real.psv " + kData + "sim.csv");
  ASSERT_EQ(text.status, 0) << text.out;
  EXPECT_NE(text.out.find("starts within 10 s of the real start: 2 of 5 (40.0%); within 60 s: 4 (80.0%)"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("makespan: real 400 s, sim 270 s, error -130 (-32.5%)"), std::string::npos);
  EXPECT_NE(text.out.find("backfill share of starts: real 40.0%, sim 33.3%"), std::string::npos);
  EXPECT_NE(text.out.find("worst group: qos low (mean wait 300 s real, 170 s sim, error -130 (-43.3%))"),
            std::string::npos);
  test::CommandResult json = test::run("compare " + kData + "real.psv " + kData + "sim.csv --format json");
  ASSERT_EQ(json.status, 0);
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["within_10s"], 2);
  EXPECT_EQ(j["makespan"]["error_s"], -130);
  EXPECT_EQ(j["groups"][0]["mean_wait_real"], 84);
  EXPECT_EQ(j["groups"][0]["p95_wait_sim"], 170);
  EXPECT_TRUE(j["groups"][8]["mean_error_pct"].is_null());  // size 1: real mean 0
  EXPECT_EQ(j["worst_group"]["key"], "low");
  EXPECT_EQ(j["placement"]["more_nodes"], 1);
}

TEST(CompareCli, BadInputIsADiagnosticNeverACrash) {
  EXPECT_EQ(test::run("compare /nonexistent/real.psv " + kData + "sim.csv").status, 2);
  const std::string empty = test::write_temp("empty.csv", "");
  test::CommandResult e = test::run("compare " + kData + "real.psv " + empty, true);
  EXPECT_EQ(e.status, 1);
  EXPECT_NE(e.out.find(empty + ":1:1: error:"), std::string::npos) << e.out;
  const std::string other = test::write_temp("other.csv", "job_id,submit,start\n100,1,2\n101,1,3\n");
  test::CommandResult n = test::run("compare " + kData + "real.psv " + other, true);
  EXPECT_EQ(n.status, 1);
  EXPECT_NE(n.out.find(other + ":1:1: error: no job id of this run appears in"), std::string::npos) << n.out;
  const std::string bad = test::write_temp("bad.csv", "job_id,submit,start\n1,1000,1000\n2,1000,later\n");
  test::CommandResult b = test::run("compare " + kData + "real.psv " + bad, true);
  EXPECT_EQ(b.status, 1);  // compared on what could be read, the bad row reported
  EXPECT_NE(b.out.find(bad + ":3:8: error: start 'later' is not a number [WORK001]"), std::string::npos) << b.out;
  EXPECT_NE(b.out.find("jobs in both: 1"), std::string::npos);
  const std::string junk = test::write_temp("junk.psv", "JobIDRaw|Start\n1|2\n");
  EXPECT_EQ(test::run("compare " + junk + " " + kData + "sim.csv").status, 1);  // no Submit column: WORK003
  const std::string bytes =
      test::write_temp("bytes.csv", std::string("job_id,submit,start\n1,99999999999999999999,5\n") +
                                        std::string("\0\xff\xfe,\x01,\n", 8));
  test::CommandResult y = test::run("compare " + kData + "real.psv " + bytes, true);
  EXPECT_EQ(y.status, 1);
  EXPECT_NE(y.out.find(bytes + ":2:3: error: submit '99999999999999999999' is not a number"), std::string::npos)
      << y.out;
  EXPECT_NE(y.out.find(bytes + ":3:1: error: job_id"), std::string::npos) << y.out;
  EXPECT_EQ(test::run("compare " + std::filesystem::temp_directory_path().string() + " " + bytes).status, 2);
}

TEST(CompareCli, GoldenReplayOfBackfillLimits) {
  const std::string g = std::string(SA_SOURCE_DIR) + "/tests/golden/mini_slurm_engine/backfill_limits/";
  const std::string trace = test::write_temp("backfill_limits.csv", "");
  ASSERT_EQ(test::run("simulate " + g + "slurm.conf --assoc " + g + "assoc.cfg --qos " + g +
                      "qos.psv --slurm-version 22.05 --workload " + g + "sacct.psv --trace " + trace)
                .status,
            0);
  test::CommandResult r = test::run("compare " + g + "sacct.psv " + trace + " --format json");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["started_both"], 6);
  EXPECT_EQ(j["within_10s"], 6);
  EXPECT_EQ(j["makespan"]["real"], 200);
  EXPECT_EQ(j["makespan"]["sim"], 201);
  EXPECT_EQ(j["groups"][0]["mean_wait_real"], 54);
  EXPECT_EQ(j["groups"][0]["mean_wait_sim"], 54);
  EXPECT_EQ(j["groups"][0]["p95_wait_real"], 170);
  EXPECT_EQ(j["groups"][0]["p95_wait_sim"], 171);
  EXPECT_EQ(j["placement"]["same_nodes"], 6);
  EXPECT_TRUE(j["backfill_share"]["real"].is_null());  // this capture's sacct.psv has no Flags
  EXPECT_NEAR(j["backfill_share"]["sim"].get<double>(), 0.5, 1e-12);
}

}  // namespace
}  // namespace sa
