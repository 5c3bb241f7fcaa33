#include "report/svg_chart.h"

#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

#include "report/html_writer.h"

namespace sa::report {

namespace {

constexpr double kWidth = kChartWidth;

}  // namespace

// A step of 1, 2 or 5 x 10^k giving about `ticks` intervals up to `max`.
double nice_step(double max, int ticks) {
  if (max <= 0) return 1;
  const double raw = max / ticks, mag = std::pow(10, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (raw <= m * mag) return m * mag;
  }
  return 10 * mag;
}

std::string figure_open(const ChartFrame& f, double height) {
  return fmt::format(
      "<figure class=\"chart\" id=\"{}\"><h3>{}</h3>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{:.0f}\" viewBox=\"0 0 {} {:.0f}\" "
      "role=\"img\" aria-label=\"{}\">\n",
      esc(f.id), esc(f.title), kWidth, height, kWidth, height, esc(f.title));
}

std::string figure_close(const ChartFrame& f, const std::string& legend) {
  return fmt::format("</svg>\n{}<figcaption>{}</figcaption></figure>\n", legend, esc(f.caption));
}

std::string legend_html(const std::vector<std::string>& names) {
  std::string out = "<div class=\"legend\">";
  for (std::size_t i = 0; i < names.size(); ++i) {
    out += fmt::format("<span><i style=\"background:{}\"></i>{}</span>", palette(i), esc(names[i]));
  }
  return out + "</div>\n";
}

namespace {

std::string empty_chart(const ChartFrame& f, const char* why) { return note_figure(f, why); }

// Log time axis: 1 s at the left edge, the next tick above `hi` at the right.
struct LogAxis {
  double x0, x1, top;
  double decades = 1;
  explicit LogAxis(double hi, double left, double right) : x0(left), x1(right), top(0) {
    decades = std::max(1.0, std::log10(std::max(hi, 10.0)));
  }
  double x(double seconds) const { return x0 + (x1 - x0) * std::log10(std::max(seconds, 1.0)) / decades; }
};

constexpr std::array<std::pair<double, const char*>, 10> kTimeTicks{{{1, "1 s"},
                                                                     {10, "10 s"},
                                                                     {60, "1 min"},
                                                                     {600, "10 min"},
                                                                     {3600, "1 h"},
                                                                     {21600, "6 h"},
                                                                     {86400, "1 d"},
                                                                     {604800, "1 w"},
                                                                     {2592000, "30 d"},
                                                                     {31536000, "1 y"}}};

// The value axis of horizontal bars: 0 to a round maximum, with gridlines and labels on top.
struct BarScale {
  double left, right, step, max;
  bool percent;
  BarScale(double data_max, double l, double r, bool pct) : left(l), right(r), percent(pct) {
    step = pct ? nice_step(data_max * 100, 5) / 100 : nice_step(data_max, 5);
    max = std::max(step, std::ceil(data_max / step) * step);
  }
  double x(double v) const { return left + (right - left) * v / max; }
  std::string grid(double top, double height) const {
    std::string out;
    for (double t = 0; t <= max + step / 2; t += step) {
      out += fmt::format(
          "<line class=\"grid\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2:.0f}\"/>"
          "<text x=\"{0:.1f}\" y=\"13\" text-anchor=\"middle\">{3}</text>\n",
          x(t), top - 3, height - 4, percent ? fmt::format("{:.0f} %", t * 100) : fmt_number(t));
    }
    return out;
  }
};

// Row labels live in a fixed left margin: long ones are cut (the full text stays in the tooltip).
std::string clip(const std::string& label, std::size_t max = 34) { return truncate_utf8(label, max); }

}  // namespace

std::string note_figure(const ChartFrame& f, const std::string& text) {
  return fmt::format(
      "<figure class=\"chart\" id=\"{}\"><h3>{}</h3><p class=\"muted\">{}</p>"
      "<figcaption>{}</figcaption></figure>\n",
      esc(f.id), esc(f.title), esc(text), esc(f.caption));
}

const std::string& palette(std::size_t i) {
  // Distinguishable in colour and still apart in greyscale print.
  static const std::array<std::string, 10> colours{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                                   "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
  return colours[i % colours.size()];
}

std::string box_chart(const ChartFrame& f, const std::vector<BoxRow>& rows) {
  if (rows.empty()) return empty_chart(f, "No jobs to show.");
  double hi = 10;
  for (const BoxRow& r : rows) hi = std::max({hi, r.p95, r.max});
  double top_tick = 10;
  for (const auto& [v, name] : kTimeTicks) {
    top_tick = v;
    if (v >= hi) break;
  }
  const double left = 230, right = kWidth - 20, row_h = 24, top = 24;
  const double height = top + row_h * static_cast<double>(rows.size()) + 10;
  LogAxis ax(top_tick, left, right);
  std::string out = figure_open(f, height);
  for (const auto& [v, name] : kTimeTicks) {
    if (v > top_tick) break;
    const double x = ax.x(v);
    out += fmt::format(
        "<line class=\"grid\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2:.0f}\"/>"
        "<text x=\"{0:.1f}\" y=\"14\" text-anchor=\"middle\">{3}</text>\n",
        x, top - 4, height - 6, name);
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const BoxRow& r = rows[i];
    const double y = top + row_h * static_cast<double>(i), mid = y + row_h / 2;
    const std::string tip =
        fmt::format("{}: {} jobs, median {}, mean {}, p95 {}, max {}", r.label, r.n, fmt_duration(r.p50),
                    fmt_duration(r.mean), fmt_duration(r.p95), fmt_duration(r.max));
    out += fmt::format("<g><title>{}</title><text x=\"{:.0f}\" y=\"{:.1f}\" text-anchor=\"end\">{} ({})</text>",
                       esc(tip), left - 8, mid + 4, esc(clip(r.label, 28)), fmt_count(static_cast<double>(r.n)));
    out += fmt::format("<line class=\"axis\" x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{:.1f}\" y2=\"{:.1f}\"/>", ax.x(r.p5),
                       ax.x(r.p95), mid, mid);
    out += fmt::format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\" "
        "fill-opacity=\"0.35\" stroke=\"{}\"/>",
        ax.x(r.p25), y + 5, std::max(1.5, ax.x(r.p75) - ax.x(r.p25)), row_h - 10, palette(0), palette(0));
    out += fmt::format(
        "<line stroke=\"#1d2329\" stroke-width=\"2\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" "
        "y2=\"{2:.1f}\"/>",
        ax.x(r.p50), y + 4, y + row_h - 4);
    out +=
        fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"/></g>\n", ax.x(r.mean), mid, palette(3));
  }
  return out + figure_close(f,
                            "<div class=\"legend\"><span>box: 25th–75th percentile</span><span>bar: "
                            "median</span><span>whiskers: 5th–95th</span><span><i style=\"background:" +
                                palette(3) + ";border-radius:6px\"></i>mean</span></div>\n");
}

