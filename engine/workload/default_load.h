#pragma once
// The load lint simulates when the user gives none: derived from the cluster itself, so a
// finding's evidence is about this site's partitions, node sizes and share tree. Each
// partition is offered the same fraction of its CPUs (a node that several partitions hold is
// split between them), in shapes cut from its own nodes, run times scaled to the cap on a
// job's limit there with a tail of jobs that run close to it, and users drawn from the share
// tree by target share among those the partition admits. The arrival rate offers
// `offered_load` times the machine's CPU capacity on a daily cycle, so queues form every
// afternoon and policy decides who goes first, and drain at night as on a real machine (a
// load above capacity all week only grows one queue, and costs backfill time to no purpose).
//
// Every job is one the site admits: its partition takes submissions and user jobs, its
// account, QOS and group pass the partition's Allow/Deny lists and the association's QOS
// list, its size fits the partition's nodes and MinNodes/MaxNodes, its memory request stays
// under MaxMemPerCPU/Node, and its limit under MaxTime and every MaxWall that applies. A
// probe of the engine's own submission checks drops any shape the site would still refuse.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/simulator.h"
#include "engine/workload/workload.h"

namespace sa::engine {

struct DefaultLoadOptions {
  std::uint64_t seed = 1;
  // Three days of arrivals (a day's drain follows in lint): enough for the afternoon queues
  // of three working days, and it keeps a 1,000-node site's lint within seconds.
  std::int64_t duration = 3 * 86400;
  double offered_load = 0.95;  // over a day; the afternoon peak offers more, nights less
  double daily_cycle = 0.4;
  std::size_t max_jobs = 40000;
  // Jobs drawn to estimate the mean work per job, which sets the arrival rate. Fixed for a
  // given seed; only the fuzz target lowers it (it was most of its time).
  int work_samples = 4000;
};

struct DefaultLoad {
  Workload workload;               // with `until` (a day past the arrivals), seed and description set
  std::string description;         // one line for reports: what was generated and why
  bool invented_accounts = false;  // no association tree: accounts and users made up
};

/// The default load of `site`. Without a QOS table, QOS that partitions allow by name are
/// assumed to exist (listed in the workload's assumed_qos; add_assumed_qos puts them in a
/// Site before it is simulated).
DefaultLoad default_load(const Site& site, const DefaultLoadOptions& options = {});

/// Adds the QOS a load assumes to a site that has no QOS table of its own.
void add_assumed_qos(Site& site, const Workload& workload);

}  // namespace sa::engine
