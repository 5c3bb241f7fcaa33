#pragma once
// Resumption of `tune --out DIR`: each candidate's per-seed values are written to
// DIR/candidates/<slot>.json the moment its last seed finishes, and a run started again on the
// same DIR (the manifest's spec hash must match, tune/run_dir.h) simulates only the others.
// The values are the raw numbers every statistic is computed from, so the report of a resumed
// run is the report of an uninterrupted one.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "tune/search.h"

namespace sa::tune {

class RunRecords {
 public:
  RunRecords(std::string dir, std::string spec_hash) : dir_(std::move(dir)), spec_hash_(std::move(spec_hash)) {}

  /// The values of the finished candidates, indexed by slot (empty: not finished). A record
  /// that does not read, or is of another spec or shape, is named in `warnings` and run again.
  std::vector<SeedValues> load(std::size_t slots, std::size_t seeds, std::size_t goals,
                               std::vector<std::string>& warnings) const;
  /// Writes one candidate's record; an error message when it cannot.
  std::optional<std::string> record(std::size_t slot, const SeedValues& values) const;

 private:
  std::string path(std::size_t slot) const;
  std::string dir_, spec_hash_;
};

}  // namespace sa::tune
