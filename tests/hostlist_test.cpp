// Hostlist expansion pinned to formats.md §2 (checked there against Slurm 24.05.8).
#include <gtest/gtest.h>

#include "analyzer/hostlist.h"

namespace sa {
namespace {

using Names = std::vector<std::string>;

Names expand(const std::string& expr, const char* version = "24.05.0") {
  auto r = expand_hostlist(expr, {*SlurmVersion::parse(version), 1000});
  EXPECT_TRUE(r.ok()) << expr << ": " << (r.ok() ? "" : r.error());
  return r.ok() ? *r : Names{};
}

TEST(Hostlist, PaddingFollowsTheLowNumber) {
  EXPECT_EQ(expand("n[08-11]"), (Names{"n08", "n09", "n10", "n11"}));
  EXPECT_EQ(expand("n[1-010]").size(), 10u);
  EXPECT_EQ(expand("n[1-010]").back(), "n10");
  Names six = expand("node[001-005,010]");
  ASSERT_EQ(six.size(), 6u);
  EXPECT_EQ(six.front(), "node001");
  EXPECT_EQ(six.back(), "node010");
}

TEST(Hostlist, PrefixMayEndInDigits) { EXPECT_EQ(expand("n1[01-03]"), (Names{"n101", "n102", "n103"})); }

TEST(Hostlist, TwoGroupsAreAProductFirstSlowest) {
  EXPECT_EQ(expand("rack[0-1]_blade[0-2]"),
            (Names{"rack0_blade0", "rack0_blade1", "rack0_blade2", "rack1_blade0", "rack1_blade1", "rack1_blade2"}));
}

TEST(Hostlist, ThreeGroupsUseSlurmsOrder) {
  Names got = expand("a[1-2]b[3-4]c[5-6]");
  Names want{"a1b3c5", "a1b3c6", "a2b3c5", "a2b3c6", "a1b4c5", "a1b4c6", "a2b4c5", "a2b4c6"};
  EXPECT_EQ(got, want);
}

TEST(Hostlist, MixedListsAndSeparators) {
  EXPECT_EQ(expand("gpu[1-2],cpu[01-02]"), (Names{"gpu1", "gpu2", "cpu01", "cpu02"}));
  EXPECT_EQ(expand("a b\tc"), (Names{"a", "b", "c"}));
  EXPECT_EQ(expand("node[1-2],node[2-3]").size(), 4u);  // duplicates kept; callers decide
}

TEST(Hostlist, SuffixNeeds23025) {
  EXPECT_EQ(expand("node[1-2]-ib", "23.02.5"), (Names{"node1-ib", "node2-ib"}));
  EXPECT_FALSE(expand_hostlist("node[1-2]-ib", {*SlurmVersion::parse("23.02.4"), 1000}).ok());
}

TEST(Hostlist, Errors) {
  for (const char* bad : {"node[5-3]", "node[1-", "node[a-b]", "n[1x2]", "n[]", "n]"}) {
    EXPECT_FALSE(expand_hostlist(bad).ok()) << bad;
  }
}

TEST(Hostlist, AbsurdExpansionIsBounded) {
  auto r = expand_hostlist("n[1-60000]x[1-60000]", {kDefaultSlurmVersion, 1'000'000});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("more than 1000000"), std::string::npos);
  EXPECT_FALSE(expand_hostlist("n[1-70000]").ok());  // more than Slurm's MAX_RANGE in one range
}

TEST(Hostlist, Compress) {
  EXPECT_EQ(compress_hostlist({"n01", "n02", "n03", "n05", "gpu1"}), "n[01-03,05],gpu1");
  EXPECT_EQ(compress_hostlist({"login"}), "login");
  EXPECT_EQ(compress_hostlist({"hsw098", "hsw099", "hsw100", "hsw101"}), "hsw[098-101]");
  EXPECT_EQ(compress_hostlist({"n9", "n10", "n11"}), "n[9-11]");
}

}  // namespace
}  // namespace sa
