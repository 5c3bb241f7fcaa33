#include "analyzer/hostlist.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fmt/format.h>
#include <map>
#include <set>

namespace sa {

namespace {

constexpr std::size_t kMaxRange = 65536;  // Slurm's MAX_RANGE per bracket range

struct Range {
  unsigned long lo = 0, hi = 0;
  int width = 0;
};

// One "[...]" group between literal text.
struct Segment {
  std::string text;           // literal text before the group
  std::vector<Range> ranges;  // empty for the trailing literal
};

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

Result<Range> parse_range(std::string_view text, std::string_view item) {
  Range r;
  std::size_t dash = text.find('-');
  std::string_view lo = dash == std::string_view::npos ? text : text.substr(0, dash);
  std::string_view hi = dash == std::string_view::npos ? text : text.substr(dash + 1);
  if (!all_digits(lo) || !all_digits(hi) || lo.size() > 9 || hi.size() > 9) {
    return Error{fmt::format("invalid range '{}' in '{}'", text, item)};
  }
  std::from_chars(lo.data(), lo.data() + lo.size(), r.lo);
  std::from_chars(hi.data(), hi.data() + hi.size(), r.hi);
  if (r.lo > r.hi) return Error{fmt::format("range '{}' in '{}' runs backwards", text, item)};
  if (r.hi - r.lo + 1 > kMaxRange) {
    return Error{fmt::format("range '{}' in '{}' has more than {} hosts", text, item, kMaxRange)};
  }
  r.width = static_cast<int>(lo.size());
  return r;
}

Result<std::vector<Segment>> parse_item(std::string_view item, const HostlistOptions& options) {
  std::vector<Segment> segments;
  std::string literal;
  for (std::size_t i = 0; i < item.size(); ++i) {
    char c = item[i];
    if (c == ']') return Error{fmt::format("unmatched ']' in '{}'", item)};
    if (c != '[') {
      literal.push_back(c);
      continue;
    }
    std::size_t close = item.find(']', i);
    if (close == std::string_view::npos) return Error{fmt::format("missing ']' in '{}'", item)};
    Segment seg{literal, {}};
    literal.clear();
    std::string_view body = item.substr(i + 1, close - i - 1);
    if (body.empty()) return Error{fmt::format("empty brackets in '{}'", item)};
    std::size_t start = 0;
    for (std::size_t j = 0; j <= body.size(); ++j) {
      if (j < body.size() && body[j] != ',') continue;
      auto range = parse_range(body.substr(start, j - start), item);
      if (!range) return Error{range.error()};
      seg.ranges.push_back(*range);
      start = j + 1;
    }
    segments.push_back(std::move(seg));
    i = close;
  }
  if (!segments.empty() && !literal.empty() && !options.version.at_least(23, 2, 5)) {
    return Error{fmt::format("text after ']' in '{}' needs Slurm 23.02.5 or later", item)};
  }
  segments.push_back({literal, {}});
  return segments;
}

std::size_t group_size(const Segment& seg) {
  std::size_t n = 0;
  for (const Range& r : seg.ranges) n += r.hi - r.lo + 1;
  return n;
}

// Zero-padded decimal; called once per expanded name, so it avoids fmt's parsing.
std::string format_number(unsigned long value, int width) {
  char digits[24];
  auto [end, ec] = std::to_chars(digits, digits + sizeof digits, value);
  std::size_t length = static_cast<std::size_t>(end - digits);
  std::string out;
  if (static_cast<std::size_t>(width) > length) out.assign(static_cast<std::size_t>(width) - length, '0');
  out.append(digits, length);
  return out;
}

std::vector<std::string> group_values(const Segment& seg) {
  std::vector<std::string> out;
  for (const Range& r : seg.ranges) {
    for (unsigned long v = r.lo; v <= r.hi; ++v) out.push_back(format_number(v, r.width));
  }
  return out;
}

// Slurm's order for several groups (formats.md §2.2, checked against 24.05): the last group
// varies fastest; among the other groups the LAST varies slowest. For two groups that is
// plain lexicographic order; for three it is a1b3c5 a1b3c6 a2b3c5 a2b3c6 a1b4c5 ...
void expand_segments(const std::vector<Segment>& segs, std::vector<std::string>& out) {
  const std::size_t groups = segs.size() - 1;  // the final segment is literal only
  std::vector<std::vector<std::string>> values;
  for (std::size_t g = 0; g < groups; ++g) values.push_back(group_values(segs[g]));
  std::vector<std::size_t> index(groups, 0);
  while (true) {
    std::string name;
    for (std::size_t g = 0; g < groups; ++g) name += segs[g].text + values[g][index[g]];
    name += segs.back().text;
    out.push_back(std::move(name));
    // Advance: last group first, then prefix groups from the first to the last.
    if (groups == 0) return;
    std::vector<std::size_t> order;
    order.push_back(groups - 1);
    for (std::size_t g = 0; g + 1 < groups; ++g) order.push_back(g);
    bool carried = true;
    for (std::size_t g : order) {
      if (++index[g] < values[g].size()) {
        carried = false;
        break;
      }
      index[g] = 0;
    }
    if (carried) return;
  }
}

}  // namespace

std::vector<std::string> split_hostlist_items(std::string_view expr) {
  std::vector<std::string> items;
  std::string current;
  int depth = 0;
  for (char c : expr) {
    if (c == '[') ++depth;
    if (c == ']' && depth > 0) --depth;
    bool separator = (c == ',' && depth == 0) || std::isspace(static_cast<unsigned char>(c));
    if (separator) {
      if (!current.empty()) items.push_back(std::move(current));
      current.clear();
    } else {
      current.push_back(c);
    }
  }
  if (!current.empty()) items.push_back(std::move(current));
  return items;
}

Result<std::vector<std::string>> expand_hostlist(std::string_view expr, const HostlistOptions& options) {
  std::vector<std::string> names;
  for (const std::string& item : split_hostlist_items(expr)) {
    auto segments = parse_item(item, options);
    if (!segments) return Error{segments.error()};
    std::size_t count = 1;
    for (std::size_t g = 0; g + 1 < segments->size(); ++g) {
      count *= group_size((*segments)[g]);
      if (count > options.max_names) break;
    }
    if (count > options.max_names || names.size() + count > options.max_names) {
      return Error{fmt::format("'{}' expands to more than {} names", item, options.max_names)};
    }
    expand_segments(*segments, names);
  }
  return names;
}

namespace {

struct SplitName {
  std::string prefix;
  std::string_view digits;  // trailing number, empty when there is none
};

SplitName split_name(const std::string& name) {
  std::size_t digits = 0;
  while (digits < name.size() && std::isdigit(static_cast<unsigned char>(name[name.size() - 1 - digits]))) ++digits;
  if (digits > 9) digits = 0;  // too long to be a range index
  return {name.substr(0, name.size() - digits), std::string_view(name).substr(name.size() - digits)};
}

}  // namespace

std::string compress_hostlist(const std::vector<std::string>& names) {
  // Zero-padded widths seen per prefix: an unpadded number of the same width joins them, so
  // hsw099 and hsw100 compress to hsw[099-100] as Slurm prints them.
  std::map<std::string, std::set<std::size_t>> padded;
  for (const std::string& name : names) {
    SplitName s = split_name(name);
    if (s.digits.size() > 1 && s.digits[0] == '0') padded[s.prefix].insert(s.digits.size());
  }
  struct Group {
    std::string prefix;
    int width;
    std::vector<unsigned long> numbers;
  };
  std::vector<Group> groups;
  std::vector<std::string> plain;
  std::vector<std::pair<bool, std::size_t>> order;  // (is_group, index), first-seen order
  std::map<std::pair<std::string, int>, std::size_t> index;
  for (const std::string& name : names) {
    SplitName s = split_name(name);
    if (s.digits.empty()) {
      order.push_back({false, plain.size()});
      plain.push_back(name);
      continue;
    }
    auto widths = padded.find(s.prefix);
    bool padded_width = widths != padded.end() && widths->second.count(s.digits.size());
    int width = padded_width ? static_cast<int>(s.digits.size()) : 0;
    auto key = std::make_pair(s.prefix, width);
    auto it = index.find(key);
    if (it == index.end()) {
      it = index.emplace(key, groups.size()).first;
      order.push_back({true, groups.size()});
      groups.push_back({s.prefix, width, {}});
    }
    unsigned long value = 0;
    std::from_chars(s.digits.data(), s.digits.data() + s.digits.size(), value);
    groups[it->second].numbers.push_back(value);
  }
  std::vector<std::string> parts;
  for (auto [is_group, i] : order) {
    if (!is_group) {
      parts.push_back(plain[i]);
      continue;
    }
    Group& g = groups[i];
    std::sort(g.numbers.begin(), g.numbers.end());
    g.numbers.erase(std::unique(g.numbers.begin(), g.numbers.end()), g.numbers.end());
    if (g.numbers.size() == 1) {
      parts.push_back(g.prefix + format_number(g.numbers[0], g.width));
      continue;
    }
    std::vector<std::string> ranges;
    for (std::size_t a = 0; a < g.numbers.size();) {
      std::size_t b = a;
      while (b + 1 < g.numbers.size() && g.numbers[b + 1] == g.numbers[b] + 1) ++b;
      std::string r = format_number(g.numbers[a], g.width);
      if (b > a) r += "-" + format_number(g.numbers[b], g.width);
      ranges.push_back(r);
      a = b + 1;
    }
    parts.push_back(fmt::format("{}[{}]", g.prefix, fmt::join(ranges, ",")));
  }
  return fmt::format("{}", fmt::join(parts, ","));
}

}  // namespace sa
