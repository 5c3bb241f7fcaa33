// Lexical rules of Slurm's reader (formats.md §1.1-1.3), through the ANTLR grammar.
#include <gtest/gtest.h>

#include "analyzer/conf_reader.h"

namespace sa {
namespace {

struct Read {
  SourceManager sources;
  DiagnosticSink sink;
  std::vector<ConfLine> lines;
};

std::unique_ptr<Read> read(const std::string& text) {
  auto r = std::make_unique<Read>();
  FileId id = r->sources.add("t.conf", text);
  r->lines = read_conf(r->sources, id, r->sink);
  return r;
}

TEST(ConfReader, PairsValuesAndPositions) {
  auto r = read("NodeName=n[1-4] CPUs=8\nSchedulerType = sched/backfill\n");
  ASSERT_EQ(r->lines.size(), 2u);
  ASSERT_EQ(r->lines[0].pairs.size(), 2u);
  EXPECT_EQ(r->lines[0].pairs[1].key, "CPUs");
  EXPECT_EQ(r->lines[0].pairs[1].value, "8");
  EXPECT_EQ(r->lines[0].pairs[1].key_loc.column, 17);
  EXPECT_EQ(r->lines[1].pairs[0].value, "sched/backfill");  // spaces around '=' are fine
  EXPECT_EQ(r->lines[1].pairs[0].value_loc.line, 2);
  EXPECT_EQ(r->lines[1].pairs[0].value_loc.column, 17);
  EXPECT_TRUE(r->sink.all().empty());
}

TEST(ConfReader, CommentBeatsQuotes) {
  auto r = read("NodeName=n1 Reason=\"fan #2 bad\" State=DOWN\n");
  ASSERT_EQ(r->lines.size(), 1u);
  ASSERT_EQ(r->lines[0].pairs.size(), 2u);  // State=DOWN is inside the comment
  EXPECT_EQ(r->lines[0].pairs[1].value, "\"fan");
  EXPECT_FALSE(r->lines[0].pairs[1].quoted);
}

TEST(ConfReader, EscapedHashIsLiteral) {
  auto r = read("NodeName=n1 Reason=fan\\#2\n");
  EXPECT_EQ(r->lines[0].pairs[1].value, "fan#2");
}

TEST(ConfReader, ContinuationJoinsWithoutSeparator) {
  auto r = read("NodeName=n1 Feature=a,\\\nb CPUs=2\n");
  ASSERT_EQ(r->lines.size(), 1u);
  EXPECT_EQ(r->lines[0].pairs[1].value, "a,b");
  EXPECT_EQ(r->lines[0].pairs[2].key, "CPUs");
}

TEST(ConfReader, ContinuationAfterComment) {
  // Comments are stripped first, so "\ # note" still continues the line.
  auto r = read("NodeName=n1 \\ # note\n  CPUs=4\n");
  ASSERT_EQ(r->lines.size(), 1u);
  ASSERT_EQ(r->lines[0].pairs.size(), 2u);
  EXPECT_EQ(r->lines[0].pairs[1].value, "4");
}

TEST(ConfReader, LeadingBlanksOfTheNextLineEndTheValue) {
  auto r = read("SchedulerParameters=bf_continue,\\\n  bf_window=100\n");
  ASSERT_EQ(r->lines.size(), 1u);
  EXPECT_EQ(r->lines[0].pairs[0].value, "bf_continue,");
  ASSERT_EQ(r->lines[0].pairs.size(), 2u);  // a second scalar on the line: the analyzer rejects it
}

TEST(ConfReader, EvenBackslashesDoNotContinue) {
  auto r = read("Prolog=a\\\\\nEpilog=b\n");
  ASSERT_EQ(r->lines.size(), 2u);
  EXPECT_EQ(r->lines[0].pairs[0].value, "a\\");
}

TEST(ConfReader, QuotedValuesKeepBlanksAndMayBeEmpty) {
  auto r = read("PartitionName=p Nodes=\"a b\" AllowGroups=\"\"\n");
  EXPECT_EQ(r->lines[0].pairs[1].value, "a b");
  EXPECT_TRUE(r->lines[0].pairs[1].quoted);
  EXPECT_EQ(r->lines[0].pairs[2].value, "");
}

TEST(ConfReader, EmptyValueSwallowsTheNextPair) {
  auto r = read("PartitionName=p Nodes= Default=YES\n");
  ASSERT_EQ(r->lines[0].pairs.size(), 2u);
  EXPECT_EQ(r->lines[0].pairs[1].value, "Default=YES");
}

TEST(ConfReader, CrlfFiles) {
  auto r = read("ClusterName=c\r\nNodeName=n1 CPUs=2\r\n");
  ASSERT_EQ(r->lines.size(), 2u);
  EXPECT_EQ(r->lines[0].pairs[0].value, "c");
  EXPECT_EQ(r->lines[1].pairs[1].value, "2");
}

TEST(ConfReader, IncludeOnlyInColumnOne) {
  auto r = read("Include nodes.conf\ninclude   other.conf  # c\n  Include late.conf\n");
  ASSERT_EQ(r->lines.size(), 3u);
  EXPECT_TRUE(r->lines[0].is_include);
  EXPECT_EQ(r->lines[0].include_path, "nodes.conf");
  EXPECT_TRUE(r->lines[1].is_include);
  EXPECT_EQ(r->lines[1].include_path, "other.conf");
  EXPECT_FALSE(r->lines[2].is_include);
  ASSERT_EQ(r->sink.all().size(), 1u);
  EXPECT_EQ(r->sink.all()[0].loc.line, 3);
  EXPECT_NE(r->sink.all()[0].message.find("column 1"), std::string::npos);
}

TEST(ConfReader, MissingValueIsOneErrorAndReadingGoesOn) {
  auto r = read("Foo=\nBar=1\nthis is junk\nBaz=2\n");
  ASSERT_EQ(r->sink.all().size(), 2u);
  EXPECT_EQ(r->sink.all()[0].loc.line, 1);
  EXPECT_NE(r->sink.all()[0].message.find("missing value for 'Foo'"), std::string::npos);
  EXPECT_EQ(r->sink.all()[1].loc.line, 3);
  int good = 0;
  for (const ConfLine& l : r->lines) good += l.has_syntax_error ? 0 : 1;
  EXPECT_EQ(good, 2);  // Bar and Baz
}

TEST(ConfReader, TextAfterClosingQuote) {
  auto r = read("Reason=\"a b\"c\n");
  ASSERT_EQ(r->sink.all().size(), 1u);
  EXPECT_NE(r->sink.all()[0].message.find("closing quote"), std::string::npos);
}

TEST(ConfReader, StrayCharactersAreDiagnostics) {
  auto r = read("Key: value\n\x01\xff=3\n");
  EXPECT_EQ(r->sink.all().size(), 2u);
}

TEST(Unescape, SlurmOrder) {
  EXPECT_EQ(unescape_conf_text("a\\b"), "ab");
  EXPECT_EQ(unescape_conf_text("a\\\\b"), "a\\b");
  EXPECT_EQ(unescape_conf_text("x\\\ny"), "xy");
  EXPECT_EQ(unescape_conf_text("x\\  # c\ny"), "xy");
  EXPECT_EQ(unescape_conf_text("x\\"), "x");
}

}  // namespace
}  // namespace sa
