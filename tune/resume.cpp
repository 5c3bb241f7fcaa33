#include "tune/resume.h"

#include <filesystem>
#include <system_error>

#include <fmt/format.h>

#include "tune/run_dir.h"

namespace sa::tune {

namespace fs = std::filesystem;

std::string RunRecords::path(std::size_t slot) const {
  return (fs::path(dir_) / "candidates" / fmt::format("{}.json", slot)).string();
}

std::vector<SeedValues> RunRecords::load(std::size_t slots, std::size_t seeds, std::size_t goals,
                                         std::vector<std::string>& warnings) const {
  std::vector<SeedValues> out(slots);
  for (std::size_t slot = 0; slot < slots; ++slot) {
    std::error_code ec;
    if (!fs::exists(path(slot), ec)) continue;
    auto j = read_json_file(path(slot));
    std::optional<SeedValues> values;
    if (j && string_field(*j, "spec_hash") == spec_hash_ && count_field(*j, "candidate") == slot &&
        j->contains("seeds")) {
      values = seed_values_from_json(j->at("seeds"), seeds, goals);
    }
    if (values) {
      out[slot] = std::move(*values);
    } else {
      warnings.push_back(
          fmt::format("{} is not a record of this run; candidate {} is simulated again", path(slot), slot));
    }
  }
  return out;
}

std::optional<std::string> RunRecords::record(std::size_t slot, const SeedValues& values) const {
  std::error_code ec;
  fs::create_directories(fs::path(dir_) / "candidates", ec);
  if (ec) return fmt::format("cannot create {}: {}", (fs::path(dir_) / "candidates").string(), ec.message());
  const nlohmann::json j = {{"spec_hash", spec_hash_}, {"candidate", slot}, {"seeds", seed_values_json(values)}};
  return write_atomically(path(slot), j.dump() + "\n");
}

}  // namespace sa::tune
