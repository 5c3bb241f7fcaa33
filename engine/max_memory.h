#pragma once
// MaxMemPerCPU / MaxMemPerNode at a job's partition (engine/max_memory.cpp).
#include <cstdint>
#include <vector>

#include "analyzer/model.h"
#include "engine/job.h"
#include "engine/resources.h"

namespace sa::engine {

/// The memory maximum that applies in a partition: its own MaxMemPerCPU/Node, else the
/// cluster's; mb 0 when there is none.
struct MemoryLimit {
  std::uint64_t mb = 0;
  bool per_cpu = false;
};
MemoryLimit memory_limit(const Config& conf, const Partition& part);

/// The lowest MaxMemPerCPU that applies in these partitions (0: none). A default memory per
/// CPU suggested for them stays within it: above it, it would multiply the CPUs of every job
/// without --mem (CONF109).
std::uint64_t lowest_max_per_cpu(const Config& conf, const std::vector<const Partition*>& parts);

/// The partition's first node in slurm.conf order (nullptr without nodes): what slurmctld reads
/// for the memory and CPUs of a partition's node (_mem_per_node_part, _cpus_per_node_part).
const Node* first_node(const Config& conf, const Partition& part);

/// Memory per CPU above MaxMemPerCPU: the factor slurmctld multiplies the job's CPUs by
/// (⌈memory / maximum⌉, at most 0xFFFF: Slurm's CPUs per task are 16 bits) and the memory
/// per CPU that leaves.
struct CpuRaise {
  std::uint64_t factor = 1;
  std::uint64_t mem_per_cpu = 0;
};
CpuRaise cpu_raise(std::uint64_t mem_per_cpu, std::uint64_t max_per_cpu);

/// Memory per node under MaxMemPerCPU: the CPUs each node must give the job (pn_min_cpus).
std::uint64_t node_min_cpus(std::uint64_t mem_per_node, std::uint64_t max_per_cpu);

/// Applies the partition's memory maximum to a record's demand as job_limits_check does
/// (_valid_pn_min_mem): per-CPU memory above MaxMemPerCPU multiplies the job's CPUs per task
/// and divides its memory per CPU; per-node memory under MaxMemPerCPU raises the CPUs each
/// node gives it. Returns false when the memory is above the maximum in a way no CPU count
/// lifts (MaxMemPerNode): the record pends with Reason MaxMemPerLimit.
bool apply_max_memory(const Config& conf, const Partition& part, const JobRequest& r, Demand& d);

}  // namespace sa::engine
