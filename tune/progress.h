#pragma once
// The progress line of `tune` on stderr: "tune: 12/41 candidates done, best so far: 4.1%,
// 1h02m (2/3 goals)", rewritten in place on a terminal and one line per candidate elsewhere
// (--progress into a log). Never on stdout, so reports and JSON stay clean. "Best" is the
// report's own order (ranks_before) over the candidates finished so far; the baseline counts
// as a run but is not a candidate to be best.
#include <cstddef>
#include <iosfwd>
#include <optional>
#include <string>

#include "tune/search.h"

namespace sa::tune {

class Progress {
 public:
  /// `out` null: silent. `total`: the runs this process has to finish, `done` of them already.
  Progress(std::ostream* out, bool in_place, const SearchPlan& plan, const std::vector<Goal>& goals, std::size_t total);
  /// Counts a finished run (resumed or simulated) and prints the line.
  void finished(std::size_t slot, const SeedValues& values);
  /// Ends the line on a terminal.
  void close();
  std::string line() const;

 private:
  std::ostream* out_;
  bool in_place_;
  const SearchPlan& plan_;
  const std::vector<Goal>& goals_;
  std::size_t total_, done_ = 0;
  std::optional<CandidateResult> best_;
};

/// True when stderr is a terminal.
bool stderr_is_terminal();

}  // namespace sa::tune
