// The engine on a big site (issue 4 goal: 5,000 nodes, 600,000 jobs over 120 days with
// default backfill limits, under 60 s on one core). SA_BENCH_DAYS shortens the span for a
// quick look; the job rate stays at 5,000 a day. Variants show how the cost grows with the
// node count and with the offered load (which sets the queue depth).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "analyzer/analyze.h"
#include "analyzer/assoc_reader.h"
#include "engine/simulator.h"
#include "engine/workload/synthetic.h"

namespace {

std::string site_conf(int nodes) {
  return fmt::format(
      "ClusterName=bench\nSlurmctldHost=ctl\n"
      "AccountingStorageType=accounting_storage/slurmdbd\nAccountingStorageHost=db\n"
      "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core_Memory\nDefMemPerCPU=3500\n"
      "PriorityType=priority/multifactor\nPriorityWeightAge=1000\nPriorityWeightFairshare=10000\n"
      "PriorityWeightJobSize=500\nPriorityWeightPartition=1000\nPriorityWeightQOS=2000\n"
      "NodeName=c[1-{}] CPUs=32 Sockets=2 CoresPerSocket=16 RealMemory=128000\n"
      "PartitionName=batch Nodes=c[1-{}] Default=YES MaxTime=2-00:00:00\n"
      "PartitionName=debug Nodes=c[1-{}] MaxTime=01:00:00 PriorityTier=2\n",
      nodes, nodes, std::max(1, nodes / 50));
}

std::string tree_dump(int accounts, int users_per_account) {
  std::string out = "Cluster - 'bench'\nParent - 'root'\nUser - 'root':DefaultAccount='root':AdminLevel='Administrator':Fairshare=1\n";
  for (int a = 0; a < accounts; ++a) out += fmt::format("Account - 'acct{}':Fairshare={}\n", a, 1 + a % 7);
  for (int a = 0; a < accounts; ++a) {
    out += fmt::format("Parent - 'acct{}'\n", a);
    for (int u = 0; u < users_per_account; ++u) {
      out += fmt::format("User - 'u{}_{}':DefaultAccount='acct{}':Fairshare={}\n", a, u, a, 1 + u % 3);
    }
  }
  return out;
}

void run_engine(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  const double load = static_cast<double>(state.range(1)) / 100.0;  // offered load vs the 5,000-node site
  const char* days_env = std::getenv("SA_BENCH_DAYS");
  const int days = days_env ? std::max(1, std::atoi(days_env)) : 120;
  auto conf = sa::analyze_text("slurm.conf", site_conf(nodes));
  sa::SourceManager sources;
  sa::DiagnosticSink sink;
  sa::AssocTree tree = sa::read_assoc_dump_text(sources.add("dump", tree_dump(40, 5)), sources, sink);
  sa::FileId profile = sources.add(
      "profile", fmt::format("seed = 11\nduration = {}-00:00:00\njobs_per_hour = {}\ndaily_cycle = 0.3\n"
                             "cpus = 1:30, 4:15, 16:20, 32:15, 64:10, 256:7, 1024:3\n"
                             "runtime = lognormal 10800 1.5\nlimit_factor = 1.2 4\n"
                             "partition = batch:95, debug:5\nusers = tree\n",
                             days, 5000.0 / 24.0 * load * nodes / 5000.0));
  sa::engine::Profile p = sa::engine::read_profile(profile, sources, sink);
  sa::engine::Workload w = sa::engine::generate(p, conf->config, &tree);
  sa::engine::Site site;
  site.config = &conf->config;
  site.tree = &tree;
  sa::engine::SimResult r;
  for (auto _ : state) {
    r = sa::engine::Simulator(site, {}).run(w);
  }
  state.counters["jobs"] = static_cast<double>(w.jobs.size());
  state.counters["jobs_per_s"] = benchmark::Counter(static_cast<double>(w.jobs.size()), benchmark::Counter::kIsRate);
  state.counters["sim_s_per_s"] = benchmark::Counter(static_cast<double>(r.end - r.start), benchmark::Counter::kIsRate);
  state.counters["bf_tests"] = static_cast<double>(r.counters.bf_tests);
  state.counters["queue"] = r.counters.bf_cycles ? static_cast<double>(r.counters.bf_queue_records) / static_cast<double>(r.counters.bf_cycles) : 0.0;
  std::size_t bf = 0;
  for (const auto& j : r.jobs) bf += j.started_by == sa::engine::StartedBy::kBackfill;
  state.counters["bf_starts"] = static_cast<double>(bf);
}

}  // namespace

// nodes, offered load in % of the reference rate (5,000 jobs a day on 5,000 nodes).
BENCHMARK(run_engine)->Args({5000, 100})->Args({1000, 100})->Args({5000, 130})->Unit(benchmark::kSecond)->Iterations(1);

BENCHMARK_MAIN();
