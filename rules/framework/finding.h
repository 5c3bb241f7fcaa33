#pragma once
// What a rule reports. Severity and check family are closed sets with fixed spellings: they
// appear in JSON and SARIF and in users' severity files.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyzer/diagnostics.h"
#include "analyzer/source_manager.h"

namespace sa::rules {

// Findings use the analyzer's Severity (analyzer/diagnostics.h): one scale for diagnostics and
// findings, so a diagnostic becomes a finding without a mapping.
const char* level_name(Severity level);  // "error", "warning", "info"
std::optional<Severity> parse_level(const std::string& text);

enum class Check {
  kWeightResolution,
  kTierDominance,
  kBackfillLimits,
  kShareImbalance,
  kGangOversubscription,
  kConfig,
  kLoad  // whether the simulated load exercised the site at all
};
const char* check_name(Check check);  // "weight-resolution", ..., "config", "load"

/// A place in an input file, named by path so findings from slurm.conf and from the
/// accounting files (two source managers) sort and print alike.
struct Location {
  std::string file;  // path as given; empty for a finding about the run as a whole
  int line = 0, column = 0;
  std::string note;  // for related locations: what is there
};

/// A suggested change: the setting, the value to write, and where (the line to edit, or
/// none when the key must be added).
struct Fix {
  std::string description;  // "set bf_window=7200 in SchedulerParameters"
  std::string key, value;
  nlohmann::json resimulated;  // the finding's metrics re-simulated under the fix, if run
};

struct Finding {
  std::string code;
  Check check = Check::kConfig;
  Severity severity = Severity::kWarning;
  std::string message;
  Location loc;
  std::vector<Location> related;
  nlohmann::json evidence = nlohmann::json::object();
  std::optional<Fix> fix;
  std::string fingerprint;  // stable across line moves: code, file name, flagged text
  std::string snippet;      // the flagged line's text
  bool baselined = false;   // present in --baseline: reported, not counted
  // Its rule read a re-simulation that was cut short (SimResult::cancelled): whatever it says
  // rests on that run, so the lint withholds it. Not reported.
  bool read_cut_run = false;
};

}  // namespace sa::rules
