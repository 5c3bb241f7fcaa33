#include "engine/probe/counter_probe.h"

#include <utility>

namespace sa::engine {

void CounterProbe::mapped(MappedName what) {
  switch (what) {
    case MappedName::kPartition:
      ++c_.mapped_partitions;
      break;
    case MappedName::kUser:
      ++c_.mapped_users;
      break;
    case MappedName::kQos:
      ++c_.mapped_qos;
      break;
  }
}

void CounterProbe::main_run(MainStop stop) {
  ++c_.main_runs;
  if (stop == MainStop::kMaxSchedTime) ++c_.main_stopped_by_time;
  if (stop == MainStop::kQueueDepth) ++c_.main_stopped_by_depth;
}

void CounterProbe::backfill(const BackfillTally& t) {
  const BackfillCycle& c = t.cycle;
  ++c_.bf_cycles;
  c_.bf_queue_records += c.depth;
  c_.bf_tests += c.tested;
  c_.bf_reservations += t.reservations;
  c_.bf_skipped_by_user_limit += t.skipped_by_user_limit;
  c_.bf_no_resv_beyond_window += t.no_resv_beyond_window;
  switch (c.stop) {
    case BackfillCycle::Stop::kEnd:
      break;
    case BackfillCycle::Stop::kMaxJobTest:
      ++c_.bf_stopped_by_max_job_test;
      break;
    case BackfillCycle::Stop::kMaxTime:
      ++c_.bf_stopped_by_max_time;
      break;
    case BackfillCycle::Stop::kYield:
      ++c_.bf_stopped_by_yield;
      break;
    case BackfillCycle::Stop::kNodeSpace:
      ++c_.bf_stopped_by_node_space;
      break;
    case BackfillCycle::Stop::kMaxJobStart:
      ++c_.bf_stopped_by_max_job_start;
      break;
  }
  bf_log_.push_back(c);
}

void CounterProbe::started(StartedBy by) {
  if (by == StartedBy::kMain)
    ++c_.main_starts;
  else
    ++c_.bf_starts;
}

void CounterProbe::preempted(bool requeued, double lost_cpu_seconds) {
  preempt_lost_cpu_seconds_ += lost_cpu_seconds;
  if (requeued)
    ++c_.preempt_requeues;
  else
    ++c_.preempt_cancels;
}

void CounterProbe::finish(SimResult& result) {
  result.counters = c_;
  result.bf_log = std::move(bf_log_);
  result.preempt_lost_cpu_seconds = preempt_lost_cpu_seconds_;
}

}  // namespace sa::engine
