// Value readers for the request options sbatch takes, following src/common/proc_args.c
// (verify_node_count, str_to_mbytes) and slurmctld's job_scheduler.c update_job_dependency().
#include "engine/workload/job_shape.h"

#include <fmt/format.h>
#include <cctype>

#include "analyzer/text_util.h"

namespace sa::engine {

namespace {

constexpr std::uint64_t kMaxCount = 0x7FFFFFFF;  // sbatch keeps counts in an int

// Leading decimal digits (strtol base 10 without sign); nullopt when there are none or the
// number is beyond kMaxCount.
std::optional<std::uint64_t> leading_number(std::string_view& text) {
  std::size_t n = 0;
  std::uint64_t value = 0;
  while (n < text.size() && std::isdigit(static_cast<unsigned char>(text[n]))) {
    value = value * 10 + static_cast<std::uint64_t>(text[n] - '0');
    if (value > kMaxCount) return std::nullopt;
    ++n;
  }
  if (n == 0) return std::nullopt;
  text.remove_prefix(n);
  return value;
}

// _str_to_nodes(): a count with an optional k and then m multiplier, the whole text.
std::optional<std::uint32_t> node_count(std::string_view text) {
  text = trim(text);
  auto n = leading_number(text);
  if (!n) return std::nullopt;
  std::uint64_t value = *n;
  if (!text.empty() && (text[0] == 'k' || text[0] == 'K')) value *= 1024, text.remove_prefix(1);
  if (!text.empty() && (text[0] == 'm' || text[0] == 'M')) value *= 1024 * 1024, text.remove_prefix(1);
  if (!text.empty() || value > kMaxCount) return std::nullopt;
  return static_cast<std::uint32_t>(value);
}

std::optional<std::uint32_t> whole_count(std::string_view text) {
  auto n = leading_number(text);
  if (!n || !text.empty()) return std::nullopt;
  return static_cast<std::uint32_t>(*n);
}

std::optional<DependencyType> dependency_type(std::string_view word) {
  static const std::pair<std::string_view, DependencyType> kTypes[] = {
      {"afternotok", DependencyType::kAfterNotOk},
      {"aftercorr", DependencyType::kAfterCorr},
      {"afterany", DependencyType::kAfterAny},
      {"afterok", DependencyType::kAfterOk},
      {"afterburstbuffer", DependencyType::kAfterBurstBuffer},
      {"after", DependencyType::kAfter}};
  for (const auto& [name, type] : kTypes) {
    if (iequals(word, name)) return type;
  }
  return std::nullopt;
}

// "(unfulfilled)" and the like: squeue and scontrol print a state after each item.
void skip_state(std::string_view& rest) {
  if (rest.empty() || rest[0] != '(') return;
  const std::size_t close = rest.find(')');
  rest.remove_prefix(close == std::string_view::npos ? rest.size() : close + 1);
}

// The ids after "TYPE:": ID[_TASK|_*][+MINUTES][(state)] joined by ':'. Leaves `rest` at the
// ',' or '?' after them, or empty.
Result<bool> read_ids(std::string_view& rest, DependencyType type, DependencyList& out) {
  while (true) {
    auto id = leading_number(rest);
    if (!id || *id == 0) return Error{"a dependency needs a job id of at least 1"};
    if (!rest.empty() && rest[0] == '_') {  // an array task, or every task with _*
      rest.remove_prefix(1);
      if (!rest.empty() && rest[0] == '*')
        rest.remove_prefix(1);
      else if (!leading_number(rest))
        return Error{"an array task id after '_' is not a number"};
    }
    Dependency d{type, static_cast<std::uint32_t>(*id), 0};
    if (!rest.empty() && rest[0] == '+') {
      rest.remove_prefix(1);
      auto minutes = leading_number(rest);
      if (!minutes || *minutes == 0) return Error{"'+' needs a number of minutes of at least 1"};
      d.delay = static_cast<std::int64_t>(*minutes) * 60;
    }
    skip_state(rest);
    out.items.push_back(d);
    if (rest.empty() || rest[0] == ',' || rest[0] == '?') return true;
    if (rest[0] != ':') return Error{fmt::format("unexpected '{}' after job id {}", rest[0], *id)};
    rest.remove_prefix(1);
  }
}

Result<bool> read_dependency_item(std::string_view& rest, DependencyList& out) {
  if (istarts_with(rest, "singleton")) {
    rest.remove_prefix(9);
    skip_state(rest);
    out.items.push_back({DependencyType::kSingleton, 0, 0});
    return true;
  }
  const std::size_t colon = rest.find(':');
  const std::size_t end = std::min(rest.find_first_of(",?"), rest.size());
  if (colon == std::string_view::npos || colon > end) {
    if (rest.empty() || !std::isdigit(static_cast<unsigned char>(rest[0])))
      return Error{fmt::format("'{}' is not TYPE:JOBID or singleton", printable(rest.substr(0, end)))};
    return read_ids(rest, DependencyType::kAfterAny, out);  // the old format: bare job ids
  }
  auto type = dependency_type(rest.substr(0, colon));
  if (!type) {
    return Error{
        fmt::format("unknown dependency type '{}' (after, afterany, afterok, afternotok, aftercorr, singleton)",
                    printable(rest.substr(0, colon)))};
  }
  rest.remove_prefix(colon + 1);
  return read_ids(rest, *type, out);
}

}  // namespace

std::optional<std::pair<std::uint32_t, std::uint32_t>> parse_node_range(std::string_view text) {
  const std::size_t dash = text.find('-');
  if (dash == std::string_view::npos) {
    auto n = node_count(text);
    if (!n) return std::nullopt;
    return std::make_pair(*n, *n);
  }
  auto lo = node_count(text.substr(0, dash));
  auto hi = node_count(text.substr(dash + 1));
  if (!lo || !hi || (*hi != 0 && *hi < *lo)) return std::nullopt;
  return std::make_pair(*lo, *hi);
}

std::optional<std::uint64_t> parse_mem_option(std::string_view text) {
  auto n = leading_number(text);
  if (!n) return std::nullopt;
  if (text.size() == 2 && (text[1] == 'b' || text[1] == 'B')) text.remove_suffix(1);  // "4GB"
  if (text.empty()) return *n;
  if (text.size() != 1) return std::nullopt;
  switch (std::toupper(static_cast<unsigned char>(text[0]))) {
    case 'K':
      return (*n + 1023) / 1024;
    case 'M':
      return *n;
    case 'G':
      return *n * 1024;
    case 'T':
      return *n * 1024 * 1024;
    default:
      return std::nullopt;
  }
}

std::optional<std::uint32_t> parse_gres_gpus(std::string_view text) {
  std::uint64_t gpus = 0;
  for (const std::string& item : split(text, ',')) {
    std::vector<std::string> parts = split(item, ':');
    std::string name = parts[0];
    if (name.starts_with("gres/")) name = name.substr(5);       // the TRES spelling
    if (name.empty() || parts.size() > 3) return std::nullopt;  // NAME[:TYPE][:COUNT]
    if (name != "gpu") continue;
    std::uint64_t count = 1;
    if (parts.size() > 1 && !parts.back().empty() && std::isdigit(static_cast<unsigned char>(parts.back()[0]))) {
      auto n = whole_count(parts.back());
      if (!n) return std::nullopt;
      count = *n;
    } else if (parts.size() > 2) {
      return std::nullopt;
    }
    gpus += count;
  }
  if (gpus > kMaxCount) return std::nullopt;
  return static_cast<std::uint32_t>(gpus);
}

std::optional<std::uint32_t> parse_gpu_count(std::string_view text) {
  const std::size_t colon = text.rfind(':');
  return whole_count(colon == std::string_view::npos ? text : text.substr(colon + 1));
}

Result<DependencyList> parse_dependency(std::string_view text) {
  DependencyList out;
  text = trim(text);
  if (text.empty() || text == "0" || iequals(text, "(null)")) return out;
  std::string_view rest = text;
  while (true) {
    auto item = read_dependency_item(rest, out);
    if (!item) return Error{item.error()};
    if (rest.empty()) return out;
    if (rest[0] == '?') out.any = true;
    if (rest[0] != ',' && rest[0] != '?') return Error{fmt::format("unexpected '{}' in dependency", rest[0])};
    rest.remove_prefix(1);
  }
}

}  // namespace sa::engine
