#include "rules/framework/finding.h"

namespace sa::rules {

const char* level_name(Level level) {
  switch (level) {
    case Level::kError: return "error";
    case Level::kWarning: return "warning";
    case Level::kInfo: return "info";
  }
  return "info";
}

std::optional<Level> parse_level(const std::string& text) {
  if (text == "error") return Level::kError;
  if (text == "warning") return Level::kWarning;
  if (text == "info" || text == "note") return Level::kInfo;
  return std::nullopt;
}

const char* check_name(Check check) {
  switch (check) {
    case Check::kWeightResolution: return "weight-resolution";
    case Check::kTierDominance: return "tier-dominance";
    case Check::kBackfillLimits: return "backfill-limits";
    case Check::kShareImbalance: return "share-imbalance";
    case Check::kGangOversubscription: return "gang-oversubscription";
    case Check::kLoad: return "load";
    case Check::kConfig: return "config";
  }
  return "config";
}

}  // namespace sa::rules