std::string stacked_chart(const ChartFrame& f, const std::vector<std::string>& series,
                          const std::vector<StackRow>& rows) {
  if (rows.empty()) return empty_chart(f, "Nothing to show.");
  double max = 0;
  for (const StackRow& r : rows) {
    double sum = 0;
    for (double p : r.parts) sum += std::max(0.0, p);
    max = std::max(max, sum);
  }
  const double left = 230, right = kWidth - 90, row_h = 20, top = 22;
  const double height = top + row_h * static_cast<double>(rows.size()) + 8;
  const BarScale scale(max, left, right, false);
  auto x = [&](double v) { return scale.x(v); };
  std::string out = figure_open(f, height) + scale.grid(top, height);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const StackRow& r = rows[i];
    const double y = top + row_h * static_cast<double>(i);
    out += fmt::format("<text x=\"{:.0f}\" y=\"{:.1f}\" text-anchor=\"end\"><title>{}</title>{}</text>", left - 8,
                       y + 14, esc(r.label), esc(clip(r.label)));
    double at = 0;
    for (std::size_t s = 0; s < r.parts.size() && s < series.size(); ++s) {
      const double v = std::max(0.0, r.parts[s]);
      if (v <= 0) continue;
      out += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{:.0f}\" fill=\"{}\">"
          "<title>{}: {} {}</title></rect>",
          x(at), y + 3, std::max(0.5, x(at + v) - x(at)), row_h - 6, palette(s), esc(r.label), esc(series[s]),
          fmt_number(v));
      at += v;
    }
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"muted\">{}</text>\n", x(at) + 4, y + 14, esc(r.note));
  }
  return out + figure_close(f, legend_html(series));
}

