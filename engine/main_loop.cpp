// The main scheduling loop (job_scheduler.c _schedule; algorithms.md §5): records in queue
// order, depth limits, max_sched_time in simulated decisions, and the rule that the first
// record that cannot start fails its partition and takes that partition's nodes away from
// every later record of this run.
#include <algorithm>

#include <fmt/format.h>

#include "engine/simulator.h"

namespace sa::engine {

void Simulator::main_loop(bool full) {
  ++result_.counters.main_runs;
  queue_sort();
  const SchedulerSettings& s = conf_.scheduler;
  const std::size_t np = conf_.partitions.size();
  std::vector<char> failed(np, 0);
  std::vector<std::int64_t> part_depth(np, 0);
  std::vector<std::uint32_t> failed_by(np, 0);  // the job that failed each partition
  std::vector<char> failed_resv(resv_ ? resv_->list().size() : 0, 0);
  std::size_t failed_count = 0;
  NodeBitset avail = pool_.usable();
  std::int64_t depth = 0;
  std::uint64_t decisions = 0, started = 0;
  const double budget_us = static_cast<double>(s.max_sched_time) * 1e6;
  Allocation alloc;
  for (std::size_t qi = 0; qi < queue_.size(); ++qi) {
    const QueueEntry e = queue_[qi];
    SimJob& job = jobs_[e.job];
    if (job.state != JobState::kPending) continue;  // started through another record
    const SimRecord& rec = job.recs[e.rec];
    if (static_cast<double>(decisions) * opt_.main_decision_cost_us >= budget_us) {
      ++result_.counters.main_stopped_by_time;
      break;
    }
    if (s.sched_max_job_start > 0 && started >= static_cast<std::uint64_t>(s.sched_max_job_start)) break;
    if (s.partition_job_depth > 0 && ++part_depth[rec.part] > s.partition_job_depth) {
      if (job.reason == kReasonNone) set_reason(job, kReasonPriority);
      continue;
    }
    // Event-triggered runs stop after default_queue_depth records; the count includes
    // records of partitions that have already failed.
    if (!full && depth++ > s.default_queue_depth) {
      ++result_.counters.main_stopped_by_depth;
      break;
    }
    ++decisions;
    if (failed[rec.part] && job.resv < 0) {
      // A job behind the one that failed its partition: Priority, unless it already shows
      // something more specific. (Reservation jobs answer to their reservation instead.)
      if (job.reason == kReasonNone || job.reason == kReasonResources || job.reason == kReasonNodesUnavailable) {
        set_reason(job, kReasonPriority,
                   explained(job) ? fmt::format("partition {} held for job {}, ahead in the queue and unable to start",
                                                conf_.partitions[rec.part].name, failed_by[rec.part])
                                  : std::string());
      }
      continue;
    }
    // Limit-blocked jobs are skipped without failing the partition (unless assoc_limit_stop).
    if (!limits_allow(job, rec)) {
      if (!s.assoc_limit_stop) continue;
      failed[rec.part] = 1;
      avail.subtract(part_nodes_[rec.part]);
      if (++failed_count == np) break;
      continue;
    }
    // license_job_test: a job whose licences are in use is passed over (not failing its
    // partition), Reason Licenses.
    if (!job.req.licenses.empty() && !licenses_free(job)) {
      set_reason(job, reason_id("Licenses"));
      continue;
    }
    NodeBitset allowed = record_nodes(rec);
    allowed &= avail;
    bool ok = false;
    if (allowed.count() >= rec.demand.min_nodes) {
      if (job.resv >= 0) {
        // A reservation job: only its reservation's nodes while it is active; a failure
        // holds back that reservation's later jobs, not the partition.
        if (failed_resv[static_cast<std::size_t>(job.resv)]) {
          set_reason(job, kReasonPriority);
          continue;
        }
        if (!resv_->active(job.resv, now_)) {
          set_reason(job, kReasonReservation);
          continue;
        }
        apply_reservations(job, rec, allowed);
        if (place(job, rec, allowed, &alloc)) {
          start_job(e.job, e.rec, alloc, StartedBy::kMain);
          ++started;
        } else {
          set_reason(job, kReasonResources, explained(job) ? resources_detail(rec, allowed) : std::string());
          failed_resv[static_cast<std::size_t>(job.resv)] = 1;
        }
        continue;
      }
      const NodeBitset before = allowed;
      apply_reservations(job, rec, allowed);
      ok = place(job, rec, allowed, &alloc);
      if (!ok && try_preempt(e.job, e.rec, allowed, StartedBy::kMain)) {
        ++started;
        continue;
      }
      if (!ok && resv_ && resv_->maint_covers(part_nodes_[rec.part], now_, now_ + plan_limit(rec))) {
        // Every node of the partition is in a maintenance window the job would run into:
        // ESLURM_RESERVATION_MAINT, which skips the job without failing the partition.
        set_reason(job, kReasonMaintenance,
                   explained(job) ? "a MAINT reservation covers every node of the partition within the job's time limit"
                                  : std::string());
        continue;
      }
      if (!ok) {
        std::string detail;
        if (explained(job)) {
          detail = resources_detail(rec, before);
          if (!(allowed == before))
            detail += "; nodes in advanced reservations its time limit would overlap are kept off";
        }
        set_reason(job, kReasonResources, detail);
      }
    } else {
      set_reason(job, kReasonNodesUnavailable);
    }
    if (ok) {
      start_job(e.job, e.rec, alloc, StartedBy::kMain);
      ++started;
      continue;
    }
    // Jobs younger than bf_min_age_reserve or below bf_min_prio_reserve do not block.
    if (s.bf_min_age_reserve > 0 && now_ - job.begin < s.bf_min_age_reserve) continue;
    if (s.bf_min_prio_reserve > 0 && rec.priority < static_cast<std::uint64_t>(s.bf_min_prio_reserve)) continue;
    failed[rec.part] = 1;
    failed_by[rec.part] = job.req.id;
    avail.subtract(part_nodes_[rec.part]);
    // Once every partition has failed nothing else can start in this run.
    if (++failed_count == np) break;
  }
}

std::string Simulator::resources_detail(const SimRecord& rec, const NodeBitset& allowed) const {
  std::uint64_t free = 0, total = 0;
  std::uint32_t idle = 0;
  const PoolState& st = pool_.state();
  part_nodes_[rec.part].for_each([&](std::size_t n) {
    total += st.nodes[n].cpus_total;
    if (!allowed.test(n)) return;
    free += st.nodes[n].cpus_free;
    idle += st.nodes[n].idle();
  });
  return fmt::format("needs {} CPUs on at least {} node(s){}; partition {} has {} of {} CPUs free, {} idle node(s)",
                     rec.demand.cpus, rec.demand.min_nodes, rec.demand.whole_nodes ? " (whole nodes)" : "",
                     conf_.partitions[rec.part].name, free, total, idle);
}

}  // namespace sa::engine
