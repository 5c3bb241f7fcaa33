// Value parsing pinned to Slurm's behaviour (formats.md §1.8, §3).
#include <gtest/gtest.h>

#include "analyzer/values.h"

namespace sa {
namespace {

TEST(ParseUint, CBase0Semantics) {
  EXPECT_EQ(*parse_uint("0x10", IntWidth::k32), 16u);
  EXPECT_EQ(*parse_uint("010", IntWidth::k64), 8u);  // octal, as strtoul base 0
  EXPECT_FALSE(parse_uint("08", IntWidth::k16).ok());
  EXPECT_NE(parse_uint("08", IntWidth::k16).error().find("octal"), std::string::npos);
  EXPECT_EQ(*parse_uint("42", IntWidth::k16), 42u);
}

TEST(ParseUint, KSuffixOnlyOnWideTypes) {
  EXPECT_EQ(*parse_uint("1k", IntWidth::k32), 1024u);
  EXPECT_EQ(*parse_uint("2K", IntWidth::k64), 2048u);
  EXPECT_FALSE(parse_uint("1k", IntWidth::k16).ok());
  EXPECT_FALSE(parse_uint("64G", IntWidth::k64).ok());
  EXPECT_FALSE(parse_uint("1kk", IntWidth::k32).ok());
}

TEST(ParseUint, InfiniteIsTheTypeMaximum) {
  EXPECT_EQ(*parse_uint("INFINITE", IntWidth::k16), 0xFFFFu);
  EXPECT_EQ(*parse_uint("unlimited", IntWidth::k32), 0xFFFFFFFFu);
  EXPECT_EQ(*parse_uint("Infinite", IntWidth::k64), 0xFFFFFFFFFFFFFFFFull);
}

TEST(ParseUint, RangeAndSign) {
  EXPECT_FALSE(parse_uint("65536", IntWidth::k16).ok());
  EXPECT_EQ(*parse_uint("65535", IntWidth::k16), 65535u);
  EXPECT_FALSE(parse_uint("4294967296", IntWidth::k32).ok());
  EXPECT_FALSE(parse_uint("-1", IntWidth::k32).ok());
  EXPECT_FALSE(parse_uint("", IntWidth::k32).ok());
  EXPECT_FALSE(parse_uint("12abc", IntWidth::k32).ok());
}

TEST(ParseBool, AcceptsSlurmWordsOnly) {
  for (const char* yes : {"YES", "yes", "True", "UP", "1"}) EXPECT_TRUE(*parse_bool(yes)) << yes;
  for (const char* no : {"NO", "false", "Down", "0"}) EXPECT_FALSE(*parse_bool(no)) << no;
  EXPECT_FALSE(parse_bool("on").ok());
  EXPECT_FALSE(parse_bool("").ok());
}

TEST(ParseTime, EveryForm) {
  EXPECT_EQ(*parse_time_secs("30"), 1800);
  EXPECT_EQ(*parse_time_secs("30:15"), 1815);
  EXPECT_EQ(*parse_time_secs("1:00:00"), 3600);
  EXPECT_EQ(*parse_time_secs("2-12"), 216000);
  EXPECT_EQ(*parse_time_secs("2-12:30"), 217800);
  EXPECT_EQ(*parse_time_secs("2-12:30:15"), 217815);
  EXPECT_EQ(*parse_time_secs("2-"), 172800);
  EXPECT_EQ(*parse_time_secs("0-6"), 21600);
  EXPECT_EQ(*parse_time_secs("-1"), kInfiniteTime);
  EXPECT_EQ(*parse_time_secs("INFINITE"), kInfiniteTime);
  EXPECT_EQ(*parse_time_secs("Unlimited"), kInfiniteTime);
}

TEST(ParseTime, RejectsWhatSlurmRejects) {
  for (const char* bad : {"1.5", "1:", "1:2:3:4", "1-2-3", "", "2h", "1d", "1:2-3", ":5"}) {
    EXPECT_FALSE(parse_time_secs(bad).ok()) << bad;
  }
}

TEST(ParseTime, MinuteKeysRoundSecondsUp) {
  EXPECT_EQ(*parse_time_minutes_as_secs("30:15"), 31 * 60);
  EXPECT_EQ(*parse_time_minutes_as_secs("00:00:30"), 60);
  EXPECT_EQ(*parse_time_minutes_as_secs("0"), 0);
  EXPECT_EQ(*parse_time_minutes_as_secs("7-0"), 7 * 86400);
}

TEST(FormatDuration, AsSlurmPrints) {
  EXPECT_EQ(format_duration(3600), "01:00:00");
  EXPECT_EQ(format_duration(172800), "2-00:00:00");
  EXPECT_EQ(format_duration(kInfiniteTime), "UNLIMITED");
}

}  // namespace
}  // namespace sa
