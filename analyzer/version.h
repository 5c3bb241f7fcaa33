#pragma once
// The Slurm release a configuration is checked against. Only major.minor matters for the
// key table and defaults; patch levels (e.g. 23.02.5 for hostlist suffixes) are kept too.
#include <optional>
#include <string>
#include <string_view>
#include <tuple>

namespace sa {

struct SlurmVersion {
  int major = 24;
  int minor = 5;
  int patch = 0;

  static std::optional<SlurmVersion> parse(std::string_view text);
  std::string to_string() const;  // "24.05"
  auto key() const { return std::tie(major, minor, patch); }
  bool operator<(const SlurmVersion& o) const { return key() < o.key(); }
  bool operator>=(const SlurmVersion& o) const { return !(*this < o); }
  bool operator==(const SlurmVersion& o) const { return key() == o.key(); }
  /// True when this version is at least major.minor(.patch).
  bool at_least(int maj, int min, int pat = 0) const { return *this >= SlurmVersion{maj, min, pat}; }
};

/// The versions of the data tables (analyzer/data/*.tsv) in which a key or word exists.
struct VersionRange {
  SlurmVersion since{20, 11, 0};
  SlurmVersion until{25, 11, 0};
  bool open_ended = true;  // still present in the newest table
  /// Parses the tables' `since` and `until` columns: "-" for open-ended, "master" for newer
  /// than every released table.
  static VersionRange from_table(const std::string& since, const std::string& until);
  bool covers(const SlurmVersion& version) const;  // by major.minor
  /// The range in words: "it was removed after 20.11" (the tables start at 20.11, so an
  /// earlier start is unknown), "it is new in 23.02", "it exists in 21.08 to 23.02".
  std::string text() const;
};

/// The version assumed when the user gives none; printed in every report.
constexpr SlurmVersion kDefaultSlurmVersion{24, 5, 0};
/// The releases whose key tables slurm-advisor knows.
constexpr SlurmVersion kOldestKnownVersion{20, 11, 0};
constexpr SlurmVersion kNewestKnownVersion{25, 11, 0};

}  // namespace sa
