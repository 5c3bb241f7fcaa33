#include "analyzer/value_reader.h"

#include <fmt/format.h>
#include <cctype>

#include "analyzer/text_util.h"

namespace sa {

namespace {

bool is_memory_key(const std::string& key) {
  std::string k = to_lower(key);
  return k.find("mem") != std::string::npos || k == "tmpdisk";
}

// "64G", "512M": a number with a unit letter, which slurm.conf never accepts for memory.
std::string unit_hint(const ValueRef& ref) {
  const std::string& v = ref.value;
  if (v.size() < 2 || !is_memory_key(ref.key)) return {};
  char unit = static_cast<char>(std::toupper(static_cast<unsigned char>(v.back())));
  std::string digits = v.substr(0, v.size() - 1);
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) return {};
  int shift = unit == 'M' ? 0 : unit == 'G' ? 10 : unit == 'T' ? 20 : -1;
  if (shift < 0 || digits.size() > 12) return {};
  std::uint64_t mb = std::stoull(digits) << shift;
  return fmt::format("slurm.conf memory is a plain number of megabytes: write {}={}", ref.key, mb);
}

// The lower-cased key for a lookup, in a buffer reused by every read on this thread: a
// resolver reads a few hundred keys per config, each a fresh string before. Valid until the
// next call; each caller only looks the key up.
const std::string& lowered(const std::string& canonical_key) {
  thread_local std::string buffer;
  buffer.assign(canonical_key);
  for (char& c : buffer) c = ascii_lower(c);
  return buffer;
}

}  // namespace

std::optional<ValueRef> ref_of(const Pair* pair, const std::string& canonical_key) {
  if (!pair) return std::nullopt;
  return ValueRef{canonical_key, pair->value, pair->value_loc};
}

namespace {

// Integer keys (S_P_UINT16/32/64, S_P_LONG) reach parse_value.c s_p_handle_*(), which call
// strtoul/strtol with base 0: "0x10" is 16 and "010" is 8. Not every number in slurm.conf is
// read that way: times go through time_str2mins/secs, OverSubscribe=YES:n, OverTimeLimit and
// the Licenses counts use strtol base 10 (common/read_config.c, slurmctld/licenses.c),
// SchedulerParameters values atoi(), GRES counts take K/M/G suffixes; those readers do not
// come here.
void note_number_base(const ValueRef& ref, std::uint64_t parsed, DiagnosticSink& sink) {
  const std::string& v = ref.value;
  if (v.size() < 2 || v[0] != '0') return;
  if (v[1] == 'x' || v[1] == 'X') {
    sink.note("CONF050", ref.loc, fmt::format("{}={} is hexadecimal: Slurm reads {}", ref.key, v, parsed),
              fmt::format("write {}={} to say it plainly", ref.key, parsed));
    return;
  }
  std::string digits = v;
  const bool kilo = digits.back() == 'k' || digits.back() == 'K';
  if (kilo) digits.pop_back();
  if (digits.find_first_not_of("0123456789") != std::string::npos) return;
  // 19 digits always fit in 64 bits; a longer octal number reads differently in decimal anyway.
  const bool same = digits.size() <= 19 && std::stoull(digits) * (kilo ? 1024 : 1) == parsed;
  if (same) {
    sink.note("CONF050", ref.loc,
              fmt::format("{}={} starts with 0, so Slurm reads it as octal: {} (the same here, but 010 would be 8)",
                          ref.key, v, parsed),
              "drop the leading zero");
    return;
  }
  const std::string decimal = (digits.size() <= 19 ? std::to_string(std::stoull(digits)) : digits) + (kilo ? "k" : "");
  sink.warning("CONF046", ref.loc,
               fmt::format("{}={} starts with 0, so Slurm reads it as octal: {}, not {}", ref.key, v, parsed, decimal),
               "drop the leading zero");
}

}  // namespace

