#include "engine/fidelity.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <tuple>
#include <utility>

#include "engine/metrics.h"

namespace sa::engine {

namespace {

// Integer mean, rounded half away from zero, so a report never shows a fraction of a second.
std::int64_t rounded_mean(const std::vector<std::int64_t>& values) {
  if (values.empty()) return 0;
  std::int64_t sum = 0;
  for (std::int64_t v : values) sum += v;
  const auto n = static_cast<std::int64_t>(values.size());
  return sum >= 0 ? (sum + n / 2) / n : -((-sum + n / 2) / n);
}

WaitSummary summarise(const std::vector<std::int64_t>& waits) {
  return {waits.size(), rounded_mean(waits), nearest_rank(waits, 0.95)};
}

std::optional<double> relative(std::int64_t error, std::int64_t real) {
  if (real == 0) return std::nullopt;
  return 100.0 * static_cast<double>(error) / static_cast<double>(real);
}

/// The waits of one group in both runs, collected job by job.
struct GroupWaits {
  std::vector<std::int64_t> real, sim;
};

GroupFidelity finish(std::string kind, std::string key, const GroupWaits& w) {
  GroupFidelity g;
  g.kind = std::move(kind);
  g.key = std::move(key);
  g.real = summarise(w.real);
  g.sim = summarise(w.sim);
  g.mean_error = g.sim.mean - g.real.mean;
  g.p95_error = g.sim.p95 - g.real.p95;
  g.mean_error_pct = relative(g.mean_error, g.real.mean);
  g.p95_error_pct = relative(g.p95_error, g.real.p95);
  return g;
}

// Backfill's share of the starts whose scheduler the run recorded (sacct Flags SchedBackfill /
// SchedMain, the trace's started_by); unset when it recorded none.
std::optional<double> backfill_share(const std::vector<const RunJob*>& started) {
  std::size_t known = 0, backfill = 0;
  for (const RunJob* j : started) {
    if (j->started_by == StartedBy::kNone) continue;
    ++known;
    if (j->started_by == StartedBy::kBackfill) ++backfill;
  }
  if (known == 0) return std::nullopt;
  return static_cast<double>(backfill) / static_cast<double>(known);
}

// The first CPU count of a size class ("17-128" -> 17), so classes sort by size.
std::uint32_t size_floor(const std::string& size) {
  return static_cast<std::uint32_t>(std::strtoul(size.c_str(), nullptr, 10));
}

std::int64_t makespan(const std::vector<const RunJob*>& jobs) {
  std::int64_t first = 0, last = 0;
  bool any = false;
  for (const RunJob* j : jobs) {
    if (j->start == kNoTime) continue;
    const std::int64_t end = std::max(j->end != kNoTime ? j->end : j->start, j->start);
    first = any ? std::min(first, j->submit) : j->submit;
    last = any ? std::max(last, end) : end;
    any = true;
  }
  return any ? last - first : 0;
}

void count_placement(const RunJob& real, const RunJob& sim, PlacementFidelity& p) {
  if (real.nodes > 0 && sim.nodes > 0) {
    ++p.compared;
    if (sim.nodes == real.nodes)
      ++p.same_nodes;
    else if (sim.nodes > real.nodes)
      ++p.more_nodes;
    else
      ++p.fewer_nodes;
  }
  if (sim.placement_legal) {
    ++p.legality_known;
    if (!*sim.placement_legal) ++p.illegal;
  }
}

}  // namespace

std::int64_t nearest_rank(std::vector<std::int64_t> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(values.size())));
  return values[std::clamp<std::size_t>(rank, 1, values.size()) - 1];
}

Fidelity compare_runs(const Run& real, const Run& sim) {
  Fidelity f;
  f.real_jobs = real.jobs.size();
  f.sim_jobs = sim.jobs.size();
  std::map<std::uint32_t, const RunJob*> by_id;
  for (const RunJob& j : sim.jobs) by_id.emplace(j.id, &j);
  std::vector<const RunJob*> common_real, common_sim, started_real, started_sim;
  GroupWaits all;
  // (kind rank, first CPU count of a size class, key): the order the groups are reported in
  std::map<std::tuple<int, std::uint32_t, std::string>, GroupWaits> groups;
  for (const RunJob& r : real.jobs) {
    auto it = by_id.find(r.id);
    if (it == by_id.end()) continue;
    const RunJob& s = *it->second;
    ++f.common;
    common_real.push_back(&r);
    common_sim.push_back(&s);
    const bool in_real = r.start != kNoTime, in_sim = s.start != kNoTime;
    if (in_real) started_real.push_back(&r);
    if (in_sim) started_sim.push_back(&s);
    if (in_real != in_sim) {
      ++(in_real ? f.started_real_only : f.started_sim_only);
      continue;
    }
    if (!in_real) continue;
    ++f.started_both;
    // Each start against the job's own submission, so two real runs of one load made at
    // different wall-clock times compare as well as a replay does.
    const std::int64_t apart = std::llabs((s.start - s.submit) - (r.start - r.submit));
    if (apart <= 10) ++f.within_10s;
    if (apart <= 60) ++f.within_60s;
    count_placement(r, s, f.placement);
    // Groups follow the reference run, so both sides of a row hold the same jobs.
    const std::string size = size_class(r.cpus);
    const std::tuple<int, std::uint32_t, std::string> keys[] = {
        {0, 0, r.partition}, {1, 0, r.qos}, {2, 0, r.account}, {3, size_floor(size), size}};
    all.real.push_back(r.wait());
    all.sim.push_back(s.wait());
    for (const auto& k : keys) {
      GroupWaits& g = groups[{std::get<0>(k), std::get<1>(k), std::get<2>(k).empty() ? "-" : std::get<2>(k)}];
      g.real.push_back(r.wait());
      g.sim.push_back(s.wait());
    }
  }
  f.makespan_real = makespan(common_real);
  f.makespan_sim = makespan(common_sim);
  f.makespan_error_pct = relative(f.makespan_sim - f.makespan_real, f.makespan_real);
  f.backfill_share_real = backfill_share(started_real);
  f.backfill_share_sim = backfill_share(started_sim);
  f.groups.push_back(finish("all", "all", all));
  static const char* const kKinds[] = {"partition", "qos", "account", "size"};
  for (const auto& [key, waits] : groups) f.groups.push_back(finish(kKinds[std::get<0>(key)], std::get<2>(key), waits));
  for (std::size_t i = 1; i < f.groups.size(); ++i) {
    if (!f.worst || std::llabs(f.groups[i].mean_error) > std::llabs(f.groups[*f.worst].mean_error)) f.worst = i;
  }
  return f;
}

}  // namespace sa::engine
