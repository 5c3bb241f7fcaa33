#pragma once
// The run's counters and backfill log, kept by a probe: the scheduling policies report what
// they did (a main-loop run and why it stopped, a backfill cycle's tally, a start, a suspend)
// and never write the result themselves. SimResult gets what was counted at the end.
#include <cstdint>
#include <deque>
#include <vector>

#include "engine/job.h"
#include "engine/sim_result.h"

namespace sa::engine {

/// What one backfill cycle did (BackfillPass::run's answer): the log row, whose stop says why
/// it ended, and the counts no row holds.
struct BackfillTally {
  BackfillCycle cycle;
  std::uint64_t reservations = 0;           // jobs given a reservation in the node space
  std::uint64_t skipped_by_user_limit = 0;  // records skipped by bf_max_job_user and the like
  std::uint64_t no_resv_beyond_window = 0;  // jobs that could start only past bf_window
};

/// Why a main-loop run stopped before the end of the queue.
enum class MainStop : std::uint8_t { kEnd, kMaxSchedTime, kQueueDepth };

/// A trace name the load used that the site lacks, mapped onto the site's.
enum class MappedName : std::uint8_t { kPartition, kUser, kQos };

class CounterProbe {
 public:
  void event() { ++c_.events; }
  void priority_pass() { ++c_.priority_passes; }
  void mapped(MappedName what);
  void main_run(MainStop stop);
  void backfill(const BackfillTally& tally);
  void started(StartedBy by);
  void timeslice() { ++c_.timeslices; }
  void suspended() { ++c_.suspends; }
  void resumed() { ++c_.resumes; }
  /// A running job preempted: requeued (else cancelled), losing `lost_cpu_seconds` of work.
  void preempted(bool requeued, double lost_cpu_seconds);
  /// Moves the counters, the backfill log and the work lost to preemption into the result.
  void finish(SimResult& result);

 private:
  SimCounters c_;
  std::deque<BackfillCycle> bf_log_;
  double preempt_lost_cpu_seconds_ = 0;
};

}  // namespace sa::engine
