#pragma once
// Where rules put findings. The driver tells the sink which rule is running, so a rule only
// says where and what; code, family and default severity come from its metadata.
#include <deque>
#include <string>

#include "rules/framework/finding.h"
#include "rules/framework/rule.h"

namespace sa::rules {

class FindingSink {
 public:
  void begin_rule(const Rule* rule) { rule_ = rule; }
  /// A finding of the running rule at `loc`; fill in evidence, related locations and fix.
  Finding& report(Location loc, std::string message);
  /// A finding of another code (input diagnostics surfaced as findings).
  Finding& report_as(const std::string& code, Check check, Severity severity, Location loc, std::string message);

  std::deque<Finding>& findings() { return findings_; }

 private:
  const Rule* rule_ = nullptr;
  std::deque<Finding> findings_;  // deque: references handed out stay valid
};

}  // namespace sa::rules
