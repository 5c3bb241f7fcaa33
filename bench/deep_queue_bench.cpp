// The engine on deep queues (issue 20): ../shared/tools/fastsim's perf-site (1,000 nodes x 64
// CPUs, bf_max_job_test=500, bf_continue) with make_swf.py's load (seed 7, about 95% offered
// over the span, deep enough that backfill meets hundreds of jobs), the same SWF
// scripts/bench_fastsim.sh gives FastSim. Arguments: jobs, days, offered load in % (95 is
// make_swf.py's own; more compresses the arrival times by 95/load). Counters: jobs_per_s,
// queue (mean records per backfill cycle), bf_tests and us_per_test (run time per will-run
// test, the unit of a deep queue's cost).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <fstream>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "engine/simulator.h"
#include "engine/site_loader.h"

namespace {

const std::string kFastsim = std::string(SA_SHARED_DIR) + "/tools/fastsim";

/// Writes make_swf.py's trace for (jobs, days) with arrivals compressed to `load` percent;
/// empty when Python or the generator is missing.
std::string make_swf(int jobs, int days, int load) {
  const std::string out = fmt::format("/tmp/sa_deep_queue_{}_{}_{}.swf", jobs, days, load);
  const std::string cmd = fmt::format(
      "python3 {0}/make_swf.py {1}.raw {2} 1000 64 {3} 7 && awk -v f={4} "
      "'/^;/ {{print; next}} {{$2 = int($2 * f); print}}' {1}.raw > {1}",
      kFastsim, out, jobs, days, 95.0 / load);
  return std::system(cmd.c_str()) == 0 ? out : std::string();
}

void run_deep_queue(benchmark::State& state) {
  const int jobs = static_cast<int>(state.range(0)), days = static_cast<int>(state.range(1));
  const int load = static_cast<int>(state.range(2));
  const std::string swf = make_swf(jobs, days, load);
  if (swf.empty()) {
    state.SkipWithError("make_swf.py failed (python3 and ../shared/tools/fastsim needed)");
    return;
  }
  sa::engine::SitePaths paths;
  paths.conf = kFastsim + "/perf-site/slurm.conf";
  paths.assoc = kFastsim + "/perf-site/assoc.cfg";
  paths.workload = swf;
  // The bench times whole runs, far past the step limit that bounds untrusted input.
  paths.limits.sim_steps = std::numeric_limits<std::int64_t>::max();
  auto site = sa::engine::load_site(paths);
  if (!site) {
    state.SkipWithError("perf-site or the trace could not be read");
    return;
  }
  sa::engine::SimOptions opt;
  opt.partition_map = (*site)->partition_map;
  sa::engine::SimResult r;
  for (auto _ : state) {
    r = sa::engine::Simulator((*site)->site, opt).run((*site)->workload);
  }
  const double n = static_cast<double>((*site)->workload.jobs.size());
  state.counters["jobs"] = n;
  state.counters["jobs_per_s"] = benchmark::Counter(n, benchmark::Counter::kIsRate);
  state.counters["queue"] = r.counters.bf_cycles ? static_cast<double>(r.counters.bf_queue_records) /
                                                       static_cast<double>(r.counters.bf_cycles)
                                                 : 0.0;
  state.counters["bf_tests"] = static_cast<double>(r.counters.bf_tests);
  // (a rate inverted: seconds per million tests)
  state.counters["us_per_test"] = benchmark::Counter(static_cast<double>(r.counters.bf_tests) / 1e6,
                                                     benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

}  // namespace

// jobs, days, offered load (%)
BENCHMARK(run_deep_queue)
    ->Args({2000, 1, 95})
    ->Args({10000, 5, 95})
    ->Args({100000, 30, 95})
    ->Args({10000, 5, 150})
    ->Unit(benchmark::kSecond)
    ->Iterations(1);

BENCHMARK_MAIN();
