#pragma once
// The CPUs a --cpus-per-task job keeps on each node once its tasks are laid out
// (select/cons_tres dist_tasks_compute_c_b, 22.05 through 25.11): node selection hands each
// node its available CPUs, then tasks go one to a node, then onto the cores already started,
// then round the nodes while a whole task fits; a task that fits nowhere is placed anyway
// ("oversubscribe") on the first nodes, taking only the CPUs they have left. A node keeps the
// CPUs its tasks took, so nodes of 6 free CPUs give -n 3 -c 4 --mem=2000 6 + 4 CPUs, not
// 6 + 6 (real 22.05, the cpus_per_task_mem_node capture: AllocCPUS 10). Where memory is per
// CPU, a node's CPUs are already whole tasks (NodePool::capacity), and the layout keeps them.
#include <algorithm>
#include <cstdint>
#include <vector>

namespace sa::engine {

struct TaskNode {
  std::uint32_t avail = 0;  // CPUs node selection gave the node
  std::uint32_t vpus = 1;   // threads a core offers (Node::schedulable_threads)
  std::uint32_t cpus = 0;   // out: the CPUs its tasks keep
};

/// Lays `ncpus` / `cpt` tasks out over `nodes` (Slurm's node order: slurm.conf order), as
/// dist_tasks_compute_c_b without --ntasks-per-node, GRES task limits or --overcommit.
inline void lay_out_tasks(std::vector<TaskNode>& nodes, std::uint32_t ncpus, std::uint32_t cpt) {
  cpt = std::max<std::uint32_t>(cpt, 1);
  const std::uint32_t maxtasks = std::max<std::uint32_t>(ncpus / cpt, 1);
  std::uint32_t tid = 0;
  auto add_task = [&](TaskNode& n) {
    ++tid;
    n.cpus = std::min(n.avail, n.cpus + cpt);
  };
  bool space = false;
  for (TaskNode& n : nodes) {
    if (tid >= maxtasks) break;
    if (n.avail == 0) continue;
    add_task(n);
    space |= n.cpus < n.avail;
  }
  bool over = !space;
  // Tasks that fit on the cores already taken (a core's threads).
  for (TaskNode& n : nodes) {
    const std::uint32_t rem_tasks = (n.cpus % std::max<std::uint32_t>(n.vpus, 1)) / cpt;
    for (std::uint32_t t = 0; t < rem_tasks && tid < maxtasks && n.avail - n.cpus >= cpt; ++t) add_task(n);
  }
  while (tid < maxtasks) {
    space = false;
    for (TaskNode& n : nodes) {
      const std::uint32_t per_round = std::max<std::uint32_t>(n.vpus / cpt, 1);
      for (std::uint32_t t = 0; t < per_round && tid < maxtasks; ++t) {
        if (!over && n.avail - n.cpus < cpt) break;
        add_task(n);
        space |= n.avail - n.cpus >= cpt;
      }
      if (tid >= maxtasks) break;
    }
    if (!space) over = true;
  }
}

}  // namespace sa::engine
