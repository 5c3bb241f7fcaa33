// The accounting readers (sacctmgr dump, QOS table, sshare usage) and fair-share edge cases.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "analyzer/accounting_readers.h"
#include "analyzer/assoc_reader.h"
#include "engine/fair_share.h"

namespace sa {
namespace {

struct Dump {
  SourceManager sources;
  DiagnosticSink sink;
  AssocTree tree;
};

std::unique_ptr<Dump> dump(const std::string& text) {
  auto d = std::make_unique<Dump>();
  FileId id = d->sources.add("test.cfg", text);
  d->tree = read_assoc_dump_text(id, d->sources, d->sink);
  return d;
}

int count(const DiagnosticSink& sink, const std::string& code) {
  int n = 0;
  for (const Diagnostic& d : sink.all()) n += d.code == code;
  return n;
}

const char* kTree =
    "# comment block as sacctmgr writes it\n"
    "Cluster - 'tux':Fairshare=1:QOS='normal'\n"
    "Parent - 'root'\n"
    "User - 'root':DefaultAccount='root':AdminLevel='Administrator':Fairshare=1\n"
    "Account - 'chem':Description='chemistry':Organization='science':Fairshare=40\n"
    "Account - "
    "'phys':Description='physics':Organization='science':Fairshare=60:GrpTRES=cpu=512,mem=2T:QOS='normal,high'\n"
    "Parent - 'chem'\n"
    "User - 'alice':DefaultAccount='chem':Fairshare=1\n"
    "Account - 'chemlab':Description='lab':Organization='science':Fairshare=2147483647\n"
    "Parent - 'chemlab'\n"
    "User - 'dave':DefaultAccount='chemlab':Fairshare=1:MaxJobs=10\n"
    "Parent - 'phys'\n"
    "User - 'bob':DefaultAccount='phys':Fairshare=1:MaxWallDurationPerJob=2880:QOS='+high'\n"
    "User - 'bob':Partition='gpu':DefaultAccount='phys':Fairshare=5\n";

TEST(AssocDump, ReadsTheFormatsExample) {
  auto d = dump(kTree);
  EXPECT_TRUE(d->sink.all().empty()) << d->sink.all()[0].message;
  const AssocTree& t = d->tree;
  EXPECT_EQ(t.cluster, "tux");
  EXPECT_EQ(t.assocs.size(), 9u);
  std::uint32_t chemlab = t.find_account("chemlab");
  ASSERT_NE(chemlab, kNoAssoc);
  EXPECT_TRUE(t.assocs[chemlab].use_parent());
  std::uint32_t phys = t.find_account("phys");
  EXPECT_EQ(t.assocs[phys].limits.grp_tres->at("cpu"), 512);
  EXPECT_EQ(t.assocs[phys].limits.grp_tres->at("mem"), 2 * 1024 * 1024);  // 2T in MB
  std::uint32_t bob = t.find_user("bob", "phys");
  ASSERT_NE(bob, kNoAssoc);
  EXPECT_EQ(t.assocs[bob].limits.max_wall_per_job, 2880 * 60);
  EXPECT_EQ(t.assocs[bob].qos, (std::vector<std::string>{"normal", "high"}));
  EXPECT_NE(t.find_user("bob", "phys", "gpu"), kNoAssoc);
  std::uint32_t dave = t.find_user("dave", "chemlab");
  EXPECT_EQ(t.assocs[dave].effective.max_jobs, 10);
  // Slurm's hierarchical order: users before accounts, by name.
  std::vector<std::string> names;
  for (std::uint32_t id : t.hierarchical_order()) names.push_back(t.assocs[id].name());
  EXPECT_EQ(names,
            (std::vector<std::string>{"root", "root", "chem", "alice", "chemlab", "dave", "phys", "bob", "bob"}));
}

TEST(AssocDump, MalformedInputIsDiagnosedWithPositions) {
  auto d = dump(
      "Cluster - 'c'\n"
      "Parent - 'nowhere'\n"
      "User - 'lost':DefaultAccount='x'\n"
      "Parent - 'root'\n"
      "Account - 'a':Fairshare=-3\n"
      "Account - 'a':Fairshare=2\n"
      "Acount - 'b'\n"
      "User - 'u':Fiarshare=3:DefaultAccount='a'\n"
      "Parent - 'a'\n"
      "Account - 'a'\n"
      "User - 'u':DefaultAccount='zz'\n"
      "User - 'u':DefaultAccount='a'\n"
      "just garbage here\n");
  const auto all = d->sink.sorted();
  EXPECT_EQ(count(d->sink, "ACCT002"), 2);  // undefined parent, then the line below it
  EXPECT_EQ(count(d->sink, "ACCT005"), 1);  // negative share
  EXPECT_EQ(count(d->sink, "ACCT004"), 2);  // account defined again, duplicate association
  EXPECT_GE(count(d->sink, "ACCT001"), 2);  // unknown title, garbage line
  EXPECT_EQ(count(d->sink, "ACCT003"), 1);  // unknown option with suggestion
  EXPECT_EQ(count(d->sink, "ACCT006"), 1);  // account under itself
  EXPECT_EQ(count(d->sink, "ACCT007"), 1);  // DefaultAccount with no association
  for (const Diagnostic& diag : all) {
    EXPECT_GT(diag.loc.line, 0);
    EXPECT_GT(diag.loc.column, 0);
  }
  const Diagnostic* parent = nullptr;
  for (const Diagnostic& diag : all) {
    if (diag.code == "ACCT002" && !parent) parent = &diag;
  }
  ASSERT_TRUE(parent);
  EXPECT_EQ(parent->loc.line, 2);
  EXPECT_EQ(parent->loc.column, 10);
}

TEST(AssocDump, ParentWordAndNoRootParentLine) {
  auto d = dump("Cluster - 'c'\nAccount - 'a':Fairshare=parent\nParent - 'a'\nUser - 'u':Fairshare=PARENT\n");
  EXPECT_EQ(count(d->sink, "ACCT002"), 0);
  EXPECT_TRUE(d->tree.assocs[d->tree.find_account("a")].use_parent());
  EXPECT_TRUE(d->tree.assocs[d->tree.find_user("u", "a")].use_parent());
}

TEST(QosTable, ColumnsInAnyOrder) {
  SourceManager sources;
  DiagnosticSink sink;
  FileId id = sources.add("qos.psv",
                          "Name|Priority|Preempt|PreemptMode|UsageFactor|GrpTRES|MaxWall|Flags\n"
                          "normal|0||cluster|1.000000|||\n"
                          "high|1000|scavenger|cluster|2.000000|cpu=2048|2-00:00:00|DenyOnLimit\n"
                          "scavenger|0||requeue|0.000000|||NoReserve,NoDecay\n");
  QosTable qos = read_qos_table_text(id, sources, sink);
  EXPECT_TRUE(sink.all().empty());
  ASSERT_EQ(qos.records.size(), 3u);
  const QosRecord* high = qos.find("high");
  ASSERT_TRUE(high);
  EXPECT_EQ(high->priority, 1000u);
  EXPECT_DOUBLE_EQ(high->usage_factor, 2.0);
  EXPECT_EQ(high->grp_tres->at("cpu"), 2048);
  EXPECT_EQ(high->max_wall, 2 * 86400);
  EXPECT_EQ(high->preempt, std::vector<std::string>{"scavenger"});
  EXPECT_TRUE(qos.find("scavenger")->has_flag("nodecay"));
  EXPECT_EQ(qos.find("scavenger")->preempt_mode, "requeue");
  FileId bad = sources.add("bad.psv", "Priority|Flags\n1|x\n");
  read_qos_table_text(bad, sources, sink);
  EXPECT_EQ(count(sink, "ACCT010"), 1);
  EXPECT_EQ(QosTable::slurm_default().records.size(), 1u);
}

TEST(SshareUsage, UserRowsOnlyAndIndentationTrimmed) {
  SourceManager sources;
  DiagnosticSink sink;
  FileId id = sources.add("sshare.psv",
                          "Account|User|RawShares|NormShares|RawUsage|EffectvUsage|FairShare\n"
                          "root|||0.000000|1234567|1.000000|\n"
                          " chem||40|0.400000|1000000|0.810000|\n"
                          "  chem|alice|1|1.000000|1000000|1.000000|0.333333\n"
                          "  chem|bob|1|1.000000|x|1.000000|0.333333\n"
                          "  chem|carol|1|1.000000\n");
  UsageSnapshot usage = read_sshare_usage_text(id, sources, sink);
  ASSERT_EQ(usage.rows.size(), 1u);
  EXPECT_EQ(usage.rows[0].account, "chem");
  EXPECT_EQ(usage.rows[0].user, "alice");
  EXPECT_DOUBLE_EQ(usage.rows[0].raw_usage, 1000000.0);
  EXPECT_EQ(count(sink, "ACCT011"), 2);  // bad number, short row
}

// A small tree for the fair-share edge cases.
std::vector<engine::AssocShare> run(const AssocTree& tree, const std::map<std::string, double>& usage,
                                    engine::FairShareAlgorithm algorithm = engine::FairShareAlgorithm::kFairTree) {
  std::vector<long double> raw(tree.assocs.size(), 0);
  for (const auto& [user, value] : usage) {
    for (const Association& a : tree.assocs) {
      if (a.user == user) raw[a.id] = value;
    }
  }
  return engine::FairShare(tree, {algorithm, 1}).compute(raw);
}

TEST(FairTree, TiesShareARankAndTheNextUntiedSkips) {
  auto d = dump(
      "Cluster - 'c'\nParent - 'root'\nAccount - 'a':Fairshare=1\nParent - 'a'\n"
      "User - 'u1':Fairshare=1\nUser - 'u2':Fairshare=1\nUser - 'u3':Fairshare=1\nUser - 'u4':Fairshare=1\n");
  auto s = run(d->tree, {{"u1", 10}, {"u2", 10}, {"u3", 5}, {"u4", 0}});
  const AssocTree& t = d->tree;
  EXPECT_DOUBLE_EQ(s[t.find_user("u4", "a")].fs_factor, 1.0);  // no usage: LevelFS inf
  EXPECT_DOUBLE_EQ(s[t.find_user("u3", "a")].fs_factor, 0.75);
  EXPECT_DOUBLE_EQ(s[t.find_user("u1", "a")].fs_factor, 0.5);  // tied pair shares rank 2
  EXPECT_DOUBLE_EQ(s[t.find_user("u2", "a")].fs_factor, 0.5);
}

TEST(FairTree, ZeroSharesRankLastEvenWithoutUsage) {
  auto d = dump("Cluster - 'c'\nParent - 'root'\nUser - 'zero':Fairshare=0\nUser - 'busy':Fairshare=1\n");
  auto s = run(d->tree, {{"busy", 100}});
  EXPECT_EQ(s[d->tree.find_user("zero", "root")].level_fs, 0.0L);
  EXPECT_DOUBLE_EQ(s[d->tree.find_user("zero", "root")].fs_factor, 0.5);
  EXPECT_DOUBLE_EQ(s[d->tree.find_user("busy", "root")].fs_factor, 1.0);
}

TEST(FairTree, ParentAccountsFlattenIntoTheGrandparentLevel) {
  auto d = dump(
      "Cluster - 'c'\nParent - 'root'\nAccount - 'a':Fairshare=1\nAccount - 'b':Fairshare=1\n"
      "Parent - 'a'\nAccount - 'lab':Fairshare=parent\nUser - 'x':Fairshare=1\n"
      "Parent - 'lab'\nUser - 'y':Fairshare=1\nUser - 'z':Fairshare=2\n"
      "Parent - 'b'\nUser - 'w':Fairshare=1\n");
  engine::FairShare fs(d->tree, {});
  const AssocTree& t = d->tree;
  std::uint32_t a = t.find_account("a");
  EXPECT_EQ(fs.fs_parent(t.find_user("y", "lab")), a);
  EXPECT_EQ(fs.level_shares(t.find_user("y", "lab")), 4u);  // x 1 + y 1 + z 2; lab adds nothing
  auto s = fs.compute(std::vector<long double>(t.assocs.size(), 0));
  EXPECT_DOUBLE_EQ(s[t.find_user("z", "lab")].shares_norm, 0.5);
  EXPECT_TRUE(std::isinf(static_cast<double>(s[t.find_user("x", "a")].level_fs)));
}

TEST(Classic, DampeningAndZeroUsage) {
  auto d = dump("Cluster - 'c'\nParent - 'root'\nUser - 'a':Fairshare=1\nUser - 'b':Fairshare=3\n");
  const AssocTree& t = d->tree;
  std::vector<long double> raw(t.assocs.size(), 0);
  raw[t.find_user("a", "root")] = 50;
  raw[t.find_user("b", "root")] = 50;
  auto plain = engine::FairShare(t, {engine::FairShareAlgorithm::kClassic, 1}).compute(raw);
  auto damped = engine::FairShare(t, {engine::FairShareAlgorithm::kClassic, 2}).compute(raw);
  std::uint32_t a = t.find_user("a", "root");
  EXPECT_DOUBLE_EQ(plain[a].shares_norm, 0.25);
  EXPECT_DOUBLE_EQ(plain[a].usage_efctv, 0.5);
  EXPECT_DOUBLE_EQ(plain[a].fs_factor, std::pow(2.0, -2.0));
  EXPECT_DOUBLE_EQ(damped[a].fs_factor, std::pow(2.0, -1.0));
  auto idle = engine::FairShare(t, {engine::FairShareAlgorithm::kClassic, 1})
                  .compute(std::vector<long double>(t.assocs.size(), 0));
  EXPECT_DOUBLE_EQ(idle[a].fs_factor, 1.0);
}

TEST(Decay, SlurmsApproximationOverHalfLives) {
  const std::int64_t hl = 7 * 86400;
  EXPECT_DOUBLE_EQ(engine::decay_per_second(hl), 1.0 - 0.693 / hl);
  // One half-life leaves about e^-0.693 = 0.50007, not exactly one half (algorithms.md §2).
  EXPECT_NEAR(engine::decay_over(hl, hl), 0.500074, 1e-6);
  EXPECT_NEAR(engine::decay_over(hl, 4 * hl), std::pow(engine::decay_over(hl, hl), 4), 1e-12);
  EXPECT_DOUBLE_EQ(engine::decay_over(0, 1000), 1.0);           // PriorityDecayHalfLife=0: no decay
  EXPECT_GT(engine::decay_over(60, 100 * 365 * 86400LL), 0.0);  // floored at DBL_MIN
  EXPECT_NEAR(engine::decayed_charge(hl, 300, 64.0), 300 * 64.0 * engine::decay_over(hl, 300), 1e-9);
}

TEST(Decay, UsageResetBoundaries) {
  const std::int64_t t = 1717200000;  // 2024-06-01 00:00:00 UTC, a Saturday
  EXPECT_EQ(engine::next_usage_reset(UsageReset::kDaily, t), t + 86400);
  EXPECT_EQ(engine::next_usage_reset(UsageReset::kWeekly, t), t + 86400);      // Sunday
  EXPECT_EQ(engine::next_usage_reset(UsageReset::kMonthly, t), 1719792000);    // 2024-07-01
  EXPECT_EQ(engine::next_usage_reset(UsageReset::kQuarterly, t), 1719792000);  // 2024-07-01
  EXPECT_EQ(engine::next_usage_reset(UsageReset::kYearly, t), 1735689600);     // 2025-01-01
  EXPECT_EQ(engine::next_usage_reset(UsageReset::kNone, t), -1);
}

}  // namespace
}  // namespace sa

