#pragma once
// Calendar times as Slurm's tools print them (`%FT%T`, i.e. YYYY-MM-DDTHH:MM:SS). Every
// input is read as UTC: the tools print local time, so only differences between times are
// meaningful, and UTC keeps the result independent of the machine's time zone.
#include <cstdint>
#include <optional>
#include <string_view>

namespace sa {

/// Days from 1970-01-01 to the given proleptic Gregorian date (negative before 1970).
std::int64_t days_from_civil(std::int64_t year, int month, int day);

/// `YYYY-MM-DD[THH:MM[:SS]]` (a blank may replace the T) as epoch seconds, read as UTC;
/// nullopt for anything else, including impossible dates such as 2025-02-30.
std::optional<std::int64_t> parse_iso_datetime(std::string_view text);

/// parse_iso_datetime(), or epoch seconds written as plain digits (at most 12 of them).
std::optional<std::int64_t> parse_datetime(std::string_view text);

}  // namespace sa