std::optional<std::uint64_t> read_uint(const ValueRef& ref, IntWidth width, DiagnosticSink& sink) {
  auto parsed = parse_uint(ref.value, width);
  if (parsed) note_number_base(ref, *parsed, sink);
  if (parsed) return *parsed;
  sink.error("CONF006", ref.loc,
             fmt::format("invalid value '{}' for {}: {}", printable(ref.value), ref.key, parsed.error()),
             unit_hint(ref));
  return std::nullopt;
}

std::optional<bool> read_bool(const ValueRef& ref, DiagnosticSink& sink) {
  auto parsed = parse_bool(ref.value);
  if (parsed) return *parsed;
  sink.error("CONF007", ref.loc,
             fmt::format("invalid value '{}' for {}: {}", printable(ref.value), ref.key, parsed.error()));
  return std::nullopt;
}

std::optional<double> read_double(const ValueRef& ref, DiagnosticSink& sink) {
  auto parsed = parse_double(ref.value);
  if (parsed) return *parsed;
  sink.error("CONF006", ref.loc,
             fmt::format("invalid value '{}' for {}: {}", printable(ref.value), ref.key, parsed.error()));
  return std::nullopt;
}

std::optional<std::int64_t> read_time_minutes(const ValueRef& ref, DiagnosticSink& sink) {
  auto parsed = parse_time_minutes_as_secs(ref.value);
  if (parsed) return *parsed;
  sink.error("CONF008", ref.loc,
             fmt::format("invalid time '{}' for {}: {}", printable(ref.value), ref.key, parsed.error()));
  return std::nullopt;
}

std::optional<std::int64_t> read_time_secs(const ValueRef& ref, DiagnosticSink& sink) {
  auto parsed = parse_time_secs(ref.value);
  if (parsed) return *parsed;
  sink.error("CONF008", ref.loc,
             fmt::format("invalid time '{}' for {}: {}", printable(ref.value), ref.key, parsed.error()));
  return std::nullopt;
}

std::optional<ValueRef> RecordReader::get(const std::string& canonical_key) const {
  return ref_of(record_.get(lowered(canonical_key)), canonical_key);
}

std::optional<std::uint64_t> RecordReader::uint(const std::string& canonical_key, IntWidth width) const {
  auto ref = get(canonical_key);
  return ref ? read_uint(*ref, width, sink_) : std::nullopt;
}

std::optional<bool> RecordReader::boolean(const std::string& canonical_key) const {
  auto ref = get(canonical_key);
  return ref ? read_bool(*ref, sink_) : std::nullopt;
}

std::optional<std::int64_t> RecordReader::time_minutes(const std::string& canonical_key) const {
  auto ref = get(canonical_key);
  return ref ? read_time_minutes(*ref, sink_) : std::nullopt;
}

std::optional<std::string> RecordReader::string(const std::string& canonical_key) const {
  auto ref = get(canonical_key);
  return ref ? std::optional<std::string>(ref->value) : std::nullopt;
}

std::optional<ValueRef> SettingReader::get(const std::string& canonical_key) const {
  auto it = raw_.scalars.find(lowered(canonical_key));
  if (it == raw_.scalars.end()) return std::nullopt;
  return ValueRef{it->second.key, it->second.value, it->second.value_loc};
}

std::optional<std::uint64_t> SettingReader::uint(const std::string& canonical_key, IntWidth width) const {
  auto ref = get(canonical_key);
  return ref ? read_uint(*ref, width, sink_) : std::nullopt;
}

std::optional<bool> SettingReader::boolean(const std::string& canonical_key) const {
  auto ref = get(canonical_key);
  return ref ? read_bool(*ref, sink_) : std::nullopt;
}

std::optional<double> SettingReader::real(const std::string& canonical_key) const {
  auto ref = get(canonical_key);
  return ref ? read_double(*ref, sink_) : std::nullopt;
}

std::optional<std::int64_t> SettingReader::time_minutes(const std::string& canonical_key) const {
  auto ref = get(canonical_key);
  return ref ? read_time_minutes(*ref, sink_) : std::nullopt;
}

std::optional<std::string> SettingReader::string(const std::string& canonical_key) const {
  auto ref = get(canonical_key);
  return ref ? std::optional<std::string>(ref->value) : std::nullopt;
}

}  // namespace sa
