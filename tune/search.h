#pragma once
// The grid search of `slurm-advisor tune`: every combination of the --vary values is written
// as slurm.conf text, read again by the analyzer (a candidate with new errors is skipped with
// the analyzer's message) and simulated on each seed's load; each goal's value is the mean
// over the seeds with a 95 % interval. Candidates run on a thread pool, each with its own
// engine state; results are kept by candidate index, so the output never depends on which
// thread finished first.
#include <cstddef>
#include <cstdint>
#include <functional>
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
  std::optional<std::string> skip_reason;  // set: not ranked (an invalid combination, a run cut at the step limit)
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
  bool conflict = false;                 // the Pareto front has two points that differ
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

/// The whole grid on every load of `site`: plan_search, simulate_slots, rank_results.
Result<SearchOutcome> run_search(const SearchSite& site, const SearchSpec& spec);

/// Each goal's raw value on each seed of one candidate, [seed][goal]: what a run, a shard file
/// or a resumption record carries, from which the means, intervals and ranks are computed. A
/// seed whose run stopped at the sim-steps limit (WORK008) has no values: its goals would be
/// scored on the part of the load it ran.
using SeedValues = std::vector<std::vector<double>>;

/// The seeds (0-based) of `values` whose run stopped at the step limit.
std::vector<std::size_t> cut_seeds(const SeedValues& values);

/// Candidates written out and read again, not yet simulated. Slot 0 is the baseline, slot i the
/// candidate i-1 (a grid point or a sampled one); a candidate the analyzer refused has its
/// skip_reason set and no site.
struct SearchPlan {
  std::vector<CandidateResult> candidates;
  std::vector<std::unique_ptr<engine::LoadedSite>> sites;
  /// The slots that are simulated (not refused), in slot order.
  std::vector<std::size_t> runnable() const;
};

/// The grid's plan: the space and the grid's size checked, every grid point in grid order.
Result<SearchPlan> plan_search(const SearchSite& site, const SearchSpec& spec);
/// The plan of the baseline and `candidates` (index and values set), for a sampled search.
SearchPlan plan_candidates(const SearchSite& site, const SearchSpec& spec, std::vector<CandidateResult> candidates);

/// Called once per candidate when its last seed finishes, one call at a time, in no fixed order.
using CandidateDone = std::function<void(std::size_t slot, const SeedValues& values)>;

/// Simulates `slots` of the plan on every seed, on spec.jobs threads; the result is indexed by
/// slot (empty for slots not asked for).
std::vector<SeedValues> simulate_slots(const SearchSite& site, const SearchSpec& spec, const SearchPlan& plan,
                                       const std::vector<std::size_t>& slots, const CandidateDone& done = {});

/// The one place per-seed values become a ranked outcome, for a local run, a resumed one and a
/// merge of shards alike: means and intervals, the comparison with the baseline, the ranks.
/// `values` is indexed by slot and has every runnable slot. A candidate with a run cut at the
/// step limit is skipped with the reason; a cut baseline is an error, as nothing can be
/// compared with it.
Result<SearchOutcome> rank_results(SearchPlan plan, const std::vector<SeedValues>& values,
                                   const std::vector<Goal>& goals);

/// A candidate's goals summarised from its per-seed values (passes, score), without ranks.
void summarise(CandidateResult& c, const SeedValues& per_seed, const std::vector<Goal>& goals);
/// The ranking order: more goals passed, then a higher score, then grid order.
bool ranks_before(const CandidateResult& a, const CandidateResult& b);

/// The baseline and `candidates` on `loads` instead of the site's (one rung of successive
/// halving): plan_candidates, simulate_slots and rank_results, as a grid search runs.
Result<SearchOutcome> run_candidates(const SearchSite& site, const SearchSpec& spec,
                                     std::vector<CandidateResult> candidates, std::vector<engine::Workload> loads);

/// Orders by goals passed, then score, then grid index; sets rank and the Pareto flags (the
/// goals conflict only when the front has two points that differ).
void rank_candidates(std::vector<CandidateResult>& ranked, const std::vector<Goal>& goals, bool& conflict);

}  // namespace sa::tune
