// --constraint as slurmctld 22.05 reads it (job_scheduler.c build_feature_list) and applies it
// (node_scheduler.c): left-to-right operators, one parenthesis level, one bracket set, counts;
// what Slurm refuses is an error at the character where it stops; hostile input stays cheap.
#include <gtest/gtest.h>

#include <chrono>
#include <random>
#include <string>

#include "analyzer/constraint.h"

namespace sa {
namespace {

Constraint parse_ok(std::string_view text) {
  auto c = parse_constraint(text);
  EXPECT_TRUE(c.ok()) << text << ": " << (c.ok() ? "" : c.error());
  return c.ok() ? *c : Constraint{};
}

// The 1-based character of the error, or 0 when the text parsed.
std::size_t error_at(std::string_view text) {
  std::size_t offset = 0;
  auto c = parse_constraint(text, &offset);
  return c.ok() ? 0 : offset + 1;
}

TEST(ConstraintParse, TermsOperatorsAndCounts) {
  Constraint c = parse_ok("a|b&c");
  ASSERT_EQ(c.terms.size(), 3u);
  EXPECT_EQ(c.terms[0].name, "a");
  EXPECT_EQ(c.terms[0].op, FeatureOp::kOr);
  EXPECT_EQ(c.terms[1].op, FeatureOp::kAnd);
  EXPECT_EQ(c.terms[2].op, FeatureOp::kEnd);
  EXPECT_EQ(c.terms[2].offset, 4u);
  // A comma is Slurm's common mistake for '&' and is read as one.
  Constraint comma = parse_ok("intel,ib");
  ASSERT_EQ(comma.terms.size(), 2u);
  EXPECT_EQ(comma.terms[0].op, FeatureOp::kAnd);
  Constraint counted = parse_ok("[rack1*2&rack2*4]");
  ASSERT_EQ(counted.terms.size(), 2u);
  EXPECT_EQ(counted.terms[0].count, 2u);
  EXPECT_EQ(counted.terms[0].op, FeatureOp::kCountedAnd);
  EXPECT_EQ(counted.terms[1].count, 4u);
  EXPECT_TRUE(counted.terms[1].in_bracket);
  EXPECT_TRUE(counted.has_counts());
  Constraint matching = parse_ok("fastio&[xeon|nehalem]");
  ASSERT_EQ(matching.terms.size(), 3u);
  EXPECT_FALSE(matching.terms[0].in_bracket);
  EXPECT_EQ(matching.terms[1].op, FeatureOp::kMatchingOr);
  EXPECT_TRUE(matching.has_matching_or());
  EXPECT_FALSE(matching.has_counts());
  // Slurm's paren depth is the one when the operator after the name was read: b closes it.
  Constraint group = parse_ok("(a|b)&c");
  ASSERT_EQ(group.terms.size(), 3u);
  EXPECT_EQ(group.terms[0].paren, 1);
  EXPECT_EQ(group.terms[1].paren, 0);
  EXPECT_TRUE(group.terms[1].in_paren);
  EXPECT_EQ(group.terms[1].op, FeatureOp::kAnd);
  EXPECT_EQ(parse_ok("big*2x&c").terms[0].count, 2u);  // text after a count is skipped, as in Slurm
  EXPECT_TRUE(parse_ok("").empty());
  EXPECT_EQ(parse_ok("a* +3").terms[0].count, 3u);  // strtol skips blanks and takes a sign
}

TEST(ConstraintParse, WhatSlurmRefusesFailsWithAPosition) {
  EXPECT_EQ(error_at("&a"), 1u);
  EXPECT_EQ(error_at("a&&b"), 3u);
  EXPECT_EQ(error_at("a|"), 0u);  // a trailing operator is accepted (the list just ends)
  EXPECT_EQ(error_at("a*0"), 2u);
  EXPECT_EQ(error_at("a*"), 2u);
  EXPECT_EQ(error_at("a*-2"), 2u);
  EXPECT_EQ(error_at("*2"), 1u);
  EXPECT_EQ(error_at("(a*2)"), 3u);
  EXPECT_EQ(error_at("((a))"), 2u);
  EXPECT_EQ(error_at("[a|b"), 1u);
  EXPECT_EQ(error_at("x&(a|b"), 3u);
  EXPECT_EQ(error_at("[a]&[b]"), 5u);
  EXPECT_EQ(error_at("[[a]]"), 2u);
  EXPECT_EQ(error_at("a]"), 2u);
  EXPECT_EQ(error_at("a)"), 2u);
  EXPECT_EQ(error_at("a[b]"), 2u);
  EXPECT_EQ(error_at("[a&b]"), 2u);    // '&' in brackets needs counts
  EXPECT_EQ(error_at("[a*2|b]"), 2u);  // a matching OR takes none
  EXPECT_EQ(error_at("[a*2&b]"), 6u);  // the last term follows its siblings
  EXPECT_EQ(error_at("[a|b*2]"), 4u);
  EXPECT_EQ(error_at("a*3000000000"), 2u);
  auto bad = parse_constraint("a&&b");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(), "character 3: '&' must follow a feature name");
}

TEST(ConstraintParse, HostileInputIsCheapAndNeverRecurses) {
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(error_at(std::string(100'000, '[')), 2u);
  EXPECT_EQ(error_at(std::string(100'000, '(')), 2u);
  EXPECT_EQ(error_at(std::string(100'000, ']')), 1u);
  std::string long_and;
  for (int i = 0; i < 25'000; ++i) long_and += i ? "&f" : "f";
  Constraint many = parse_ok(long_and);
  EXPECT_EQ(many.terms.size(), 25'000u);
  EXPECT_TRUE(node_satisfies(many, {"f"}));
  EXPECT_FALSE(node_satisfies(many, {"g"}));
  std::string name(100'000, 'x');
  EXPECT_EQ(parse_ok(name).terms[0].name.size(), 100'000u);
  std::mt19937 rng(21);
  const std::string alphabet = "ab*&|[]()0123456789, ";
  for (int round = 0; round < 50; ++round) {
    std::string noise(2'000, ' ');
    for (char& ch : noise) ch = alphabet[rng() % alphabet.size()];
    auto c = parse_constraint(noise);
    if (c.ok()) (void)node_satisfies(*c, {"a"});
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

// n1 {a, ib}, n2 {b, ib}, n3 {a, b}, n4 {c}
const std::vector<FeatureSet> kNodes = {{"a", "ib"}, {"b", "ib"}, {"a", "b"}, {"c"}};

std::vector<CandidateNode> pick(std::initializer_list<std::uint32_t> indices) {
  std::vector<CandidateNode> out;
  for (std::uint32_t i : indices) out.push_back({i, &kNodes[i]});
  return out;
}

std::string passing(std::string_view text) {
  Constraint c = parse_ok(text);
  std::string out;
  for (std::size_t i = 0; i < kNodes.size(); ++i) {
    if (node_satisfies(c, kNodes[i])) out += "n" + std::to_string(i + 1);
  }
  return out;
}

TEST(ConstraintNodes, PerNodeFilterIsLeftToRight) {
  EXPECT_EQ(passing(""), "n1n2n3n4");
  EXPECT_EQ(passing("a"), "n1n3");
  EXPECT_EQ(passing("a&ib"), "n1");
  EXPECT_EQ(passing("a|b"), "n1n2n3");
  EXPECT_EQ(passing("a|b&ib"), "n1n2");    // (a|b)&ib: no precedence
  EXPECT_EQ(passing("ib&a|b"), "n1n2n3");  // (ib&a)|b
  EXPECT_EQ(passing("(a|b)&ib"), "n1n2");
  EXPECT_EQ(passing("ib&(a|c)"), "n1");
  EXPECT_EQ(passing("c|(a&ib)"), "n1n4");
  EXPECT_EQ(passing("[a|b]"), "n1n2n3");
  EXPECT_EQ(passing("ib&[a|c]"), "n1");
  EXPECT_EQ(passing("a*2"), "n1n2n3n4");  // with a count Slurm filters no node by AND/OR
  EXPECT_EQ(passing("[a*1&c*1]"), "n1n3n4");
  EXPECT_EQ(passing("gpu"), "");
}

TEST(ConstraintNodes, SelectionsWithCountsAndMatchingOr) {
  Constraint matching = parse_ok("[a|b]");
  EXPECT_TRUE(nodes_satisfy(matching, pick({0, 2})));   // all have a
  EXPECT_TRUE(nodes_satisfy(matching, pick({1, 2})));   // all have b
  EXPECT_FALSE(nodes_satisfy(matching, pick({0, 1})));  // a and b mixed
  EXPECT_FALSE(nodes_satisfy(matching, pick({0, 3})));
  Constraint two_a = parse_ok("a*2");
  EXPECT_FALSE(nodes_satisfy(two_a, pick({0, 3})));
  EXPECT_TRUE(nodes_satisfy(two_a, pick({0, 2})));
  EXPECT_TRUE(nodes_satisfy(two_a, pick({0, 2, 3})));
  Constraint each = parse_ok("[a*1&b*1]");
  EXPECT_FALSE(nodes_satisfy(each, pick({2})));  // one node cannot count for both
  EXPECT_TRUE(nodes_satisfy(each, pick({0, 1})));
  EXPECT_TRUE(nodes_satisfy(each, pick({2, 0})));  // n1 for a, n3 for b
  Constraint two_a_one_b = parse_ok("[a*2&b*1]");
  EXPECT_FALSE(nodes_satisfy(two_a_one_b, pick({0, 2})));
  EXPECT_TRUE(nodes_satisfy(two_a_one_b, pick({0, 2, 1})));
  Constraint plain = parse_ok("a&ib");
  EXPECT_TRUE(nodes_satisfy(plain, pick({0})));
  EXPECT_FALSE(nodes_satisfy(plain, pick({0, 2})));
}

TEST(ConstraintNodes, CouldEverSatisfyAndTheSubmitVerdict) {
  const auto all = pick({0, 1, 2, 3});
  EXPECT_FALSE(could_ever_satisfy(parse_ok("a&c"), all));
  EXPECT_TRUE(could_ever_satisfy(parse_ok("[a|c]"), all));
  EXPECT_FALSE(could_ever_satisfy(parse_ok("a*3"), all));
  EXPECT_TRUE(could_ever_satisfy(parse_ok("[a*2&c*1]"), all));
  EXPECT_FALSE(could_ever_satisfy(parse_ok("[a*2&b*2]"), all));  // n3 can serve only one of them
  EXPECT_FALSE(could_ever_satisfy(parse_ok("a"), pick({1, 3})));
  EXPECT_EQ(submit_verdict(parse_ok("gpu"), kNodes, all), ConstraintVerdict::kInvalidFeature);
  EXPECT_EQ(submit_verdict(parse_ok("a&c"), kNodes, all), ConstraintVerdict::kNodeConfigUnavailable);
  // The names are checked against the whole cluster, the satisfiability against the partition.
  EXPECT_EQ(submit_verdict(parse_ok("c"), kNodes, pick({0, 1})), ConstraintVerdict::kNodeConfigUnavailable);
  EXPECT_EQ(submit_verdict(parse_ok("a|c"), kNodes, all), ConstraintVerdict::kOk);
  EXPECT_EQ(verdict_message(ConstraintVerdict::kInvalidFeature), "Invalid feature specification");
  EXPECT_EQ(verdict_message(ConstraintVerdict::kNodeConfigUnavailable),
            "Requested node configuration is not available");
}

}  // namespace
}  // namespace sa
