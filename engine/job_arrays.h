#pragma once
// Job arrays as slurmctld keeps them (job_mgr.c job_array_split, job_scheduler.c, backfill.c):
// the tasks that have not started yet are one job record, the array's meta record, so one
// queue record per partition; a task is split off into its own record when it starts (and
// stays one if it is requeued). The engine keeps every task as its own job; this class says
// which of them are still in the meta record, how many run (the %N throttle), and how the two
// scheduling loops walk them: the first task of the record is tested as the record, and the
// next one only after a start (either loop) or a reservation (backfill, up to
// bf_max_job_array_resv), as their `goto next_task` does.
#include <cstdint>
#include <vector>

#include "engine/sim_result.h"

namespace sa::engine {

class JobArrays {
 public:
  /// Groups the jobs' array tasks by array id (RequestExtras::array_job_id); a throttled
  /// task becomes eligible at its submission.
  void bind(std::vector<SimJob>& jobs);
  bool any() const { return !groups_.empty(); }
  std::size_t groups() const { return groups_.size(); }
  /// The job's array (an index), or -1.
  std::int32_t group_of(std::uint32_t j) const { return group_.empty() ? -1 : group_[j]; }
  /// Still in the meta record: an array task that never started (a requeued task has its own).
  static bool unsplit(const SimJob& job) { return job.start == kNoTime && job.rare.get().requeues == 0; }
  /// The queue's order among records of equal priority and submit time (sort_job_queue2):
  /// the array's id for every task, then the task id, the meta record's tasks last.
  std::uint64_t order_key(const SimJob& job) const;
  /// --array's %N reached: job_array_start_test fails (Reason JobArrayTaskLimit).
  bool throttled(std::int32_t g) const {
    const Group& a = groups_[static_cast<std::size_t>(g)];
    return a.max_run != 0 && a.running >= a.max_run;
  }
  std::uint32_t id(std::int32_t g) const { return groups_[static_cast<std::size_t>(g)].id; }
  std::uint32_t running(std::int32_t g) const { return groups_[static_cast<std::size_t>(g)].running; }
  std::uint32_t max_run(std::int32_t g) const { return groups_[static_cast<std::size_t>(g)].max_run; }
  /// Tasks still in the meta record (array_recs->task_cnt).
  std::uint32_t unsplit_left(std::int32_t g) const { return groups_[static_cast<std::size_t>(g)].unsplit; }

  /// A task starts (`first`: it leaves the meta record), stops running, or leaves the queue unstarted.
  void started(std::uint32_t j, bool first);
  void stopped(std::uint32_t j);
  void cancelled_unstarted(std::uint32_t j);

 private:
  struct Group {
    std::uint32_t id = 0;       // the array's job id
    std::uint32_t max_run = 0;  // %N; 0 = no limit
    std::uint32_t running = 0;  // tot_run_tasks
    std::uint32_t unsplit = 0;  // tasks not started yet
  };
  std::vector<std::int32_t> group_;  // per job; empty when the load has no array
  std::vector<Group> groups_;
};

/// One scheduling loop's walk over array records (the main loop's or a backfill cycle's):
/// which queue entries of a meta record's tasks are tested, and the loops' single
/// reject_array_job (a record of an array that did not start makes the loop pass over the
/// array's other records in the same partition until some record starts).
class ArrayWalk {
 public:
  explicit ArrayWalk(const JobArrays& arrays) : arrays_(arrays) {}
  enum class Step : std::uint8_t {
    kNotArray,  // test it as any record
    kRecord,    // the meta record reached in the queue, or a split task: a record of its own
    kNextTask,  // the meta record's next task after a start or reservation (goto next_task)
    kSkip,      // not a record: leave it, with the Reason of the task that was tested
  };
  /// What to do with queue entry (j, part); `head_reason` is set for kSkip.
  Step step(const SimJob& job, std::uint32_t j, std::uint32_t part, std::uint16_t& head_reason, bool& head_tested);
  /// The outcome of the record step() said to test: it started, or (backfill) reserved, and
  /// then whether backfill may test the next task (bf_max_job_array_resv, the throttle);
  /// `tested`: backfill reached it (a will-run test, or the throttle held it): the meta
  /// record's other tasks count as reached.
  void outcome(const SimJob& job, bool started, bool reserved, bool next_allowed, bool tested);

 private:
  const JobArrays& arrays_;
  std::int32_t reject_group_ = -1;  // reject_array_job's array and partition
  std::uint32_t reject_part_ = 0;
  std::uint16_t reject_reason_ = 0;
  std::int32_t meta_group_ = -1;  // the meta record being walked, its partition
  std::uint32_t meta_part_ = 0;
  bool meta_open_ = false;  // its next task is to be tested
  std::uint16_t meta_reason_ = 0;
  bool meta_tested_ = false;
  bool tested_meta_ = false;  // the record being tested is the meta record's task
};

}  // namespace sa::engine
