#include "tune/shard.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>

namespace sa::tune {

namespace fs = std::filesystem;

namespace {

constexpr const char* kShardFormat = "slurm-advisor-tune-shard";

std::optional<std::size_t> read_count(const std::string& text) {
  std::size_t n = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, n);
  if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return n;
}

nlohmann::json shard_header(ShardId id, const std::string& spec_hash) {
  return {{"format", kShardFormat}, {"spec_hash", spec_hash}, {"shard", id.index}, {"shards", id.count}};
}

// The values of one shard's file into `values`, or what is wrong with it.
std::optional<std::string> read_one(const nlohmann::json& j, ShardId id, const std::string& spec_hash,
                                    const SearchPlan& plan, std::size_t seeds, std::size_t goals,
                                    std::vector<SeedValues>& values) {
  if (string_field(j, "format") != kShardFormat) return "corrupted: not a tune shard file";
  if (auto why = string_field(j, "error")) return "failed: " + *why;
  if (string_field(j, "spec_hash") != spec_hash) {
    return fmt::format("from another run: spec hash {}, the manifest's {}",
                       string_field(j, "spec_hash").value_or("(none)").substr(0, 12), spec_hash.substr(0, 12));
  }
  if (count_field(j, "shard") != id.index || count_field(j, "shards") != id.count) {
    return fmt::format("corrupted: the file does not say it is shard {}/{}", id.index, id.count);
  }
  if (!j.contains("candidates") || !j["candidates"].is_array()) return "corrupted: no candidates list";
  const std::vector<std::size_t> owned = shard_slots(id, plan.runnable());
  std::vector<SeedValues> got(plan.candidates.size());
  for (const nlohmann::json& c : j["candidates"]) {
    const std::optional<std::size_t> slot = count_field(c, "candidate");
    if (!slot || std::find(owned.begin(), owned.end(), *slot) == owned.end()) {
      return "corrupted: a candidate number that is not this shard's";
    }
    std::optional<SeedValues> v = c.contains("seeds") ? seed_values_from_json(c["seeds"], seeds, goals) : std::nullopt;
    if (!v) return fmt::format("corrupted: candidate {} does not have {} seeds of {} numbers", *slot, seeds, goals);
    if (!got[*slot].empty()) return fmt::format("corrupted: candidate {} is listed twice", *slot);
    got[*slot] = std::move(*v);
  }
  for (std::size_t slot : owned) {
    if (got[slot].empty()) return fmt::format("incomplete: candidate {} is missing", slot);
  }
  for (std::size_t slot : owned) values[slot] = std::move(got[slot]);
  return std::nullopt;
}

}  // namespace

Result<ShardId> parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  if (slash == std::string::npos) return Error{fmt::format("--shard {}: expected i/M, e.g. 0/4", text)};
  const auto i = read_count(text.substr(0, slash)), m = read_count(text.substr(slash + 1));
  if (!i || !m) return Error{fmt::format("--shard {}: expected i/M with whole numbers, e.g. 0/4", text)};
  if (*m == 0 || *i >= *m) {
    return Error{fmt::format("--shard {}: i must be below M (shards are numbered 0 to M-1)", text)};
  }
  return ShardId{*i, *m};
}

std::vector<std::size_t> shard_slots(ShardId id, const std::vector<std::size_t>& runnable) {
  std::vector<std::size_t> out;
  for (std::size_t k = id.index; k < runnable.size(); k += id.count) out.push_back(runnable[k]);
  return out;
}

std::string shard_path(const std::string& dir, std::size_t index) {
  return (fs::path(dir) / fmt::format("shard-{}.json", index)).string();
}

std::optional<std::string> write_shard(const std::string& dir, ShardId id, const std::string& spec_hash,
                                       const std::vector<std::size_t>& slots, const std::vector<SeedValues>& values) {
  nlohmann::json j = shard_header(id, spec_hash);
  j["candidates"] = nlohmann::json::array();
  for (std::size_t slot : slots) j["candidates"].push_back({{"candidate", slot}, {"seeds", values[slot]}});
  return write_atomically(shard_path(dir, id.index), j.dump() + "\n");
}

std::optional<std::string> write_failed_shard(const std::string& dir, ShardId id, const std::string& spec_hash,
                                              const std::string& why) {
  nlohmann::json j = shard_header(id, spec_hash);
  j["error"] = why;
  return write_atomically(shard_path(dir, id.index), j.dump() + "\n");
}

std::vector<ShardProblem> read_shards(const std::string& dir, const Manifest& m, const SearchPlan& plan,
                                      std::size_t seeds, std::size_t goals, std::vector<SeedValues>& values) {
  std::vector<ShardProblem> problems;
  values.assign(plan.candidates.size(), {});
  for (std::size_t i = 0; i < m.shards; ++i) {
    const std::string path = shard_path(dir, i);
    std::error_code ec;
    if (!fs::exists(path, ec)) {
      problems.push_back({i, fmt::format("missing (no {}: the task has not finished, or died)", path)});
      continue;
    }
    auto j = read_json_file(path);
    if (!j) {
      problems.push_back({i, "corrupted: " + j.error()});
    } else if (auto why = read_one(*j, {i, m.shards}, m.spec_hash, plan, seeds, goals, values)) {
      problems.push_back({i, *why});
    }
  }
  return problems;
}

}  // namespace sa::tune