#include "analyzer/analyze.h"
#include "analyzer/assoc_links.h"

namespace sa {
namespace {

TEST(AssocLinks, GraphAndPartitionReferences) {
  auto d = dump(kTree);
  AssocGraph graph = build_assoc_graph(d->tree);
  EXPECT_EQ(boost::num_vertices(graph), d->tree.assocs.size());
  EXPECT_EQ(boost::num_edges(graph), d->tree.assocs.size() - 1);  // a tree
  EXPECT_EQ(boost::in_degree(d->tree.root, graph), 0u);
  auto conf = analyze_text("slurm.conf",
                           "ClusterName=tux\nSlurmctldHost=h\nNodeName=n1 RealMemory=100\n"
                           "PartitionName=p Nodes=n1 AllowAccounts=chem,chemistry QOS=part_qos\n"
                           "PartitionName=q Nodes=n1 AllowQos=normal,gold\n");
  QosTable qos = QosTable::slurm_default();
  DiagnosticSink sink;
  check_accounting_links(conf->config, d->tree, qos, sink);
  EXPECT_EQ(count(sink, "ACCT013"), 1);  // chemistry
  EXPECT_EQ(count(sink, "ACCT014"), 3);  // part_qos (error), gold, and phys's high
  EXPECT_TRUE(sink.has_errors());
}

// 23.11+: slurmctld stops when two partitions take the same Flags=Relative QOS as their QOS.
TEST(AssocLinks, ARelativeQosServesOnePartition) {
  auto d = dump(kTree);
  SourceManager sources;
  DiagnosticSink read_sink;
  QosTable qos = read_qos_table_text(sources.add("qos.psv",
                                                 "Name|Priority|GrpTRES|Flags\nnormal|0||\n"
                                                 "high|0||\nrel|0|cpu=50|Relative\n"),
                                     sources, read_sink);
  const std::string text =
      "ClusterName=tux\nSlurmctldHost=h\nNodeName=n1 RealMemory=100\n"
      "PartitionName=p Nodes=n1 QOS=rel\nPartitionName=q Nodes=n1 QOS=rel\n";
  auto conf = analyze_text("slurm.conf", text);
  DiagnosticSink sink;
  check_accounting_links(conf->config, d->tree, qos, sink);
  ASSERT_EQ(count(sink, "ACCT016"), 1);
  auto old = analyze_text("slurm.conf", text, AnalyzeOptions{.version = SlurmVersion::parse("23.02").value()});
  DiagnosticSink old_sink;
  check_accounting_links(old->config, d->tree, qos, old_sink);
  EXPECT_EQ(count(old_sink, "ACCT016"), 0);  // no Flags=Relative before 23.11
}

}  // namespace
}  // namespace sa

