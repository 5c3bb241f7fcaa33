// The main scheduling loop (job_scheduler.c _schedule; algorithms.md §5): records in queue
// order, depth limits, max_sched_time in simulated decisions, and the rule that the first
// record that cannot start fails its partition and takes that partition's nodes away from
// every later record of this run.
#include <algorithm>

#include <fmt/format.h>

#include "engine/simulator.h"

namespace sa::engine {

constexpr std::uint32_t kNoJob = 0xFFFFFFFF;  // MainRun::failed_by: no job named

// One main-loop run's locals (job_scheduler.c _schedule): failed partitions and
// reservations, depth counts and the decisions made so far.
struct Simulator::MainRun {
  std::vector<char> failed;              // per partition
  std::vector<std::int64_t> part_depth;  // records seen per partition
  std::vector<std::uint32_t> failed_by;  // the job (index) that failed each partition; kNoJob: none named
  std::vector<char> failed_resv;         // per reservation
  NodeBitset avail;
  std::int64_t depth = 0;
  std::uint64_t decisions = 0, started = 0;
  MainStop stop = MainStop::kEnd;
};

void Simulator::main_loop(bool full) {
  settle_limit_reasons();
  queue_sort();
  steps_ += queue_.size() + 1;
  const std::size_t np = conf_.partitions.size();
  MainRun run;
  run.failed.assign(np, 0);
  run.part_depth.assign(np, 0);
  run.failed_by.assign(np, kNoJob);
  run.failed_resv.assign(resv_ ? resv_->list().size() : 0, 0);
  run.avail = pool_.usable();
  Allocation alloc;
  ArrayWalk arrays(arrays_);
  for (std::size_t qi = 0; qi < queue_.size(); ++qi) {
    const QueueEntry e = queue_[qi];
    SimJob& job = jobs_[e.job];
    // Started through another record, or requeued since the queue was sorted: its entry
    // waits for the BeginTime the requeue set (gang can requeue a job the moment this loop
    // starts it, and a live stale entry would start it again in the same run, endlessly).
    if (!job.eligible_pending(now_)) continue;
    ArrayWalk::Step as = ArrayWalk::Step::kNotArray;
    if (arrays_.any()) {
      std::uint16_t head_reason = kReasonNone;
      bool tested = false;
      as = arrays.step(job, e.job, job.recs[e.rec].part, head_reason, tested);
      if (as == ArrayWalk::Step::kSkip) {  // not a record of its own: it shows the record's Reason
        if (!array_throttled(job)) set_reason(job, head_reason);
        continue;
      }
    }
    const bool go_on = main_record(run, e, full, as != ArrayWalk::Step::kNotArray, alloc);
    if (as != ArrayWalk::Step::kNotArray) arrays.outcome(job, job.state == JobState::kRunning, false, false, false);
    if (!go_on) break;
  }
  counts_.main_run(run.stop);
}

bool Simulator::main_record(MainRun& run, const QueueEntry& e, bool full, bool array_task, Allocation& alloc) {
  const SchedulerSettings& s = conf_.scheduler;
  SimJob& job = jobs_[e.job];
  const SimRecord& rec = job.recs[e.rec];
  const MainStep gate = main_gate(run, job, rec, full, array_task);
  if (gate == MainStep::kStop) return false;
  if (gate == MainStep::kNext) return true;
  if (main_try(run, e, alloc) != MainStep::kTry) return true;
  // A job whose -w nodes cover its node count does not fail its partition: only its nodes
  // are kept from the rest of the run (job_scheduler.c, req_node_bitmap).
  if (const NodeBitset* req = rec.demand.required; req && req->count_at_least(rec.demand.min_nodes)) {
    run.avail.subtract(*req);
    return true;
  }
  // Jobs younger than bf_min_age_reserve or below bf_min_prio_reserve do not block.
  if (s.bf_min_age_reserve > 0 && now_ - job.begin < s.bf_min_age_reserve) return true;
  if (s.bf_min_prio_reserve > 0 && rec.priority < static_cast<std::uint64_t>(s.bf_min_prio_reserve)) return true;
  main_fail_partition(run, rec.part, e.job);
  return true;
}

Simulator::MainStep Simulator::main_gate(MainRun& run, SimJob& job, const SimRecord& rec, bool full, bool array_task) {
  const SchedulerSettings& s = conf_.scheduler;
  if (static_cast<double>(run.decisions) * opt_.main_decision_cost_us >= static_cast<double>(s.max_sched_time) * 1e6) {
    run.stop = MainStop::kMaxSchedTime;
    return MainStep::kStop;
  }
  if (s.sched_max_job_start > 0 && run.started >= static_cast<std::uint64_t>(s.sched_max_job_start)) {
    return MainStep::kStop;
  }
  // job_array_start_test: --array's %N tasks already run (before any depth is counted).
  if (array_task && array_throttled(job)) return MainStep::kNext;
  if (s.partition_job_depth > 0 && ++run.part_depth[rec.part] > s.partition_job_depth) {
    if (job.reason == kReasonNone) set_reason(job, kReasonPriority);
    return MainStep::kNext;
  }
  // Event-triggered runs stop after default_queue_depth records; the count includes
  // records of partitions that have already failed.
  if (!full && run.depth++ > s.default_queue_depth) {
    run.stop = MainStop::kQueueDepth;
    return MainStep::kStop;
  }
  ++run.decisions;
  if (run.failed[rec.part] && job.resv < 0) {
    // A job behind the one that failed its partition: Priority, unless it already shows
    // something more specific. (Reservation jobs answer to their reservation instead.)
    if (job.reason == kReasonNone || job.reason == kReasonResources || job.reason == kReasonNodesUnavailable) {
      const std::uint32_t by = run.failed_by[rec.part];
      set_reason(job, kReasonPriority,
                 !explained(job) ? std::string()
                 : by == kNoJob
                     ? fmt::format("partition {} held after a job at its association limit (assoc_limit_stop)",
                                   conf_.partitions[rec.part].name)
                     : fmt::format("partition {} held for job {}, ahead in the queue and unable to start",
                                   conf_.partitions[rec.part].name, job_label(jobs_[by].req)));
    }
    return MainStep::kNext;
  }
  // Limit-blocked jobs are skipped without failing the partition (unless assoc_limit_stop,
  // which fails it without naming the job).
  if (!limits_allow(job, rec)) {
    if (!s.assoc_limit_stop) return MainStep::kNext;
    main_fail_partition(run, rec.part, run.failed_by[rec.part]);
    return MainStep::kNext;
  }
  // license_job_test: a job whose licences are in use is passed over (not failing its
  // partition), Reason Licenses.
  if (!job.req.licenses.empty() && !licenses_free(job)) {
    set_reason(job, reason_id("Licenses"));
    return MainStep::kNext;
  }
  return MainStep::kTry;
}

// kNext when the job started or was passed over; kTry when it could not start and so may
// fail its partition.
Simulator::MainStep Simulator::main_try(MainRun& run, const QueueEntry& e, Allocation& alloc) {
  SimJob& job = jobs_[e.job];
  const SimRecord& rec = job.recs[e.rec];
  steps_ += step_nodes_;
  NodeBitset allowed = record_nodes(rec);
  allowed &= run.avail;
  if (allowed.count() < rec.demand.min_nodes) {
    set_reason(job, kReasonNodesUnavailable);
    return MainStep::kTry;
  }
  // A record the partition's access lists deny reaches select_nodes, whose first checks
  // refuse it (ESLURM_REQUESTED_PART_CONFIG_UNAVAILABLE): no start, no failed partition, and
  // the Reason hold_reason_text gives. A released held job no node set can take fails
  // select_nodes' node tests instead, and _schedule sets FAIL_BAD_CONSTRAINTS
  // (BadConstraints), again without failing the partition.
  if (never_runs(rec.hold_reason)) {
    set_reason(job, reason_id(hold_reason_text(job, rec)));
    return MainStep::kNext;
  }
  if (job.resv >= 0) {
    main_try_in_reservation(run, e, allowed, alloc);
    return MainStep::kNext;
  }
  const NodeBitset before = allowed;
  apply_reservations(job, rec, allowed);
  if (place(job, rec, allowed, &alloc)) {
    start_job(e.job, e.rec, alloc, StartedBy::kMain);
    ++run.started;
    return MainStep::kNext;
  }
  if (try_preempt(e.job, e.rec, allowed, StartedBy::kMain)) {
    ++run.started;
    return MainStep::kNext;
  }
  if (resv_ && resv_->maint_covers(part_nodes_[rec.part], now_, now_ + plan_limit(rec))) {
    // Every node of the partition is in a maintenance window the job would run into:
    // ESLURM_RESERVATION_MAINT, which skips the job without failing the partition.
    set_reason(job, kReasonMaintenance,
               explained(job) ? "a MAINT reservation covers every node of the partition within the job's time limit"
                              : std::string());
    return MainStep::kNext;
  }
  std::string detail;
  if (explained(job)) {
    detail = resources_detail(rec, before);
    if (!(allowed == before)) detail += "; nodes in advanced reservations its time limit would overlap are kept off";
  }
  set_reason(job, kReasonResources, detail);
  return MainStep::kTry;
}

void Simulator::main_try_in_reservation(MainRun& run, const QueueEntry& e, NodeBitset& allowed, Allocation& alloc) {
  SimJob& job = jobs_[e.job];
  const SimRecord& rec = job.recs[e.rec];
  const auto resv = static_cast<std::size_t>(job.resv);
  if (run.failed_resv[resv]) {
    set_reason(job, kReasonPriority);
    return;
  }
  if (!resv_->active(job.resv, now_)) {
    set_reason(job, kReasonReservation);
    return;
  }
  apply_reservations(job, rec, allowed);
  if (place(job, rec, allowed, &alloc)) {
    start_job(e.job, e.rec, alloc, StartedBy::kMain);
    ++run.started;
  } else {
    set_reason(job, kReasonResources, explained(job) ? resources_detail(rec, allowed) : std::string());
    run.failed_resv[resv] = 1;
  }
}

// The run goes on when every partition has failed: _schedule walks the rest of the queue
// and gives the jobs behind Reason=Priority (job_scheduler.c, the _failed_partition branch),
// which squeue shows; only the time and depth limits end a run early.
void Simulator::main_fail_partition(MainRun& run, std::uint32_t part, std::uint32_t by) {
  run.failed[part] = 1;
  run.failed_by[part] = by;
  run.avail.subtract(part_nodes_[part]);
}

std::string Simulator::resources_detail(const SimRecord& rec, const NodeBitset& allowed) const {
  const Demand& d = rec.demand;
  std::uint64_t free = 0, total = 0, gpus_free = 0, gpus_total = 0;
  std::uint32_t idle = 0, gpu_nodes = 0, gpu_givers = 0;
  const PoolState& st = pool_.state();
  part_nodes_[rec.part].for_each([&](std::size_t n) {
    const NodeResources& r = st.nodes[n];
    total += r.cpus_total;
    gpus_total += r.gpus_total;
    if (!allowed.test(n)) return;
    free += r.cpus_free;
    idle += r.idle();
    if (r.gpus_free == 0) return;
    gpus_free += r.gpus_free;
    ++gpu_nodes;
    gpu_givers += pool_.capacity(r, d) > 0;  // a GPU's CPUs and memory free beside it
  });
  std::string need, has;
  if (d.gpus) {
    // A GPU job waits on GPUs, and on the CPUs and memory each GPU brings (apply_gpu_defaults):
    // the CPU count alone would read as if it could start.
    std::string per;
    if (d.cpus_per_gpu) per = fmt::format("{} CPUs", d.cpus_per_gpu);
    if (d.mem_per_gpu && d.mem_tracked) per += fmt::format("{}{} MB", per.empty() ? "" : " and ", d.mem_per_gpu);
    need = fmt::format(" and {} GPUs{}", d.gpus, per.empty() ? "" : fmt::format(" ({} a GPU)", per));
    has = fmt::format(", {} of {} GPUs free on {} node(s)", gpus_free, gpus_total, gpu_nodes);
    if (!per.empty()) has += fmt::format(" ({} of them with a GPU's {} free)", gpu_givers, per);
  }
  return fmt::format("needs {} CPUs{} on at least {} node(s){}; partition {} has {} of {} CPUs free{}, {} idle node(s)",
                     d.cpus, need, d.min_nodes, d.whole_nodes ? " (whole nodes)" : "", conf_.partitions[rec.part].name,
                     free, total, has, idle);
}

}  // namespace sa::engine
