#pragma once
// The building blocks of the self-contained HTML reports: escaping (every string that came
// from an input file goes through `esc`), number and duration formatting, and the page
// shell with its inline style and the few lines of script that sort tables.
#include <cstdint>
#include <string>
#include <string_view>

namespace sa::report {

/// Text made safe for HTML element content and quoted attribute values (and SVG text):
/// & < > " ' become entities, and control characters other than tab and newline are dropped.
std::string esc(std::string_view text);

/// `text` cut to at most `max` bytes at a character boundary, with "…" when cut.
std::string truncate_utf8(const std::string& text, std::size_t max);

/// "1,234", "0.953", "12.5 k" style numbers for tables and axes ("–" for NaN and infinities).
std::string fmt_count(double v);
std::string fmt_number(double v);
std::string fmt_percent(double share);
/// A duration for people: "45 s", "12 min", "3.2 h", "2.1 d".
std::string fmt_duration(double seconds);

struct PageHead {
  std::string title;     // escaped by page_begin
  std::string subtitle;  // escaped by page_begin
};

/// <!doctype html> to the opening <main>, with the inline stylesheet.
std::string page_begin(const PageHead& head);
/// Closes the page and adds the table-sorting and render-timing script.
std::string page_end();

/// A table header cell a click sorts by: `numeric` sorts by the cells' data-v values.
std::string sort_th(std::string_view label, bool numeric);
/// A numeric table cell: shows `text`, sorts by `value`.
std::string num_td(double value, std::string_view text);

}  // namespace sa::report
