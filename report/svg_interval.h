#pragma once
// Two more inline SVG charts for `tune` and `diff --seeds`: a mean with its 95 % interval per
// run against a target, and a scatter of candidates on two goals (the Pareto front). Drawn
// with svg_chart.h's frame, palette and axis steps; every label is escaped.
#include <functional>
#include <string>
#include <vector>

#include "report/svg_chart.h"

namespace sa::report {

/// One run's mean and interval; `text` is shown right of the bar ("1h02m [55m, 1h10m]").
struct IntervalRow {
  std::string label;
  double mean = 0, lo = 0, hi = 0;
  std::string text;
};

/// The value axis of an interval chart: tick text, and an optional target line.
struct IntervalAxis {
  std::function<std::string(double)> format;
  bool seconds = false;            // ticks at round durations
  const double* target = nullptr;  // a dashed line labelled target_text
  std::string target_text;
};

/// A bar to each row's mean with the interval as whiskers, on one 0..max scale.
std::string interval_chart(const ChartFrame& frame, const std::vector<IntervalRow>& rows, const IntervalAxis& axis);

struct ScatterPoint {
  std::string label;  // the tooltip
  double x = 0, y = 0;
  bool highlight = false;  // drawn larger, in the second colour (the Pareto front)
};
struct ScatterAxis {
  std::string label;
  std::function<std::string(double)> format;  // tick text
  bool seconds = false;                       // ticks at round durations
};

/// Points on two linear axes, the highlighted ones joined in x order.
std::string scatter_chart(const ChartFrame& frame, const ScatterAxis& x, const ScatterAxis& y,
                          const std::vector<ScatterPoint>& points, const std::string& legend);

}  // namespace sa::report
