#include "tune/seed_compare.h"

#include <algorithm>
#include <future>
#include <map>
#include <optional>
#include <string>
#include <tuple>

#include <fmt/format.h>

#include "engine/metrics.h"
#include "engine/simulator.h"
#include "engine/site_loader.h"
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

struct Outcome {
  engine::Metrics metrics;
  std::optional<std::string> cut;  // the run stopped at the step limit: where, said
};

Outcome simulate(const engine::LoadedSite& in, const engine::Workload& load, const std::string& subject) {
  const SeedRun run(in, load);
  Outcome out{run.metrics, std::nullopt};
  if (auto stop = run.result.step_limit_stop())
    out.cut = engine::step_limit_text(*stop, run.site.max_sim_steps, subject) + " (WORK008)";
  return out;
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
    const std::string seed = fmt::format("seed {}: the ", d.seed);
    auto new_run =
        std::async(std::launch::async, [&] { return simulate(after, load.workload, seed + "new config's run"); });
    const Outcome a = simulate(before, load.workload, seed + "old config's run");
    const Outcome b = new_run.get();
    for (const Outcome* o : {&a, &b}) {
      if (o->cut) out.cut_runs.push_back(*o->cut);
    }
    collect(a.metrics, old_runs);
    collect(b.metrics, new_runs);
  }
  if (!out.cut_runs.empty()) return out;
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
