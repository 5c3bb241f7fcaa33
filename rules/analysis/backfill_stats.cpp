#include "rules/analysis/backfill_stats.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "engine/preemption.h"
#include "rules/analysis/evidence.h"

namespace sa::rules {

bool backfill_runs(const Config& c) { return c.scheduler.type == "sched/backfill" && c.scheduler.bf_interval > 0; }

bool sched_param_written(const Config& c, const std::string& name) {
  const Setting* s = c.setting("SchedulerParameters");
  if (!s) return false;
  const std::string& v = s->value;
  for (std::size_t at = v.find(name); at != std::string::npos; at = v.find(name, at + 1)) {
    const std::size_t after = at + name.size();
    const bool starts = at == 0 || v[at - 1] == ',';
    const bool ends = after == v.size() || v[after] == '=' || v[after] == ',';
    if (starts && ends) return true;
  }
  return false;
}

namespace {

struct Step {
  std::int64_t at;
  std::int64_t delta;
  std::string key;
};

// +records when a job becomes eligible, -records when it starts (or the run ends); starts
// before arrivals at the same second, as the queue is built after the ends and starts.
std::vector<Step> pending_steps(const Simulation& sim, const RecordKey& key) {
  std::vector<Step> steps;
  for (const engine::SimJob& j : sim.result.jobs) {
    if (j.state == engine::JobState::kRejected || j.state == engine::JobState::kFuture) continue;
    const std::int64_t to = j.waited_until(sim.result.end);
    if (to <= j.begin) continue;
    for (const engine::SimRecord& r : j.recs) {
      if (r.hold_reason != engine::HoldReason::kNone) continue;
      std::string k = key ? key(j, r) : std::string();
      steps.push_back({j.begin, 1, k});
      steps.push_back({to, -1, std::move(k)});
    }
  }
  std::stable_sort(steps.begin(), steps.end(),
                   [](const Step& a, const Step& b) { return a.at != b.at ? a.at < b.at : a.delta < b.delta; });
  return steps;
}

}  // namespace

KeyPeak peak_pending(const Simulation& sim, const RecordKey& key) {
  KeyPeak best;
  std::map<std::string, std::int64_t> now;
  for (const Step& s : pending_steps(sim, key)) {
    const std::int64_t n = now[s.key] += s.delta;
    if (n > static_cast<std::int64_t>(best.peak)) best = {static_cast<std::size_t>(n), s.key, s.at};
  }
  return best;
}

double share_beyond(const Simulation& sim, std::int64_t limit) {
  double all = 0, beyond = 0;
  std::int64_t depth = 0, last = 0;
  for (const Step& s : pending_steps(sim, nullptr)) {
    const auto span = static_cast<double>(s.at - last);
    all += span * static_cast<double>(depth);
    beyond += span * static_cast<double>(std::max<std::int64_t>(0, depth - limit));
    depth += s.delta;
    last = s.at;
  }
  return all > 0 ? beyond / all : 0.0;
}

QueueDepth queue_depth(const Simulation& sim) {
  QueueDepth d;
  const engine::SimCounters& c = sim.result.counters;
  if (c.bf_cycles) d.mean = static_cast<double>(c.bf_queue_records) / static_cast<double>(c.bf_cycles);
  const KeyPeak p = peak_pending(sim, nullptr);
  d.peak = p.peak;
  d.peak_at = p.at;
  return d;
}

double cycle_share(const Simulation& sim, std::uint64_t stopped) {
  const std::uint64_t cycles = sim.result.counters.bf_cycles;
  return cycles ? static_cast<double>(stopped) / static_cast<double>(cycles) : 0.0;
}

nlohmann::json cycle_json(const Simulation& sim) {
  const engine::SimCounters& c = sim.result.counters;
  const QueueDepth d = queue_depth(sim);
  return {{"cycles", c.bf_cycles},
          {"will_run_tests", c.bf_tests},
          {"starts", c.bf_starts},
          {"reservations", c.bf_reservations},
          {"mean_queue_depth", rounded3(d.mean)},
          {"peak_queue_depth", d.peak},
          {"stopped_by_bf_max_job_test", c.bf_stopped_by_max_job_test},
          {"stopped_by_bf_max_time", c.bf_stopped_by_max_time},
          {"stopped_by_lock_yield", c.bf_stopped_by_yield},
          {"stopped_by_bf_node_space_size", c.bf_stopped_by_node_space},
          {"stopped_by_bf_max_job_start", c.bf_stopped_by_max_job_start},
          {"records_skipped_by_per_entity_limits", c.bf_skipped_by_user_limit}};
}

nlohmann::json outcome_json(const Simulation& sim) {
  const engine::Metrics& m = sim.metrics;
  nlohmann::json by_size = nlohmann::json::object();
  for (const auto& [size, w] : m.by_size) by_size[size] = std::llround(w.mean);
  return {{"utilization", rounded3(m.utilization)},
          {"wait_seconds", wait_json(m.overall)},
          {"mean_wait_by_cpus", by_size},
          {"backfill_share", rounded3(m.backfill_share)},
          {"never_reached_by_backfill", m.never_reached_by_backfill},
          {"pending_at_end", m.pending_at_end}};
}

std::vector<const engine::SimJob*> never_tested(const Simulation& sim) {
  std::vector<const engine::SimJob*> out;
  const Config& c = *sim.site.config;
  if (!backfill_runs(c)) return out;
  for (const engine::SimJob& j : sim.result.jobs) {
    if (j.state == engine::JobState::kRejected || j.state == engine::JobState::kFuture || j.recs.empty()) continue;
    if (j.bf_tested || j.started_by == engine::StartedBy::kBackfill) continue;
    if (wait_of(sim, j) < c.scheduler.bf_interval) continue;
    out.push_back(&j);
  }
  std::stable_sort(out.begin(), out.end(), [&](auto* a, auto* b) { return wait_of(sim, *a) > wait_of(sim, *b); });
  return out;
}

std::vector<const engine::SimJob*> longest_waits(const Simulation& sim) {
  std::vector<const engine::SimJob*> out;
  for (const engine::SimJob& j : sim.result.jobs) {
    if (j.state == engine::JobState::kRejected || j.state == engine::JobState::kFuture || j.recs.empty() ||
        j.cancelled_pending())
      continue;
    out.push_back(&j);
  }
  std::stable_sort(out.begin(), out.end(), [&](auto* a, auto* b) { return wait_of(sim, *a) > wait_of(sim, *b); });
  return out;
}

std::string count_of(std::size_t n, const char* noun) { return std::to_string(n) + " " + noun + (n == 1 ? "" : "s"); }

engine::WaitStats wait_stats(const Simulation& sim, const std::vector<const engine::SimJob*>& jobs) {
  std::vector<double> w;
  w.reserve(jobs.size());
  for (const engine::SimJob* j : jobs) w.push_back(static_cast<double>(wait_of(sim, *j)));
  return wait_stats(std::move(w));
}

void add_examples(nlohmann::json& evidence, const Simulation& sim, const std::vector<const engine::SimJob*>& jobs,
                  std::size_t n) {
  for (std::size_t i = 0; i < jobs.size() && i < n; ++i) evidence["examples"].push_back(job_json(sim, *jobs[i]));
}

std::int64_t round_up(std::int64_t v, std::int64_t step) {
  if (step <= 0) return v;
  return (v + step - 1) / step * step;
}

std::uint32_t share_rows(const Partition& p) {
  const bool shares =
      p.oversubscribe.mode == OverSubscribe::Mode::kForce || p.oversubscribe.mode == OverSubscribe::Mode::kYes;
  return shares ? std::max<std::uint32_t>(1, p.oversubscribe.count) : 1;
}

std::string oversubscribe_text(const OverSubscribe& o) {
  switch (o.mode) {
    case OverSubscribe::Mode::kExclusive:
      return "EXCLUSIVE";
    case OverSubscribe::Mode::kYes:
      return "YES:" + std::to_string(o.count);
    case OverSubscribe::Mode::kForce:
      return "FORCE:" + std::to_string(o.count);
    default:
      return "NO";
  }
}

std::vector<std::uint32_t> sorted_nodes(const Partition& p) {
  std::vector<std::uint32_t> v = p.nodes;
  std::sort(v.begin(), v.end());
  return v;
}

bool partitions_overlap(const Partition& a, const Partition& b) {
  const std::vector<std::uint32_t> x = sorted_nodes(a), y = sorted_nodes(b);
  std::size_t i = 0, j = 0;
  while (i < x.size() && j < y.size()) {
    if (x[i] == y[j]) return true;
    if (x[i] < y[j])
      ++i;
    else
      ++j;
  }
  return false;
}

bool suspendable(const LintContext& ctx, std::size_t part) {
  const Config& c = ctx.config();
  const engine::PreemptPolicy policy(c, ctx.qos());
  if (!policy.enabled() || part >= c.partitions.size()) return false;
  const auto p = static_cast<std::uint32_t>(part);
  if (policy.kind() == engine::PreemptPolicy::Kind::kPartition) {
    if (policy.mode(p, -1) != PreemptMode::Base::kSuspend) return false;
    for (std::size_t q = 0; q < c.partitions.size(); ++q) {
      if (q == part || !partitions_overlap(c.partitions[q], c.partitions[part])) continue;
      if (policy.can_preempt(static_cast<std::uint32_t>(q), -1, 0, p, -1, 0)) return true;
    }
    return false;
  }
  // preempt/qos: any partition can hold a job of a QOS another QOS preempts.
  const QosTable& qos = ctx.qos();
  for (std::size_t a = 0; a < qos.records.size(); ++a) {
    for (const std::string& name : qos.records[a].preempt) {
      const QosRecord* ee = qos.find(name);
      if (!ee) continue;
      const auto b = static_cast<std::int32_t>(ee - qos.records.data());
      if (policy.mode(p, b) == PreemptMode::Base::kSuspend) return true;
    }
  }
  return false;
}

std::uint64_t default_node_mem(const Config& c, const Partition& p, const Node& node) {
  const Config::MemoryDefault d = c.memory_default(p);
  return d.per_cpu ? d.mb * node.cpus : d.mb;
}

bool default_mem_zero(const Config& c, const Partition& p) {
  return !p.def_mem_per_cpu && !p.def_mem_per_node && c.select.def_mem_per_cpu_zero;
}

bool whole_node_by_default(const Config& c, const Partition& p) {
  return p.oversubscribe.mode != OverSubscribe::Mode::kExclusive && c.no_default_memory(p) && c.memory_counted(p);
}

nlohmann::json gang_json(const Simulation& sim) {
  const engine::GangMetrics& g = sim.metrics.gang;
  nlohmann::json j = {{"jobs_suspended", g.suspended_jobs},
                      {"suspends", g.suspends},
                      {"suspended_cpu_seconds", std::llround(g.suspended_cpu_seconds)},
                      {"stretch_mean", rounded3(g.stretch_mean)},
                      {"stretch_p95", rounded3(g.stretch_p95)},
                      {"stretch_max", rounded3(g.stretch_max)},
                      {"max_jobs_per_node", g.max_jobs_per_node},
                      {"nodes_shared_without_memory_bound", g.nodes_unbounded_shared},
                      {"nodes_over_memory", g.nodes_over_memory}};
  if (!g.worst_memory_node.empty()) {
    j["worst_memory_node"] = {{"node", g.worst_memory_node},
                              {"requested_mb", g.worst_memory_mb},
                              {"real_memory_mb", g.worst_memory_real_mb},
                              {"ratio", rounded3(g.worst_memory_ratio)}};
  }
  // The node that held the most jobs with no memory bound at once.
  const engine::NodePeak* worst = nullptr;
  for (const engine::NodePeak& p : sim.result.node_peaks) {
    if (p.unbounded >= 2 && (!worst || p.unbounded > worst->unbounded)) worst = &p;
  }
  if (worst && worst->node < sim.site.config->nodes.size()) {
    const Node& n = sim.site.config->nodes[worst->node];
    j["worst_unbounded_node"] = {
        {"node", n.name}, {"jobs_without_memory_bound", worst->unbounded}, {"real_memory_mb", n.real_memory_mb}};
  }
  return j;
}

Location select_loc(const LintContext& ctx) {
  if (ctx.config().setting("SelectTypeParameters")) return ctx.setting_loc("SelectTypeParameters");
  return ctx.setting_loc("SelectType");
}

}  // namespace sa::rules
