#include "engine/probe/run_probes.h"

#include <algorithm>

#include "engine/simulator.h"

namespace sa::engine {

void RunProbes::start(std::int64_t start, std::int64_t bucket, std::size_t partitions) {
  start_ = start;
  bucket_ = bucket;
  running_.assign(partitions, {});
  suspended_.assign(partitions, {});
}

void RunProbes::size_nodes(std::size_t nodes) {
  mem_now_.assign(nodes, 0);
  jobs_now_.assign(nodes, 0);
  unbounded_now_.assign(nodes, 0);
  peaks_.assign(nodes, NodePeak{});
}

void RunProbes::allocation(const SimJob& job, bool add, bool unbounded, std::int64_t now) {
  for (const AllocPiece& p : job.alloc.pieces) {
    if (add) {
      mem_now_[p.node] += p.mem_req;
      ++jobs_now_[p.node];
      unbounded_now_[p.node] += unbounded;
      NodePeak& peak = peaks_[p.node];
      if (mem_now_[p.node] > peak.mem_mb) {
        peak.mem_mb = mem_now_[p.node];
        peak.at = now;
      }
      peak.jobs = std::max(peak.jobs, jobs_now_[p.node]);
      peak.unbounded = std::max(peak.unbounded, unbounded_now_[p.node]);
    } else {
      mem_now_[p.node] -= std::min(mem_now_[p.node], p.mem_req);
      if (jobs_now_[p.node]) --jobs_now_[p.node];
      if (unbounded && unbounded_now_[p.node]) --unbounded_now_[p.node];
    }
  }
}

void RunProbes::interval(const SimJob& job, std::int64_t from, std::int64_t to, bool was_suspended) {
  if (job.run_rec < 0 || to <= from || from == kNoTime) return;
  std::vector<double>& row =
      (was_suspended ? suspended_ : running_)[job.recs[static_cast<std::size_t>(job.run_rec)].part];
  const double cpus = job.alloc.cpus();
  for (std::int64_t at = from; at < to;) {
    const std::int64_t b = (at - start_) / bucket_;
    const std::int64_t bucket_end = start_ + (b + 1) * bucket_;
    const std::int64_t until = std::min(to, bucket_end);
    if (b >= 0) {
      if (row.size() <= static_cast<std::size_t>(b)) row.resize(static_cast<std::size_t>(b) + 1, 0.0);
      row[static_cast<std::size_t>(b)] += cpus * static_cast<double>(until - at);
    }
    at = until;
  }
}

void RunProbes::finish(const NodePool& pool, std::size_t config_nodes, SimResult& result) {
  result.timeline.bucket = bucket_;
  result.timeline.running = std::move(running_);
  result.timeline.suspended = std::move(suspended_);
  result.node_peaks.clear();
  for (std::uint32_t c = 0; c < config_nodes; ++c) {
    NodePeak p = peaks_[pool.internal_index(c)];
    if (p.jobs == 0) continue;
    p.node = c;
    result.node_peaks.push_back(p);
  }
}

}  // namespace sa::engine
