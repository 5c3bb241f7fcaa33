#pragma once
// The state and steps of one backfill cycle (backfill.cpp), declared here because the cycle's
// will-run machinery lives apart in bf_will_run.cpp. Internal to those two files.
#include <map>
#include <set>
#include <string>

#include "engine/bf_answers.h"
#include "engine/bf_profile.h"
#include "engine/bf_slots.h"
#include "engine/simulator.h"

namespace sa::engine {

// One backfill cycle: what it has planned (slots, reservations per partition and job), what it
// has spent (tests, modelled time), and its will-run machinery. The cycle's steps are methods
// so that each reads as one rule of _attempt_backfill.
class BackfillPass {
 public:
  /// A cycle over the queue as `cycle` (its start and depth) found it.
  BackfillPass(Simulator& sim, const BackfillCycle& cycle);
  /// Plans the queue; what the cycle did, for the probes.
  BackfillTally run();

 private:
  enum class Plan { kNone, kStartNow, kReserve, kStop, kRetry };  // kRetry: judge()'s next try
  using LimitPhase = Simulator::LimitPhase;
  using PlannedEnd = Simulator::PlannedEnd;

  bool test_record(const Simulator::QueueEntry& e, SimJob& job, bool array_task);
  bool next_array_task(const Simulator::QueueEntry& e, const SimJob& job);
  bool out_of_time();
  bool held_by_cycle_limits(SimJob& job, const SimRecord& rec);
  void start_reservation_job(const Simulator::QueueEntry& e, SimJob& job, const SimRecord& rec);
  Plan plan_job(SimJob& job, const SimRecord& rec, std::int64_t tl, std::int64_t& pred);
  Plan judge(SimJob& job, WillRunAnswer& w, std::int64_t tl, std::int64_t later_start, std::int64_t& start_res,
             std::int64_t& pred);
  bool start(const Simulator::QueueEntry& e, const SimJob& job, std::int64_t run_limit = kNoTime);
  bool preempt_now(const Simulator::QueueEntry& e, SimJob& job, const SimRecord& rec, std::int64_t tl);
  void after_start(const SimJob& job);
  bool stop_at_max_job_start();
  bool reserve(const Simulator::QueueEntry& e, const SimRecord& rec, std::int64_t pred, std::int64_t tl);
  void reserve_nodes(const Simulator::QueueEntry& e, std::int64_t start, std::int64_t tl, const NodeBitset& nodes);
  void pool_changed();

  bool will_run_shared(const Demand& d, const NodeBitset& avail, std::int64_t& pred, Allocation& alloc);
  void count_unit_holds();
  void hold_units(const Allocation& a);
  void release_into_scratch(const Allocation& a);
  void restore_scratch(const Allocation& a);
  void fresh_profile();
  void will_run(WillRunAnswer& w);
  WillRunAnswer& will_run_cached(const Demand& d, const NodeBitset& av);
  WillRunAnswer* will_run_unless_later(const SimRecord& rec, const Demand& d, std::int64_t later_start);
  bool surely_conflicts(const WillRunAnswer& w, std::int64_t r0, std::int64_t r1);
  WillRunAnswer& will_run_best(const SimRecord& rec, const Demand& d, const NodeBitset& av);
  const Allocation& alloc_of(WillRunAnswer& w);
  void set_stop(BackfillCycle::Stop why) { tally_.cycle.stop = why; }

  Simulator& sim_;
  const SchedulerSettings& s_;
  BackfillTally tally_;
  const std::int64_t res_, window_end_;
  SlotMap slots_;
  PoolState scratch_;  // where CPUs may be shared, the will-run tests release jobs into a copy
  std::int64_t next_change_ = kNoTime;
  ReleaseProfile profile_;
  bool profile_stale_ = true;
  NodeBitset candidates_, alt_avail_, best_avail_, base_, avail_;
  NodeBitset now_avail_;               // plan_job's nodes free of reservations from now for the job's limit
  bool now_tested_ = false;            // plan_job tested the record for a start now
  SlotMap::Scan scan_{slots_, base_};  // plan_job's search over slots_ for base_'s nodes
  std::vector<std::uint32_t> released_;
  // Where CPUs may be shared, how many running jobs hold each allocation unit (by
  // UnitLayout word * 64 + bit) and how many units of each node some job holds: a unit a
  // released job gives back is free only when no other job holds it (a job suspended by
  // gang shares its cores with the job that suspended it).
  std::vector<std::uint16_t> unit_holds_;
  std::vector<std::uint32_t> held_units_;
  bool holds_stale_ = true;
  WillRunAnswers answers_;
  bool resv_jobs_ = false;  // the queue holds reservation jobs: answers may be used stale
  std::map<std::string, std::int64_t> per_user_, per_assoc_, per_user_part_;
  std::vector<std::int64_t> per_part_, resv_per_part_;
  std::set<std::uint32_t> reserved_jobs_;
  double elapsed_us_ = 0, next_yield_us_;
  const double max_time_us_;
  std::int64_t tests_ = 0, started_ = 0;
  bool next_task_ = false;           // the record tested is a meta record's next task (backfill.c goto next_task)
  bool reserved_now_ = false;        // the record tested made a reservation
  std::uint32_t test_array_id_ = 0;  // backfill.c test_array_job_id and test_array_count
  std::int64_t test_array_count_ = 0;
  Allocation alloc_;
};

}  // namespace sa::engine
