#pragma once
// A recorded load from another machine (an SWF trace from the archive) run on this site as
// it would be here: job sizes scaled by this site's CPUs over the trace machine's, and the
// arrivals stretched or compressed so the load offers a chosen share of this site's CPU
// capacity. Unscaled, a trace from a 128-CPU machine gives a 10,000-CPU site 1% utilisation
// and its findings rest on an idle machine.
#include "analyzer/model.h"
#include "engine/workload/workload.h"

namespace sa::engine {

struct ScaleReport {
  double size_factor = 1, time_factor = 1;
  std::uint32_t trace_cpus = 0, site_cpus = 0;
};

/// Scales `w` in place to `config`'s usable CPUs at `offered` (e.g. 0.9 = 90%) of capacity
/// over the trace's span; records what it did in the workload's description.
ScaleReport scale_to_site(Workload& w, const Config& config, double offered);

}  // namespace sa::engine
