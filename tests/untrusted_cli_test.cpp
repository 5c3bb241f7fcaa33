// The attacks of issue 19 through the real binary, as CI runs it on a pull request: refused
// Includes leave no byte of the refused file in text, JSON, SARIF or HTML; FIFOs, devices and
// /proc do not block; escape sequences and `::error::` lines reach no terminal raw. Each run
// is under CPU-time and address-space rlimits, so a hang or a runaway allocation fails it.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>
#include <filesystem>
#include <fstream>

#include "tests/cli_util.h"

namespace sa {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSecret = "SA_SECRET_7f3a";

class UntrustedCli : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = test::fresh_test_dir("sa_untrusted");
    fs::create_directories(base_ / "pr");
    fs::create_directories(base_ / "outside");
    std::ofstream(base_ / "outside" / "secret.conf") << "NodeName=" << kSecret << " CPUs=1\n";
    fs::create_symlink(base_ / "outside" / "secret.conf", base_ / "pr" / "link.conf");
    ::mkfifo((base_ / "pr" / "fifo.conf").c_str(), 0600);
    ASSERT_EQ(::pipe(stdin_pipe_), 0);
  }
  void TearDown() override {
    ::close(stdin_pipe_[0]);
    ::close(stdin_pipe_[1]);
    fs::remove_all(base_);
  }
  std::string conf(const std::string& body) {
    std::ofstream(base_ / "pr" / "slurm.conf") << "ClusterName=c\nSlurmctldHost=h\nNodeName=n1 CPUs=4 "
                                                  "RealMemory=1000\nPartitionName=p Nodes=n1 Default=YES\n"
                                               << body;
    return (base_ / "pr" / "slurm.conf").string();
  }
  // Under rlimits: 60 s of CPU, 4 GB of address space. Stdin is a pipe whose write end this
  // test holds open, so reading /dev/stdin would block; the refusal must come first.
  test::CommandResult run(const std::string& args) {
    return test::run("--version >/dev/null; ulimit -t 60; ulimit -v 4194304; " + std::string(SA_BINARY) + " " + args +
                         " <&" + std::to_string(stdin_pipe_[0]),
                     true);
  }
  fs::path base_;
  int stdin_pipe_[2] = {-1, -1};
};

