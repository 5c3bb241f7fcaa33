#pragma once
// The gang scheduler (slurmctld/gang.c; algorithms.md §7). For each partition it keeps the
// running and suspended jobs in arrival order, the "active map" of what the running ones
// hold, and the shadows of running jobs from higher-tier partitions. A new job that
// conflicts with the active map is suspended at once; every SchedulerTimeSlice the jobs
// that ran are moved to the back of the list and the map is rebuilt from the front, so the
// longest-suspended job runs next and every job that still fits keeps running. It decides;
// the simulator carries out the suspends, resumes and preemptions it returns.
#include <cstdint>
#include <vector>

#include "analyzer/model.h"
#include "engine/bitset.h"
#include "engine/resources.h"
#include "engine/sharing.h"

namespace sa::engine {

class Gang {
 public:
  /// Conflict granularity (_get_gr_type): nodes (select/linear, CR_Memory), CPU counts
  /// (CR_CPU with task/none), or allocation units (cores, CPUs with task affinity, sockets).
  enum class Grain { kNode, kCpuCount, kUnits };
  struct Action {
    enum class Kind : std::uint8_t { kSuspend, kResume, kPreempt } kind;
    std::uint32_t job;
  };

  Gang(const Config& config, const PoolState& pool, const UnitLayout* layout);

  /// gs_job_start: a job started with `alloc` (kept by reference until job_fini). When a
  /// shadow would stop a job whose PreemptMode is REQUEUE or CANCEL it is preempted instead.
  void job_start(std::uint32_t job, std::uint32_t part, const Allocation* alloc, bool preempt_not_suspend);
  /// gs_job_fini: the job ended (or was requeued or cancelled).
  void job_fini(std::uint32_t job);
  /// The timeslicer's wake-up: rotates every partition with a suspended job or a shadow.
  void cycle();
  /// What the last call decided, in the order Slurm does it.
  std::vector<Action>& actions() { return actions_; }
  Grain grain() const { return grain_; }
  bool tracked(std::uint32_t job) const { return job < where_.size() && where_[job].part >= 0; }

 private:
  enum class RowState : std::uint8_t { kNoActive, kActive, kFiller };
  struct GJob {
    std::uint32_t job;
    const Allocation* alloc;
    RowState row = RowState::kNoActive;
    bool suspended = false;  // sig_state == GS_SUSPEND
    bool preempt_not_suspend = false;
  };
  struct GPart {
    std::uint16_t tier = 1;
    std::vector<GJob> jobs;              // arrival order
    std::vector<std::uint32_t> shadows;  // job ids of higher-tier running jobs
    std::uint32_t active = 0;            // jobs_active
    std::vector<std::uint64_t> units;    // kUnits: active map
    NodeBitset nodes;                    // kNode / kCpuCount: active node map
    std::vector<std::uint32_t> cpus;     // kCpuCount: active CPUs per node
    std::uint32_t stopped = 0;           // jobs suspended (or queued for preemption)
    bool shadows_changed = false;        // since its last rebuild
    bool stale = false;                  // its map awaits a rebuild that can change nothing
  };
  struct Where {
    std::int32_t part = -1;
  };

  bool fits(const Allocation& a, const GPart& p) const;
  void add_active(const Allocation& a, GPart& p);
  void cast_shadow(const GJob& j, std::uint16_t tier);
  void clear_shadow(std::uint32_t job);
  void stop(GJob& j, GPart& p);
  void update_row(GPart& p, bool add_new);
  void update_all_rows();
  /// A rebuild put off because it could not suspend or resume anything, done before the map
  /// is read again.
  void refresh(GPart& p);
  void build_row(GPart& p);
  void cycle_part(GPart& p);
  const Allocation* alloc_of(std::uint32_t job) const;

  Grain grain_ = Grain::kNode;
  const UnitLayout* layout_ = nullptr;
  std::vector<std::uint32_t> node_cpus_;
  std::vector<GPart> parts_;
  std::vector<std::uint32_t> by_tier_;  // partition order: highest tier first (stable)
  std::vector<Where> where_;            // per simulator job index
  std::vector<const Allocation*> allocs_;
  std::vector<Action> actions_;
};

}  // namespace sa::engine
