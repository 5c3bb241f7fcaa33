#pragma once
// The load lint simulates when the user gives none: derived from the cluster itself, so a
// finding's evidence is about this site's partitions, node sizes and share tree. Each
// partition gets work in proportion to its CPUs, in shapes cut from its own nodes (one CPU,
// a quarter node, a node, four nodes, an eighth and a half of the partition), run times
// scaled to its MaxTime with a tail of jobs that run close to it, and users drawn from the
// share tree by target share among those the partition admits. The arrival rate offers
// `offered_load` times the machine's CPU capacity, so queues form and policy decides.
#include <cstdint>
#include <string>

#include "analyzer/assoc_model.h"
#include "analyzer/model.h"
#include "engine/workload/workload.h"

namespace sa::engine {

struct DefaultLoadOptions {
  std::uint64_t seed = 1;
  std::int64_t duration = 7 * 86400;
  double offered_load = 1.1;
  std::size_t max_jobs = 40000;
};

struct DefaultLoad {
  Workload workload;
  std::string description;  // one line for reports: what was generated and why
};

DefaultLoad default_load(const Config& config, const AssocTree* tree, const DefaultLoadOptions& options = {});

}  // namespace sa::engine
