#pragma once
// Fidelity as a distribution (issue 21 item 6): on a congested load a one-second change moves
// most per-job starts, so two runs of the same jobs (a real `sacct` dump and a simulated
// trace, or two real runs) are compared by what stays put: mean and p95 wait per partition,
// QOS, account and size class, makespan, backfill share, how many starts agree within 10 s
// and 60 s, and whether placements have the real node counts. Pure statistics: the readers
// are in engine/fidelity_input.h, the printing in report/compare_report.h. All times are
// integer seconds; every list is in a fixed order (sorted keys).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/job.h"

namespace sa::engine {

/// One job as a run recorded it.
struct RunJob {
  std::uint32_t id = 0;
  std::int64_t submit = 0;
  std::int64_t begin = kNoTime;  // when it became eligible (--begin, dependencies); kNoTime: at submit
  std::int64_t start = kNoTime, end = kNoTime;
  std::string partition, qos, account;
  std::uint32_t cpus = 0;                   // CPUs asked for (the size class)
  std::uint32_t nodes = 0;                  // nodes allocated; 0: unknown or never started
  StartedBy started_by = StartedBy::kNone;  // kNone: not recorded
  std::optional<bool> placement_legal;      // the placement met the job's constraints; unset: unknown
  int line = 0;                             // where the run recorded it

  std::int64_t eligible() const { return begin != kNoTime && begin > submit ? begin : submit; }
  std::int64_t wait() const { return start - eligible(); }
};

struct Run {
  std::string source;  // path, for reports
  std::vector<RunJob> jobs;
};

/// Mean and p95 (nearest rank) of the waits of one group of jobs, in seconds.
struct WaitSummary {
  std::size_t jobs = 0;
  std::int64_t mean = 0, p95 = 0;
};

/// One group of jobs (by the reference run's partition, QOS, account or size class) in both runs.
struct GroupFidelity {
  std::string kind;  // "all", "partition", "qos", "account", "size"
  std::string key;
  WaitSummary real, sim;
  std::int64_t mean_error = 0, p95_error = 0;           // sim - real, seconds
  std::optional<double> mean_error_pct, p95_error_pct;  // relative to real; unset when real is 0
};

struct PlacementFidelity {
  std::size_t compared = 0;                                     // started in both with a node count on both sides
  std::size_t same_nodes = 0, more_nodes = 0, fewer_nodes = 0;  // the second run against the first
  std::size_t legality_known = 0, illegal = 0;                  // from placement_legal where a run fills it
};

struct Fidelity {
  std::size_t real_jobs = 0, sim_jobs = 0, common = 0;
  std::size_t started_both = 0, started_real_only = 0, started_sim_only = 0;
  // Jobs started in both whose start, counted from their own submission, differs by at most 10 s / 60 s
  std::size_t within_10s = 0, within_60s = 0;
  std::int64_t makespan_real = 0, makespan_sim = 0;               // last end - first submit of the common jobs
  std::optional<double> makespan_error_pct;                       // (sim - real) / real
  std::optional<double> backfill_share_real, backfill_share_sim;  // of starts whose scheduler is known
  PlacementFidelity placement;
  // "all" first, then partition, qos, account and size groups, each sorted by key (size
  // classes by CPU count)
  std::vector<GroupFidelity> groups;
  std::optional<std::size_t> worst;  // index of the group (not "all") with the largest |mean_error|
};

/// Compares `sim` against `real`, jobs matched by id; groups follow the real run's jobs.
Fidelity compare_runs(const Run& real, const Run& sim);
/// Nearest-rank percentile (q in 0..1) of unsorted values; 0 when empty.
std::int64_t nearest_rank(std::vector<std::int64_t> values, double q);

}  // namespace sa::engine