std::string paired_chart(const ChartFrame& f, const std::string& name_a, const std::string& name_b,
                         const std::vector<PairRow>& rows) {
  if (rows.empty()) return empty_chart(f, "No association tree (--assoc): no target shares to compare.");
  double max = 0;
  for (const PairRow& r : rows) max = std::max({max, r.a, r.b});
  const double left = 230, right = kWidth - 110, row_h = 22, top = 22;
  const double height = top + row_h * static_cast<double>(rows.size()) + 8;
  const BarScale scale(max, left, right, true);
  auto x = [&](double v) { return scale.x(v); };
  std::string out = figure_open(f, height) + scale.grid(top, height);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const PairRow& r = rows[i];
    const double y = top + row_h * static_cast<double>(i);
    out += fmt::format("<g><title>{}: {} {}, {} {}</title><text x=\"{}\" y=\"{:.1f}\">{}</text>", esc(r.label),
                       esc(name_a), fmt_percent(r.a), esc(name_b), fmt_percent(r.b), 8 + 12 * r.depth, y + 15,
                       esc(clip(r.label, static_cast<std::size_t>(std::max(8, 34 - 2 * r.depth)))));
    out += fmt::format("<rect x=\"{:.0f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"8\" fill=\"{}\"/>", left, y + 3,
                       std::max(0.0, x(r.a) - left), palette(7));
    out += fmt::format("<rect x=\"{:.0f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"8\" fill=\"{}\"/>", left, y + 11,
                       std::max(0.0, x(r.b) - left), palette(0));
    out += fmt::format("<text x=\"{:.0f}\" y=\"{:.1f}\">{} / {}</text></g>\n", right + 6, y + 15, fmt_percent(r.a),
                       fmt_percent(r.b));
  }
  return out + figure_close(f, "<div class=\"legend\"><span><i style=\"background:" + palette(7) + "\"></i>" +
                                   esc(name_a) + "</span><span><i style=\"background:" + palette(0) + "\"></i>" +
                                   esc(name_b) + "</span></div>\n");
}

