// LOAD001 (rules/load/load-coverage-low) on loads that ask more than the nodes run, in CPUs or
// in GPUs: the jobs queue on full nodes, which is the load's volume, not a policy holding
// nodes back; and on memory that whole-node defaults fill, which is the config's defect.
#include <gtest/gtest.h>

#include <optional>

#include "cli_util.h"
#include "conf_text.h"
#include "engine/coverage.h"
#include "engine/site_loader.h"
#include "rules/framework/lint.h"
#include "rules/framework/withhold.h"
#include "tests/test_util.h"

namespace {

const std::string kFires = std::string(SA_SOURCE_DIR) + "/rules/load/load-coverage-low/fires/";

// LOAD001's one finding on `conf` with the recorded load `workload`.
std::optional<sa::rules::Finding> load001(const std::string& conf, const std::string& workload) {
  sa::engine::SitePaths paths;
  paths.conf = conf;
  paths.workload = workload;
  auto site = sa::engine::load_site(paths);
  EXPECT_TRUE(site.ok()) << site.error();
  if (!site.ok()) return std::nullopt;
  sa::rules::LintOptions options;
  options.only = {"LOAD001"};
  const auto report = sa::rules::run_lint(**site, options);
  EXPECT_EQ(report.findings.size(), 1u);
  if (report.findings.size() != 1) return std::nullopt;
  return report.findings[0];
}

// Reports print coverage in whole percent; a load that left a job out never reads 100 %.
TEST(LoadCoverage, APercentShortOfEveryJobIsAtMost99) {
  sa::engine::PartitionCoverage c;
  c.offered = 2507;
  c.started = 2495;  // ElBi21's default load: 99.5 % rounds to 100
  EXPECT_EQ(c.percent(), 99);
  c.offered = 313;
  c.started = 97;
  EXPECT_EQ(c.percent(), 31);
  c.started = 313;
  EXPECT_EQ(c.percent(), 100);
  c.offered = 320;
  c.cancelled = 7;  // cancelled before they started, as recorded: not asked for
  EXPECT_EQ(c.percent(), 100);
}

// A partition the load gave a handful of jobs is under 80% when the last one is still queued
// at the end: no run too thin to show anything (a site of 300 small partitions, 954 of 966
// jobs started, read "only ... (99%)"). Five jobs short, or any refused, still count.
TEST(LoadCoverage, AFewJobsStillQueuedMakeNoPartitionThin) {
  auto a = sa::test::analyze_body(
      "NodeName=n[1-4] CPUs=8 RealMemory=32000\nPartitionName=small Nodes=n1 Default=YES\n"
      "PartitionName=busy Nodes=n[2-4]\nPartitionName=closed Nodes=n[2-4]\n");
  // Name, offered, refused, started, pending at the end.
  auto row = [](const char* name, std::size_t offered, std::size_t refused, std::size_t started, std::size_t pending) {
    return sa::engine::PartitionCoverage{name, offered, refused, started, pending, 0, {}};
  };
  sa::engine::LoadCoverage c;
  c.partitions = {row("small", 3, 0, 2, 1), row("busy", 30, 0, 20, 10), row("closed", 3, 3, 0, 0)};
  c.total = row("", 36, 3, 22, 11);
  const sa::rules::Thinness t = sa::rules::thinness(c, a->config);
  ASSERT_EQ(t.partitions.size(), 2u);
  EXPECT_EQ(t.partitions[0].coverage->name, "busy");
  EXPECT_FALSE(t.partitions[0].refused);
  EXPECT_EQ(t.partitions[1].coverage->name, "closed");
  EXPECT_TRUE(t.partitions[1].refused);
  // 4 jobs short of 8 offered: still no thin partition; 5 short is one.
  c.partitions = {row("small", 8, 0, 4, 4)};
  EXPECT_TRUE(sa::rules::thinness(c, a->config).partitions.empty());
  c.partitions = {row("small", 8, 0, 3, 5)};
  EXPECT_EQ(sa::rules::thinness(c, a->config).partitions.size(), 1u);
}

TEST(LoadCoverage, AQueueOnFullNodesIsTheLoadsVolumeAndANote) {
  const auto f = load001(kFires + "queued_on_full_nodes.conf", kFires + "queued_on_full_nodes.sacct.psv");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->severity, sa::Severity::kInfo);
  // 12 four-CPU jobs an hour on 16 CPUs, cut at 25 hours: 97 of 313 ran, on nodes 99% busy;
  // the jobs left pending show the Reasons they waited with.
  EXPECT_NE(f->message.find("only 97 of 313 simulated jobs started (31%): batch: 97 of 313 started (216 still pending "
                            "at the end; its nodes were 99% busy; pending with Reason Priority 215, Resources 1); the "
                            "jobs were admitted and queued on full nodes"),
            std::string::npos)
      << f->message;
  const nlohmann::json& row = f->evidence["thin_partitions"][0];
  EXPECT_EQ(row["pending_reasons"], (nlohmann::json{{"Priority", 215}, {"Resources", 1}}));
  ASSERT_TRUE(f->fix.has_value());
  EXPECT_EQ(f->fix->description.rfind("nothing to change in the config for this", 0), 0u) << f->fix->description;
}

