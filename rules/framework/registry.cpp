#include <algorithm>

#include "rules/framework/rule.h"

namespace sa::rules {

std::vector<Rule> registered_rules();  // generated: rule_registry.cpp

const std::vector<Rule>& registry() {
  static const std::vector<Rule> rules = [] {
    std::vector<Rule> r = registered_rules();
    std::sort(r.begin(), r.end(), [](const Rule& a, const Rule& b) { return std::string_view(a.code) < b.code; });
    return r;
  }();
  return rules;
}

const Rule* find_rule(std::string_view code) {
  // The registry is sorted by code: lint asks this once per finding.
  const std::vector<Rule>& rules = registry();
  const auto it = std::lower_bound(rules.begin(), rules.end(), code,
                                   [](const Rule& r, std::string_view c) { return std::string_view(r.code) < c; });
  return it != rules.end() && std::string_view(it->code) == code ? &*it : nullptr;
}

}  // namespace sa::rules
