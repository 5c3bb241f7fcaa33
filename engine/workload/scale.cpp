#include "engine/workload/scale.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace sa::engine {

ScaleReport scale_to_site(Workload& w, const Config& c, double offered) {
  ScaleReport s;
  if (w.jobs.empty() || offered <= 0) return s;
  std::uint64_t site = 0, largest_partition = 0;
  for (const Node& n : c.nodes) {
    if (n.usable()) site += n.cpus;
  }
  for (const Partition& p : c.partitions) {
    std::uint64_t cpus = 0;
    for (std::uint32_t n : p.nodes) {
      if (c.nodes[n].usable()) cpus += c.nodes[n].cpus;
    }
    largest_partition = std::max(largest_partition, cpus);
  }
  if (site == 0) return s;
  // The trace machine's size: its widest job (SWF's MaxProcs is often absent or wrong).
  std::uint32_t trace = 1;
  for (const JobRequest& j : w.jobs) trace = std::max(trace, j.cpus);
  s.trace_cpus = trace;
  s.site_cpus = static_cast<std::uint32_t>(std::min<std::uint64_t>(site, 0xFFFFFFF0U));
  s.size_factor = static_cast<double>(site) / static_cast<double>(trace);
  const auto cap = static_cast<double>(std::max<std::uint64_t>(1, largest_partition));
  long double work = 0;
  for (JobRequest& j : w.jobs) {
    j.cpus = static_cast<std::uint32_t>(std::clamp(std::round(j.cpus * s.size_factor), 1.0, cap));
    j.nodes = 0;  // node counts belong to the other machine's node size
    work += static_cast<long double>(j.cpus) * static_cast<long double>(j.run_time);
  }
  const std::int64_t first = w.jobs.front().submit, last = w.jobs.back().submit;
  const auto span = static_cast<long double>(std::max<std::int64_t>(1, last - first));
  const long double now = work / (static_cast<long double>(site) * span);
  s.time_factor = static_cast<double>(std::clamp<long double>(now / offered, 1e-6L, 1e6L));
  for (JobRequest& j : w.jobs) {
    const long double at = static_cast<long double>(j.submit - first) * s.time_factor;
    j.submit = first + static_cast<std::int64_t>(std::min<long double>(at, 1e15L));
    if (j.eligible != kNoTime) j.eligible = std::max(j.eligible, j.submit);
  }
  w.description = fmt::format(
      "workload {} scaled to the site: sizes x{:.3g} ({} trace CPUs to {}), arrivals x{:.3g} "
      "to offer {:.0f}% of its CPUs",
      w.source, s.size_factor, s.trace_cpus, s.site_cpus, s.time_factor, 100 * offered);
  return s;
}

}  // namespace sa::engine
