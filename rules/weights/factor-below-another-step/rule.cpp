// PRIO002: a priority factor that cannot move a job as far as one Fair Tree rank step.
// Fair Tree spaces users PriorityWeightFairshare / (user associations) points apart; a
// factor whose typical contribution is smaller than that only breaks ties between jobs
// of users at the same rank (mostly one user's own jobs), whatever its weight suggests.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "rules/analysis/evidence.h"
#include "rules/analysis/queue_pairs.h"
#include "rules/framework/context.h"
#include "rules/framework/rule.h"
#include "rules/framework/sink.h"

namespace sa::rules {

namespace {

constexpr double kDay = 86400;

std::string step_text(const FairTreeStep& ft) {
  return fmt::format("one Fair Tree rank step of {} points (PriorityWeightFairshare={} over {} user associations)",
                     points(ft.step), points(ft.weight), ft.users);
}

// `needed`: the weight at which the factor would reach one rank step.
Finding& report(const LintContext& ctx, FindingSink& sink, const std::string& key, const std::string& message,
                double needed) {
  Finding& f = sink.report(ctx.setting_loc(key), message);
  const std::uint64_t value = round_up_125(needed);
  f.fix = Fix{fmt::format("raise {} to about {} so the factor can reach one rank step, or lower "
                          "PriorityWeightFairshare if fair share is meant to dominate it; or set {}=0 if it is not "
                          "meant to matter",
                          key, points(static_cast<double>(value)), key),
              key,
              std::to_string(value),
              {}};
  Location fs = ctx.setting_loc("PriorityWeightFairshare");
  fs.note = "the fair-share weight that sets the rank step";
  f.related.push_back(fs);
  return f;
}

// JobSize (default and PriorityFavorSmall): each node of a request moves the factor by
// (1/nodes + CPUs per node/cluster CPUs) / 2, i.e. weight/nodes for an average node.
void job_size(const LintContext& ctx, FindingSink& sink, const FairTreeStep& ft, double weight) {
  const Config& c = ctx.config();
  if (weight <= 0 || c.priority.flags.small_relative_to_time || c.nodes.empty()) return;
  double cpus = 0;
  for (const Node& n : c.nodes) cpus += n.cpus;
  const double per_node = weight / static_cast<double>(c.nodes.size());
  if (per_node >= ft.step) return;
  const std::string reach = weight < ft.step ? "even a job asking for the whole cluster cannot overtake one rank"
                                             : fmt::format("a job needs about {:.0f} nodes more to overtake one rank",
                                                           std::ceil(ft.step / per_node));
  report(ctx, sink, "PriorityWeightJobSize",
         fmt::format("PriorityWeightJobSize={} spread over {} nodes and {} CPUs gives a one-node job about {} "
                     "points, less than {}: job size only orders jobs of users at the same fair-share rank ({})",
                     points(weight), c.nodes.size(), points(cpus), points(per_node), step_text(ft), reach),
         ft.step * static_cast<double>(c.nodes.size()));
}

// Age grows by weight x period / PriorityMaxAge at each PriorityCalcPeriod; flagged when a
// whole day of extra waiting is still worth less than one rank.
void age(const LintContext& ctx, FindingSink& sink, const FairTreeStep& ft, double weight) {
  const PrioritySettings& p = ctx.config().priority;
  if (weight <= 0 || p.max_age <= 0) return;
  const auto max_age = static_cast<double>(p.max_age);
  const double per_day = weight * std::min(1.0, kDay / max_age);
  if (per_day >= ft.step) return;
  const double per_period = weight * std::min(1.0, static_cast<double>(p.calc_period) / max_age);
  const std::string reach = weight < ft.step ? "even a job at PriorityMaxAge cannot overtake one rank"
                                             : fmt::format(
                                                   "a job must wait {:.1f} days longer than another user's to overtake "
                                                   "one rank",
                                                   ft.step / per_day);
  report(ctx, sink, "PriorityWeightAge",
         fmt::format("PriorityWeightAge={} over PriorityMaxAge={} adds {} points per PriorityCalcPeriod ({}) and {} "
                     "a day, less than {}: {}",
                     points(weight), slurm_duration(p.max_age), points(per_period), slurm_duration(p.calc_period),
                     points(per_day), step_text(ft), reach),
         ft.step * std::max(1.0, max_age / kDay));
}

// QOS and association terms: their whole spread (highest minus lowest normalised value).
void spread(const LintContext& ctx, FindingSink& sink, const FairTreeStep& ft, const char* key, double weight,
            double lowest, double highest, const char* what) {
  if (weight <= 0 || highest <= 0 || highest <= lowest) return;
  const double range = weight * (highest - lowest) / highest;
  if (range >= ft.step) return;
  report(ctx, sink, key,
         fmt::format("{}={} lets {} (priorities {} to {}) differ by at most {} points, less than {}: it can never "
                     "lift a job past a user one fair-share rank ahead",
                     key, points(weight), what, points(lowest), points(highest), points(range), step_text(ft)),
         ft.step * highest / (highest - lowest));
}

void qos(const LintContext& ctx, FindingSink& sink, const FairTreeStep& ft, double weight) {
  if (!ctx.has_qos_table() || ctx.config().priority.flags.no_normal_qos || ctx.qos().records.empty()) return;
  double lo = 4294967295.0, hi = 0;
  for (const QosRecord& q : ctx.qos().records) {
    lo = std::min(lo, static_cast<double>(q.priority));
    hi = std::max(hi, static_cast<double>(q.priority));
  }
  spread(ctx, sink, ft, "PriorityWeightQOS", weight, lo, hi, "QOS");
}

void assoc(const LintContext& ctx, FindingSink& sink, const FairTreeStep& ft, double weight) {
  if (!ctx.tree() || ctx.config().priority.flags.no_normal_assoc) return;
  double lo = 4294967295.0, hi = 0;
  for (const Association& a : ctx.tree()->assocs) {
    if (!a.is_user()) continue;
    // An unset or INFINITE priority counts as 0 (Slurm's factor is 0 for it).
    const double v = a.priority && *a.priority != 0xFFFFFFFFU ? *a.priority : 0.0;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  spread(ctx, sink, ft, "PriorityWeightAssoc", weight, lo, hi, "associations");
}

// Partition term between partitions that share nodes and differ in PriorityJobFactor.
void partition(const LintContext& ctx, FindingSink& sink, const FairTreeStep& ft, double weight) {
  const Config& c = ctx.config();
  if (weight <= 0) return;
  constexpr std::size_t kListed = 6;  // pairs the message names; the rest are counted
  std::size_t pairs = 0;
  std::string list;
  bool tiers_differ = false;
  double smallest = 1e300;  // the smallest factor difference among the pairs
  const double top = max_job_factor(c);
  const PartitionNodes nodes(c);
  for (std::size_t i = 0; i < c.partitions.size(); ++i) {
    for (std::size_t j = i + 1; j < c.partitions.size(); ++j) {
      const Partition &a = c.partitions[i], &b = c.partitions[j];
      const double gap = weight * std::fabs(partition_factor(c, a, top) - partition_factor(c, b, top));
      if (gap < 0.5 || gap >= ft.step || !schedules_jobs(a) || !schedules_jobs(b) || !nodes.share(i, j)) continue;
      if (pairs++ < kListed)
        list += fmt::format("{}{}/{} {} points apart", list.empty() ? "" : ", ", a.name, b.name, points(gap));
      tiers_differ |= a.priority_tier != b.priority_tier;
      smallest = std::min(smallest, gap / weight);
    }
  }
  if (pairs == 0) return;
  if (pairs > kListed) list += fmt::format(" and {} more pairs", pairs - kListed);
  report(ctx, sink, "PriorityWeightPartition",
         fmt::format("PriorityWeightPartition={} puts partitions that share nodes close together ({}), "
                     "less than {}: the partition term cannot reorder their jobs against fair share{}",
                     points(weight), list, step_text(ft),
                     tiers_differ ? " (where their PriorityTier differs, the tier decides first anyway)" : ""),
         ft.step / smallest);
}

void check(const LintContext& ctx, FindingSink& sink) {
  const auto ft = fair_tree_step(ctx);
  // Below one point a rank step separates nothing itself: that is PRIO001's finding.
  if (!ft || ft->step < 1.0) return;
  const EffectiveWeights w = effective_weights(ctx.config());
  job_size(ctx, sink, *ft, w.job_size);
  age(ctx, sink, *ft, w.age);
  qos(ctx, sink, *ft, w.qos);
  assoc(ctx, sink, *ft, w.assoc);
  partition(ctx, sink, *ft, w.partition);
}

}  // namespace

}  // namespace sa::rules

SA_RULE({"PRIO002", "factor-below-another-step", Severity::kInfo, Check::kWeightResolution, SimUse::kStatic,
         "a priority factor whose typical contribution is smaller than one Fair Tree rank step", check})
