// The command line end to end: exit codes, output formats, and bad input never crashing.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/cli_util.h"

namespace {

using sa::test::CommandResult;
using sa::test::run;
using sa::test::write_temp;

const std::string kSite = std::string(SA_SOURCE_DIR) + "/corpora/tiered-university/slurm.conf";

TEST(Cli, CleanSiteExitsZero) {
  CommandResult r = run("check " + kSite);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("0 errors"), std::string::npos);
  EXPECT_NE(r.out.find("checked against Slurm 24.05"), std::string::npos);
}

TEST(Cli, ErrorsExitOneWithCompilerStyleLines) {
  std::string path = write_temp("bad.conf", "ClusterName=c\nSlurmctldHost=h\nPriortyWeightAge=10\n");
  CommandResult r = run("check --color never " + path);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find(path + ":3:1: error: unknown key 'PriortyWeightAge' in slurm.conf; did you mean "
                              "'PriorityWeightAge'? [CONF003]\n  PriortyWeightAge=10\n  ^\n"),
            std::string::npos)
      << r.out;
}

TEST(Cli, JsonFormat) {
  std::string path = write_temp("json.conf", "ClusterName=c\nSlurmctldHost=h\nNodeName=n1 CPUs=x RealMemory=100\n");
  CommandResult r = run("check --format json " + path);
  EXPECT_EQ(r.status, 1);
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["diagnostics"].size(), 1u);
  const auto& d = j["diagnostics"][0];
  EXPECT_EQ(d["code"], "CONF006");
  EXPECT_EQ(d["severity"], "error");
  EXPECT_EQ(d["file"], path);
  EXPECT_EQ(d["line"], 3);
  EXPECT_EQ(d["column"], 18);
  EXPECT_EQ(j["slurm_version"], "24.05");
}

TEST(Cli, ToolFailuresExitTwo) {
  EXPECT_EQ(run("check /nonexistent/slurm.conf").status, 2);
  CommandResult r = run("check /nonexistent/slurm.conf", true);
  EXPECT_NE(r.out.find("cannot open"), std::string::npos);
  EXPECT_EQ(run("check").status, 2);
  EXPECT_EQ(run("frobnicate x").status, 2);
  EXPECT_EQ(run("check --slurm-version banana " + kSite).status, 2);
  EXPECT_EQ(run("check --format xml " + kSite).status, 2);
}

TEST(Cli, HelpOnEveryCommand) {
  for (const char* args : {"--help", "check --help", "model --help"}) {
    CommandResult r = run(args);
    EXPECT_EQ(r.status, 0) << args;
    EXPECT_NE(r.out.find("Usage"), std::string::npos) << args;
  }
}

TEST(Cli, ModelJson) {
  CommandResult r = run("model " + kSite);
  EXPECT_EQ(r.status, 0);
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["ClusterName"], "unihpc");
  EXPECT_GT(j["Nodes"].size(), 100u);
  EXPECT_EQ(j["Priority"]["PriorityWeightPartition"], 1000000);
  EXPECT_EQ(j["Scheduler"]["SchedulerParameters"]["bf_window"], 2880 * 60);
  bool found_test_tier = false;
  for (const auto& p : j["Partitions"]) found_test_tier |= p["PriorityTier"] == 100;
  EXPECT_TRUE(found_test_tier);
}

TEST(Cli, HostileBytesNeverCrash) {
  std::string junk = std::string("ClusterName=\xff\xfe\x01\nSlurmctldHost=h\nNodeName=n[1-99999999999]\n") +
                     std::string(1000, '\\') + "\n\"\"\"=\n#\x00\n";
  std::string path = write_temp("junk.conf", junk);
  for (const char* format : {"text", "json"}) {
    CommandResult r = run(std::string("check --format ") + format + " " + path);
    EXPECT_EQ(r.status, 1) << format;
  }
  EXPECT_EQ(run("model " + path).status, 1);
}

}  // namespace
