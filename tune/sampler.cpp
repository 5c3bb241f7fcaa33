#include "tune/sampler.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "engine/workload/synthetic.h"

namespace sa::tune {

namespace {

// `f` in [0, 1) placed on the dimension: along the range (log or linear), or an item of the list.
std::string point(const Dimension& d, double f) {
  if (d.range) {
    const Range& r = *d.range;
    const double v = r.log ? r.lo * std::pow(r.hi / r.lo, f) : r.lo + (r.hi - r.lo) * f;
    // An integer range must reach hi: [lo, hi] is cut into hi - lo + 1 equal steps.
    if (r.integer) return format_point(std::floor(r.lo + (r.hi - r.lo + 1) * f), true);
    return format_point(v, false);
  }
  const auto i = static_cast<std::size_t>(f * static_cast<double>(d.values.size()));
  return d.values[std::min(i, d.values.size() - 1)];
}

// An integer :log range: the log position of f, floored, kept inside [lo, hi].
std::string log_integer_point(const Range& r, double f) {
  const double v = std::floor(r.lo * std::pow((r.hi + 1) / r.lo, f));
  return format_point(std::clamp(v, r.lo, r.hi), true);
}

}  // namespace

std::vector<std::vector<std::string>> sample_space(const std::vector<Dimension>& dims, std::size_t n,
                                                   std::uint64_t seed) {
  engine::Rng rng(seed);
  // One shuffled order of the n strata per dimension: point k takes stratum strata[d][k].
  std::vector<std::vector<std::size_t>> strata(dims.size(), std::vector<std::size_t>(n));
  for (auto& s : strata) {
    std::iota(s.begin(), s.end(), 0);
    for (std::size_t i = n; i > 1; --i) std::swap(s[i - 1], s[rng.next() % i]);  // Fisher-Yates
  }
  std::vector<std::vector<std::string>> out;
  for (std::size_t k = 0; k < n; ++k) {
    std::vector<std::string> values;
    for (std::size_t d = 0; d < dims.size(); ++d) {
      const double f = (static_cast<double>(strata[d][k]) + rng.uniform()) / static_cast<double>(n);
      const bool log_int = dims[d].range && dims[d].range->log && dims[d].range->integer;
      values.push_back(log_int ? log_integer_point(*dims[d].range, f) : point(dims[d], f));
    }
    if (std::find(out.begin(), out.end(), values) == out.end()) out.push_back(std::move(values));
  }
  return out;
}

}  // namespace sa::tune
