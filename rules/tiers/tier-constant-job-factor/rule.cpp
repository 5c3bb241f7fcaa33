// TIER002: PriorityWeightPartition adds the same number of points to every job of a tier,
// because every partition of each PriorityTier has the same PriorityJobFactor. The queue
// is ordered by tier first, so a per-tier constant never changes an order: the weight only
// takes up priority range (and makes sprio's numbers look like a policy).
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "rules/analysis/queue_pairs.h"
#include "rules/framework/context.h"
#include "rules/framework/rule.h"
#include "rules/framework/sink.h"

namespace sa::rules {

namespace {

struct Tier {
  std::set<std::uint16_t> factors;
  std::vector<std::uint32_t> parts;
};

std::string tier_list(const Config& c, const std::map<std::uint16_t, Tier, std::greater<>>& tiers, double weight) {
  std::string out;
  for (const auto& [tier, t] : tiers) {
    const Partition& first = c.partitions[t.parts.front()];
    std::string names;
    for (std::size_t i = 0; i < t.parts.size() && i < 4; ++i) names += (i ? ", " : "") + c.partitions[t.parts[i]].name;
    if (t.parts.size() > 4) names += fmt::format(" and {} more", t.parts.size() - 4);
    out += fmt::format("{}tier {}: PriorityJobFactor={}, {} points ({})", out.empty() ? "" : "; ", tier,
                       first.priority_job_factor, points(weight * partition_factor(c, first)), names);
  }
  return out;
}

void check(const LintContext& ctx, FindingSink& sink) {
  const Config& c = ctx.config();
  const double weight = effective_weights(c).partition;
  // PreemptMode=PRIORITY compares priorities across tiers: there the offset matters.
  if (weight <= 0 || !partition_term_constant_in_tiers(c)) return;
  std::map<std::uint16_t, Tier, std::greater<>> tiers;
  for (std::uint32_t p = 0; p < c.partitions.size(); ++p) {
    Tier& t = tiers[c.partitions[p].priority_tier];
    t.factors.insert(c.partitions[p].priority_job_factor);
    t.parts.push_back(p);
  }
  // All factors 0: the term is not constant but absent (PRIO003).
  if (std::all_of(c.partitions.begin(), c.partitions.end(),
                  [](const Partition& p) { return p.priority_job_factor == 0; })) {
    return;
  }
  std::string message;
  if (tiers.size() == 1) {
    const Partition& first = c.partitions.front();
    message = fmt::format(
        "PriorityWeightPartition={} adds the same {} points to every job: {} PriorityJobFactor={}, "
        "so the partition term never changes the order of two jobs and only uses up priority range",
        points(weight), points(weight * partition_factor(c, first)),
        c.partitions.size() == 1 ? "the only partition has" : "every partition has", first.priority_job_factor);
  } else {
    message = fmt::format(
        "PriorityWeightPartition={} adds a constant inside each tier ({}): every partition of a "
        "PriorityTier has the same PriorityJobFactor and Slurm orders by PriorityTier before "
        "priority, so the partition term never changes the order of two jobs and only uses up "
        "priority range",
        points(weight), tier_list(c, tiers, weight));
  }
  Finding& f = sink.report(ctx.setting_loc("PriorityWeightPartition"), message);
  for (const auto& [tier, t] : tiers) {
    Location l = ctx.conf_loc(c.partitions[t.parts.front()].loc);
    l.note = fmt::format("PriorityTier={}", tier);
    f.related.push_back(l);
  }
  // With one tier there is no tier order to lean on: the choice is the weight or the factors.
  f.fix = Fix{c.partitions.size() == 1 ? "set PriorityWeightPartition=0: with one partition the term orders nothing"
              : tiers.size() == 1
                  ? "set PriorityWeightPartition=0, or give the partitions different PriorityJobFactor values if "
                    "their jobs are meant to be ordered against each other"
                  : "set PriorityWeightPartition=0 (PriorityTier already orders the partitions), or give partitions "
                    "of one tier different PriorityJobFactor values if they are meant to be ordered against each "
                    "other",
              "PriorityWeightPartition",
              "0",
              {}};
}

}  // namespace

}  // namespace sa::rules

SA_RULE({"TIER002", "tier-constant-job-factor", Severity::kInfo, Check::kTierDominance, SimUse::kStatic,
         "PriorityWeightPartition is a constant offset inside each PriorityTier and never changes an order", check})
