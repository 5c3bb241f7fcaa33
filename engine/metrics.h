#pragma once
// Summary metrics of a simulation: utilisation, waits (mean/median/p95) and bounded
// slowdown per partition, account, size class and QOS, backfill's share of starts, jobs
// backfill never reached, and the usage share each account got against its target share.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/simulator.h"

namespace sa::engine {

struct WaitStats {
  std::size_t jobs = 0;
  double mean = 0, median = 0, p95 = 0, max = 0;
  double bounded_slowdown = 0;  // mean of max(1, (wait + run) / max(run, 10 s))
};

struct AccountShare {
  std::string account;
  double target = 0;  // classic product of normalised shares down the tree
  double actual = 0;  // share of all charged CPU (billable) seconds in the run
};

/// What CPU sharing, gang scheduling and preemption did in the run.
struct GangMetrics {
  bool sharing = false;            // jobs could share CPUs (FORCE/YES partitions or gang)
  std::size_t suspended_jobs = 0;  // jobs suspended at least once
  std::size_t suspends = 0, preempt_requeues = 0, preempt_cancels = 0;
  double suspended_cpu_seconds = 0;     // CPU-seconds held by suspended jobs
  double preempt_lost_cpu_seconds = 0;  // work thrown away by requeue/cancel preemption
  // Stretch of jobs that ran to the end: wall time over running time (1 = never suspended).
  double stretch_mean = 1, stretch_p95 = 1, stretch_max = 1;
  std::uint32_t stretch_max_job = 0;
  std::map<std::string, double> suspended_share;  // per partition: suspended / allocated CPU-seconds
  // Memory the jobs on one node asked for at once (running and suspended): nodes whose peak
  // exceeded their RealMemory (less MemSpecLimit), the worst one, and nodes that held two or
  // more jobs with no memory bound at all (no request, no default, memory not consumable).
  std::size_t nodes_over_memory = 0, nodes_unbounded_shared = 0;
  double worst_memory_ratio = 0;
  std::string worst_memory_node;
  std::uint64_t worst_memory_mb = 0, worst_memory_real_mb = 0;
  std::uint32_t max_jobs_per_node = 0;
};

struct Metrics {
  std::int64_t start = 0, end = 0;
  std::size_t jobs = 0, started = 0, completed = 0, rejected = 0, pending_at_end = 0, running_at_end = 0;
  std::size_t cancelled_pending = 0;  // the load's scancel came before they started
  double utilization = 0;             // running (not suspended) CPU-seconds / (usable CPUs x span)
  // The same over the CPU time left once maintenance windows and DOWN/DRAIN periods are
  // taken out, and those losses as shares of the whole.
  double utilization_available = 0, maint_share = 0, unavailable_share = 0;
  std::size_t requeues = 0;
  double lost_cpu_seconds = 0;  // runs cut short by DOWN nodes
  std::size_t main_starts = 0, backfill_starts = 0;
  double backfill_share = 0;
  std::size_t never_reached_by_backfill = 0;  // waited >= bf_interval, never will-run tested
  WaitStats overall;
  std::map<std::string, WaitStats> by_partition, by_account, by_size, by_qos;
  std::vector<AccountShare> account_shares;  // hierarchical order
  GangMetrics gang;
};

/// A finished job's wall time over its running time (1 = never suspended).
double stretch_of(const SimJob& job);
/// The size class of a job by CPU count: "1", "2-16", "17-128", "129-1024", "1025+".
std::string size_class(std::uint32_t cpus);
Metrics compute_metrics(const SimResult& result, const Site& site);

}  // namespace sa::engine
