// TIER003: partitions that share nodes at different PriorityTier, where the simulated
// lower-tier jobs wait far longer than the higher-tier ones and the tier is the cause: the
// same load re-simulated with every partition at one tier cuts their wait. Slurm walks
// the higher tier first in every main and backfill cycle (and, with partition_prio
// preemption, lets it preempt), so a busy higher tier keeps the shared nodes from the
// lower one.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "rules/analysis/evidence.h"
#include "rules/analysis/queue_pairs.h"
#include "rules/framework/context.h"
#include "rules/framework/rule.h"
#include "rules/framework/sink.h"

namespace sa::rules {

namespace {

// Thresholds (rule.md explains them): the lower tier's mean wait at least 4 times the
// higher tier's (which counts as at least a minute), and starvation: 5% of its jobs wait a
// day or more, or 5% (at least one) are still pending at the end of the run.
constexpr double kWaitRatio = 4;
constexpr double kMinMean = 60;
constexpr double kStarvedWait = 86400;
constexpr double kPendingShare = 0.05;
// The tier must be the cause: equal tiers cut the lower tier's mean wait by a quarter.
constexpr double kTierEffect = 0.75;
constexpr std::size_t kMinJobs = 10, kMinHigherJobs = 5;
const char* const kEqualTiers = "PriorityTier=1 for every partition";

bool starved(const PartitionWaits& w) {
  const auto pending_needed =
      std::max<std::size_t>(1, static_cast<std::size_t>(kPendingShare * static_cast<double>(w.waits.jobs)));
  return w.waits.p95 >= kStarvedWait || w.pending_at_end >= pending_needed;
}

std::string hours(double seconds) { return slurm_duration(static_cast<std::int64_t>(seconds)); }

struct Candidate {
  std::uint32_t lo = 0;
  std::vector<std::uint32_t> hi;
};

std::vector<Candidate> candidates(const Simulation& sim, const QosTable* qos,
                                  std::map<std::uint32_t, PartitionWaits>& waits) {
  const Config& c = *sim.site.config;
  auto waits_of = [&](std::uint32_t p) -> const PartitionWaits& {
    auto it = waits.find(p);
    if (it == waits.end()) it = waits.emplace(p, partition_waits(sim, p)).first;
    return it->second;
  };
  std::vector<Candidate> out;
  const PartitionNodes nodes(c);
  for (std::uint32_t lo = 0; lo < c.partitions.size(); ++lo) {
    Candidate cand{lo, {}};
    for (std::uint32_t hi = 0; hi < c.partitions.size(); ++hi) {
      const Partition &l = c.partitions[lo], &h = c.partitions[hi];
      if (h.priority_tier <= l.priority_tier || !schedules_jobs(h) || !nodes.share(lo, hi)) continue;
      if (meant_to_lose(c, h, l, qos)) continue;  // a preemptible or shared partition below an owner's
      const PartitionWaits &wl = waits_of(lo), &wh = waits_of(hi);
      if (wl.waits.jobs < kMinJobs || wh.waits.jobs < kMinHigherJobs) continue;
      if (wl.waits.mean < kWaitRatio * std::max(kMinMean, wh.waits.mean) || !starved(wl)) continue;
      cand.hi.push_back(hi);
    }
    if (!cand.hi.empty()) out.push_back(std::move(cand));
  }
  return out;
}

// Flat enough for the text report: the lower tier's waits, then one entry per higher tier.
nlohmann::json wait_metrics(const Simulation& sim, const Candidate& cand) {
  const Config& c = *sim.site.config;
  const PartitionWaits lo = partition_waits(sim, cand.lo);
  nlohmann::json j = {{"partition", c.partitions[cand.lo].name},
                      {"wait_seconds", wait_json(lo.waits)},
                      {"longest_wait", std::llround(lo.waits.max)},
                      {"pending_at_end", lo.pending_at_end}};
  for (std::uint32_t h : cand.hi) {
    const PartitionWaits hi = partition_waits(sim, h);
    // Named without the tier, so the re-simulation (every tier equal) shows the same keys.
    j["higher tier " + c.partitions[h].name] = {
        {"jobs", hi.waits.jobs},
        {"mean_wait", std::llround(hi.waits.mean)},
        {"p95_wait", std::llround(hi.waits.p95)},
        {"delay_ratio", std::round(lo.waits.mean / std::max(kMinMean, hi.waits.mean) * 100.0) / 100.0}};
  }
  return j;
}

void report(const LintContext& ctx, FindingSink& sink, const Simulation& sim, const Simulation& equal,
            const Candidate& cand, const PartitionWaits& lo, const PartitionWaits& lo_equal,
            std::map<std::uint32_t, PartitionWaits>& waits) {
  const Config& c = ctx.config();
  const Partition& l = c.partitions[cand.lo];
  std::string higher;
  std::uint16_t top = l.priority_tier;
  for (std::uint32_t h : cand.hi) {
    const Partition& p = c.partitions[h];
    higher += fmt::format("{}{} (tier {}, mean wait {}: '{}' waits {:.0f}x as long)", higher.empty() ? "" : ", ",
                          p.name, p.priority_tier, hours(waits[h].waits.mean), l.name,
                          lo.waits.mean / std::max(kMinMean, waits[h].waits.mean));
    top = std::max(top, p.priority_tier);
  }
  Finding& f = sink.report(
      ctx.conf_loc(l.loc),
      fmt::format("partition '{}' (PriorityTier={}) shares nodes with higher tiers {}: in the simulation its {} jobs "
                  "waited {} on average and up to {}, 95% within {}, {} still pending at the end; with every "
                  "partition at one tier its mean wait falls to {}",
                  l.name, l.priority_tier, higher, lo.waits.jobs, hours(lo.waits.mean), hours(lo.waits.max),
                  hours(lo.waits.p95), lo.pending_at_end, hours(lo_equal.waits.mean)));
  for (std::uint32_t h : cand.hi) {
    Location r = ctx.conf_loc(c.partitions[h].loc);
    r.note = "the higher tier on its nodes";
    f.related.push_back(r);
  }
  f.evidence = simulated_evidence(sim);
  f.evidence["metrics"] = wait_metrics(sim, cand);
  for (const engine::SimJob* j : lo.longest) f.evidence["examples"].push_back(job_json(sim, *j));
  f.fix = Fix{fmt::format("put '{}' at the same PriorityTier as the partitions above it ({}) and order them with "
                          "PriorityJobFactor, or favour the urgent work with a QOS priority instead of a tier",
                          l.name, top),
              "PriorityTier",
              std::to_string(top),
              {}};
  f.fix->resimulated = wait_metrics(equal, cand);
  f.fix->resimulated["scenario"] = scenario_json(equal.scenario);
}

void check(const LintContext& ctx, FindingSink& sink) {
  const Simulation* sim = ctx.simulation();
  if (!sim) return;
  std::map<std::uint32_t, PartitionWaits> waits;
  const std::vector<Candidate> found = candidates(*sim, ctx.has_qos_table() ? &ctx.qos() : nullptr, waits);
  if (found.empty()) return;
  std::vector<ConfigEdit> equal_tiers;
  for (const Partition& p : ctx.config().partitions)
    equal_tiers.push_back(ConfigEdit::partition_key(p.name, "PriorityTier", "1"));
  const SimulationPtr equal_run = ctx.resimulate(kEqualTiers, equal_tiers);
  const Simulation& equal = *equal_run;
  for (const Candidate& cand : found) {
    const PartitionWaits& lo = waits[cand.lo];
    const PartitionWaits lo_equal = partition_waits(equal, cand.lo);
    const bool fewer_pending = lo.pending_at_end > 0 && static_cast<double>(lo_equal.pending_at_end) <=
                                                            kTierEffect * static_cast<double>(lo.pending_at_end);
    if (lo_equal.waits.mean > kTierEffect * lo.waits.mean && !fewer_pending) continue;
    report(ctx, sink, *sim, equal, cand, lo, lo_equal, waits);
  }
}

}  // namespace

}  // namespace sa::rules

SA_RULE({"TIER003", "overlapping-tier-starvation", Severity::kWarning, Check::kTierDominance, SimUse::kRequired,
         "a lower-tier partition sharing nodes with a higher tier starves in the simulation", check})
