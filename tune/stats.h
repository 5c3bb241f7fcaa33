#pragma once
// Means over seeds with a 95 % interval, and the rule that a candidate beats the baseline on
// a goal only when the two intervals do not overlap, the candidate's on the better side.
#include <vector>

#include "tune/goal.h"

namespace sa::tune {

struct Interval {
  double mean = 0, lo = 0, hi = 0;
};

/// The mean and its 95 % interval: Student's t for fewer than 30 values, 1.96 from 30 on;
/// one value is its own interval.
Interval mean_interval(const std::vector<double>& values);

/// True when `candidate` is better than `baseline` on `goal` beyond the luck of the seeds.
/// For `==` goals the intervals of the distance to the target are compared.
bool beats(const Goal& goal, const Interval& candidate, const Interval& baseline);

}  // namespace sa::tune
