#pragma once
// Severity overrides from a small file a site keeps beside its slurm.conf:
//   # comments
//   BF001 = error              one rule
//   share-imbalance = info     every rule of a check family
//   FAIR006 = off              drop a rule's findings
// A code's line wins over its family's line.
#include <map>
#include <optional>
#include <string>

#include "analyzer/result.h"
#include "rules/framework/finding.h"

namespace sa::rules {

struct SeverityOverrides {
  std::map<std::string, std::optional<Severity>> by_code, by_check;  // nullopt: off
  /// The severity to report, or nullopt when the finding is switched off.
  std::optional<Severity> apply(const Finding& f) const;
};

/// Parses the text; a bad line is an error naming path:line:col.
Result<SeverityOverrides> parse_severity_file(const std::string& path, const std::string& text);
Result<SeverityOverrides> read_severity_file(const std::string& path);

}  // namespace sa::rules
