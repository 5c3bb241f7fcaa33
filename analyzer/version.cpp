#include "analyzer/version.h"

#include <fmt/format.h>
#include <charconv>

namespace sa {

namespace {
bool take_number(std::string_view& text, int& out) {
  const char* begin = text.data();
  auto [ptr, ec] = std::from_chars(begin, begin + text.size(), out);
  if (ec != std::errc() || ptr == begin) return false;
  text.remove_prefix(static_cast<std::size_t>(ptr - begin));
  return true;
}
}  // namespace

std::optional<SlurmVersion> SlurmVersion::parse(std::string_view text) {
  SlurmVersion v{0, 0, 0};
  if (!take_number(text, v.major) || text.empty() || (text[0] != '.' && text[0] != '-')) {
    return std::nullopt;
  }
  text.remove_prefix(1);
  if (!take_number(text, v.minor)) return std::nullopt;
  if (!text.empty() && (text[0] == '.' || text[0] == '-')) {
    text.remove_prefix(1);
    if (!take_number(text, v.patch)) return std::nullopt;
  }
  if (!text.empty() || v.major < 1 || v.minor < 0 || v.minor > 12) return std::nullopt;
  return v;
}

VersionRange VersionRange::from_table(const std::string& since, const std::string& until) {
  VersionRange r;
  // A key first seen in master is newer than every released table we know.
  r.since = since == "master" ? SlurmVersion{26, 5, 0} : SlurmVersion::parse(since).value_or(SlurmVersion{20, 11, 0});
  r.open_ended = until == "-" || until == "master";
  if (!r.open_ended) r.until = SlurmVersion::parse(until).value_or(SlurmVersion{25, 11, 0});
  return r;
}

bool VersionRange::covers(const SlurmVersion& version) const {
  SlurmVersion v{version.major, version.minor, 0};
  return !(v < since) && (open_ended || !(until < v));
}

std::string VersionRange::text() const {
  if (open_ended) return fmt::format("it is new in {}", since.to_string());
  if (since == kOldestKnownVersion) return fmt::format("it was removed after {}", until.to_string());
  return fmt::format("it exists in {} to {}", since.to_string(), until.to_string());
}

std::string SlurmVersion::to_string() const { return fmt::format("{}.{:02}", major, minor); }

}  // namespace sa
