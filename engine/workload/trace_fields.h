#pragma once
// Field parsers shared by the trace readers: sacct's time, duration and memory spellings.
#include <cstdint>
#include <optional>
#include <string_view>

namespace sa::engine {

// Range checks before any conversion: traces come from users, and a double or integer past
// these would overflow (undefined behaviour) in the readers or make a simulation endless.
constexpr std::int64_t kMaxTraceInt = 1'000'000'000'000'000;  // 10^15: ids, epoch seconds
constexpr std::int64_t kMaxTraceSeconds = 10'000'000'000;     // about 317 years
constexpr double kMaxTraceMemoryMb = 1e12;                    // an exabyte

/// A decimal integer with an optional sign (no base prefixes, unlike slurm.conf numbers);
/// nullopt when empty, not a number, or beyond kMaxTraceInt.
std::optional<std::int64_t> parse_trace_int(std::string_view text);
/// A sacct timestamp: epoch seconds (SLURM_TIME_FORMAT=%s) or ISO 8601 without zone
/// (read as UTC; sacct prints local time, so only differences are meaningful). "Unknown",
/// "None" and "" give nullopt; so does anything unreadable.
std::optional<std::int64_t> parse_trace_time(std::string_view text);
/// A sacct duration: [D-]HH:MM:SS, MM:SS, [D-]HH, fractional seconds dropped; nullopt if
/// unreadable. "UNLIMITED"/"Partition_Limit" are not durations (nullopt).
std::optional<std::int64_t> parse_trace_duration(std::string_view text);

struct TraceMemory {
  std::uint64_t mb = 0;
  enum class Per { kJob, kNode, kCpu } per = Per::kJob;
};
/// ReqMem: a number with an optional K/M/G/T unit (default M) and the pre-21.08 per-CPU
/// ('c') or per-node ('n') suffix; without a suffix newer sacct prints the job total.
std::optional<TraceMemory> parse_trace_memory(std::string_view text);

}  // namespace sa::engine
