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
  for (const Rule& r : registry()) {
    if (code == r.code) return &r;
  }
  return nullptr;
}

}  // namespace sa::rules
