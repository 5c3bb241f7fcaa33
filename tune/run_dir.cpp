#include "tune/run_dir.h"

#include <unistd.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <system_error>

#include <fmt/format.h>

#include "analyzer/safe_file.h"
#include "report/sha256.h"

namespace sa::tune {

namespace fs = std::filesystem;

namespace {

constexpr const char* kFormat = "slurm-advisor-tune-run";
constexpr int kFormatVersion = 1;
// Our own files: a shard of 500 candidates x 100 seeds x a dozen goals is well below this.
constexpr std::int64_t kMaxFileBytes = std::int64_t{256} << 20;

nlohmann::json files_json(const std::vector<InputFile>& files) {
  nlohmann::json out = nlohmann::json::array();
  for (const InputFile& f : files) out.push_back({{"path", f.path}, {"sha256", f.sha256}});
  return out;
}

// Throws nlohmann's exceptions on a missing key or a wrong type; read_manifest catches them.
Manifest manifest_from_json(const nlohmann::json& j) {
  if (j.at("format").get<std::string>() != kFormat) throw std::runtime_error("not a tune run manifest");
  if (j.at("format_version").get<int>() != kFormatVersion) throw std::runtime_error("an unknown format_version");
  Manifest m;
  m.spec_hash = j.at("spec_hash").get<std::string>();
  m.version = j.at("version").get<std::string>();
  m.binary = j.at("binary").get<std::string>();
  m.cwd = j.at("cwd").get<std::string>();
  m.args = j.at("args").get<std::vector<std::string>>();
  m.positionals = j.at("positionals").get<std::vector<std::string>>();
  m.goals = j.at("goals").get<std::vector<std::string>>();
  m.dims = j.at("dims").get<std::vector<std::string>>();
  m.seeds = j.at("seeds").get<std::vector<std::uint64_t>>();
  m.load = j.at("load").get<std::string>();
  for (const nlohmann::json& f : j.at("files")) {
    m.files.push_back({f.at("path").get<std::string>(), f.at("sha256").get<std::string>()});
  }
  m.slots = j.at("slots").get<std::size_t>();
  m.runs = j.at("runs").get<std::size_t>();
  m.shards = j.at("shards").get<std::size_t>();
  m.jobs = j.at("jobs").get<unsigned>();
  if (m.runs == 0 || m.runs > m.slots || m.shards > m.runs || m.jobs == 0 || m.jobs > 256)
    throw std::runtime_error("counts out of range");
  return m;
}

}  // namespace

std::string sha256_hex(const std::string& data) {
  std::string out;
  for (std::uint8_t b : report::sha256(data)) out += fmt::format("{:02x}", b);
  return out;
}

std::string compute_spec_hash(const Manifest& m) {
  // Not the shard count, binary path or working directory: they do not change a value.
  const nlohmann::json spec = {{"version", m.version},
                               {"args", m.args},
                               {"positionals", m.positionals},
                               {"files", files_json(m.files)},
                               {"slots", m.slots}};
  return sha256_hex(spec.dump());
}

nlohmann::json manifest_json(const Manifest& m) {
  return {{"format", kFormat},
          {"format_version", kFormatVersion},
          {"spec_hash", m.spec_hash},
          {"version", m.version},
          {"binary", m.binary},
          {"cwd", m.cwd},
          {"args", m.args},
          {"positionals", m.positionals},
          {"goals", m.goals},
          {"dims", m.dims},
          {"seeds", m.seeds},
          {"load", m.load},
          {"files", files_json(m.files)},
          {"slots", m.slots},
          {"runs", m.runs},
          {"shards", m.shards},
          {"jobs", m.jobs}};
}

std::string manifest_path(const std::string& dir) { return (fs::path(dir) / "manifest.json").string(); }

Result<Manifest> read_manifest(const std::string& dir) {
  const std::string path = manifest_path(dir);
  auto j = read_json_file(path);
  if (!j) return j.failure();
  try {
    return manifest_from_json(*j);
  } catch (const std::exception& e) {
    return Error{fmt::format("{} is not a tune manifest: {}", path, e.what())};
  }
}

std::optional<std::string> open_run_dir(const std::string& dir, const Manifest& m) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return fmt::format("cannot create {}: {}", dir, ec.message());
  if (!fs::exists(manifest_path(dir), ec)) return write_atomically(manifest_path(dir), manifest_json(m).dump(2) + "\n");
  auto old = read_manifest(dir);
  if (!old) return old.error();
  if (old->spec_hash == m.spec_hash) return std::nullopt;
  return fmt::format(
      "{} holds the results of another tune run (spec hash {}, this run {}): the options, an input file or the "
      "slurm-advisor version differ; give another --out directory, or remove this one to start over",
      dir, old->spec_hash.substr(0, 12), m.spec_hash.substr(0, 12));
}

std::optional<std::string> write_atomically(const std::string& path, const std::string& text) {
  // Unique per process and per call: shards of one array write into one directory at once.
  static std::atomic<unsigned> counter{0};
  const std::string tmp = fmt::format("{}.tmp.{}.{}", path, ::getpid(), counter++);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      std::error_code ec;
      fs::remove(tmp, ec);
      return fmt::format("cannot write {}", tmp);
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (!ec) return std::nullopt;
  fs::remove(tmp, ec);
  return fmt::format("cannot rename {} to {}", tmp, path);
}

Result<nlohmann::json> read_json_file(const std::string& path) {
  auto text = read_regular_file(path, kMaxFileBytes);
  if (!text) return text.failure();
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Error{fmt::format("{} is not a JSON object (corrupted?)", path)};
  return j;
}

std::optional<std::string> string_field(const nlohmann::json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_string()) return std::nullopt;
  return j[key].get<std::string>();
}

std::optional<std::size_t> count_field(const nlohmann::json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number_unsigned()) return std::nullopt;
  return j[key].get<std::size_t>();
}

nlohmann::json seed_values_json(const SeedValues& values) {
  nlohmann::json out = nlohmann::json::array();
  for (const std::vector<double>& seed : values)
    out.push_back(seed.empty() ? nlohmann::json(nullptr) : nlohmann::json(seed));
  return out;
}

std::optional<SeedValues> seed_values_from_json(const nlohmann::json& j, std::size_t seeds, std::size_t goals) {
  if (!j.is_array() || j.size() != seeds) return std::nullopt;
  SeedValues out;
  for (const nlohmann::json& seed : j) {
    if (seed.is_null()) {  // the run stopped at the step limit
      out.emplace_back();
      continue;
    }
    if (!seed.is_array() || seed.size() != goals) return std::nullopt;
    std::vector<double> row;
    for (const nlohmann::json& v : seed) {
      if (!v.is_number() || !std::isfinite(v.get<double>())) return std::nullopt;
      row.push_back(v.get<double>());
    }
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace sa::tune