namespace sa {
namespace {

// Each example site's accounting files load cleanly and link to its slurm.conf.
TEST(ExampleSites, AccountingFilesAreClean) {
  for (const char* site : {"overlap-suspend", "tiered-university", "gang-timeslice"}) {
    std::filesystem::path dir = std::filesystem::path(SA_SOURCE_DIR) / "corpora" / site;
    auto conf = analyze_file((dir / "slurm.conf").string());
    ASSERT_TRUE(conf->ok()) << site;
    SourceManager sources;
    DiagnosticSink sink;
    auto tree = read_assoc_dump((dir / "sacctmgr_dump.cfg").string(), sources, sink);
    auto qos = read_qos_table((dir / "qos.psv").string(), sources, sink);
    auto usage = read_sshare_usage((dir / "sshare_usage.psv").string(), sources, sink);
    ASSERT_TRUE(tree.ok() && qos.ok() && usage.ok()) << site;
    check_accounting_links(conf->config, *tree, *qos, sink);
    for (const Diagnostic& d : sink.all()) ADD_FAILURE() << site << ": " << d.message;
    EXPECT_GT(usage->rows.size(), 2u) << site;
  }
  // The overlap-suspend tree keeps the seed's shares.
  SourceManager sources;
  DiagnosticSink sink;
  auto tree = read_assoc_dump(std::string(SA_SOURCE_DIR) + "/corpora/overlap-suspend/sacctmgr_dump.cfg", sources, sink);
  EXPECT_EQ(tree->assocs[tree->find_account("unilim")].shares_raw, 900u);
  EXPECT_EQ(tree->assocs[tree->find_account("shs")].shares_raw, 150u);
  EXPECT_EQ(tree->assocs[tree->find_account("xlim")].shares_raw, 283u);
}

}  // namespace
}  // namespace sa
