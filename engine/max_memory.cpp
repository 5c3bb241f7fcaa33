// MaxMemPerCPU and MaxMemPerNode as slurmctld applies them to a job in one partition:
// job_limits_check's call of _valid_pn_min_mem (job_mgr.c, 22.05 through 24.05), on every
// scheduling attempt, with the job's own memory or the partition's default.
#include <algorithm>

#include "engine/max_memory.h"

namespace sa::engine {

namespace {

// (Without a + b - 1, which wraps for a hostile size near 2^64.)
std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return a / b + (a % b != 0); }

std::uint16_t clamp16(std::uint64_t v) { return static_cast<std::uint16_t>(std::min<std::uint64_t>(v, 0xFFFF)); }

}  // namespace

const Node* first_node(const Config& conf, const Partition& part) {
  if (part.nodes.empty()) return nullptr;
  return &conf.nodes[*std::min_element(part.nodes.begin(), part.nodes.end())];
}

CpuRaise cpu_raise(std::uint64_t mem_per_cpu, std::uint64_t max_per_cpu) {
  const std::uint64_t factor = std::min<std::uint64_t>(ceil_div(mem_per_cpu, max_per_cpu), 0xFFFF);
  return {factor, ceil_div(mem_per_cpu, factor)};
}

std::uint64_t node_min_cpus(std::uint64_t mem_per_node, std::uint64_t max_per_cpu) {
  return ceil_div(mem_per_node, max_per_cpu);
}

std::uint64_t lowest_max_per_cpu(const Config& conf, const std::vector<const Partition*>& parts) {
  std::uint64_t lowest = 0;
  for (const Partition* p : parts) {
    const MemoryLimit limit = memory_limit(conf, *p);
    if (limit.per_cpu && limit.mb && (lowest == 0 || limit.mb < lowest)) lowest = limit.mb;
  }
  return lowest;
}

MemoryLimit memory_limit(const Config& conf, const Partition& part) {
  // A partition's own MaxMemPer* replaces the cluster's, whichever form each has.
  if (part.max_mem_per_cpu) return {part.max_mem_per_cpu, true};
  if (part.max_mem_per_node) return {part.max_mem_per_node, false};
  if (conf.select.max_mem_per_cpu) return {conf.select.max_mem_per_cpu, true};
  return {conf.select.max_mem_per_node, false};
}

bool apply_max_memory(const Config& conf, const Partition& part, const JobRequest& r, Demand& d) {
  const MemoryLimit limit = memory_limit(conf, part);
  if (limit.mb == 0) return true;
  // A GPU job's memory by GPU is outside this test (its pn_min_memory is the default per CPU,
  // not what nodes give it); left as given.
  if (d.gpu_mem_alloc || r.extra.get().mem_per_gpu) return true;
  const RequestExtras& x = r.extra.get();
  if (d.mem_per_cpu && limit.per_cpu) {
    if (d.mem_per_cpu <= limit.mb) return true;
    // "increasing cpus_per_task and decreasing mem_per_cpu by factor of N": each task takes N
    // times its CPUs at 1/N of the memory each (the max_mem capture: -n 2 --mem-per-cpu=5000
    // under MaxMemPerCPU=2000 ran on 6 CPUs, 1667 MB each; -n 1 -c 2 at 3000 MB on 4).
    const CpuRaise raise = cpu_raise(d.mem_per_cpu, limit.mb);
    const std::uint64_t ratio = raise.factor;
    d.mem_per_cpu = raise.mem_per_cpu;
    d.cpus = static_cast<std::uint32_t>(std::min<std::uint64_t>(std::uint64_t{d.cpus} * ratio, 0xFFFFFFF0U));
    // 24.05.2 through 24.11.0 kept a -c the job gave (JOB_CPUS_SET) and raised only its CPU
    // count (cpu_factor; SchedMD reverted it in 24.11.1: the CPUs per task must scale).
    const bool keeps_task =
        x.cpus_per_task && d.task_cpus && conf.version.at_least(24, 5, 2) && !conf.version.at_least(24, 11, 1);
    if (keeps_task) return true;
    if (d.cpus_per_node) {
      d.cpus_per_node = clamp16(std::uint64_t{d.cpus_per_node} * ratio);
    } else {
      d.cpus_per_node = clamp16(ratio);
      d.task_cpus = true;
    }
    return true;
  }
  // DefMemPerCPU=0: 0 MB a CPU, under any maximum.
  if (d.mem_per_cpu == 0 && d.mem_per_node == 0 && !d.mem_whole_node) return true;
  // The other forms are compared per node. A job without memory of its own or a default
  // (and --mem=0) is taken at the partition's first node's memory.
  std::uint64_t job_mem = d.mem_per_cpu ? d.mem_per_cpu : d.mem_per_node;
  bool job_per_cpu = d.mem_per_cpu != 0;
  if (job_mem == 0) {
    const Node* n = first_node(conf, part);
    job_mem = n ? n->usable_mem_mb() : 0;
    job_per_cpu = false;
  }
  if (!job_per_cpu && !limit.per_cpu) return job_mem <= limit.mb;
  if (!job_per_cpu) {
    // Per-node memory under a per-CPU maximum: each node must give the job enough CPUs to
    // carry it ("Setting job's pn_min_cpus to 5 due to memory limit": the max_mem capture's
    // -N 1 -n 1 --mem=9000 under MaxMemPerCPU=2000 ran on 5 CPUs while its ReqCPUS stayed 1;
    // max_mem_lax's -N 1 --ntasks-per-node=2 --mem=9000 on 5 too, not on 2 tasks of 3).
    const std::uint64_t min_cpus = node_min_cpus(job_mem, limit.mb);
    if (min_cpus > d.cpus_per_node) {
      d.cpus_per_node = clamp16(min_cpus);
      d.task_cpus = true;
    }
    return true;
  }
  // Per-CPU memory under a per-node maximum: at the CPUs the job would put on one node.
  std::uint64_t cpus_per_node = 0;
  if (part.oversubscribe.mode == OverSubscribe::Mode::kExclusive || r.exclusive) {
    const Node* n = first_node(conf, part);
    cpus_per_node = n ? n->cpus : 0;
  } else {
    const std::uint64_t cpt = std::max<std::uint32_t>(1, x.cpus_per_task);
    cpus_per_node = std::max<std::uint64_t>(1, x.ntasks_per_node);
    const std::uint64_t tasks = x.ntasks ? x.ntasks : d.cpus / cpt;
    if (tasks && x.max_nodes) cpus_per_node = std::max(cpus_per_node, ceil_div(tasks, x.max_nodes));
    cpus_per_node *= cpt;
  }
  return cpus_per_node == 0 || job_mem <= limit.mb / cpus_per_node;  // (job_mem x CPUs, without overflow)
}

}  // namespace sa::engine
