#pragma once
// The load lint simulates when the user gives none: derived from the cluster itself, so a
// finding's evidence is about this site's partitions, node sizes and share tree. Each
// partition gets work in proportion to its CPUs, in shapes cut from its own nodes, run times
// scaled to its MaxTime with a tail of jobs that run close to it, and users drawn from the
// share tree by target share among those the partition admits. The arrival rate offers
// `offered_load` times the machine's CPU capacity on a daily cycle, so queues form every
// afternoon and policy decides who goes first, and drain at night as on a real machine (a
// load above capacity all week only grows one queue, and costs backfill time to no purpose).
#include <cstdint>
#include <string>

#include "analyzer/assoc_model.h"
#include "analyzer/model.h"
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
};

struct DefaultLoad {
  Workload workload;
  std::string description;  // one line for reports: what was generated and why
};

DefaultLoad default_load(const Config& config, const AssocTree* tree, const DefaultLoadOptions& options = {});

}  // namespace sa::engine
