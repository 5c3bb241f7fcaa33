#pragma once
// Inline SVG charts drawn by our own code (no chart library, nothing fetched): box plots of
// waits on a log time axis, horizontal stacked bars, paired bars (target vs delivered) and
// time series. Every label is escaped; every chart is a <figure> with an id, a title and a
// caption, so the report's tests can find each one.
#include <cstdint>
#include <string>
#include <vector>

namespace sa::report {

/// A fixed palette, so the same series keeps its colour across charts and runs.
const std::string& palette(std::size_t i);

struct ChartFrame {
  std::string id;       // the figure's id (ASCII, chosen by us)
  std::string title;    // shown above the chart (escaped)
  std::string caption;  // what it shows and how to read it (escaped)
};

/// The drawing width of every chart, in SVG units.
inline constexpr double kChartWidth = 760;

/// Building blocks for charts drawn in other files (svg_interval.cpp): a step of 1, 2 or 5 x
/// 10^k giving about `ticks` intervals up to `max`; the figure and SVG open and close tags;
/// a legend of palette colours.
double nice_step(double max, int ticks);
std::string figure_open(const ChartFrame& frame, double height);
std::string figure_close(const ChartFrame& frame, const std::string& legend = {});
std::string legend_html(const std::vector<std::string>& names);

/// A chart frame with a sentence instead of a drawing (no data, or nothing of the kind ran);
/// keeps the figure's id so the page still has every chart.
std::string note_figure(const ChartFrame& frame, const std::string& text);

/// One row of a box plot: quartiles and whiskers (5th and 95th percentiles) of a distribution.
struct BoxRow {
  std::string label;
  std::size_t n = 0;
  double p5 = 0, p25 = 0, p50 = 0, p75 = 0, p95 = 0, mean = 0, max = 0;
};
/// Horizontal box plots on a log time axis (seconds; 0 s drawn at the 1 s line).
std::string box_chart(const ChartFrame& frame, const std::vector<BoxRow>& rows);

struct StackRow {
  std::string label;
  std::vector<double> parts;  // one per series, >= 0
  std::string note;           // right of the bar (escaped), e.g. "n=12"
};
/// Horizontal stacked bars, one colour per series, with a legend.
std::string stacked_chart(const ChartFrame& frame, const std::vector<std::string>& series,
                          const std::vector<StackRow>& rows);

struct PairRow {
  std::string label;
  int depth = 0;  // indentation (tree level)
  double a = 0, b = 0;
};
/// Two bars per row (a above b) on a shared 0..max scale, as percentages.
std::string paired_chart(const ChartFrame& frame, const std::string& name_a, const std::string& name_b,
                         const std::vector<PairRow>& rows);

struct Series {
  std::string name;
  std::vector<double> values;  // one per x
  bool area = false;           // unstacked charts: fill under the line (a backdrop for the others)
};
struct TimeAxis {
  std::vector<std::int64_t> x;  // seconds since the run's start
  std::string y_label;
  bool percent = false;  // values are shares: the axis is 0..100 %
  bool stacked = false;  // areas stacked in series order
};
/// Lines (or stacked areas) over time; x in hours or days from the run's start.
std::string time_chart(const ChartFrame& frame, const TimeAxis& axis, const std::vector<Series>& series);

}  // namespace sa::report
