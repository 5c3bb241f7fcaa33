#pragma once
// Multifactor priority as priority/multifactor computes it (shared/reference/algorithms.md
// §1): each factor normalised by the live maxima, job size against cluster-wide totals, the
// weighted sum truncated and clamped to [1, 2^32-1], site and nice added unweighted.
// priority/basic is FIFO: the first job gets 2^32-... less one per submission, as Slurm does.
#include <cstdint>
#include <vector>

#include "analyzer/assoc_model.h"
#include "analyzer/model.h"
#include "engine/job.h"

namespace sa::engine {

/// What a priority calculation needs to know about one (job x partition x QOS) record.
struct PriorityInput {
  std::int64_t accrue_time = kNoTime;  // kNoTime: not accruing (age 0)
  std::uint32_t min_nodes = 1;
  std::uint32_t cpus = 1;             // details.min_cpus, or total_cpus once allocated
  std::int64_t time_limit = kNoTime;  // seconds; for SMALL_RELATIVE_TO_TIME
  std::uint32_t partition = 0;        // index into Config::partitions
  std::uint32_t assoc_priority = 0;
  std::uint32_t qos_priority = 0;
  double fairshare = 0;
  std::vector<double> tres_counts;  // parallel to PrioritySettings::weight_tres
  std::int32_t nice = 0;
  std::int64_t site = 0;
};

class PriorityModel {
 public:
  PriorityModel(const Config& config, const AssocTree* tree, const QosTable& qos);

  /// The unweighted factors at time `now`.
  PriorityFactors factors(const PriorityInput& in, std::int64_t now) const;
  /// The weighted, truncated, clamped priority of those factors.
  std::uint32_t priority(const PriorityFactors& f) const;

  /// The partition's total of each weighted TRES (denominators of the TRES factor).
  const std::vector<double>& partition_tres_totals(std::uint32_t partition) const { return part_tres_[partition]; }
  const PrioritySettings& settings() const { return s_; }
  bool multifactor() const { return s_.multifactor(); }

 private:
  const Config& config_;
  PrioritySettings s_;
  double max_assoc_ = 0, max_qos_ = 0, max_part_ = 1;
  double node_count_ = 1, cluster_cpus_ = 1;
  std::vector<std::vector<double>> part_tres_;
};

}  // namespace sa::engine
