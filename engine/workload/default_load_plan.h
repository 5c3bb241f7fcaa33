#pragma once
// The default load's plan per partition (default_load_plan.cpp): who submits there, in which
// job shapes and memory requests, and why a partition gets no jobs. Internal to default_load.cpp,
// which draws the jobs from it.
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/simulator.h"
#include "engine/workload/synthetic.h"

namespace sa::engine::default_load_detail {

struct Shape {
  std::uint32_t cpus = 1, nodes = 0, gpus = 0;
  double weight = 0;
};

// Who submits to a partition: a user in an account, the QOS they may use there (weighted
// towards the association's default QOS) and the tightest MaxWall on their association.
struct Submitter {
  std::string user, account;
  Weighted<std::string> qos;
  std::optional<std::int64_t> max_wall;
  double weight = 1;
};

struct PartLoad {
  const Partition* part = nullptr;
  double cpus = 0;  // its usable nodes' CPUs
  // The CPUs of the machine it is offered: its nodes' CPUs, a node that n loaded partitions
  // share counting 1/n to each, so every node is offered the load once.
  double share = 0;
  // How often a job goes to it: its share over its jobs' mean CPUs, so each partition is
  // offered its share whatever its node sizes (set with the arrival rate, default_load.cpp).
  double weight = 0;
  // Its CPUs per GPU (0: no GPUs): what a GPU job keeps from others, in CPUs, when the load's
  // work is counted (a GPU is the scarcer resource on most GPU nodes).
  double cpus_per_gpu = 0;
  std::vector<Shape> shapes;
  std::int64_t max_time = 0;  // finite cap for run times
  std::vector<Submitter> users;
  std::int64_t default_time = kNoTime;  // a finite DefaultTime: some jobs give no --time
  // MaxTime=UNLIMITED and no DefaultTime (nor require_timelimit): some jobs give no --time
  // and run with no limit at all, as slurmctld gives them the partition's MaxTime.
  bool unlimited_without_default = false;
  std::uint64_t mem_per_cpu = 0, mem_per_node = 0;  // explicit requests under MaxMemPer*
  std::int64_t max_run = 0;                         // longest run time: half the arrival span
};

bool is_all(const std::vector<std::string>& names);

struct Plan {
  std::vector<PartLoad> loads;
  std::vector<std::string> idle;
  std::set<std::string> assumed_qos;
  double capacity = 0;
};

Plan plan_partitions(const Site& site, std::int64_t duration);

}  // namespace sa::engine::default_load_detail
