// lint's speed goals (issue 6): `lint --no-simulate` on any real corpus config under 100 ms,
// and a full lint of a 1,000-node site with the default synthetic load under 10 s.
// BM_lint_static runs each file of ../shared/corpora/slurm in-process (the CLI adds
// process start-up, see scripts/bench_lint_cli.sh); BM_lint_full lints a generated site of
// N nodes: three partitions, one with a MaxTime beyond bf_window (so BF001's re-simulation
// runs too), a 40 x 5 share tree, and the default load.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench/bench_tree.h"

#include "engine/site_loader.h"
#include "rules/framework/lint.h"

namespace {

namespace fs = std::filesystem;

std::string site_conf(int nodes) {
  return fmt::format(
      "ClusterName=bench\nSlurmctldHost=ctl\n"
      "AccountingStorageType=accounting_storage/slurmdbd\nAccountingStorageHost=db\n"
      "AccountingStorageEnforce=associations,limits,qos\n"
      "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core_Memory\nDefMemPerCPU=3500\n"
      "PriorityType=priority/multifactor\nPriorityWeightAge=1000\nPriorityWeightFairshare=10000\n"
      "PriorityWeightJobSize=500\nPriorityWeightPartition=1000\nPriorityWeightQOS=2000\n"
      "SchedulerParameters=bf_continue,bf_window=2880\n"
      "NodeName=c[1-{}] CPUs=32 Sockets=2 CoresPerSocket=16 RealMemory=128000\n"
      "PartitionName=batch Nodes=c[1-{}] Default=YES MaxTime=2-00:00:00\n"
      "PartitionName=long Nodes=c[1-{}] MaxTime=7-00:00:00\n"
      "PartitionName=debug Nodes=c[1-{}] MaxTime=01:00:00 PriorityTier=2\n",
      nodes, nodes, nodes / 4, std::max(1, nodes / 50));
}

using sa::bench::tree_dump;

std::string write_temp(const std::string& name, const std::string& text) {
  const fs::path path = fs::temp_directory_path() / ("sa_lint_bench_" + name);
  std::ofstream(path) << text;
  return path.string();
}

void BM_lint_full(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  sa::engine::SitePaths paths;
  paths.conf = write_temp(fmt::format("{}.conf", nodes), site_conf(nodes));
  paths.assoc = write_temp("tree.cfg", tree_dump(40, 5));
  auto site = sa::engine::load_site(paths);
  if (!site) {
    state.SkipWithError(site.error().c_str());
    return;
  }
  std::size_t findings = 0, jobs = 0;
  for (auto _ : state) {
    const auto report = sa::rules::run_lint(**site, {});
    findings = report.findings.size();
    jobs = report.scenario ? report.scenario->jobs : 0;
    benchmark::DoNotOptimize(findings);
  }
  state.counters["findings"] = static_cast<double>(findings);
  state.counters["jobs"] = static_cast<double>(jobs);
}
BENCHMARK(BM_lint_full)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_lint_static(benchmark::State& state, const std::string& path) {
  for (auto _ : state) {
    sa::engine::SitePaths paths;
    paths.conf = path;
    auto site = sa::engine::load_site(paths);
    sa::rules::LintOptions o;
    o.simulate = false;
    const auto report = sa::rules::run_lint(**site, o);
    benchmark::DoNotOptimize(report.findings.size());
  }
}

// One benchmark per real config: the goal is for every one of them.
const bool registered = [] {
  const fs::path root = fs::path(SA_SHARED_DIR) / "corpora" / "slurm";
  if (!fs::exists(root)) return false;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(root)) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    benchmark::RegisterBenchmark(("BM_lint_static/" + f.filename().string()).c_str(), BM_lint_static, f.string())
        ->Unit(benchmark::kMillisecond);
  }
  return true;
}();

}  // namespace
