#pragma once
// A mini-slurm capture loaded as the CLI would load it, shared by the engine's golden
// suites: slurm.conf read as Slurm 22.05 reads it, the association tree that was loaded
// (extra/ACCOUNTS_CFG.txt when the scenario used its own, in creation order, else the
// dump taken afterwards), the QOS table and the recorded jobs (sacct.psv).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "analyzer/accounting_readers.h"
#include "analyzer/assoc_reader.h"
#include "engine/simulator.h"
#include "tests/test_util.h"

namespace sa::test {

inline std::vector<std::string> lines_of(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

struct GoldenCapture {
  std::filesystem::path dir;
  std::unique_ptr<Analysis> conf;
  SourceManager sources;
  DiagnosticSink sink;
  AssocTree tree;
  engine::Site site;
  engine::Workload jobs;
  std::int64_t tick = 0;  // one scheduler tick: the start tolerance of a replay

  explicit GoldenCapture(std::filesystem::path d) : dir(std::move(d)) {
    conf = analyze_file((dir / "slurm.conf").string(), {*SlurmVersion::parse("22.05")});
    const std::filesystem::path own = dir / "extra" / "ACCOUNTS_CFG.txt";
    tree = *read_assoc_dump((std::filesystem::exists(own) ? own : dir / "assoc.cfg").string(), sources, sink);
    site.config = &conf->config;
    site.tree = &tree;
    site.qos = *read_qos_table((dir / "qos.psv").string(), sources, sink);
    jobs = *engine::read_workload((dir / "sacct.psv").string(), sources, sink);
    const SchedulerSettings& sched = conf->config.scheduler;
    tick = std::max(sched.bf_interval, sched.batch_sched_delay + 1);
  }
  GoldenCapture(const GoldenCapture&) = delete;  // site points into the object
  GoldenCapture& operator=(const GoldenCapture&) = delete;
};

}  // namespace sa::test
