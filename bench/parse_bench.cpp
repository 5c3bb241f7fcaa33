// Parse-and-resolve time for a generated large site (issue goal: a 20,000-node config with
// 200 partitions in under 200 ms). Two shapes: nodes written as hostlist ranges, as real
// sites do, and one NodeName line per node, the worst case for the parser.
#include <benchmark/benchmark.h>

#include <fmt/format.h>
#include <string>

#include "analyzer/analyze.h"

namespace {

std::string generate_site(int nodes, int partitions, bool one_line_per_node) {
  std::string text =
      "ClusterName=bench\nSlurmctldHost=ctl\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core_Memory\n"
      "AccountingStorageType=accounting_storage/slurmdbd\nPriorityType=priority/multifactor\n"
      "PriorityWeightFairshare=100000\nPriorityWeightAge=10000\nPriorityWeightPartition=1000000\n"
      "SchedulerParameters=bf_continue,bf_window=2880,bf_max_job_test=2000,default_queue_depth=500\n"
      "NodeName=DEFAULT Sockets=2 CoresPerSocket=24 ThreadsPerCore=2 RealMemory=386000 State=UNKNOWN\n";
  if (one_line_per_node) {
    for (int i = 0; i < nodes; ++i) text += fmt::format("NodeName=c{:05} Weight={}\n", i, 1 + i % 3);
  } else {
    for (int i = 0; i < nodes; i += 100)
      text += fmt::format("NodeName=c[{:05}-{:05}] Weight={}\n", i, i + 99, 1 + i / 100 % 3);
  }
  const int span = nodes / 20;  // each partition covers a 1,000-node window; windows overlap
  for (int p = 0; p < partitions; ++p) {
    int start = (p * 97) % (nodes - span);
    text += fmt::format(
        "PartitionName=p{:03} Nodes=c[{:05}-{:05}] MaxTime=2-00:00:00 PriorityTier={} "
        "PriorityJobFactor={} OverSubscribe=NO AllowAccounts=acct{},shared\n",
        p, start, start + span - 1, 1 + p % 3, 1 + p % 10, p);
  }
  return text;
}

void BM_ParseResolve(benchmark::State& state) {
  const bool per_node = state.range(0) != 0;
  const std::string text = generate_site(20000, 200, per_node);
  std::size_t nodes = 0;
  for (auto _ : state) {
    auto analysis = sa::analyze_text("bench/slurm.conf", text);
    nodes = analysis->config.nodes.size();
    if (analysis->diagnostics.has_errors()) state.SkipWithError("generated config has errors");
    benchmark::DoNotOptimize(analysis);
  }
  state.counters["nodes"] = static_cast<double>(nodes);
  state.counters["bytes"] = static_cast<double>(text.size());
  state.SetLabel(per_node ? "one NodeName line per node" : "hostlist ranges");
}
BENCHMARK(BM_ParseResolve)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
