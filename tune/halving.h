#pragma once
// Successive halving for `tune --search halving`: a space too large for the grid is sampled
// (tune/sampler.h), every sampled candidate runs on a short load (the first 1/eta^k of the
// load's span, on fewer seeds), the best 1/eta by the grid's ranking rule run again on a
// longer load and more seeds, and so on until the survivors run on the full load and all K
// seeds. Cheap rungs weed out the hopeless candidates; only the last rung's numbers are the
// ones the report compares with the baseline.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/workload/workload.h"
#include "tune/search.h"

namespace sa::tune {

struct HalvingSpec {
  std::size_t sample = 27;  // candidates drawn
  unsigned eta = 3;         // each rung keeps 1/eta of the candidates and runs eta times longer
  std::uint64_t seed = 1;   // the sampler's seed
};

/// One rung of the plan: how many candidates it starts with, the load's span divided by
/// `divisor`, and how many of the K seeds.
struct Rung {
  std::size_t candidates = 0;
  std::int64_t divisor = 1;
  std::size_t seeds = 1;
};

/// Rungs for `sample` candidates and `seeds` loads: as many as leave about eta candidates on
/// the last (at most four), the last on the whole load and every seed.
std::vector<Rung> rung_plan(std::size_t sample, std::size_t seeds, unsigned eta);

/// The first 1/divisor of a load: arrivals in the first 1/divisor of their span, and the run's
/// end (when the load sets one) at 1/divisor of the way to it.
engine::Workload shorten(const engine::Workload& load, std::int64_t divisor);

enum class Strategy { kGrid, kHalving, kAuto };

/// kGrid or kHalving: auto is the grid when it has at most max_candidates points, halving
/// otherwise. The grid runs through plan_search (and so through tune's executors).
Strategy resolve_strategy(Strategy strategy, const SearchSpec& spec);

/// The search, each rung through run_candidates (the grid's planning, simulation and ranking):
/// ranked holds the last rung's candidates ranked as the grid ranks them, then
/// those dropped at each earlier rung (the latest first), each with the rung it reached.
Result<SearchOutcome> run_halving(const SearchSite& site, const SearchSpec& spec, const HalvingSpec& halving);

}  // namespace sa::tune
