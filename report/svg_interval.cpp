#include "report/svg_interval.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "report/html_writer.h"

namespace sa::report {

namespace {

// About `ticks` steps over `span` seconds, each a round duration (10 min, 1 h, 6 h, 1 d, ...).
double time_step(double span, int ticks) {
  constexpr double kSteps[] = {1,    5,    10,    30,    60,    300,   600,    1800,
                               3600, 7200, 14400, 21600, 43200, 86400, 172800, 604800};
  for (double s : kSteps) {
    if (span / s <= ticks) return s;
  }
  return nice_step(span / 86400, ticks) * 86400;
}

// A linear axis from a round value at or below `lo` to one at or above `hi`.
struct Linear {
  double lo, hi, step;
  Linear(double a, double b, bool seconds) {
    if (!(b > a)) b = a + (a == 0 ? 1 : std::fabs(a) * 0.1);
    step = seconds ? time_step(b - a, 5) : nice_step(b - a, 5);
    lo = std::floor(a / step) * step;
    hi = std::max(lo + step, std::ceil(b / step) * step);
  }
  double at(double v, double from, double to) const { return from + (to - from) * (v - lo) / (hi - lo); }
};

}  // namespace

std::string interval_chart(const ChartFrame& f, const std::vector<IntervalRow>& rows, const IntervalAxis& axis) {
  if (rows.empty()) return note_figure(f, "Nothing to show.");
  const double* target = axis.target;
  double max = target ? *target : 0;
  for (const IntervalRow& r : rows) max = std::max({max, r.hi, r.mean});
  const Linear scale(0, max > 0 ? max : 1, axis.seconds);
  const double left = 200, right = kChartWidth - 200, row_h = 26, top = 24;
  const double height = top + row_h * static_cast<double>(rows.size()) + 22;
  auto x = [&](double v) { return scale.at(std::max(0.0, v), left, right); };
  std::string out = figure_open(f, height);
  for (double t = scale.lo; t <= scale.hi + scale.step / 2; t += scale.step) {
    out += fmt::format(
        "<line class=\"grid\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2:.0f}\"/><text x=\"{0:.1f}\" y=\"13\" "
        "text-anchor=\"middle\">{3}</text>\n",
        x(t), top - 4, height - 20, esc(axis.format(t)));
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const IntervalRow& r = rows[i];
    const double y = top + row_h * static_cast<double>(i), mid = y + row_h / 2;
    out += fmt::format("<g><title>{}: {}</title><text x=\"{:.0f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>",
                       esc(r.label), esc(r.text), left - 8, mid + 4, esc(truncate_utf8(r.label, 30)));
    out += fmt::format(
        "<rect x=\"{:.0f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{:.0f}\" fill=\"{}\" "
        "fill-opacity=\"0.55\"/>",
        left, y + 6, std::max(0.0, x(r.mean) - left), row_h - 12, palette(i));
    out += fmt::format(
        "<line class=\"interval\" stroke=\"#1d2329\" stroke-width=\"1.5\" x1=\"{0:.1f}\" x2=\"{1:.1f}\" y1=\"{2:.1f}\" "
        "y2=\"{2:.1f}\"/><line stroke=\"#1d2329\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{3:.1f}\" y2=\"{4:.1f}\"/>"
        "<line stroke=\"#1d2329\" x1=\"{1:.1f}\" x2=\"{1:.1f}\" y1=\"{3:.1f}\" y2=\"{4:.1f}\"/>",
        x(r.lo), x(r.hi), mid, mid - 5, mid + 5);
    out += fmt::format("<text x=\"{:.0f}\" y=\"{:.1f}\">{}</text></g>\n", right + 8, mid + 4, esc(r.text));
  }
  if (target) {
    out += fmt::format(
        "<line class=\"target\" stroke=\"{0}\" stroke-dasharray=\"5 3\" stroke-width=\"1.5\" x1=\"{1:.1f}\" "
        "x2=\"{1:.1f}\" y1=\"{2}\" y2=\"{3:.0f}\"/><text x=\"{1:.1f}\" y=\"{4:.0f}\" "
        "text-anchor=\"middle\">{5}</text>\n",
        palette(3), x(*target), top - 6, height - 20, height - 6, esc(axis.target_text));
  }
  return out + figure_close(f,
                            "<div class=\"legend\"><span>bar: mean over the seeds</span><span>whiskers: 95% "
                            "interval</span><span>dashed: the goal's target</span></div>\n");
}

std::string scatter_chart(const ChartFrame& f, const ScatterAxis& xa, const ScatterAxis& ya,
                          const std::vector<ScatterPoint>& points, const std::string& legend) {
  if (points.empty()) return note_figure(f, "Nothing to show.");
  double x0 = points[0].x, x1 = x0, y0 = points[0].y, y1 = y0;
  for (const ScatterPoint& p : points) {
    x0 = std::min(x0, p.x), x1 = std::max(x1, p.x), y0 = std::min(y0, p.y), y1 = std::max(y1, p.y);
  }
  const Linear sx(x0, x1, xa.seconds), sy(y0, y1, ya.seconds);
  const double left = 80, right = kChartWidth - 30, top = 14, bottom = 300, height = 340;
  auto px = [&](double v) { return sx.at(v, left, right); };
  auto py = [&](double v) { return sy.at(v, bottom, top); };
  std::string out = figure_open(f, height);
  for (double t = sx.lo; t <= sx.hi + sx.step / 2; t += sx.step) {
    out += fmt::format(
        "<line class=\"grid\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\"/><text x=\"{0:.1f}\" y=\"{3}\" "
        "text-anchor=\"middle\">{4}</text>\n",
        px(t), top, bottom, bottom + 14, esc(xa.format(t)));
  }
  for (double t = sy.lo; t <= sy.hi + sy.step / 2; t += sy.step) {
    out += fmt::format(
        "<line class=\"grid\" x1=\"{0}\" x2=\"{1}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\"/><text x=\"{3}\" y=\"{4:.1f}\" "
        "text-anchor=\"end\">{5}</text>\n",
        left, right, py(t), left - 6, py(t) + 4, esc(ya.format(t)));
  }
  out += fmt::format("<text x=\"{:.0f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", (left + right) / 2, height - 8,
                     esc(xa.label));
  out +=
      fmt::format("<text x=\"14\" y=\"{:.0f}\" transform=\"rotate(-90 14 {:.0f})\" text-anchor=\"middle\">{}</text>\n",
                  (top + bottom) / 2, (top + bottom) / 2, esc(ya.label));
  std::vector<ScatterPoint> front;
  for (const ScatterPoint& p : points) {
    if (p.highlight) front.push_back(p);
  }
  std::stable_sort(front.begin(), front.end(), [](const ScatterPoint& a, const ScatterPoint& b) { return a.x < b.x; });
  std::string path;
  for (const ScatterPoint& p : front) path += fmt::format("{}{:.1f},{:.1f}", path.empty() ? "" : " ", px(p.x), py(p.y));
  if (front.size() > 1) {
    out +=
        fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\" points=\"{}\"/>\n", palette(1), path);
  }
  for (const ScatterPoint& p : points) {
    out += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{}\" fill=\"{}\"><title>{}</title></circle>\n", px(p.x),
                       py(p.y), p.highlight ? 5 : 3, palette(p.highlight ? 1 : 7), esc(p.label));
  }
  return out + figure_close(f, legend);
}

}  // namespace sa::report
