#pragma once
// Who may preempt whom, and how (slurmctld/preempt.c with preempt/partition_prio and
// preempt/qos as in 22.05; algorithms.md §8). partition_prio: a job of a strictly higher
// PriorityTier partition preempts jobs of partitions whose PreemptMode is not OFF, each
// stopped by its partition's mode (else the cluster's) after its partition's GraceTime.
// qos: a job whose QOS lists the other job's QOS (or the same QOS with WITHIN and a higher
// priority), by the preemptee QOS's mode and GraceTime. Candidates run or are suspended on
// the preemptor's partition nodes, are past PreemptExemptTime, and are tried in order of
// (tier or QOS priority) << 16 + node count, or youngest first.
#include <cstdint>
#include <vector>

#include "analyzer/assoc_model.h"
#include "analyzer/model.h"

namespace sa::engine {

class PreemptPolicy {
 public:
  enum class Kind { kNone, kPartition, kQos };
  PreemptPolicy(const Config& config, const QosTable& qos);

  Kind kind() const { return kind_; }
  /// PREEMPT_DATA_ENABLED: a preempt plugin and a cluster PreemptMode other than OFF.
  bool enabled() const { return enabled_; }
  bool gang() const { return gang_; }
  bool youngest_first() const { return config_.preempt.youngest_first; }
  /// PreemptParameters=min_exempt_priority (23.02+): a job of higher priority is never a victim.
  bool priority_exempt(std::uint32_t priority) const { return config_.preempt.min_exempt_priority < priority; }
  /// slurm_job_preempt_mode without GANG/WITHIN: how a job of this partition and QOS stops.
  PreemptMode::Base mode(std::uint32_t part, std::int32_t qos) const;
  bool can_preempt(std::uint32_t or_part, std::int32_t or_qos, std::uint32_t or_prio, std::uint32_t ee_part,
                   std::int32_t ee_qos, std::uint32_t ee_prio) const;
  /// Seconds a preemptee keeps running after SIGTERM.
  std::int64_t grace(std::uint32_t part, std::int32_t qos) const;
  /// acct_policy_get_preemptable_time: seconds after its start a job may be preempted
  /// (first QOS in limit order, then the second, then PreemptExemptTime; 0 when none).
  std::int64_t exempt_after(std::int32_t qos1, std::int32_t qos2) const;
  /// _gen_job_prio: the candidate order key, lowest preempted first.
  std::uint32_t order_key(std::uint32_t part, std::int32_t qos, std::uint32_t nodes) const;

 private:
  const Config& config_;
  const QosTable& qos_;
  Kind kind_ = Kind::kNone;
  bool enabled_ = false, gang_ = false, within_ = false;
  std::vector<std::vector<char>> qos_preempts_;  // [preemptor][preemptee]
  std::vector<PreemptMode::Base> qos_mode_;
  std::vector<char> qos_mode_set_, qos_within_, qos_priority_;
};

}  // namespace sa::engine
