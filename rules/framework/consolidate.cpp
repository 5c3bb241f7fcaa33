#include "rules/framework/consolidate.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <numeric>
#include <tuple>

#include <fmt/format.h>

#include "rules/framework/rule.h"

namespace sa::rules {

namespace {

bool name_char(char c) {
  const auto u = static_cast<unsigned char>(c);
  return std::isalnum(u) || c == '_' || c == '-' || c == '.' || c == '[' || c == ']' || c == ',';
}

}  // namespace

std::string message_shape(std::string_view message, const NameSet& names, bool any_quoted) {
  std::string out;
  for (std::size_t i = 0; i < message.size();) {
    const char c = message[i];
    if (c == '\'') {  // a quoted partition or node name; other quoted text (accounts) stays
      const std::size_t close = message.find('\'', i + 1);
      if (close != std::string_view::npos &&
          (any_quoted ? close - i < 80 : names.contains(message.substr(i + 1, close - i - 1)))) {
        out += "'#'";
        i = close + 1;
        continue;
      }
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      while (i < message.size() && (std::isdigit(static_cast<unsigned char>(message[i])) || message[i] == '.' ||
                                    message[i] == ':' || message[i] == '-' || message[i] == ',')) {
        ++i;
      }
      out += '0';
      continue;
    }
    if (name_char(c)) {
      std::size_t end = i;
      while (end < message.size() && name_char(message[end])) ++end;
      std::string_view word = message.substr(i, end - i);
      while (!word.empty() && (word.back() == ',' || word.back() == '.')) word.remove_suffix(1);
      if (names.contains(word)) {
        out += '#';
      } else {
        out += message.substr(i, end - i);
      }
      i = end;
      continue;
    }
    out += c;
    ++i;
  }
  return out;
}

void consolidate_repeats(std::deque<Finding>& findings, const NameSet& names) {
  // Place order first, so the group's finding sits at its first place whatever the rules'
  // order of reporting (an order of indices: findings are large to move).
  std::vector<std::size_t> order(findings.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) {
    const Location& a = findings[i].loc;
    const Location& b = findings[j].loc;
    return std::tie(a.file, a.line, a.column) < std::tie(b.file, b.line, b.column);
  });
  std::map<std::pair<std::string, std::string>, std::size_t> first;  // (code, shape) -> index in kept
  std::deque<Finding> kept;
  std::vector<std::size_t> same, alike;
  for (std::size_t index : order) {
    Finding& f = findings[index];
    // Input diagnostics quote the key or value at fault: one kind of fault on many keys (keys
    // removed after a release) is one cause. Rules quote accounts and users, which are not.
    const bool diagnostic = find_rule(f.code) == nullptr;
    auto [it, inserted] =
        first.emplace(std::make_pair(f.code, message_shape(f.message, names, diagnostic)), kept.size());
    if (inserted) {
      kept.push_back(std::move(f));
      same.push_back(0);
      alike.push_back(0);
      continue;
    }
    Finding& group = kept[it->second];
    Location place = f.loc;
    if (f.message == group.message) {
      ++same[it->second];
      place.note = kSameFinding;
    } else {
      ++alike[it->second];
      place.note = f.message;  // the same defect with its own names and numbers
    }
    group.related.push_back(std::move(place));
    for (Location& r : f.related) {
      if (std::none_of(group.related.begin(), group.related.end(), [&](const Location& g) {
            return g.file == r.file && g.line == r.line && g.column == r.column;
          })) {
        group.related.push_back(std::move(r));
      }
    }
  }
  for (std::size_t i = 0; i < kept.size(); ++i) {
    if (same[i]) kept[i].message += fmt::format(" ({} places: this one and {} listed)", same[i] + 1, same[i]);
    if (alike[i])
      kept[i].message += fmt::format(" (and {} more of the same kind, each listed with its own text)", alike[i]);
  }
  findings = std::move(kept);
}

}  // namespace sa::rules
