// TIER001: a partition whose jobs always come before another's, whatever fair share says.
// Slurm orders the queue by PriorityTier before priority, so between partitions at
// different tiers fair share and age never reorder anything; and at one tier a partition
// term whose difference is at least the whole fair-share plus age range does the same.
// Only pairs that compete for nodes are considered: between partitions on disjoint nodes the
// queue order takes no node from either (slurmctld's main loop holds back only the failed
// job's partition's nodes, a backfill reservation only its own nodes), whoever the users are.
// Order there still spends shared budgets and limits first (default_queue_depth,
// max_sched_time, bf_max_job_test, licences, association and QOS limits): other rules judge
// those (BF002, BF003, BF005, the limits' evidence), and fair share is not what they are about.
#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "rules/analysis/evidence.h"
#include "rules/analysis/queue_pairs.h"
#include "rules/framework/context.h"
#include "rules/framework/rule.h"
#include "rules/framework/sink.h"

namespace sa::rules {

namespace {

// Partitions whose evidence is simulated per finding: the first few it dominates.
constexpr std::size_t kEvidencePairs = 3;

struct Dominated {
  std::uint32_t part = 0;
  bool by_tier = false;  // else by the partition term at the same tier
  double gap = 0;        // partition-term points above it (same tier)
};

// `top`: the largest PriorityJobFactor (max_job_factor), read once for all partitions.
std::vector<Dominated> dominated_by(const Config& c, const QosTable* qos, const PartitionNodes& nodes, double top,
                                    std::uint32_t p, double weight, double range) {
  std::vector<Dominated> out;
  const Partition& a = c.partitions[p];
  for (std::uint32_t q = 0; q < c.partitions.size(); ++q) {
    const Partition& b = c.partitions[q];
    if (q == p || !schedules_jobs(b)) continue;
    if (a.priority_tier > b.priority_tier && meant_to_lose(c, a, b, qos)) continue;
    if (!nodes.share(p, q)) continue;
    const double gap = weight * (partition_factor(c, a, top) - partition_factor(c, b, top));
    if (a.priority_tier > b.priority_tier)
      out.push_back({q, true, gap});
    else if (a.priority_tier == b.priority_tier && range > 0 && gap >= range)
      out.push_back({q, false, gap});
  }
  return out;
}

// The partitions it goes before, the first few named and the rest counted: every partition of
// a config can be in every finding's list, and a message per partition naming them all grows
// with the square of the partitions.
std::string describe(const Config& c, const std::vector<Dominated>& d, bool by_tier) {
  constexpr std::size_t kNamed = 6;
  std::string out;
  std::size_t n = 0;
  for (const Dominated& x : d) {
    if (x.by_tier != by_tier || n++ >= kNamed) continue;
    const Partition& q = c.partitions[x.part];
    out += (out.empty() ? "" : ", ") + (by_tier ? fmt::format("{} (tier {})", q.name, q.priority_tier)
                                                : fmt::format("{} ({} points below)", q.name, points(x.gap)));
  }
  if (n > kNamed) out += fmt::format(" and {} more", n - kNamed);
  return out + ", which share its nodes";
}

// A test or debug partition: jobs of at most a few hours (and at most a quarter of the limit
// of every partition it goes before). Putting those first is the usual intent, as the
// university page the example site follows says of its *:test partitions.
bool test_partition(const Config& c, const Partition& a, const std::vector<Dominated>& d) {
  constexpr std::int64_t kTestMaxTime = 4 * 3600;
  if (a.max_time <= 0 || a.max_time > kTestMaxTime) return false;  // <= 0: UNLIMITED
  return std::all_of(d.begin(), d.end(), [&](const Dominated& x) {
    const std::int64_t other = c.partitions[x.part].max_time;
    return other < 0 || a.max_time * 4 <= other;  // < 0: UNLIMITED
  });
}

// One pair's numbers, keyed "<ahead> ahead of <behind>" so the text report can print them flat.
std::pair<std::string, nlohmann::json> pair_metrics(const SnapshotQueues& queues, std::uint32_t p, std::uint32_t q,
                                                    CrossPairStats* keep) {
  const Simulation& sim = queues.sim();
  const Config& c = *sim.site.config;
  const CrossPairStats s = cross_partition_pairs(queues, p, q);
  const PartitionWaits wp = partition_waits(sim, p), wq = partition_waits(sim, q);
  const double ratio = wq.waits.mean / std::max(60.0, wp.waits.mean);
  nlohmann::json j = {{"pending_pairs", s.pairs},
                      {"fairshare_prefers_behind", s.fairshare_prefers_second},
                      {"fairshare_reversed_order", s.reversed},
                      {"mean_wait_ahead", std::llround(wp.waits.mean)},
                      {"mean_wait_behind", std::llround(wq.waits.mean)},
                      {"delay_ratio", std::round(ratio * 100.0) / 100.0}};
  if (s.sampled) j["sampled"] = true;
  if (keep) *keep = s;
  return {fmt::format("{} ahead of {}", c.partitions[p].name, c.partitions[q].name), j};
}

void add_example(const Simulation& sim, Finding& f, const QueueRow& r) {
  auto& ex = f.evidence["examples"];
  for (const auto& e : ex) {
    if (e.value("job", 0U) == r.row->job_id) return;
  }
  if (ex.size() < 5) ex.push_back(row_json(sim, r));
}

// The site's run and the run of the suggested weight (when one is suggested), each with its
// queues read once for every finding.
struct Runs {
  const SnapshotQueues* base = nullptr;
  const SnapshotQueues* weighted = nullptr;
};

void add_evidence(const Runs& runs, Finding& f, std::uint32_t p, const std::vector<Dominated>& d) {
  if (!runs.base) return;
  const Simulation& sim = runs.base->sim();
  f.evidence = simulated_evidence(sim);
  for (std::size_t i = 0; i < d.size() && i < kEvidencePairs; ++i) {
    CrossPairStats s;
    auto [key, metrics] = pair_metrics(*runs.base, p, d[i].part, &s);
    f.evidence["metrics"][key] = metrics;
    for (const auto& [a, b] : s.examples) {
      add_example(sim, f, a);
      add_example(sim, f, b);
    }
  }
}

// The largest 1, 2 or 5 x 10^k at or below v (at least 1).
std::uint64_t round_down_125(double v) {
  const std::uint64_t up = round_up_125(v);
  if (static_cast<double>(up) <= v || up == 1) return up;
  std::uint64_t mag = 1;
  while (mag * 10 <= up) mag *= 10;
  const std::uint64_t lead = up / mag;  // 1, 2 or 5
  return lead == 1 ? mag / 2 : lead == 2 ? mag : 2 * mag;
}

// A partition weight at which the largest same-tier gap of every flagged partition is half
// the fair-share and age range (0 when no partition term dominates). The weight is one
// setting, so every finding proposes the same value, and one re-simulation shows it.
std::uint64_t common_weight(const std::vector<std::vector<Dominated>>& found, double weight, double range) {
  double gap = 0;
  for (const std::vector<Dominated>& d : found) {
    for (const Dominated& x : d) {
      if (!x.by_tier) gap = std::max(gap, x.gap);
    }
  }
  return gap <= 0 ? 0 : std::max<std::uint64_t>(1, round_down_125(weight * range / 2 / gap));
}

void weight_fix(const Runs& runs, Finding& f, std::uint32_t p, const std::vector<Dominated>& d, std::uint64_t value) {
  if (value == 0) return;
  f.fix = Fix{fmt::format("lower PriorityWeightPartition to {} so the partition term is at most half the fair-share "
                          "and age range; or use PriorityTier if one partition is meant to always come first",
                          points(static_cast<double>(value))),
              "PriorityWeightPartition",
              std::to_string(value),
              {}};
  if (!runs.weighted) return;
  f.fix->resimulated = {{"scenario", scenario_json(runs.weighted->sim().scenario)}};
  std::size_t n = 0;
  for (const Dominated& x : d) {
    if (x.by_tier || n++ >= kEvidencePairs) continue;
    auto [key, metrics] = pair_metrics(*runs.weighted, p, x.part, nullptr);
    f.fix->resimulated[key] = metrics;
  }
}

std::string message(const Config& c, std::uint32_t p, const std::vector<Dominated>& d, double weight, double range) {
  const Partition& a = c.partitions[p];
  const bool tier = std::any_of(d.begin(), d.end(), [](const Dominated& x) { return x.by_tier; });
  const bool term = std::any_of(d.begin(), d.end(), [](const Dominated& x) { return !x.by_tier; });
  std::string msg = fmt::format("partition '{}' (PriorityTier={}) always comes before ", a.name, a.priority_tier);
  if (tier) {
    msg += fmt::format(
        "the lower-tier partitions {}: Slurm orders the queue by PriorityTier before priority, so fair "
        "share and age never reorder their jobs",
        describe(c, d, true));
  }
  // Across tiers the partition term is moot, but say when it would dominate on its own too.
  const Dominated* widest = nullptr;
  for (const Dominated& x : d) {
    if (x.by_tier && (!widest || x.gap > widest->gap)) widest = &x;
  }
  if (widest && widest->gap >= range) {
    msg += fmt::format(
        "; even at one tier its partition term ({} points above {}) would exceed the whole fair-share "
        "and age range ({} points)",
        points(widest->gap), c.partitions[widest->part].name, points(range));
  }
  if (term) {
    msg += fmt::format(
        "{}the partitions of its tier {}: PriorityWeightPartition={} with PriorityJobFactor={} puts its "
        "jobs at least the whole fair-share and age range ({} points) ahead",
        tier ? "; and before " : "", describe(c, d, false), points(weight), a.priority_job_factor, points(range));
  }
  return msg;
}

void report(const LintContext& ctx, FindingSink& sink, std::uint32_t p, const std::vector<Dominated>& d, double weight,
            double range, std::uint64_t fixed_weight, const Runs& runs) {
  const Config& c = ctx.config();
  const Partition& a = c.partitions[p];
  const bool tier = std::any_of(d.begin(), d.end(), [](const Dominated& x) { return x.by_tier; });
  const bool term = std::any_of(d.begin(), d.end(), [](const Dominated& x) { return !x.by_tier; });
  Finding& f = sink.report(ctx.conf_loc(a.loc), message(c, p, d, weight, range));
  if (term) {
    Location w = ctx.setting_loc("PriorityWeightPartition");
    w.note = "the partition weight";
    f.related.push_back(w);
  }
  for (std::size_t i = 0; i < d.size() && i < 4; ++i) {
    Location l = ctx.conf_loc(c.partitions[d[i].part].loc);
    l.note = "always behind it";
    f.related.push_back(l);
  }
  if (tier && !term) {
    f.fix =
        Fix{"if fair share should decide between these partitions, put them at the same PriorityTier and express "
            "the preference with PriorityJobFactor (its weighted difference well below the fair-share range) or "
            "a QOS priority",
            {},
            {},
            {}};
  }
  add_evidence(runs, f, p, d);
  if (term) weight_fix(runs, f, p, d, fixed_weight);
  if (!term && test_partition(c, a, d)) {
    f.severity = Severity::kInfo;
    f.message += fmt::format(
        "; with MaxTime={} it is a test partition, and short test jobs going first is usually the intent, so "
        "here it is a note (TIER003 warns if the tier starves the partitions behind it)",
        slurm_duration(a.max_time));
  }
}

// A higher PriorityTier is how Slurm is told that one partition comes first, so tier
// dominance alone is only a finding when the run shows it costing something: pending pairs
// whose order fair share would have reversed. A partition term that outweighs fair share at
// one tier is a weight defect on its own.
std::vector<Dominated> starved_by_tier(const SnapshotQueues& queues, std::uint32_t p, const std::vector<Dominated>& d) {
  std::vector<Dominated> out;
  for (const Dominated& x : d) {
    if (!x.by_tier) {
      out.push_back(x);
      continue;
    }
    const CrossPairStats s = cross_partition_pairs(queues, p, x.part);
    if (s.fairshare_prefers_second > 0) out.push_back(x);
  }
  return out;
}

void check(const LintContext& ctx, FindingSink& sink) {
  const Config& c = ctx.config();
  const EffectiveWeights w = effective_weights(c);
  // What could reorder jobs across partitions: fair share and age.
  const double range = w.fairshare + w.age;
  if (range <= 0) return;
  const Simulation* sim = ctx.simulation();
  std::optional<SnapshotQueues> base;
  if (sim) base.emplace(*sim);
  std::vector<std::uint32_t> parts;
  std::vector<std::vector<Dominated>> found;
  const PartitionNodes nodes(c);
  const double top = max_job_factor(c);
  for (std::uint32_t p = 0; p < c.partitions.size(); ++p) {
    if (!schedules_jobs(c.partitions[p])) continue;
    std::vector<Dominated> d =
        dominated_by(c, ctx.has_qos_table() ? &ctx.qos() : nullptr, nodes, top, p, w.partition, range);
    if (base) {
      d = starved_by_tier(*base, p, d);
    } else {
      d.erase(std::remove_if(d.begin(), d.end(), [](const Dominated& x) { return x.by_tier; }), d.end());
    }
    if (d.empty()) continue;
    parts.push_back(p);
    found.push_back(std::move(d));
  }
  const std::uint64_t fixed_weight = common_weight(found, w.partition, range);
  SimulationPtr weighted_run;  // (the queues below read it)
  std::optional<SnapshotQueues> weighted;
  if (base && fixed_weight > 0) {
    const std::string written = fmt::format("{}", fixed_weight);
    weighted_run =
        ctx.resimulate("PriorityWeightPartition=" + written, {ConfigEdit::setting("PriorityWeightPartition", written)});
    weighted.emplace(*weighted_run);
  }
  const Runs runs{base ? &*base : nullptr, weighted ? &*weighted : nullptr};
  for (std::size_t i = 0; i < parts.size(); ++i)
    report(ctx, sink, parts[i], found[i], w.partition, range, fixed_weight, runs);
}

}  // namespace

}  // namespace sa::rules

SA_RULE({"TIER001", "partition-weight-dominates", Severity::kWarning, Check::kTierDominance, SimUse::kEvidence,
         "a partition's tier or weighted job factor puts its jobs ahead of another's whatever their fair share", check})
