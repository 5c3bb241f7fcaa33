// TIER002: PriorityWeightPartition adds the same number of points to every job of a tier,
// because the partitions' PriorityJobFactor values differ only between PriorityTiers. The
// queue is ordered by tier first, so a per-tier constant never changes an order: the
// factors restate the tiers (and make sprio's numbers look like a second policy). Silent
// where every partition has one factor: a cluster-wide constant misleads no one.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "rules/analysis/queue_pairs.h"
#include "rules/framework/context.h"
#include "rules/framework/rule.h"
#include "rules/framework/sink.h"

namespace sa::rules {

namespace {

struct Tier {
  std::vector<std::uint32_t> parts;
};

constexpr std::size_t kTiersNamed = 8;

std::string tier_list(const Config& c, const std::map<std::uint16_t, Tier, std::greater<>>& tiers, double weight) {
  std::string out;
  const double top = max_job_factor(c);  // (it walks every partition: once, not once per tier)
  std::size_t listed = 0;
  for (const auto& [tier, t] : tiers) {
    // A config may have a tier per partition: the message names a few, the places list them all.
    if (listed++ == kTiersNamed) {
      out += fmt::format("; and {} more tiers", tiers.size() - kTiersNamed);
      break;
    }
    const Partition& first = c.partitions[t.parts.front()];
    std::string names;
    for (std::size_t i = 0; i < t.parts.size() && i < 4; ++i) names += (i ? ", " : "") + c.partitions[t.parts[i]].name;
    if (t.parts.size() > 4) names += fmt::format(" and {} more", t.parts.size() - 4);
    out += fmt::format("{}tier {}: PriorityJobFactor={}, {} points ({})", out.empty() ? "" : "; ", tier,
                       first.priority_job_factor, points(weight * partition_factor(c, first, top)), names);
  }
  return out;
}

void check(const LintContext& ctx, FindingSink& sink) {
  const Config& c = ctx.config();
  const double weight = effective_weights(c).partition;
  // PreemptMode=PRIORITY compares priorities across tiers: there the offset matters.
  if (weight <= 0 || !partition_term_constant_in_tiers(c)) return;
  // One PriorityJobFactor for every partition (the default 1, or one partition): the term is
  // the same for every job of the cluster, across tiers too. Nothing was meant to be ordered
  // by it and nothing is; an admin has nothing to act on (sprio shows a constant column, and
  // CONF033 catches weights that add up past 2^32-1). All factors 0 is PRIO003's case.
  const std::uint16_t first_factor = c.partitions.empty() ? 0 : c.partitions.front().priority_job_factor;
  if (std::all_of(c.partitions.begin(), c.partitions.end(),
                  [&](const Partition& p) { return p.priority_job_factor == first_factor; })) {
    return;
  }
  // Factors differ, and each tier has one: they differ only between tiers, where the tier
  // already decides.
  std::map<std::uint16_t, Tier, std::greater<>> tiers;
  for (std::uint32_t p = 0; p < c.partitions.size(); ++p) {
    tiers[c.partitions[p].priority_tier].parts.push_back(p);
  }
  Finding& f = sink.report(
      ctx.setting_loc("PriorityWeightPartition"),
      fmt::format("PriorityWeightPartition={} adds a constant inside each tier ({}): the partitions' PriorityJobFactor "
                  "values differ only between PriorityTiers, and Slurm orders by PriorityTier before priority, so "
                  "the partition term never changes the order of two jobs: the tiers decide before it",
                  points(weight), tier_list(c, tiers, weight)));
  for (const auto& [tier, t] : tiers) {
    Location l = ctx.conf_loc(c.partitions[t.parts.front()].loc);
    l.note = fmt::format("PriorityTier={}", tier);
    f.related.push_back(l);
  }
  f.fix =
      Fix{"set PriorityWeightPartition=0 (PriorityTier already orders the partitions), or give partitions of one "
          "tier different PriorityJobFactor values if they are meant to be ordered against each other",
          "PriorityWeightPartition",
          "0",
          {}};
}

}  // namespace

}  // namespace sa::rules

SA_RULE({"TIER002", "tier-constant-job-factor", Severity::kInfo, Check::kTierDominance, SimUse::kStatic,
         "PriorityWeightPartition is a constant offset inside each PriorityTier and never changes an order", check})
