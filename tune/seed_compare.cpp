#include "tune/seed_compare.h"

#include <algorithm>
#include <future>
#include <map>
#include <tuple>

#include "engine/metrics.h"
#include "engine/simulator.h"
#include "tune/evaluate.h"

namespace sa::tune {

namespace {

// (group, name, what) -> unit and one value per run.
using Key = std::tuple<int, std::string, std::string, std::string>;  // int: the run first
struct Series {
  Unit unit = Unit::kSeconds;
  std::vector<double> values;
};
using Samples = std::map<Key, Series>;

engine::Metrics simulate(const engine::LoadedSite& in, const engine::Workload& load) {
  return SeedRun(in, load).metrics;
}

// No outcome is negative and a share passes 100 % only when the runs did (utilisation with
// oversubscribed CPUs), however wide a few seeds' t interval is.
Interval clipped(Interval i, Unit unit) {
  i.lo = std::max(0.0, i.lo);
  if (unit == Unit::kFraction && i.mean <= 1) i.hi = std::min(1.0, i.hi);
  return i;
}

void add(Samples& s, const Key& key, Unit unit, double v) {
  s[key].unit = unit;
  s[key].values.push_back(v);
}

void collect(const engine::Metrics& m, Samples& s) {
  add(s, {0, "run", "all", "utilisation"}, Unit::kFraction, m.utilization);
  add(s, {0, "run", "all", "jobs never started"}, Unit::kCount, static_cast<double>(m.pending_at_end));
  for (const auto& [group, map] : {std::pair{"partition", &m.by_partition}, std::pair{"size", &m.by_size}}) {
    for (const auto& [name, w] : *map) {
      add(s, {1, group, name, "mean wait"}, Unit::kSeconds, w.mean);
      add(s, {1, group, name, "p95 wait"}, Unit::kSeconds, w.p95);
    }
  }
  for (const auto& [name, w] : m.by_account) add(s, {1, "account", name, "p95 wait"}, Unit::kSeconds, w.p95);
  for (const engine::AccountShare& a : m.account_shares) {
    add(s, {1, "account", a.account, "delivered share"}, Unit::kFraction, a.actual);
  }
}

}  // namespace

SeedComparison compare_over_seeds(const engine::LoadedSite& before, const engine::LoadedSite& after,
                                  const engine::DefaultLoadOptions& options, std::size_t seeds) {
  SeedComparison out;
  out.seeds = seeds;
  out.first_seed = options.seed;
  Samples old_runs, new_runs;
  for (std::size_t k = 0; k < seeds; ++k) {
    engine::DefaultLoadOptions d = options;
    d.seed = options.seed + k;
    const engine::DefaultLoad load = engine::default_load(before.site, d);
    if (k == 0) out.load = load.description;
    // The two configs of one seed run side by side; the seeds one after another.
    auto new_run = std::async(std::launch::async, [&] { return simulate(after, load.workload); });
    collect(simulate(before, load.workload), old_runs);
    collect(new_run.get(), new_runs);
  }
  for (const auto& [key, a] : old_runs) {
    auto it = new_runs.find(key);
    if (it == new_runs.end() || a.values.size() != seeds || it->second.values.size() != seeds) continue;
    const std::vector<double>& b = it->second.values;
    std::vector<double> change;
    for (std::size_t k = 0; k < seeds; ++k) change.push_back(b[k] - a.values[k]);
    SeedMetric m;
    std::tie(std::ignore, m.group, m.name, m.what) = key;
    m.unit = a.unit;
    m.before = clipped(mean_interval(a.values), a.unit);
    m.after = clipped(mean_interval(b), a.unit);
    m.change = mean_interval(change);
    m.significant = m.change.lo > 0 || m.change.hi < 0;
    out.metrics.push_back(std::move(m));
  }
  return out;
}

}  // namespace sa::tune
