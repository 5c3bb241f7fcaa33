#include "analyzer/hostlist.h"

#include <fmt/format.h>
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
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
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
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
  // Advance order: last group first, then the prefix groups from the first to the last.
  std::vector<std::size_t> order;
  if (groups > 0) order.push_back(groups - 1);
  for (std::size_t g = 0; g + 1 < groups; ++g) order.push_back(g);
  std::vector<std::size_t> index(groups, 0);
  std::string name;
  while (true) {
    name.clear();
    for (std::size_t g = 0; g < groups; ++g) name.append(segs[g].text).append(values[g][index[g]]);
    name.append(segs.back().text);
    out.push_back(name);
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
    if (options.budget && static_cast<std::int64_t>(names.size() + count) > *options.budget) {
      return Error{fmt::format("'{}' would take the config's hostlists past their limit of names in all", item),
                   ErrorKind::kTooLarge};
    }
    expand_segments(*segments, names);
  }
  if (options.budget) *options.budget -= static_cast<std::int64_t>(names.size());
  return names;
}

namespace {

struct SplitName {
  std::string_view prefix;
  std::string_view digits;  // trailing number, empty when there is none
};

SplitName split_name(std::string_view name) {
  std::size_t digits = 0;
  while (digits < name.size() && std::isdigit(static_cast<unsigned char>(name[name.size() - 1 - digits]))) ++digits;
  if (digits > 9) digits = 0;  // too long to be a range index
  return {name.substr(0, name.size() - digits), name.substr(name.size() - digits)};
}

}  // namespace

void HostlistBuilder::add(std::string_view name) {
  const SplitName s = split_name(name);
  const std::size_t seen = next_seen_++;
  if (s.digits.empty()) {
    plain_.push_back({std::string(name), seen});
    return;
  }
  unsigned long value = 0;
  std::from_chars(s.digits.data(), s.digits.data() + s.digits.size(), value);
  const bool zero_padded = s.digits.size() > 1 && s.digits[0] == '0';
  // Names mostly come in runs of one prefix and width (an expanded range): the previous
  // name's bucket is tried before the map.
  Bucket* bucket = last_;
  if (!bucket || bucket->digits != s.digits.size() || bucket->prefix != s.prefix) {
    auto [it, added] = index_.try_emplace({std::string(s.prefix), s.digits.size()}, buckets_.size());
    if (added)
      buckets_.push_back(std::make_unique<Bucket>(Bucket{std::string(s.prefix), s.digits.size(), seen, false, {}}));
    bucket = buckets_[it->second].get();
    last_ = bucket;
  }
  bucket->zero_padded = bucket->zero_padded || zero_padded;
  bucket->numbers.push_back(value);
}

std::string HostlistBuilder::str() const {
  // A prefix's numbers of one digit count form their own padded group when any of them was
  // written with a leading zero (hsw099 and hsw100 give hsw[099-100], as Slurm prints them);
  // its other numbers form one unpadded group, first seen where its first member was.
  struct Group {
    std::string_view prefix;
    int width;
    std::size_t seen;
    std::vector<unsigned long> numbers;
  };
  std::vector<Group> groups;
  std::map<std::string_view, std::size_t> unpadded;  // prefix -> its unpadded group
  for (const auto& b : buckets_) {
    if (b->zero_padded) {
      groups.push_back({b->prefix, static_cast<int>(b->digits), b->seen, b->numbers});
      continue;
    }
    auto [it, added] = unpadded.try_emplace(b->prefix, groups.size());
    if (added) groups.push_back({b->prefix, 0, b->seen, {}});
    Group& g = groups[it->second];
    g.seen = std::min(g.seen, b->seen);
    g.numbers.insert(g.numbers.end(), b->numbers.begin(), b->numbers.end());
  }
  std::vector<std::pair<std::size_t, std::size_t>> order;  // (first seen, group or plain index)
  for (std::size_t g = 0; g < groups.size(); ++g) order.push_back({groups[g].seen, g});
  for (std::size_t p = 0; p < plain_.size(); ++p) order.push_back({plain_[p].second, groups.size() + p});
  std::sort(order.begin(), order.end());
  std::string out;
  for (auto [seen, i] : order) {
    if (!out.empty()) out += ',';
    if (i >= groups.size()) {
      out += plain_[i - groups.size()].first;
      continue;
    }
    Group& g = groups[i];
    std::sort(g.numbers.begin(), g.numbers.end());
    g.numbers.erase(std::unique(g.numbers.begin(), g.numbers.end()), g.numbers.end());
    out.append(g.prefix);
    if (g.numbers.size() == 1) {
      out += format_number(g.numbers[0], g.width);
      continue;
    }
    out += '[';
    for (std::size_t a = 0; a < g.numbers.size();) {
      std::size_t b = a;
      while (b + 1 < g.numbers.size() && g.numbers[b + 1] == g.numbers[b] + 1) ++b;
      if (a > 0) out += ',';
      out += format_number(g.numbers[a], g.width);
      if (b > a) out.append("-").append(format_number(g.numbers[b], g.width));
      a = b + 1;
    }
    out += ']';
  }
  return out;
}

std::string compress_hostlist(const std::vector<std::string>& names) {
  HostlistBuilder builder;
  for (const std::string& name : names) builder.add(name);
  return builder.str();
}

}  // namespace sa
