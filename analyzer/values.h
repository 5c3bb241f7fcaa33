#pragma once
// Value parsing exactly as Slurm's s_p_* handlers and time_str2secs() do it (see
// shared/reference/formats.md §1.8 and §3): C base-0 integers (010 is octal 8, 08 is
// invalid), one trailing k/K meaning x1024 on 32/64-bit values, INFINITE/UNLIMITED as the
// type's maximum, booleans YES/NO/TRUE/FALSE/UP/DOWN/1/0, and time strings without unit
// letters.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/result.h"

namespace sa {

constexpr std::uint16_t kInfinite16 = 0xFFFF;
constexpr std::uint32_t kInfinite32 = 0xFFFFFFFF;
constexpr std::uint32_t kNoVal32 = 0xFFFFFFFE;
constexpr std::uint64_t kInfinite64 = 0xFFFFFFFFFFFFFFFFULL;
/// Time values in the model: seconds, with this sentinel for INFINITE/UNLIMITED.
constexpr std::int64_t kInfiniteTime = -1;

enum class IntWidth { k16, k32, k64 };

/// Parses an unsigned integer of the given width; the error says why it is invalid.
Result<std::uint64_t> parse_uint(std::string_view text, IntWidth width);
/// Parses a signed long (Slurm's S_P_LONG).
Result<std::int64_t> parse_long(std::string_view text);
Result<bool> parse_bool(std::string_view text);

/// What C's strtol(text, &end, 10) reads at the start of `text`: leading blanks, a sign, the
/// digits. `value` saturates at 2^40 (callers cap far below); `end` is where reading stopped
/// (0 when there are no digits, as strtol leaves end at the start).
struct DecimalPrefix {
  std::uint64_t value = 0;
  bool negative = false;
  std::size_t digits = 0;
  std::size_t end = 0;
};
DecimalPrefix read_decimal_prefix(std::string_view text);
Result<double> parse_double(std::string_view text);

/// time_str2secs(): seconds, or kInfiniteTime for -1/INFINITE/UNLIMITED.
Result<std::int64_t> parse_time_secs(std::string_view text);
/// time_str2mins() then x60: minute-based keys round seconds UP to whole minutes.
Result<std::int64_t> parse_time_minutes_as_secs(std::string_view text);

/// Formats seconds as Slurm prints times: [D-]HH:MM:SS, or UNLIMITED.
std::string format_duration(std::int64_t seconds);

}  // namespace sa
