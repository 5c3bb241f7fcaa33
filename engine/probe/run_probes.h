#pragma once
// Probes observe a run and change nothing in it: fed by the cluster's job events (an
// allocation made or released, a stretch of running or suspended time closed), they build
// what reports read afterwards: CPU time per partition over time, and each node's peak of
// requested memory and resident jobs (what gang scheduling and oversubscription stack up).
#include <cstdint>
#include <vector>

#include "engine/resources.h"

namespace sa::engine {

struct SimJob;
struct SimResult;
struct PartitionTimeline;
struct NodePeak;

class RunProbes {
 public:
  /// A run over `partitions` starting at `start`, timeline buckets of `bucket` seconds, on
  /// `nodes` nodes (internal numbering).
  void start(std::int64_t start, std::int64_t bucket, std::size_t partitions);
  void size_nodes(std::size_t nodes);
  /// The job's allocation was placed (add) or released (!add) at `now`; `unbounded` when it
  /// runs without a memory request or default on a cluster that does not track memory.
  void allocation(const SimJob& job, bool add, bool unbounded, std::int64_t now);
  /// The job ran (or sat suspended) in its partition from `from` to `to`.
  void interval(const SimJob& job, std::int64_t from, std::int64_t to, bool was_suspended);
  /// Moves what was collected into the result: timeline, and node peaks in Config order
  /// (nodes that never held a job left out).
  void finish(const NodePool& pool, std::size_t config_nodes, SimResult& result);

 private:
  std::int64_t start_ = 0;
  std::int64_t bucket_ = 3600;
  std::vector<std::vector<double>> running_, suspended_;  // [partition][bucket] CPU-seconds
  std::vector<std::uint64_t> mem_now_;
  std::vector<std::uint32_t> jobs_now_, unbounded_now_;
  std::vector<NodePeak> peaks_;  // internal numbering
};

}  // namespace sa::engine
