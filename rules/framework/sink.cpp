#include "rules/framework/sink.h"

namespace sa::rules {

Finding& FindingSink::report(Location loc, std::string message) {
  return report_as(rule_->code, rule_->check, rule_->severity, std::move(loc), std::move(message));
}

Finding& FindingSink::report_as(const std::string& code, Check check, Severity severity, Location loc,
                                std::string message) {
  Finding& f = findings_.emplace_back();
  f.code = code;
  f.check = check;
  f.severity = severity;
  f.loc = std::move(loc);
  f.message = std::move(message);
  return f;
}

}  // namespace sa::rules
