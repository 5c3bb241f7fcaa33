// Include confinement (issue 19): an Include stays inside the include roots whichever way it
// tries to leave, only regular files are read, and the caps end an Include bomb.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <filesystem>
#include <fstream>

#include "analyzer/safe_file.h"
#include "tests/cli_util.h"
#include "tests/test_util.h"

namespace sa {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSecret = "SECRET_FROM_OUTSIDE=do-not-print";

class IncludeConfinement : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = test::fresh_test_dir("sa_confine");
    fs::create_directories(base_ / "site");
    fs::create_directories(base_ / "outside");
    std::ofstream(base_ / "outside" / "x.conf") << kSecret << "\n";
  }
  void TearDown() override { fs::remove_all(base_); }
  void conf(const std::string& include) {
    std::ofstream(base_ / "site" / "slurm.conf")
        << "ClusterName=c\nSlurmctldHost=h\nMaxNodeCount=10\nInclude " << include << "\n";
  }
  std::unique_ptr<Analysis> run(AnalyzeOptions options = {}) {
    return analyze_file((base_ / "site" / "slurm.conf").string(), options);
  }
  // The refusal is one CONF048 naming the path, and no file but slurm.conf was read.
  void expect_refused(const Analysis& a, const std::string& name, const std::string& why) {
    const Diagnostic* d = test::first(a, "CONF048");
    ASSERT_TRUE(d) << name;
    EXPECT_NE(d->message.find("'" + name + "'"), std::string::npos) << d->message;
    EXPECT_NE(d->message.find(why), std::string::npos) << d->message;
    EXPECT_EQ(a.sources.file_count(), 1u) << name;
    for (const Diagnostic& any : a.diagnostics.all()) EXPECT_EQ(any.message.find("SECRET"), std::string::npos);
  }
  fs::path base_;
};

TEST_F(IncludeConfinement, AbsolutePathOutsideIsRefused) {
  for (const char* p : {"/etc/shadow", "/etc/passwd", "/proc/self/environ", "/dev/zero", "/dev/stdin"}) {
    conf(p);
    expect_refused(*run(), p, "outside the include roots");
  }
}

TEST_F(IncludeConfinement, DotDotIsRefused) {
  conf("../outside/x.conf");
  expect_refused(*run(), "../outside/x.conf", "outside the include roots");
}

TEST_F(IncludeConfinement, SymlinkLeavingTheRootIsRefused) {
  fs::create_symlink(base_ / "outside" / "x.conf", base_ / "site" / "link.conf");
  fs::create_directory_symlink(base_ / "outside", base_ / "site" / "dirlink");
  conf("link.conf");
  expect_refused(*run(), "link.conf", "through a symlink");
  conf("dirlink/x.conf");
  expect_refused(*run(), "dirlink/x.conf", "through a symlink");
}

// A config reached through a symlinked directory (/etc/slurm -> /opt/slurm/etc, a CI checkout
// beside a symlinked shared/) keeps its own directory as the root: its Includes are read, and
// the outside stays outside.
TEST_F(IncludeConfinement, AConfigDirectoryReachedThroughASymlinkKeepsItsRoot) {
  std::ofstream(base_ / "site" / "nodes.conf") << "NodeName=n[1-2] CPUs=4\n";
  fs::create_directory_symlink(base_ / "site", base_ / "etc_link");
  conf("nodes.conf");
  const auto via_link = analyze_file((base_ / "etc_link" / "slurm.conf").string(), {});
  EXPECT_FALSE(test::first(*via_link, "CONF048")) << test::first(*via_link, "CONF048")->message;
  EXPECT_EQ(via_link->config.nodes.size(), 2u);
  conf("../outside/x.conf");
  const auto outside = analyze_file((base_ / "etc_link" / "slurm.conf").string(), {});
  ASSERT_TRUE(test::first(*outside, "CONF048"));
  EXPECT_EQ(outside->sources.file_count(), 1u);
}

TEST_F(IncludeConfinement, OnlyRegularFilesAreOpened) {
  ASSERT_EQ(::mkfifo((base_ / "site" / "fifo").c_str(), 0600), 0);
  fs::create_directory(base_ / "site" / "dir");
  conf("fifo");
  expect_refused(*run(), "fifo", "is a FIFO");
  conf("dir");
  expect_refused(*run(), "dir", "is a directory");
  AnalyzeOptions outside;
  outside.includes.allow_outside = true;
  conf("/dev/zero");
  expect_refused(*run(outside), "/dev/zero", "is a device");
  conf("/proc/self/environ");
  expect_refused(*run(outside), "/proc/self/environ", "/proc");
}

