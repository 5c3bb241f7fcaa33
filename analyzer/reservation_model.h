#pragma once
// Advanced reservations (from `scontrol show reservation` or a profile) and node state
// events (DOWN/DRAIN periods from an events file or `sacctmgr show event -P`), as the
// engine replays them. Times are epoch seconds, like every other input time.
#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/source_manager.h"

namespace sa {

constexpr std::int64_t kOpenEnd = -1;  // an event still open (no end recorded)

struct Reservation {
  std::string name;
  std::int64_t start = 0;
  std::int64_t end = 0;            // exclusive, like Slurm's end_time
  std::vector<std::string> nodes;  // expanded names; empty when only a count is given
  std::uint32_t node_count = 0;    // NodeCnt (the node list's size when both are given)
  std::string partition;           // PartitionName, empty for (null)
  std::vector<std::string> users;  // as listed; a leading '-' on the list means "all but"
  std::vector<std::string> accounts;
  bool users_excluded = false;  // Users=-alice,-bob
  bool accounts_excluded = false;
  std::vector<std::string> flags;  // upper case as scontrol prints: MAINT, IGNORE_JOBS, DAILY...
  SourceLoc loc;                   // the ReservationName= token
  bool has_flag(const std::string& flag) const;
};

struct NodeEvent {
  std::vector<std::string> nodes;  // expanded
  std::int64_t start = 0;
  std::int64_t end = kOpenEnd;  // kOpenEnd: until the end of the run
  std::string state;            // upper case: DOWN, DRAIN (DRAINED/DRAINING/FAIL map here)
  std::string reason;
  SourceLoc loc;
};

}  // namespace sa
