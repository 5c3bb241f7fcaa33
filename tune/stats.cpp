#include "tune/stats.h"

#include <algorithm>
#include <cmath>

namespace sa::tune {

namespace {

// Two-sided 95 % quantiles of Student's t for 1..29 degrees of freedom.
constexpr double kT95[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                           2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                           2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045};

// The distances of an interval's points to `target`: nearest and farthest.
Interval distance(const Interval& i, double target) {
  const double a = std::fabs(i.lo - target), b = std::fabs(i.hi - target);
  const double nearest = (target >= i.lo && target <= i.hi) ? 0 : std::min(a, b);
  return {std::fabs(i.mean - target), nearest, std::max(a, b)};
}

}  // namespace

Interval mean_interval(const std::vector<double>& v) {
  Interval r;
  if (v.empty()) return r;
  double sum = 0;
  for (double x : v) sum += x;
  const double n = static_cast<double>(v.size());
  r.mean = sum / n;
  r.lo = r.hi = r.mean;
  if (v.size() < 2) return r;
  double ss = 0;
  for (double x : v) ss += (x - r.mean) * (x - r.mean);
  const double sd = std::sqrt(ss / (n - 1));
  const std::size_t df = v.size() - 1;
  const double t = df < 30 ? kT95[df - 1] : 1.96;
  const double half = t * sd / std::sqrt(n);
  r.lo = r.mean - half;
  r.hi = r.mean + half;
  return r;
}

bool beats(const Goal& goal, const Interval& c, const Interval& b) {
  if (goal.op == Op::kEq) return distance(c, goal.target).hi < distance(b, goal.target).lo;
  return higher_is_better(goal) ? c.lo > b.hi : c.hi < b.lo;
}

}  // namespace sa::tune
