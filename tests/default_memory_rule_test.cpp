// CONF106 (rules/config/default-memory-missing) on its own fixture with a load whose jobs give
// no --mem: the count of jobs that ran alone on a node, and the re-simulated default memory.
#include <filesystem>
#include <fstream>
#include <set>

#include <unistd.h>

#include <gtest/gtest.h>

#include "engine/site_loader.h"
#include "report/evidence_glossary.h"
#include "rules/framework/lint.h"
#include "rules/framework/withhold.h"
#include "tests/scratch_dir.h"

namespace fs = std::filesystem;

namespace {

const fs::path kDir = fs::path(SA_SOURCE_DIR) / "rules/config/default-memory-missing/fires";

/// Lints `conf` for CONF106 alone, with the synthetic `profile` as the load (else the default load).
sa::rules::LintReport lint(const std::string& conf, const std::string& profile = {}) {
  sa::engine::SitePaths paths;
  paths.conf = conf;
  paths.synthetic = profile;
  auto site = sa::engine::load_site(paths);
  EXPECT_TRUE(site.ok()) << site.error();
  sa::rules::LintOptions options;
  options.only = {"CONF106"};
  return sa::rules::run_lint(**site, options);
}

TEST(DefaultMemoryMissing, JobsWithoutMemRunAloneAndTheDefaultLetsThemShare) {
  const auto report = lint((kDir / "explicit_memory.conf").string(), (kDir / "explicit_memory.profile.txt").string());
  ASSERT_EQ(report.findings.size(), 1u);
  const sa::rules::Finding& f = report.findings[0];
  EXPECT_EQ(f.severity, sa::Severity::kWarning);
  EXPECT_EQ(f.loc.line, 6);  // SelectTypeParameters
  // Every job of the profile gives no --mem and fewer CPUs than a 32-CPU node: all ran alone.
  EXPECT_EQ(f.evidence["metrics"]["jobs_alone_on_their_nodes"], 307);
  EXPECT_EQ(f.evidence["metrics"]["their_mean_cpus"], 3);
  EXPECT_NE(f.message.find("in the simulated load 307 of the 307 jobs started there ran so"), std::string::npos)
      << f.message;
  ASSERT_TRUE(f.fix.has_value());
  EXPECT_EQ(f.fix->value, "4000");  // 128000 MB over 32 CPUs
  EXPECT_EQ(f.fix->resimulated["jobs_alone_on_their_nodes"], 0);
  // The mean wait falls from over a day to a second.
  EXPECT_GT(f.evidence["metrics"]["wait_seconds"]["mean"].get<double>(), 86400);
  EXPECT_LT(f.fix->resimulated["wait_seconds"]["mean"].get<double>(), 10);
  EXPECT_EQ(f.evidence["fix_effect"], "better");
  // Every key the HTML report shows has its line in the glossary.
  std::set<std::string> keys;
  sa::report::collect_evidence_keys(f.evidence, keys);
  for (const std::string& k : keys) EXPECT_FALSE(sa::report::evidence_meaning(k).empty()) << k;
  // Examples are the longest waits first.
  ASSERT_FALSE(f.evidence["examples"].empty());
  EXPECT_GT(f.evidence["examples"][0]["wait_seconds"].get<double>(), 86400) << f.evidence["examples"][0];
}

TEST(DefaultMemoryMissing, AJobSubmitPluginMakesItInformation) {
  // The plugin may fill in --mem; the configuration cannot tell, so the finding informs.
  const fs::path dir = sa::test::scratch_dir() / "sa_conf106";
  fs::create_directories(dir);
  std::ifstream in(kDir / "explicit_memory.conf");
  std::ofstream out(dir / "slurm.conf");
  out << in.rdbuf() << "JobSubmitPlugins=lua\n";
  out.close();
  const auto report = lint((dir / "slurm.conf").string(), (kDir / "explicit_memory.profile.txt").string());
  fs::remove_all(dir);
  ASSERT_EQ(report.findings.size(), 1u);
  EXPECT_EQ(report.findings[0].severity, sa::Severity::kInfo);
  EXPECT_NE(report.findings[0].message.find("(unless JobSubmitPlugins=lua sets a memory request)"), std::string::npos)
      << report.findings[0].message;
}

TEST(DefaultMemoryMissing, WhereTheLoadAsksForMemoryItsJobsAreRunWithoutIt) {
  // Where no default is set the default load's users ask for memory in proportion to their
  // CPUs (default_load_plan.cpp), so nothing runs alone in the lint's own run: the rule runs
  // the same jobs given no --mem, and the fix on that load.
  const auto report = lint((kDir / "explicit_memory.conf").string());
  ASSERT_TRUE(report.scenario.has_value());  // the default load was simulated
  ASSERT_EQ(report.findings.size(), 1u);
  const sa::rules::Finding& f = report.findings[0];
  EXPECT_NE(f.message.find("in the simulated load with its jobs given no --mem, 66 of the 102 jobs started there ran "
                           "so, asking 5 CPUs on average, and the mean wait went from 03:22:51 (as simulated, with "
                           "--mem) to 16:38:53"),
            std::string::npos)
      << f.message;
  EXPECT_NE(f.evidence["scenario"]["load"].get<std::string>().find("; its jobs given no --mem"), std::string::npos);
  EXPECT_EQ(f.evidence["metrics"]["jobs_alone_on_their_nodes"], 66);
  EXPECT_EQ(f.evidence["metrics"]["pending_at_end"], 57);
  ASSERT_TRUE(f.fix.has_value());
  EXPECT_EQ(f.fix->resimulated["scenario"]["variant"], "DefMemPerCPU=4000, its jobs given no --mem");
  EXPECT_EQ(f.fix->resimulated["jobs_alone_on_their_nodes"], 0);
  EXPECT_EQ(f.evidence["metrics"]["jobs_started_there"], 102);
  EXPECT_EQ(f.fix->resimulated["jobs_started_there"], 154);  // the variant's own partitions, by name
  EXPECT_EQ(f.fix->resimulated["pending_at_end"], 5);
  EXPECT_EQ(f.evidence["fix_effect"], "better");
}

TEST(DefaultMemoryMissing, NodesWithUnderAMegabytePerCpuGetNoSuggestedDefault) {
  // 32 MB over 64 CPUs rounds to 0 MB a CPU, and DefMemPerCPU=0 means something else (no
  // memory counted for such jobs): the finding stands without a fix, and nothing breaks.
  const fs::path dir = sa::test::scratch_dir() / "sa_conf106_tiny";
  fs::create_directories(dir);
  std::ofstream(dir / "slurm.conf") << "ClusterName=t\nSlurmctldHost=h\nSelectType=select/cons_tres\n"
                                       "SelectTypeParameters=CR_Core_Memory\nNodeName=n[1-2] CPUs=64 RealMemory=32\n"
                                       "PartitionName=p Nodes=n[1-2] Default=YES MaxTime=1:00:00 State=UP\n";
  const auto report = lint((dir / "slurm.conf").string());
  fs::remove_all(dir);
  ASSERT_EQ(report.findings.size(), 1u);
  EXPECT_FALSE(report.findings[0].fix.has_value());
}

// A suggested default stays within MaxMemPerCPU, above which it would multiply the CPUs of
// every job without --mem (CONF109): CONF106 and CONF105 both offer 2000 MB, not the nodes'
// 4000 MB a CPU.
TEST(DefaultMemoryMissing, TheSuggestedDefaultStaysWithinMaxMemPerCpu) {
  const fs::path dir = sa::test::scratch_dir() / "sa_conf106_max";
  fs::create_directories(dir);
  const std::string head =
      "ClusterName=t\nSlurmctldHost=h\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core_Memory\n"
      "NodeName=n[1-2] CPUs=32 RealMemory=128000\nMaxMemPerCPU=2000\n";
  std::ofstream(dir / "none.conf") << head << "PartitionName=p Nodes=n[1-2] Default=YES MaxTime=1:00:00 State=UP\n";
  std::ofstream(dir / "tiny.conf") << head << "DefMemPerCPU=100\n"
                                   << "PartitionName=p Nodes=n[1-2] Default=YES MaxTime=1:00:00 State=UP\n";
  // Two partitions on the cluster's default, one with its own lower maximum: the one default
  // suggested for both stays within the lower.
  std::ofstream(dir / "tiny_two.conf") << head << "DefMemPerCPU=100\n"
                                       << "PartitionName=p Nodes=n[1-2] Default=YES MaxTime=1:00:00 State=UP\n"
                                       << "PartitionName=q Nodes=n[1-2] MaxTime=1:00:00 State=UP MaxMemPerCPU=1000\n";
  const auto missing = lint((dir / "none.conf").string());
  ASSERT_EQ(missing.findings.size(), 1u);
  ASSERT_TRUE(missing.findings[0].fix.has_value());
  EXPECT_EQ(missing.findings[0].fix->value, "2000");
  EXPECT_NE(missing.findings[0].fix->description.find("MaxMemPerCPU, under the smallest"), std::string::npos)
      << missing.findings[0].fix->description;
  auto conf105 = [&](const char* name) {
    sa::engine::SitePaths paths;
    paths.conf = (dir / name).string();
    auto site = sa::engine::load_site(paths);
    EXPECT_TRUE(site.ok()) << site.error();
    sa::rules::LintOptions options;
    options.only = {"CONF105"};
    options.simulate = false;
    return sa::rules::run_lint(**site, options);
  };
  const auto tiny = conf105("tiny.conf");
  const auto two = conf105("tiny_two.conf");
  fs::remove_all(dir);
  ASSERT_EQ(tiny.findings.size(), 1u);
  ASSERT_TRUE(tiny.findings[0].fix.has_value());
  EXPECT_EQ(tiny.findings[0].fix->value, "2000");
  ASSERT_EQ(two.findings.size(), 1u);
  ASSERT_TRUE(two.findings[0].fix.has_value());
  EXPECT_EQ(two.findings[0].fix->value, "1000");
}

TEST(DefaultMemoryMissing, DefMemPerGpuLeavesOnlyJobsWithoutGpusAndInforms) {
  const auto report = lint((kDir / "gpu_default_only.conf").string());
  ASSERT_EQ(report.findings.size(), 1u);
  EXPECT_EQ(report.findings[0].severity, sa::Severity::kInfo);
  EXPECT_NE(report.findings[0].message.find("DefMemPerGPU gives memory only to jobs that ask for GPUs"),
            std::string::npos)
      << report.findings[0].message;
  // The fix adds DefMemPerCPU beside it, which the man page calls mutually exclusive: it says so.
  ASSERT_TRUE(report.findings[0].fix.has_value());
  EXPECT_NE(report.findings[0].fix->description.find("calls DefMemPerCPU and DefMemPerGPU mutually exclusive"),
            std::string::npos)
      << report.findings[0].fix->description;
}

TEST(DefaultMemoryMissing, HeldLoadNamesNodesWithoutRealMemoryAsItsCause) {
  // LOAD001 on nodes left at RealMemory=1 with no default memory: the cause, by name and count.
  sa::engine::SitePaths paths;
  paths.conf = std::string(SA_SOURCE_DIR) + "/rules/load/load-coverage-low/fires/memory_starved.conf";
  auto site = sa::engine::load_site(paths);
  ASSERT_TRUE(site.ok());
  sa::rules::LintOptions options;
  options.only = {"LOAD001"};
  const auto report = sa::rules::run_lint(**site, options);
  ASSERT_EQ(report.findings.size(), 1u);
  const sa::rules::Finding& f = report.findings[0];
  EXPECT_NE(f.message.find("the jobs were admitted and held: 4 of their 4 nodes have no RealMemory and offer 1 MB "
                           "(CONF045), so each runs one job at a time"),
            std::string::npos)
      << f.message;
  ASSERT_TRUE(f.fix.has_value());
  EXPECT_EQ(f.fix->description.rfind("set RealMemory (in MB) on every NodeName line (CONF045)", 0), 0u)
      << f.fix->description;
  // The run is thin for that cause, so the findings resting on it are withheld like refused ones.
  ASSERT_TRUE(report.coverage.has_value());
  const sa::rules::Thinness t = sa::rules::thinness(*report.coverage, (*site)->conf->config);
  ASSERT_EQ(t.partitions.size(), 1u);
  EXPECT_FALSE(t.partitions[0].refused);
  EXPECT_EQ(t.partitions[0].starved_nodes, 4u);
  EXPECT_TRUE(t.partitions[0].starved());
}

}  // namespace
