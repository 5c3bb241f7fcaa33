// tune's throughput (issue 22): candidates per second on one core for a small site, and the
// speed-up with --jobs N. A 32-node site with a 10 x 4 share tree and the default load (three
// days of arrivals); each candidate runs on two seeds, as `tune --seeds 2` does. The counter
// `candidates/s` counts wall time, so the two-thread rows show the speed-up directly; the CPU
// column is the whole process's, so it stays flat when the work only spreads over threads.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/format.h>

#include "bench/bench_tree.h"

#include "engine/site_loader.h"
#include "engine/workload/default_load.h"
#include "tune/search.h"

namespace {

namespace fs = std::filesystem;

constexpr const char* kConf =
    "ClusterName=bench\nSlurmctldHost=ctl\n"
    "AccountingStorageType=accounting_storage/slurmdbd\nAccountingStorageHost=db\n"
    "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core_Memory\nDefMemPerCPU=3500\n"
    "PriorityType=priority/multifactor\nPriorityWeightAge=1000\nPriorityWeightFairshare=10000\n"
    "PriorityWeightJobSize=500\nSchedulerType=sched/backfill\nSchedulerParameters=bf_continue,bf_window=2880\n"
    "NodeName=c[1-32] CPUs=32 Sockets=2 CoresPerSocket=16 RealMemory=128000\n"
    "PartitionName=batch Nodes=c[1-32] Default=YES MaxTime=2-00:00:00\n"
    "PartitionName=debug Nodes=c[1-4] MaxTime=01:00:00 PriorityTier=2\n";

std::string write_temp(const std::string& name, const std::string& text) {
  const fs::path path = fs::temp_directory_path() / ("sa_tune_bench_" + name);
  std::ofstream(path) << text;
  return path.string();
}

template <typename T>
T parsed(const std::variant<T, sa::tune::SpecError>& v) {
  return std::get<T>(v);
}

// 8 candidates (2 x 4) and the baseline, 2 seeds each, on state.range(0) threads.
void BM_tune_grid(benchmark::State& state) {
  sa::engine::SitePaths paths;
  paths.conf = write_temp("site.conf", kConf);
  paths.assoc = write_temp("tree.cfg", sa::bench::tree_dump(10, 4));
  auto site = sa::engine::load_site(paths);
  if (!site) return state.SkipWithError(site.error().c_str());
  sa::tune::SearchSite s;
  s.base = site->get();
  s.conf_path = paths.conf;
  s.conf_text = kConf;
  for (std::uint64_t seed = 1; seed <= 2; ++seed) {
    sa::engine::DefaultLoadOptions d;
    d.seed = seed;
    s.loads.push_back(sa::engine::default_load(s.base->site, d).workload);
  }
  sa::tune::SearchSpec spec;
  spec.goals = {parsed(sa::tune::parse_goal("wait_p95[partition=batch]<=2h")),
                parsed(sa::tune::parse_goal("share_error<=10%"))};
  spec.dims = {parsed(sa::tune::parse_vary("PriorityWeightFairshare=1000,100000")),
               parsed(sa::tune::parse_vary("bf_window=60..2880:log:4"))};
  spec.jobs = static_cast<unsigned>(state.range(0));
  std::size_t candidates = 0;
  for (auto _ : state) {
    auto outcome = sa::tune::run_search(s, spec);
    if (!outcome) return state.SkipWithError(outcome.error().c_str());
    candidates += outcome->ranked.size() + 1;  // and the baseline
    benchmark::DoNotOptimize(outcome->ranked.data());
  }
  state.counters["candidates/s"] = benchmark::Counter(static_cast<double>(candidates), benchmark::Counter::kIsRate);
  state.counters["jobs"] = static_cast<double>(s.loads.front().jobs.size());
}
BENCHMARK(BM_tune_grid)
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MeasureProcessCPUTime()
    ->MinTime(3.0);

}  // namespace

BENCHMARK_MAIN();
