#pragma once
// Helpers for engine tests: a site from slurm.conf text, jobs built in one line, lookups.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "analyzer/hostlist.h"
#include "engine/simulator.h"
#include "tests/test_util.h"

namespace sa::test {

struct SimSite {
  std::unique_ptr<Analysis> conf;
  engine::Site site;
  explicit SimSite(const std::string& body, const char* version = "24.05") : conf(analyze_body(body, version)) {
    site.config = &conf->config;
  }
  engine::SimResult run(std::vector<engine::JobRequest> jobs, engine::SimOptions options = {}) const {
    engine::Workload w;
    w.jobs = std::move(jobs);
    return engine::Simulator(site, std::move(options)).run(w);
  }
};

/// A job asking for `cpus` CPUs for `run` seconds with a `limit`, in `partition`; its
/// priority is -nice when every weight is 0, which lets tests set priorities directly.
inline engine::JobRequest job(std::uint32_t id, std::int64_t submit, std::uint32_t cpus, std::int64_t run,
                              std::int64_t limit, const std::string& partition, std::int32_t nice = 0,
                              const std::string& user = "u") {
  engine::JobRequest j;
  j.id = id;
  j.submit = submit;
  j.cpus = cpus;
  j.run_time = run;
  j.time_limit = limit;
  if (!partition.empty()) j.partitions = {partition};
  j.nice = nice;
  j.user = user;
  return j;
}

/// The node list of a job's allocation as sacct prints it: nodes in configuration order,
/// compressed ("n[1,5]"); "" when it holds none.
inline std::string alloc_node_list(const Config& conf, const engine::SimResult& r, const engine::SimJob& j) {
  std::vector<std::uint32_t> nodes;
  for (const engine::AllocPiece& p : j.alloc.expanded()) nodes.push_back(r.config_node(p.node));
  std::sort(nodes.begin(), nodes.end());
  std::vector<std::string> names;
  for (std::uint32_t n : nodes) names.push_back(conf.nodes[n].name);
  return names.empty() ? std::string() : compress_hostlist(names);
}

inline const engine::SimJob& find_job(const engine::SimResult& r, std::uint32_t id) {
  for (const engine::SimJob& j : r.jobs) {
    if (j.req.id == id) return j;
  }
  static engine::SimJob none;
  return none;
}

}  // namespace sa::test
