// One fair-share recalculation for a large site (issue goal: 100,000 users in 2,000
// accounts, 5 levels deep, under 100 ms), as the engine runs it every PriorityCalcPeriod.
#include <benchmark/benchmark.h>

#include <random>

#include "engine/fair_share.h"

namespace {

// 2,000 accounts in 5 levels below root (5, 20, 75, 300, 1,600), users spread over the
// leaf level, seeded shares and usage.
sa::AssocTree generate_tree(int users) {
  sa::AssocTree tree;
  tree.assocs.push_back({});
  tree.assocs[0].account = "root";
  std::mt19937 rng(42);
  std::vector<std::uint32_t> level{0};
  const int widths[] = {5, 20, 75, 300, 1600};
  for (int depth = 0; depth < 5; ++depth) {
    std::vector<std::uint32_t> next;
    for (int i = 0; i < widths[depth]; ++i) {
      sa::Association a;
      a.id = static_cast<std::uint32_t>(tree.assocs.size());
      a.account = "a" + std::to_string(depth) + "_" + std::to_string(i);
      a.parent = level[static_cast<std::size_t>(i) % level.size()];
      a.shares_raw = static_cast<std::uint32_t>(1 + rng() % 100);
      tree.assocs[a.parent].children.push_back(a.id);
      next.push_back(a.id);
      tree.assocs.push_back(a);
    }
    level = next;
  }
  for (int u = 0; u < users; ++u) {
    sa::Association a;
    a.id = static_cast<std::uint32_t>(tree.assocs.size());
    a.user = "u" + std::to_string(u);
    a.parent = level[static_cast<std::size_t>(u) % level.size()];
    a.account = tree.assocs[a.parent].account;
    a.shares_raw = static_cast<std::uint32_t>(1 + rng() % 3);
    tree.assocs[a.parent].children.push_back(a.id);
    tree.assocs.push_back(a);
  }
  return tree;
}

void BM_FairShare(benchmark::State& state) {
  const auto algorithm = static_cast<sa::engine::FairShareAlgorithm>(state.range(0));
  sa::AssocTree tree = generate_tree(100'000);
  std::mt19937 rng(7);
  std::vector<long double> usage(tree.assocs.size(), 0);
  for (const sa::Association& a : tree.assocs) {
    if (a.is_user()) usage[a.id] = rng() % 4 == 0 ? 0 : static_cast<long double>(rng() % 1'000'000);
  }
  sa::engine::FairShare fair_share(tree, {algorithm, 1});
  for (auto _ : state) benchmark::DoNotOptimize(fair_share.compute(usage));
  state.counters["associations"] = static_cast<double>(tree.assocs.size());
  state.SetLabel(algorithm == sa::engine::FairShareAlgorithm::kFairTree ? "fair tree" : "classic");
}
BENCHMARK(BM_FairShare)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
