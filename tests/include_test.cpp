// Include handling (formats.md §1.5) on real files in a temporary directory.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/scratch_dir.h"
#include "tests/test_util.h"

namespace sa {
namespace {

namespace fs = std::filesystem;

class IncludeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::scratch_dir() /
           ("sa_include_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "sub");
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& name, const std::string& text) { std::ofstream(dir_ / name) << text; }
  std::unique_ptr<Analysis> run(const char* version = "24.05") {
    return analyze_file((dir_ / "slurm.conf").string(), {*SlurmVersion::parse(version)});
  }
  fs::path dir_;
};

TEST_F(IncludeTest, SplicedInlineWithClusterNameSubstitution) {
  write("slurm.conf", "ClusterName=Tux\nSlurmctldHost=c\nInclude nodes-%c.conf\nPartitionName=p Nodes=ALL\n");
  write("nodes-tux.conf", "NodeName=n[1-2] CPUs=4 RealMemory=1000\n");
  auto a = run();
  EXPECT_TRUE(a->diagnostics.all().empty()) << a->diagnostics.all()[0].message;
  ASSERT_EQ(a->config.partitions.size(), 1u);
  EXPECT_EQ(a->config.partitions[0].nodes.size(), 2u);
}

TEST_F(IncludeTest, DefaultsFlowAcrossIncludes) {
  write("slurm.conf", "ClusterName=c\nSlurmctldHost=c\nMaxNodeCount=10\nInclude defaults.conf\nNodeName=n1\n");
  write("defaults.conf", "NodeName=DEFAULT CPUs=16 RealMemory=1000\n");
  auto a = run();
  ASSERT_EQ(a->config.nodes.size(), 1u);
  EXPECT_EQ(a->config.nodes[0].cpus, 16u);
}

TEST_F(IncludeTest, PercentCBeforeClusterNameIsAnError) {
  write("slurm.conf", "Include nodes-%c.conf\nClusterName=c\nSlurmctldHost=c\nMaxNodeCount=10\n");
  auto a = run();
  ASSERT_TRUE(test::first(*a, "CONF011"));
  EXPECT_NE(test::first(*a, "CONF011")->message.find("ClusterName"), std::string::npos);
}

TEST_F(IncludeTest, RelativePathBaseChangedIn2302) {
  write("slurm.conf", "ClusterName=c\nSlurmctldHost=c\nMaxNodeCount=10\nInclude sub/a.conf\n");
  write("sub/a.conf", "Include b.conf\n");
  write("sub/b.conf", "NodeName=from_sub\n");
  write("b.conf", "NodeName=from_top\n");
  auto old_rules = run("22.05");
  ASSERT_EQ(old_rules->config.nodes.size(), 1u);
  EXPECT_EQ(old_rules->config.nodes[0].name, "from_sub");
  auto new_rules = run("23.02");
  ASSERT_EQ(new_rules->config.nodes.size(), 1u);
  EXPECT_EQ(new_rules->config.nodes[0].name, "from_top");
}

TEST_F(IncludeTest, CycleIsDiagnosedNotFollowed) {
  write("slurm.conf", "ClusterName=c\nSlurmctldHost=c\nMaxNodeCount=10\nInclude a.conf\n");
  write("a.conf", "Include slurm.conf\n");
  auto a = run();
  ASSERT_EQ(test::count(*a, "CONF011"), 1);
  EXPECT_NE(test::first(*a, "CONF011")->message.find("includes itself"), std::string::npos);
  EXPECT_EQ(test::first(*a, "CONF011")->hint, "remove the Include that leads back to a file already being read");
}

TEST_F(IncludeTest, DepthLimit) {
  write("slurm.conf", "ClusterName=c\nSlurmctldHost=c\nMaxNodeCount=10\nInclude d0.conf\n");
  for (int i = 0; i < 30; ++i)
    write("d" + std::to_string(i) + ".conf", "Include d" + std::to_string(i + 1) + ".conf\n");
  auto a = run();
  ASSERT_EQ(test::count(*a, "CONF011"), 1);
  EXPECT_NE(test::first(*a, "CONF011")->message.find("deeper than 16"), std::string::npos);
}

TEST_F(IncludeTest, MissingFileAndGlob) {
  write("slurm.conf", "ClusterName=c\nSlurmctldHost=c\nMaxNodeCount=10\nInclude missing.conf\nInclude parts/*.conf\n");
  auto a = run("23.11");
  EXPECT_EQ(test::count(*a, "CONF011"), 2);
  auto diags = a->diagnostics.sorted();
  EXPECT_NE(diags[0].message.find("cannot read"), std::string::npos);
  // The fix names where Slurm looks (slurm.conf's directory from 23.02) and the map that
  // points the lint at a copy.
  const std::string dir = dir_.string();
  EXPECT_EQ(diags[0].hint, "put the file at " + dir + "/missing.conf, or lint with --include-map " + dir +
                               "=DIR where DIR holds its copy");
  EXPECT_NE(diags[1].message.find("globs"), std::string::npos);
  EXPECT_EQ(diags[1].loc.line, 5);
}

TEST_F(IncludeTest, ErrorsInsideIncludedFilesPointThere) {
  write("slurm.conf", "ClusterName=c\nSlurmctldHost=c\nMaxNodeCount=10\nInclude n.conf\n");
  write("n.conf", "\nNodeName=n1 CPUs=abc\n");
  auto a = run();
  const Diagnostic* d = test::first(*a, "CONF006");
  ASSERT_TRUE(d);
  EXPECT_EQ(a->sources.path(d->loc.file), (dir_ / "n.conf").string());
  EXPECT_EQ(d->loc.line, 2);
  EXPECT_EQ(d->loc.column, 18);
}

TEST(Analyze, MissingRootFileIsAFailureNotADiagnostic) {
  auto a = analyze_file("/nonexistent/slurm.conf");
  EXPECT_FALSE(a->ok());
  EXPECT_NE(a->failure.find("cannot open"), std::string::npos);
}

}  // namespace
}  // namespace sa

namespace sa {
namespace {

TEST(IncludeSoftening, WhatAMissingIncludeMayDefineIsAWarning) {
  auto a = test::analyze("ClusterName=c\nSlurmctldHost=h\nInclude nonexistent-nodes.conf\nPartitionName=p Nodes=n1\n");
  EXPECT_EQ(test::count(*a, "CONF011"), 1);
  const Diagnostic* d = test::first(*a, "CONF017");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->severity, Severity::kWarning);
  EXPECT_NE(d->message.find("could not be read"), std::string::npos);
}

}  // namespace
}  // namespace sa
