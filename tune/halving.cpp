#include "tune/halving.h"

#include <algorithm>

#include <fmt/format.h>

#include "tune/sampler.h"

namespace sa::tune {

namespace {

constexpr std::size_t kMaxRungs = 4;

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

// A candidate as the next rung starts it: its point only, the numbers are measured again.
CandidateResult fresh(const CandidateResult& c) {
  CandidateResult next;
  next.index = c.index;
  next.values = c.values;
  return next;
}

// The first `seeds` loads, each cut to 1/divisor of its span.
std::vector<engine::Workload> rung_loads(const std::vector<engine::Workload>& loads, const Rung& rung) {
  std::vector<engine::Workload> out;
  for (std::size_t k = 0; k < rung.seeds && k < loads.size(); ++k) out.push_back(shorten(loads[k], rung.divisor));
  return out;
}

// The last rung's ranking, then the candidates each earlier rung dropped (the latest rung
// first, each rung's in its own order), ranked on from there.
void gather(SearchOutcome& out, std::vector<std::vector<CandidateResult>>& dropped) {
  for (std::size_t r = dropped.size(); r-- > 0;) {
    for (CandidateResult& c : dropped[r]) {
      c.pareto = false;
      out.ranked.push_back(std::move(c));
    }
  }
  for (std::size_t i = 0; i < out.ranked.size(); ++i) out.ranked[i].rank = static_cast<int>(i) + 1;
}

}  // namespace

std::vector<Rung> rung_plan(std::size_t sample, std::size_t seeds, unsigned eta) {
  eta = std::max(2u, eta);
  std::size_t count = 1;  // rungs: the largest R with sample >= eta^R, at least one
  for (std::size_t left = sample / eta; left >= eta && count < kMaxRungs; left /= eta) ++count;
  std::vector<Rung> plan(count);
  std::size_t candidates = sample;
  std::int64_t divisor = 1;
  for (std::size_t r = count; r-- > 0;) {
    plan[r].divisor = divisor;
    plan[r].seeds = std::max<std::size_t>(1, ceil_div(seeds, static_cast<std::size_t>(divisor)));
    divisor *= eta;
  }
  for (Rung& r : plan) {
    r.candidates = candidates;
    candidates = ceil_div(candidates, eta);
  }
  return plan;
}

engine::Workload shorten(const engine::Workload& load, std::int64_t divisor) {
  if (divisor <= 1 || load.jobs.empty()) return load;
  engine::Workload out = load;
  const std::int64_t t0 = load.jobs.front().submit, last = load.jobs.back().submit;
  const std::int64_t cut = t0 + (last - t0) / divisor;
  std::erase_if(out.jobs, [&](const engine::JobRequest& j) { return j.submit > cut; });
  if (load.until != engine::kNoTime) out.until = t0 + (load.until - t0) / divisor;
  return out;
}

Strategy resolve_strategy(Strategy strategy, const SearchSpec& spec) {
  const bool grid = strategy == Strategy::kGrid || (strategy == Strategy::kAuto && !check_grid_size(spec));
  return grid ? Strategy::kGrid : Strategy::kHalving;
}

Result<SearchOutcome> run_halving(const SearchSite& s, const SearchSpec& spec, const HalvingSpec& h) {
  if (auto e = check_space(s, spec)) return Error{*e};
  if (h.sample > spec.max_candidates) {
    return Error{fmt::format("--sample {} is more than --max-candidates {}", h.sample, spec.max_candidates)};
  }
  std::vector<CandidateResult> survivors;
  for (std::vector<std::string>& point : sample_space(spec.dims, h.sample, h.seed)) {
    survivors.push_back({});
    survivors.back().index = survivors.size() - 1;
    survivors.back().values = std::move(point);
  }
  const std::vector<Rung> plan = rung_plan(survivors.size(), s.loads.size(), h.eta);
  std::vector<std::vector<CandidateResult>> dropped;
  std::vector<CandidateResult> skipped;
  for (std::size_t r = 0;; ++r) {
    Result<SearchOutcome> ranked = run_candidates(s, spec, std::move(survivors), rung_loads(s.loads, plan[r]));
    if (!ranked) return ranked.failure();
    SearchOutcome o = std::move(*ranked);
    for (CandidateResult& c : o.ranked) c.rung = r;
    // Rung 0 skips what the analyzer refused; a later rung only a candidate whose run stopped
    // at the step limit (on that rung's longer load), which is listed with its reason too.
    for (CandidateResult& c : o.skipped) skipped.push_back(std::move(c));
    if (r + 1 == plan.size()) {
      o.skipped = std::move(skipped);
      o.rungs = plan.size();
      o.baseline.rung = r;  // it ran on this rung's load, as the survivors did
      o.sample_seed = h.seed;
      gather(o, dropped);
      return o;
    }
    const std::size_t keep = ceil_div(o.ranked.size(), std::max(2u, h.eta));
    survivors.clear();
    for (std::size_t i = 0; i < keep; ++i) survivors.push_back(fresh(o.ranked[i]));
    o.ranked.erase(o.ranked.begin(), o.ranked.begin() + static_cast<std::ptrdiff_t>(keep));
    dropped.push_back(std::move(o.ranked));
  }
}

}  // namespace sa::tune
