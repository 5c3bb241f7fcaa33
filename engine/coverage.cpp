#include "engine/coverage.h"

#include <algorithm>

namespace sa::engine {

const PartitionCoverage* LoadCoverage::find(const std::string& partition) const {
  for (const PartitionCoverage& p : partitions) {
    if (p.name == partition) return &p;
  }
  return nullptr;
}

namespace {

std::string partition_name(const SimJob& job, const Config& config) {
  if (!job.recs.empty()) return config.partitions[job.run_or_first_rec().part].name;
  if (!job.req.partitions.empty()) {
    const Partition* p = config.find_partition(job.req.partitions.front());
    return p ? p->name : job.req.partitions.front().str();
  }
  const Partition* d = config.default_partition();
  return d ? d->name : std::string("(none)");
}

void count(PartitionCoverage& c, const SimJob& job, const SlurmVersion& version) {
  ++c.offered;
  if (job.state == JobState::kRejected) {
    ++c.refused;
    const JobRare& r = job.rare.get();
    ++c.refused_reasons[r.reject_error.empty() ? r.reject_reason : r.reject_error];
  } else if (job.start != kNoTime) {
    ++c.started;
  } else if ((job.state == JobState::kPending || job.state == JobState::kDone) && job.never_runs()) {
    // Accepted under EnforcePartLimits=NO and denied by every partition it names: Slurm keeps
    // it pending for ever. For what the load tells about the site it is as good as refused,
    // and counted so, under its Reason.
    ++c.refused;
    const HoldReason h = job.recs.front().hold_reason;
    ++c.refused_reasons[std::string(hold_reason_name(h, version)) +
                        (h == HoldReason::kBadConstraints ? " (accepted while held, never runs)"
                                                          : " (accepted under EnforcePartLimits=NO, never runs)")];
  } else if (job.state == JobState::kPending) {
    ++c.pending_at_end;
  } else if (job.cancelled_pending()) {
    ++c.cancelled;  // cancelled before it started, as the load recorded
  }
}

}  // namespace

LoadCoverage load_coverage(const SimResult& result, const Config& config) {
  LoadCoverage out;
  std::map<std::string, PartitionCoverage> by_name;
  for (const SimJob& job : result.jobs) {
    // Jobs after the run's end were never offered; jobs before its start are not replayed.
    if (job.req.submit > result.end || job.req.submit < result.start) continue;
    if (job.state == JobState::kFuture) continue;
    const std::string name = partition_name(job, config);
    PartitionCoverage& c = by_name[name];
    c.name = name;
    count(c, job, config.version);
    count(out.total, job, config.version);
  }
  for (const Partition& p : config.partitions) {
    auto it = by_name.find(p.name);
    if (it == by_name.end()) continue;
    out.partitions.push_back(std::move(it->second));
    by_name.erase(it);
  }
  for (auto& [name, c] : by_name) out.partitions.push_back(std::move(c));  // names the site lacks, sorted
  return out;
}

}  // namespace sa::engine
