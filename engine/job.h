#pragma once
// A job as the engine sees it: what was asked for (JobRequest, from a trace or the synthetic
// generator) and what happened to it in the simulation (Job). Times are integer seconds in
// the workload's own time base (epoch for sacct dumps, trace-relative for SWF).
#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/licenses.h"
#include "engine/core/atom.h"
#include "engine/core/packed_vec.h"
#include "engine/core/rare_box.h"
#include "engine/core/rare_vec.h"

namespace sa::engine {

constexpr std::int64_t kNoTime = -1;

/// One item of --dependency (job_scheduler.c update_job_dependency): TYPE:JOBID[+MINUTES],
/// or singleton (no job id). A bare job id (the old format) is afterany.
enum class DependencyType { kAfter, kAfterAny, kAfterOk, kAfterNotOk, kAfterCorr, kAfterBurstBuffer, kSingleton };

struct Dependency {
  DependencyType type = DependencyType::kAfterAny;
  std::uint32_t job_id = 0;  // 0 for singleton
  std::int64_t delay = 0;    // seconds ('+MINUTES' x 60) after the condition holds; 0 = none
  bool operator==(const Dependency&) const = default;
};

/// What most loads leave unset in a request (SWF and synthetic loads never set it), behind
/// one pointer in JobRequest: the recorded request's shape (sacct columns and SubmitLine,
/// docs/workloads.md), -C/-w/-x, --switches and what a trace recorded. Every default means
/// "not given"; JobRequest::nodes is the minimum of -N min-max.
struct RequestExtras {
  std::uint32_t ntasks = 0;            // -n/--ntasks (NTasks)
  std::uint32_t ntasks_per_node = 0;   // --ntasks-per-node
  std::uint32_t cpus_per_task = 0;     // -c/--cpus-per-task (Slurm's default is 1)
  std::uint32_t max_nodes = 0;         // the max of -N min-max
  std::uint32_t gpus_per_node = 0;     // --gres=gpu:N or --gpus-per-node=N
  std::uint32_t cpus_per_gpu = 0;      // --cpus-per-gpu
  std::uint64_t mem_per_gpu = 0;       // --mem-per-gpu, MB
  std::uint32_t switches = 0;          // --switches=COUNT: the most leaf switches wanted (topology/tree); 0 = any
  std::int64_t switch_wait = kNoTime;  // --switches=COUNT@MAX_TIME's MAX_TIME, seconds; kNoTime = not given
  Atom constraint;                     // -C/--constraint (Constraints) as written; parse_constraint() at bind
  Atom nodelist, exclude;              // -w/--nodelist and -x/--exclude hostlists as written
  // What the trace recorded, for replay comparisons; kNoTime when unknown.
  std::int64_t recorded_start = kNoTime;
  std::int64_t recorded_priority = -1;
  // The recorded scancel of a job that never started (sacct CANCELLED without a Start): the
  // job leaves the queue then, and a run the simulation starts earlier ends then.
  std::int64_t cancelled_at = kNoTime;
  // A job array's task (sacct's JobID 123_4, SubmitLine --array=...%N): slurmctld keeps the
  // tasks that have not started yet in one queue record (the array's meta record).
  std::uint32_t array_job_id = 0;   // the array's id (123); 0 = not an array task
  std::uint32_t array_task_id = 0;  // the task's id (4)
  std::uint32_t array_max_run = 0;  // --array's %N: at most N tasks run at once; 0 = no limit
  // --time-min (whole minutes, in seconds): backfill tests, plans and starts the job with
  // this as its limit (the main loop uses the full one); kNoTime = not given.
  std::int64_t time_min = kNoTime;
};

// (Fields are grouped by size so that the struct has no padding to speak of: the workload
// and every simulated job hold a copy.)
struct JobRequest {
  std::uint32_t id = 0;
  std::int32_t nice = 0;
  std::int64_t submit = 0;
  std::int64_t eligible = kNoTime;    // --begin or the Eligible column; kNoTime = at submit
  std::int64_t run_time = 0;          // how long it runs when it starts (killed at its limit)
  std::int64_t time_limit = kNoTime;  // seconds; kNoTime = the partition's DefaultTime/MaxTime
  std::uint32_t cpus = 1;             // total CPUs (ntasks x cpus-per-task)
  std::uint32_t nodes = 0;            // requested node count; 0 = as many as the CPUs need
  std::uint32_t cpus_per_node = 0;    // --ntasks-per-node x --cpus-per-task; 0 = packed
  std::uint32_t gpus = 0;             // total GPUs (gres/gpu)
  std::uint64_t mem_mb = 0;           // 0 = the partition/cluster default
  bool mem_per_cpu = false;           // mem_mb is per CPU (else per node)
  bool mem_set = false;               // the request named a memory size (--mem=0 included)
  bool exclusive = false;             // --exclusive
  bool oversubscribe = false;         // --oversubscribe (shares CPUs in an OverSubscribe=YES partition)
  bool dependency_any = false;        // dependencies joined by '?': any one is enough (else all)
  bool hold = false;                  // -H/--hold: submitted held (priority 0 until released)
  bool licenses_any = false;          // licenses NAME|NAME2 (25.05+): any one of them
  bool begin_set = false;             // --begin was given (the time itself is `eligible`)
  bool fails = false;                 // the recorded run failed (FAILED, OUT_OF_MEMORY): afterok never, afternotok yes
  int line = 0;                       // source line, for diagnostics
  PackedVec<Atom> partitions;         // empty = the default partition
  // Names are interned (Atom): they repeat across a load, and every job holds them.
  Atom user, account, qos;
  Atom group;                        // the user's Unix group, where known (sacct's Group); AllowGroups
  Atom reservation;                  // --reservation (sacct's Reservation column)
  Atom name;                         // -J/--job-name (sacct's JobName), for --dependency=singleton
  RareVec<Dependency> dependencies;  // -d/--dependency
  RareVec<License> licenses;         // -L/--licenses (or ReqTRES license/NAME=N)
  RareBox<RequestExtras> extra;      // read with extra.get(), written with extra.edit()
};

/// The job as sacct's JobID and squeue name it: 123_4 for an array task, else its id.
inline std::string job_label(const JobRequest& r) {
  const RequestExtras& x = r.extra.get();
  if (!x.array_job_id) return std::to_string(r.id);
  return std::to_string(x.array_job_id) + "_" + std::to_string(x.array_task_id);
}

enum class JobState : std::uint8_t { kFuture, kPending, kRunning, kDone, kRejected };
enum class StartedBy : std::uint8_t { kNone, kMain, kBackfill };

/// The priority factors of one (job x partition) record, unweighted, as sprio -n shows them.
struct PriorityFactors {
  double age = 0, assoc = 0, fairshare = 0, job_size = 0, partition = 0, qos = 0;
  PackedVec<double> tres;  // parallel to PrioritySettings::weight_tres
  std::int64_t site = 0, nice = 0;
};

}  // namespace sa::engine