TEST_F(IncludeConfinement, IncludeRootMapAndOptOutAllowIt) {
  conf("../outside/x.conf");
  AnalyzeOptions root;
  root.includes.roots = {(base_ / "outside").string()};
  EXPECT_EQ(test::count(*run(root), "CONF048"), 0);
  AnalyzeOptions opt_out;
  opt_out.includes.allow_outside = true;
  EXPECT_EQ(test::count(*run(opt_out), "CONF048"), 0);
  conf("/etc/slurm/x.conf");
  AnalyzeOptions mapped;
  ASSERT_TRUE(add_include_map("/etc/slurm=" + (base_ / "outside").string(), mapped.includes));
  auto a = run(mapped);
  EXPECT_EQ(test::count(*a, "CONF048") + test::count(*a, "CONF011"), 0);
  EXPECT_EQ(a->sources.path(1), (base_ / "outside" / "x.conf").string());
}

TEST_F(IncludeConfinement, FileTooLargeIsADiagnostic) {
  std::ofstream(base_ / "site" / "big.conf") << std::string(4096, '#') << "\n";
  conf("big.conf");
  AnalyzeOptions small;
  small.limits.file_bytes = 1024;
  auto a = run(small);
  const Diagnostic* d = test::first(*a, "CONF049");
  ASSERT_TRUE(d);
  EXPECT_NE(d->message.find("too large"), std::string::npos);
}

// 10 Includes per file, 16 levels: 10^16 files without a cap. The cap stops it after
// include-files opens; the test's time is bounded by the cap, not measured.
TEST(IncludeBomb, CapOnIncludeFilesEndsIt) {
  std::map<std::string, std::string> tree;
  std::string level = "";
  for (int i = 0; i < 16; ++i) {
    std::string body;
    for (int k = 0; k < 10; ++k) body += "Include /site/l" + std::to_string(i + 1) + ".conf\n";
    tree["/site/l" + std::to_string(i) + ".conf"] = body + "NodeName=n" + std::to_string(i) + "\n";
  }
  tree["/site/l16.conf"] = "NodeName=leaf\n";
  AnalyzeOptions o;
  o.includes.memory_tree = &tree;
  auto a = analyze_text("/site/slurm.conf", "ClusterName=c\nSlurmctldHost=h\nInclude /site/l0.conf\n", o);
  EXPECT_EQ(test::count(*a, "CONF049"), 1);
  EXPECT_NE(test::first(*a, "CONF049")->message.find("more than 1000 Include files"), std::string::npos);
  EXPECT_LE(a->sources.file_count(), 1001u);
}

TEST(IncludeBomb, CapOnExpandedLines) {
  std::map<std::string, std::string> tree{{"/site/many.conf", std::string(50, '\n') + "MaxJobCount=1\n"}};
  std::string conf = "ClusterName=c\nSlurmctldHost=h\n";
  for (int i = 0; i < 40; ++i) conf += "Include /site/many.conf\n";
  AnalyzeOptions o;
  o.includes.memory_tree = &tree;
  o.limits.conf_lines = 20;
  auto a = analyze_text("/site/slurm.conf", conf, o);
  ASSERT_EQ(test::count(*a, "CONF049"), 1);
  EXPECT_NE(test::first(*a, "CONF049")->message.find("more than 20 lines"), std::string::npos);
}

TEST(IncludeMemoryTree, ConfinedLikeTheDisk) {
  std::map<std::string, std::string> tree{{"/site/a.conf", "NodeName=a\n"}, {"/other/b.conf", "NodeName=b\n"}};
  AnalyzeOptions o;
  o.includes.memory_tree = &tree;
  auto a =
      analyze_text("/site/slurm.conf", "ClusterName=c\nSlurmctldHost=h\nInclude a.conf\nInclude ../other/b.conf\n", o);
  EXPECT_EQ(test::count(*a, "CONF048"), 1);
  ASSERT_EQ(a->config.nodes.size(), 1u);
  EXPECT_EQ(a->config.nodes[0].name, "a");
}

// The race between the confinement check and the open: whatever a path was when it was
// checked, the read goes by the descriptor's own path, so a swapped-in symlink is refused.
TEST_F(IncludeConfinement, DescriptorIsCheckedAfterTheOpen) {
  fs::create_directory_symlink(base_ / "outside", base_ / "site" / "swapped");
  const std::string outside = fs::canonical(base_ / "outside").string();
  AdmitPath admit = [&](const std::string& real) { return real.rfind(outside, 0) != 0; };
  auto refused = read_regular_file((base_ / "site" / "swapped" / "x.conf").string(), 1 << 20, admit);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.failure().kind, ErrorKind::kRefused);
  EXPECT_NE(refused.error().find("resolved elsewhere when opened"), std::string::npos) << refused.error();
  EXPECT_EQ(refused.error().find("SECRET"), std::string::npos);
  std::ofstream(base_ / "site" / "own.conf") << "NodeName=a\n";
  auto read = read_regular_file((base_ / "site" / "own.conf").string(), 1 << 20, admit);
  ASSERT_TRUE(read) << read.error();
  EXPECT_EQ(*read, "NodeName=a\n");
}

}  // namespace
}  // namespace sa
