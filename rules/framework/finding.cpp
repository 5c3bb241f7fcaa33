#include "rules/framework/finding.h"

namespace sa::rules {

const char* level_name(Severity level) {
  switch (level) {
    case Severity::kError:
      return "error";
    case Severity::kWarning:
      return "warning";
    case Severity::kInfo:
      return "info";
  }
  return "info";
}

std::optional<Severity> parse_level(const std::string& text) {
  if (text == "error") return Severity::kError;
  if (text == "warning") return Severity::kWarning;
  if (text == "info" || text == "note") return Severity::kInfo;
  return std::nullopt;
}

const char* check_name(Check check) {
  switch (check) {
    case Check::kWeightResolution:
      return "weight-resolution";
    case Check::kTierDominance:
      return "tier-dominance";
    case Check::kBackfillLimits:
      return "backfill-limits";
    case Check::kShareImbalance:
      return "share-imbalance";
    case Check::kGangOversubscription:
      return "gang-oversubscription";
    case Check::kLoad:
      return "load";
    case Check::kConfig:
      return "config";
  }
  return "config";
}

}  // namespace sa::rules
