#pragma once
// What a run produces and reports read: each job's queue records, Reasons, gang and preemption
// events and outcome (SimJob), sprio snapshots, counters, the backfill log, node peaks and the
// CPU timeline (SimResult). Apart from simulator.h, which holds the engine that fills them.
#include <algorithm>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/rare_box.h"
#include "engine/job.h"
#include "engine/limits.h"
#include "engine/priority.h"
#include "engine/resources.h"

namespace sa::engine {

/// Why a record is excluded from the queue (a partition limit; job_mgr.c's Reason for it).
/// kQosNotAllowed, kAccountNotAllowed and kGroupNotAllowed: EnforcePartLimits=NO let a job
/// the partition's AllowQos/DenyQos, AllowAccounts/DenyAccounts or (23.02+) AllowGroups deny
/// through at submission, and select_nodes refuses it on every pass (node_scheduler.c): it
/// pends for ever. What squeue shows for it is Simulator::hold_reason_text.
/// kBadConstraints: a job submitted held skips job_allocate's node tests (select_nodes returns
/// ESLURM_JOB_HELD first), so one whose --constraint or size no node set can meet is accepted;
/// released, select_nodes refuses it and _schedule sets FAIL_BAD_CONSTRAINTS (the constraints
/// capture's job 10).
enum class HoldReason : std::uint8_t {
  kNone,
  kPartitionTimeLimit,
  kPartitionNodeLimit,
  kPartitionDown,
  kQosNotAllowed,
  kAccountNotAllowed,
  kGroupNotAllowed,
  kBadConstraints,
  kMaxMemPerLimit  // MaxMemPerNode below the job's memory (engine/max_memory.h)
};
/// The record can never start (not a limit a partition change or a node state lifts).
inline bool never_runs(HoldReason h) {
  return h == HoldReason::kQosNotAllowed || h == HoldReason::kAccountNotAllowed || h == HoldReason::kGroupNotAllowed ||
         h == HoldReason::kBadConstraints;
}
/// A partition limit job_limits_check tests (not the partition's state, not an access list).
inline bool limit_hold(HoldReason h) {
  return h == HoldReason::kPartitionTimeLimit || h == HoldReason::kPartitionNodeLimit ||
         h == HoldReason::kMaxMemPerLimit;
}
/// Its state_reason on `version` as job_reason_string names it ("" for kNone). An account
/// list's denial is AccountNotAllowed (WAIT_ACCOUNT) on 22.05; from 23.02
/// part_policy_valid_acct sets none, and the job keeps job_allocate's PartitionConfig.
const char* hold_reason_name(HoldReason h, const SlurmVersion& version);

/// One (job x partition) queue record.
struct SimRecord {
  std::uint32_t part = 0;
  std::uint32_t priority = 0;   // (beside part, where it leaves no padding)
  std::int64_t time_limit = 0;  // seconds the job may run in this partition; -1 infinite
  Demand demand;
  PriorityFactors factors;
  TresCounts tres{};                  // the request as the limits see it
  std::int32_t qos1 = -1, qos2 = -1;  // partition QOS and job QOS in limit precedence order
  // The nodes it may use (Simulator::record_nodes): the partition's, narrowed by --constraint,
  // -w and -x into one of Simulator's node sets; a matching OR adds a set per alternative.
  std::int32_t nodes = -1;  // -1: the partition's nodes
  // Not kNone: excluded from the queue. (An enum beside `nodes`, in what was padding: a queue
  // record of 216 bytes takes a 224-byte block from the allocator, not 240.)
  HoldReason hold_reason = HoldReason::kNone;
  RareVec<std::int32_t> alternatives;
};

/// A pending job's Reason from `from` on (an index into SimResult::reason_names), and for
/// explained jobs what lay behind it.
struct ReasonSpan {
  std::int64_t from = 0;
  std::uint16_t reason = 0;
  // An index into SimResult::reason_details (0: none). Only explained jobs carry details, so a
  // span is 16 bytes rather than 48 with a string in it; a job has about three.
  std::uint32_t detail = 0;
};

/// Reasons every run knows, by fixed index into SimResult::reason_names.
enum : std::uint16_t {
  kReasonNone,
  kReasonPriority,
  kReasonResources,
  kReasonBeginTime,
  kReasonNodesUnavailable,  // Resources with the main loop's description (squeue prints it)
  kReasonReservation,
  kReasonMaintenance,  // ReqNodeNotAvail with select_nodes' maintenance description
  kReasonFixedCount
};
inline constexpr const char* kNodesUnavailableText =
    "Nodes required for job are DOWN, DRAINED or reserved for jobs in higher priority partitions";

/// Something gang scheduling or preemption did to a job.
struct JobEvent {
  enum class Kind : std::uint8_t { kSuspend, kResume, kPreemptRequeue, kPreemptCancel, kPreemptGrace };
  std::int64_t at = 0;
  Kind kind = Kind::kSuspend;
  std::uint32_t by = 0;  // preemptions: the preemptor's job id (0 when gang's shadow did it)
};
const char* job_event_name(JobEvent::Kind kind);

/// kCancelled: the load's recorded scancel (RequestExtras::cancelled_at) ended it, pending
/// (start stays kNoTime) or running.
enum class EndState : std::uint8_t { kCompleted, kTimeout, kPreempted, kCancelled };

// The errors sbatch prints when slurmctld refuses a job (slurm_errno.c), by the check
// that raises them in job_mgr.c.
inline constexpr const char* kNoDefaultPartition = "No partition specified or system default partition";
inline constexpr const char* kAccessDenied = "Access/permission denied";  // RootOnly
/// Simulator::refusal's prefix for a job accepted but denied by every partition it names.
inline constexpr const char* kQueuedForEver = "accepted but never runnable (EnforcePartLimits=NO): ";
inline constexpr const char* kGroupDenied = "User's group not permitted to use this partition";
inline constexpr const char* kInvalidAccount = "Invalid account or account/partition combination specified";
inline constexpr const char* kInvalidQos = "Invalid qos specification";
inline constexpr const char* kPartitionNotAvail = "Required partition not available (inactive or drain)";
inline constexpr const char* kNodeConfigUnavailable = "Requested node configuration is not available";
inline constexpr const char* kPartConfigUnavailable = "Requested partition configuration not available now";
inline constexpr const char* kInvalidTaskMemory = "Memory required by task is not available";
inline constexpr const char* kInvalidTimeLimit = "Requested time limit is invalid (missing or exceeds some limit)";
inline constexpr const char* kInvalidNodeCount = "Node count specification invalid";
inline constexpr const char* kReservationInvalid = "Requested reservation is invalid";
inline constexpr const char* kReservationAccess = "Access denied to requested reservation";
inline constexpr const char* kInvalidFeature = "Invalid feature specification";
inline constexpr const char* kInvalidLicense = "Invalid license specification";
inline constexpr const char* kAccountingPolicy =
    "Job violates accounting/QOS policy (job submit limit, user's size and/or time limits)";

/// What few jobs ever set, behind one pointer in SimJob (SimJob::rare): a refusal, requeues,
/// gang scheduling and preemption, --switches and singleton bookkeeping, limits' run-time
/// accounting, dependencies on jobs of the load, an explained job's limits. Every job holding
/// these fields itself cost about 120 bytes a job.
struct JobRare {
  Atom reject_error;            // Slurm's own message for the refusal (slurm_errno.c), e.g. kInvalidQos
  Atom reject_reason;           // that message, ": ", and what in the job or site caused it
  double run_secs_done = 0;     // TRES-run-seconds already released by decay ticks
  double lost_cpu_seconds = 0;  // CPU time of runs cut short (DOWN node, preemption)
  std::uint32_t requeues = 0;   // times a DOWN node or a preemptor sent it back to the queue
  std::uint32_t suspends = 0;
  // Gang scheduling and preemption (job_mgr.c's suspend bookkeeping for the current run).
  std::int64_t suspend_time = kNoTime;   // last suspend or resume
  std::int64_t pre_sus_time = 0;         // seconds run before the last suspend
  std::int64_t tot_sus_time = 0;         // seconds suspended, all runs
  std::int64_t preempt_time = kNoTime;   // a preemptor signalled it (GraceTime running)
  std::int64_t preempt_start = kNoTime;  // as a preemptor: when it last preempted jobs
  // --switches (job_test.c _eval_nodes_topo): when the select plugin first placed it, or kNoTime.
  std::int64_t wait4switch_start = kNoTime;
  // The limit of the current run when backfill started it with its --time-min (seconds), or kNoTime.
  std::int64_t run_limit = kNoTime;
  std::int32_t name_group = -1;      // singleton bookkeeping: its (user, job name) group, or -1
  std::uint32_t name_pos = 0;        // and its place in that group (submit order)
  bool suspended = false;            // (with the suspend bookkeeping above)
  RareVec<LimitBlock> limit_blocks;  // explained jobs: each distinct limit that held them
  RareVec<std::int32_t> dep_jobs;    // per req.dependencies item: the job's index, or -1
  RareVec<JobEvent> events;          // what gang scheduling and preemption did to it
};

struct SimJob {
  // (Ordered by size: every job of a run is one of these, so padding costs megabytes.)
  JobRequest req;
  std::vector<SimRecord> recs;  // PriorityTier order, highest first
  Allocation alloc;
  std::int64_t begin = 0;         // eligible time
  std::int64_t accrue = kNoTime;  // accrue_time: age counts from here
  std::int64_t start = kNoTime, end = kNoTime;
  std::int64_t planned_end = kNoTime;  // start + the run time, cut at the time limit
  std::int64_t limit_end = kNoTime;    // Slurm's end_time: start + limit, reset at resume
  double billable = 0;
  PackedVec<ReasonSpan> reasons;  // every change, from submission on
  RareBox<JobRare> rare;          // read with rare.get(), written with rare.edit()
  std::uint32_t assoc = kNoAssoc;
  std::int32_t qos = -1;  // index into Site::qos
  std::uint32_t start_priority = 0;
  std::int32_t run_rec = -1;
  std::uint32_t user_id = 0, account_id = 0;  // Limits' interned ids
  std::int32_t resv = -1;                     // the advanced reservation it runs in, or -1
  std::uint16_t reason = kReasonNone;         // the Reason squeue would print now
  JobState state = JobState::kFuture;
  StartedBy started_by = StartedBy::kNone;
  EndState end_state = EndState::kCompleted;
  bool bf_tested = false;         // reached a backfill will-run test
  bool waits_on_deps = false;     // a dependency on a job of the load is not met yet
  bool bf_beyond_window = false;  // a backfill test found its start only past bf_window (so no reservation)
  std::int64_t expected_end() const { return limit_end; }  // what backfill plans with
  /// The factors it started with (started jobs only): a record is repriced only while its
  /// job is pending, so the run record still holds them (a requeue clears run_rec and start).
  const PriorityFactors& start_factors() const { return recs[static_cast<std::size_t>(run_rec)].factors; }
  /// The record it runs or ran in, or its first choice if it never started (needs records).
  const SimRecord& run_or_first_rec() const { return recs[static_cast<std::size_t>(run_rec >= 0 ? run_rec : 0)]; }
  /// The same, or nullptr for a job with no record (refused at submission).
  const SimRecord* run_or_first_rec_if_any() const { return recs.empty() ? nullptr : &run_or_first_rec(); }
  /// The load's scancel came before it started (EndState::kCancelled, never started here).
  bool cancelled_pending() const { return state == JobState::kDone && start == kNoTime; }
  /// Pending and eligible by `now`: what a scheduling pass may try (a requeued job waits for
  /// the BeginTime its requeue set).
  bool eligible_pending(std::int64_t now) const { return state == JobState::kPending && begin <= now; }
  /// When its wait ended: its start, else the load's scancel, else the run's end.
  std::int64_t waited_until(std::int64_t run_end) const {
    return start != kNoTime ? start : cancelled_pending() ? end : run_end;
  }
  /// Accepted, but every partition it names denies it (EnforcePartLimits=NO): it never starts.
  bool never_runs() const {
    return !recs.empty() &&
           std::all_of(recs.begin(), recs.end(), [](const SimRecord& r) { return engine::never_runs(r.hold_reason); });
  }
  /// Seconds it has run in its current run (suspended time excluded).
  std::int64_t ran(std::int64_t now) const;
  /// When its current stretch of running (or, while suspended, of being suspended) began:
  /// the last suspend or resume, else its start.
  std::int64_t stretch_start() const {
    const std::int64_t t = rare.get().suspend_time;
    return t != kNoTime ? t : start;
  }
};

struct SprioRow {
  std::uint32_t job_id = 0;
  std::string partition, user, account, qos;
  std::uint32_t priority = 0;
  PriorityFactors factors;  // unweighted
};

struct PendingSnapshot {
  std::int64_t at = 0;
  std::vector<SprioRow> rows;  // sprio's order: job id, then partition
};

struct SimCounters {
  std::uint64_t main_runs = 0, main_starts = 0, main_stopped_by_time = 0, main_stopped_by_depth = 0;
  std::uint64_t bf_cycles = 0, bf_starts = 0, bf_tests = 0, bf_reservations = 0;
  std::uint64_t bf_stopped_by_max_job_test = 0, bf_stopped_by_max_time = 0, bf_stopped_by_yield = 0,
                bf_stopped_by_node_space = 0, bf_stopped_by_max_job_start = 0;
  std::uint64_t bf_skipped_by_user_limit = 0, bf_no_resv_beyond_window = 0;
  std::uint64_t bf_queue_records = 0;  // queue records seen at cycle starts (mean depth = / bf_cycles)
  std::uint64_t priority_passes = 0, events = 0;
  std::uint64_t timeslices = 0, suspends = 0, resumes = 0, preempt_requeues = 0, preempt_cancels = 0;
  std::uint64_t mapped_partitions = 0, mapped_users = 0, mapped_qos = 0;
};

/// The most a node was asked to hold at once: the requested (or default) memory and the jobs
/// of everything allocated on it, running or suspended (suspended jobs stay resident).
struct NodePeak {
  std::uint32_t node = 0;       // Config::nodes index
  std::uint64_t mem_mb = 0;     // requested memory summed over its jobs at the peak
  std::int64_t at = 0;          // when that peak was first reached
  std::uint32_t jobs = 0;       // most jobs allocated at once
  std::uint32_t unbounded = 0;  // most jobs at once with no memory request or default
};

/// One backfill cycle: the queue it met and how far it got (the HTML report's coverage
/// chart; the counters only hold totals).
struct BackfillCycle {
  std::int64_t at = 0;
  std::uint32_t depth = 0;    // queue records at the cycle start
  std::uint32_t tested = 0;   // will-run tests
  std::uint32_t started = 0;  // jobs it started
  enum class Stop : std::uint8_t { kEnd, kMaxJobTest, kMaxTime, kYield, kNodeSpace, kMaxJobStart } stop = Stop::kEnd;
};

/// CPU-seconds per partition and time bucket, split by what the CPUs' jobs were doing.
struct PartitionTimeline {
  std::int64_t bucket = 3600;                           // seconds per bucket, from SimResult::start
  std::vector<std::vector<double>> running, suspended;  // [partition][bucket]
};

/// A run that stopped at the sim-steps limit: the span it covered and the jobs it left.
struct StepLimitStop {
  std::int64_t start = 0, end = 0;
  std::size_t pending = 0, running = 0, unsubmitted = 0;
  bool stalled = false;  // the clock stood still (SimResult::stalled), not the step bound
};

struct SimResult {
  std::vector<SimJob> jobs;  // workload order
  std::vector<PendingSnapshot> snapshots;
  SimCounters counters;
  // Every cycle that ran, in time order (a deque: a run of 100,000 jobs logs 80,000 cycles,
  // which a doubling vector would hold in up to twice the memory).
  std::deque<BackfillCycle> bf_log;
  std::int64_t start = 0, end = 0;
  std::uint64_t steps = 0;           // scheduling steps the run took (Site::max_sim_steps bounds them)
  bool step_limit = false;           // the run stopped at `end` because it reached that bound
  bool stalled = false;              // ... or because its clock stood still (SimOptions::still_events)
  bool cancelled = false;            // SimOptions::cancel stopped it before its end
  std::vector<long double> usage;    // final raw usage per association
  std::vector<double> target_share;  // per association (classic product of shares)
  std::int64_t epoch_offset = 0;
  /// Allocations number nodes in selection order; this maps them to Config::nodes.
  std::vector<std::uint32_t> node_config_index;
  std::uint32_t config_node(std::uint32_t internal) const { return node_config_index[internal]; }
  std::vector<std::string> reason_names;                   // SimJob::reason and ReasonSpan::reason index this
  std::vector<std::string> reason_details{std::string()};  // ReasonSpan::detail indexes this
  // CPU-seconds the run lost to maintenance reservations (MAINT windows) and to nodes
  // DOWN or DRAINED by node events, within [start, end].
  double maint_cpu_seconds = 0, unavailable_cpu_seconds = 0;
  std::vector<NodePeak> node_peaks;     // nodes that held a job, Config order
  double preempt_lost_cpu_seconds = 0;  // work lost to requeue and cancel preemption
  PartitionTimeline timeline;
  bool sharing = false;  // jobs could share CPUs (FORCE/YES partitions or gang)
  const std::string& reason_name(std::uint16_t id) const { return reason_names[id]; }
  const std::string& reason_detail(const ReasonSpan& s) const { return reason_details[s.detail]; }
  std::optional<StepLimitStop> step_limit_stop() const {
    if (!step_limit) return std::nullopt;
    StepLimitStop s{start, end};
    s.stalled = stalled;
    for (const SimJob& j : jobs) {
      s.pending += j.state == JobState::kPending;
      s.running += j.state == JobState::kRunning;
      s.unsubmitted += j.state == JobState::kFuture;
    }
    return s;
  }
};

}  // namespace sa::engine