// One GPU and 4 of 64 CPUs a job, about three jobs an hour on a node of two GPUs: the GPUs are
// full while the CPUs look idle, and the message says which resource held the queue.
TEST(LoadCoverage, FullGpusBesideIdleCpusAreTheLoadsVolume) {
  const auto f = load001(kFires + "queued_on_full_gpus.conf", kFires + "queued_on_full_gpus.sacct.psv");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->severity, sa::Severity::kInfo);
  EXPECT_NE(f->message.find("gpu: 50 of 69 started (19 still pending at the end; its nodes' GPUs were 99% busy (their "
                            "CPUs 12%); pending with Reason Priority 18, Resources 1); the jobs were admitted and "
                            "queued on full nodes"),
            std::string::npos)
      << f->message;
  const nlohmann::json& row = f->evidence["thin_partitions"][0];
  EXPECT_EQ(row["nodes_busy_share"], row["busy_shares"]["gpus_busy"]);
  EXPECT_GE(row["busy_shares"]["gpus_busy"].get<double>(), 0.99);
  EXPECT_LT(row["busy_shares"]["cpus_busy"].get<double>(), 0.13);
  EXPECT_LT(row["busy_shares"]["memory_busy"].get<double>(), 0.13);
}

// The first test's load without DefMemPerCPU: its jobs ask no memory, so each is given a whole
// node's and the memory is full at half the CPUs. That is the config's defect (CONF106), not
// the load's volume: a warning that says so.
TEST(LoadCoverage, MemoryFullOfWholeNodeDefaultsIsNotVolume) {
  const std::string conf = sa::test::write_temp(
      "load001_whole_node_memory.conf",
      sa::test::replaced(sa::test::read_text(kFires + "queued_on_full_nodes.conf"), "DefMemPerCPU=1000\n", ""));
  const auto f = load001(conf, kFires + "queued_on_full_nodes.sacct.psv");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->severity, sa::Severity::kWarning);
  EXPECT_NE(f->message.find("batch: 50 of 313 started (263 still pending at the end; its nodes' memory was 100% busy "
                            "(their CPUs 50%), as a job without --mem takes a whole node's memory (CONF106); pending "
                            "with Reason Priority 262, Resources 1); the jobs were admitted and held"),
            std::string::npos)
      << f->message;
  // The jobs that waited longest, for `explain`: the fix names the first.
  ASSERT_EQ(f->evidence["examples"].size(), 2u);
  EXPECT_EQ(f->evidence["examples"][0]["job"], 51);
  EXPECT_EQ(f->evidence["examples"][0]["pending_at_end"], true);
  ASSERT_TRUE(f->fix.has_value());
  EXPECT_NE(f->fix->description.find("`slurm-advisor explain 51` with lint's inputs, for job 51 of batch, which "
                                     "waited longest"),
            std::string::npos)
      << f->fix->description;
}

}  // namespace
