#pragma once
// The grid search of `slurm-advisor tune`: every combination of the --vary values is written
// as slurm.conf text, read again by the analyzer (a candidate with new errors is skipped with
// the analyzer's message) and simulated on each seed's load; each goal's value is the mean
// over the seeds with a 95 % interval. Candidates run on a thread pool, each with its own
// engine state; results are kept by candidate index, so the output never depends on which
// thread finished first.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/analyze.h"
#include "analyzer/result.h"
#include "engine/site_loader.h"
#include "engine/workload/workload.h"
#include "tune/goal.h"
#include "tune/space.h"
#include "tune/stats.h"

namespace sa::tune {

struct GoalResult {
  Interval value;
  bool pass = false;
  bool beats_baseline = false;
};

struct CandidateResult {
  std::size_t index = 0;                   // grid or sample order (the baseline has none)
  std::vector<std::string> values;         // per dimension, as written into the config
  std::string conf_text;                   // the main slurm.conf as this candidate writes it
  std::optional<std::string> skip_reason;  // set: not simulated (an invalid combination)
  std::vector<GoalResult> goals;
  std::size_t passes = 0, seeds = 0;
  double score = 0;  // the sum of the goals' normalised margins
  int rank = 0;      // 1 = best
  bool pareto = false;
  std::size_t rung = 0;  // successive halving: the last rung it ran on (0-based)
};

struct SearchSpec {
  std::vector<Goal> goals;
  std::vector<Dimension> dims;
  std::size_t max_candidates = 500;
  unsigned jobs = 1;
};

/// The site as loaded (its accounting files, partition map) and the main slurm.conf's text.
struct SearchSite {
  const engine::LoadedSite* base = nullptr;
  std::string conf_path, conf_text;
  AnalyzeOptions analyze;
  std::vector<engine::Workload> loads;  // one per seed
};

struct SearchOutcome {
  CandidateResult baseline;
  std::vector<CandidateResult> ranked;   // simulated candidates, best first
  std::vector<CandidateResult> skipped;  // grid order
  bool conflict = false;                 // more than one candidate on the Pareto front
  std::size_t rungs = 0;                 // successive halving's rungs; 0 for the grid
  std::uint64_t sample_seed = 0;         // successive halving: the sampler's seed
  const CandidateResult* recommended() const { return ranked.empty() ? nullptr : &ranked.front(); }
};

/// Checks the goals' selectors and the dimensions against the site (a partition the main file
/// does not define, an account or QOS it lacks); an error message or nothing.
std::optional<std::string> check_space(const SearchSite& site, const SearchSpec& spec);
/// The grid's number of points, counted up to just past max_candidates.
std::size_t grid_size(const SearchSpec& spec);
/// An error when the grid has more than max_candidates points.
std::optional<std::string> check_grid_size(const SearchSpec& spec);

/// The whole grid on every load of `site`.
Result<SearchOutcome> run_search(const SearchSite& site, const SearchSpec& spec);
/// The baseline and `candidates` (index and values set) on `loads`: each candidate's text
/// written and read again, the runs on spec.jobs threads, then summarised and ranked.
SearchOutcome run_candidates(const SearchSite& site, const SearchSpec& spec, std::vector<CandidateResult> candidates,
                             const std::vector<engine::Workload>& loads);

/// Orders by goals passed, then score, then grid index; sets rank and the Pareto flags.
void rank_candidates(std::vector<CandidateResult>& ranked, const std::vector<Goal>& goals, bool& conflict);

}  // namespace sa::tune