namespace {

// The value axis of a time chart: shares run 0..100 % (further where jobs share CPUs).
struct YScale {
  double step, max;
  YScale(double data_max, bool percent) {
    step = percent ? nice_step(std::max(data_max, 1.0) * 100, 4) / 100 : nice_step(data_max, 4);
    max = std::max(step, std::ceil(data_max / step) * step);
    if (percent) max = std::max(1.0, max);
  }
};

struct TimeFrame {
  double left = 60, right = kWidth - 16, top = 12, bottom = 220, height = 250;
  double x_span;
  std::int64_t x0;
  YScale ys;
  double x(std::int64_t t) const { return left + (right - left) * static_cast<double>(t - x0) / x_span; }
  double y(double v) const { return bottom - (bottom - top) * v / ys.max; }
};

std::string time_axes(const TimeFrame& fr, const TimeAxis& axis) {
  std::string out;
  for (double t = 0; t <= fr.ys.max + fr.ys.step / 2; t += fr.ys.step) {
    out += fmt::format(
        "<line class=\"grid\" x1=\"{0}\" x2=\"{1}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\"/>"
        "<text x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\">{5}</text>\n",
        fr.left, fr.right, fr.y(t), fr.left - 6, fr.y(t) + 4,
        axis.percent ? fmt::format("{:.0f} %", t * 100) : fmt_number(t));
  }
  // Ticks every 6 hours up to two days, every day up to 30 days, every week beyond.
  const double span_h = fr.x_span / 3600;
  const std::int64_t tick = span_h <= 48 ? 6 * 3600 : span_h <= 720 ? 86400 : 7 * 86400;
  for (std::int64_t t = 0; t <= axis.x.back() - axis.x.front(); t += tick) {
    const std::string label = tick < 86400 ? fmt::format("{} h", t / 3600) : fmt::format("day {}", t / 86400);
    out += fmt::format(
        "<line class=\"axis\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\"/>"
        "<text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>\n",
        fr.x(fr.x0 + t), fr.bottom, fr.bottom + 4, fr.bottom + 16, label);
  }
  out +=
      fmt::format("<line class=\"axis\" x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\"/>", fr.left, fr.right, fr.bottom);
  out += fmt::format(
      "<text x=\"12\" y=\"{0:.0f}\" transform=\"rotate(-90 12 {0:.0f})\" text-anchor=\"middle\">{1}"
      "</text>\n",
      (fr.top + fr.bottom) / 2, esc(axis.y_label));
  return out;
}

// An unstacked series as lines (or filled areas): a run shorter than the axis stops where it
// ended, and a missing value (NaN: no sample in that bucket) breaks the line.
std::string series_lines(const TimeFrame& fr, const TimeAxis& axis, const Series& s, const std::string& colour) {
  std::string out;
  const std::size_t n = std::min(s.values.size(), axis.x.size());
  std::size_t i = 0;
  while (i < n) {
    while (i < n && !std::isfinite(s.values[i])) ++i;
    const std::size_t from = i;
    std::string pts;
    for (; i < n && std::isfinite(s.values[i]); ++i)
      pts += fmt::format("{:.1f},{:.1f} ", fr.x(axis.x[i]), fr.y(s.values[i]));
    if (pts.empty()) continue;
    if (s.area) {
      out += fmt::format(
          "<polygon points=\"{:.1f},{:.1f} {}{:.1f},{:.1f}\" fill=\"{}\" fill-opacity=\"0.3\" "
          "stroke=\"{}\"><title>{}</title></polygon>\n",
          fr.x(axis.x[from]), fr.y(0), pts, fr.x(axis.x[i - 1]), fr.y(0), colour, colour, esc(s.name));
    } else {
      out += fmt::format(
          "<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.6\"><title>{}"
          "</title></polyline>\n",
          pts, colour, esc(s.name));
    }
  }
  return out;
}

}  // namespace

std::string time_chart(const ChartFrame& f, const TimeAxis& axis, const std::vector<Series>& series) {
  if (axis.x.size() < 2 || series.empty()) return empty_chart(f, "Too short a run to draw over time.");
  auto value = [](const Series& s, std::size_t i) {
    return i < s.values.size() && std::isfinite(s.values[i]) ? s.values[i] : 0.0;
  };
  std::vector<double> stack(axis.x.size(), 0);
  double max = 0;
  for (const Series& s : series) {
    for (std::size_t i = 0; i < axis.x.size(); ++i) {
      stack[i] = axis.stacked ? stack[i] + value(s, i) : std::max(stack[i], value(s, i));
      max = std::max(max, stack[i]);
    }
  }
  const TimeFrame fr{60,
                     kWidth - 16,
                     12,
                     220,
                     250,
                     static_cast<double>(std::max<std::int64_t>(1, axis.x.back() - axis.x.front())),
                     axis.x.front(),
                     YScale(max, axis.percent)};
  std::string out = figure_open(f, fr.height) + time_axes(fr, axis);
  std::vector<double> base(axis.x.size(), 0);
  std::vector<std::string> names;
  for (std::size_t s = 0; s < series.size(); ++s) {
    names.push_back(series[s].name);
    if (!axis.stacked) {
      out += series_lines(fr, axis, series[s], palette(s));
      continue;
    }
    std::string pts;
    for (std::size_t i = 0; i < axis.x.size(); ++i) {
      pts += fmt::format("{:.1f},{:.1f} ", fr.x(axis.x[i]), fr.y(base[i] + value(series[s], i)));
    }
    for (std::size_t i = axis.x.size(); i-- > 0;) pts += fmt::format("{:.1f},{:.1f} ", fr.x(axis.x[i]), fr.y(base[i]));
    for (std::size_t i = 0; i < axis.x.size(); ++i) base[i] += value(series[s], i);
    out += fmt::format("<polygon points=\"{}\" fill=\"{}\" fill-opacity=\"0.75\"><title>{}</title></polygon>\n", pts,
                       palette(s), esc(series[s].name));
  }
  return out + figure_close(f, legend_html(names));
}

}  // namespace sa::report