TEST_F(UntrustedCli, RefusedIncludesShowNoByteInAnyFormat) {
  const fs::path secret = test::scratch_dir() / "sa_untrusted_secret.conf";
  std::ofstream(secret) << kSecret << "\n";
  const std::string path = conf("Include ../outside/secret.conf\nInclude link.conf\nInclude " + secret.string() +
                                "\nInclude /proc/self/environ\nInclude /etc/passwd\n");
  const std::string out = (base_ / "report").string();
  for (const char* format : {"text", "json", "sarif", "html"}) {
    auto r = run("lint " + path + " --no-simulate --format " + format + " --output " + out);
    EXPECT_EQ(r.status, 1) << format << r.out;
    std::ifstream in(out);
    std::string report((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(report.find(kSecret), std::string::npos) << format;
    EXPECT_EQ(report.find("root:x:0"), std::string::npos) << format;
    EXPECT_EQ(report.find("PATH="), std::string::npos) << format;
    EXPECT_NE(report.find("CONF048"), std::string::npos) << format;
  }
  auto check = run("check " + path);
  EXPECT_EQ(check.out.find(kSecret), std::string::npos);
  EXPECT_NE(check.out.find("Include '../outside/secret.conf' refused"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("Include 'link.conf' refused: resolves outside"), std::string::npos) << check.out;
  fs::remove(secret);
}

TEST_F(UntrustedCli, FifoStdinZeroAndProcNeitherBlockNorRead) {
  const std::string path =
      conf("Include fifo.conf\nInclude /dev/stdin\nInclude /dev/zero\nInclude /proc/self/environ\n");
  for (const char* extra : {"", " --allow-outside-includes"}) {
    auto r = run("check " + path + extra);
    EXPECT_EQ(r.status, 1) << extra << r.out;  // a kill by rlimit has no exit status 1
    EXPECT_NE(r.out.find("'fifo.conf' refused"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("'/dev/zero' refused"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("'/proc/self/environ' refused"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("PATH="), std::string::npos);
  }
}

TEST_F(UntrustedCli, IncludeBombEndsAtTheCap) {
  for (int i = 0; i < 16; ++i) {
    std::ofstream f(base_ / "pr" / ("l" + std::to_string(i) + ".conf"));
    for (int k = 0; k < 10; ++k) f << "Include l" << i + 1 << ".conf\n";
  }
  std::ofstream(base_ / "pr" / "l16.conf") << "MaxJobCount=1\n";
  auto r = run("check " + conf("Include l0.conf\n"));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("more than 1000 Include files"), std::string::npos) << r.out.substr(0, 2000);
}

TEST_F(UntrustedCli, EscapesAndCiCommandsReachNoTerminal) {
  const std::string path = conf(
      "PartitionName=\033]0;owned\007x\rz Nodes=n1\n::error::fake finding\n"
      "NodeName=\xc2\x9b"
      "31mq CPUs=1\n");
  for (const std::string& cmd : {"check " + path, "lint " + path + " --no-simulate"}) {
    auto r = run(cmd);
    EXPECT_EQ(r.out.find('\033'), std::string::npos) << cmd;
    EXPECT_EQ(r.out.find('\007'), std::string::npos) << cmd;
    EXPECT_EQ(r.out.find('\r'), std::string::npos) << cmd;
    EXPECT_EQ(r.out.find("\xc2\x9b"), std::string::npos) << cmd;
    EXPECT_EQ(r.out.find("\n::"), std::string::npos) << cmd;
    EXPECT_EQ(r.out.find("\n  ::"), std::string::npos) << cmd;
    EXPECT_NE(r.out.find("\\x1b]0;owned\\x07"), std::string::npos) << cmd << r.out;
  }
  // JSON and SARIF files may be shown with cat: no raw C1 control there either, and a name
  // parses back unchanged (model prints the node's name as it is).
  for (const std::string& cmd : {"lint " + path + " --no-simulate --format json",
                                 "lint " + path + " --no-simulate --format sarif", "model " + path}) {
    auto r = run(cmd);
    EXPECT_EQ(r.out.find("\xc2\x9b"), std::string::npos) << cmd;
    EXPECT_EQ(r.out.find('\033'), std::string::npos) << cmd;
    if (cmd.rfind("model", 0) != 0) continue;
    EXPECT_NE(r.out.find("\"NodeName\": \"\\u009b31mq\""), std::string::npos) << r.out;
  }
}

TEST_F(UntrustedCli, IncludeMapReadsProductionPathsFromTheCheckout) {
  fs::create_directories(base_ / "pr" / "etc");
  std::ofstream(base_ / "pr" / "etc" / "nodes.conf") << "NodeName=n2 CPUs=4 RealMemory=1000\n";
  const std::string path = conf("Include /etc/slurm/nodes.conf\n");
  auto refused = run("check " + path);
  EXPECT_NE(refused.out.find("CONF048"), std::string::npos);
  auto mapped = run("check " + path + " --include-map /etc/slurm=" + (base_ / "pr" / "etc").string());
  EXPECT_EQ(mapped.out.find("CONF048"), std::string::npos) << mapped.out;
  EXPECT_EQ(mapped.out.find("CONF011"), std::string::npos) << mapped.out;
}

// Rules that compare every pair of partitions (TIER001, TIER003, TIER004, PRIO002) on 5,000
// partitions sharing their nodes, at 5,000 job factors or 5,000 tiers: each pair once over
// queues and node lists read once. They took over 300 s of CPU when every pair re-read the
// snapshots, re-sorted both node lists and rescanned every partition for the largest
// factor, and each TIER001 message named every partition it goes before (290 MB of JSON).
TEST_F(UntrustedCli, FiveThousandPartitionsEndWithinTheLimits) {
  std::string body =
      "AccountingStorageType=accounting_storage/slurmdbd\nPriorityType=priority/multifactor\n"
      "PriorityWeightFairshare=10000\nPriorityWeightAge=1000\nPriorityWeightPartition=100000\n"
      "NodeName=m[1-64] CPUs=8 RealMemory=32000\n";
  const std::string assoc =
      std::string(SA_SOURCE_DIR) + "/rules/tiers/partition-weight-dominates/fires/weight.assoc.cfg";
  for (const char* key : {"PriorityJobFactor", "PriorityTier"}) {
    std::string parts = body;
    for (int i = 1; i <= 5000; ++i) parts += fmt::format("PartitionName=q{} Nodes=m[1-64] {}={}\n", i, key, i);
    const std::string path = conf(parts);
    std::ofstream(path, std::ios::app) << "ClusterName=t1b\n";  // the fixture tree's cluster
    const std::string out = (base_ / "report.json").string();
    auto r = run("lint " + path + " --assoc " + assoc + " --format json --progress never --output " + out);
    EXPECT_TRUE(r.status == 0 || r.status == 1) << key << " " << r.status << r.out.substr(0, 2000);
    EXPECT_LT(fs::file_size(out), 20u << 20) << key;
  }
}

}  // namespace
}  // namespace sa
