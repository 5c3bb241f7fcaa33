#include "tune/evaluate.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "engine/workload/default_load.h"
#include "rules/analysis/share_stats.h"

namespace sa::tune {

SeedRun::SeedRun(const engine::LoadedSite& in, const engine::Workload& load) : site(in.site) {
  engine::add_assumed_qos(site, load);
  engine::SimOptions options;
  options.partition_map = in.partition_map;
  if (load.until != engine::kNoTime) options.until = load.until;
  engine::Simulator simulator(site, options);
  result = simulator.run(load);
  metrics = engine::compute_metrics(result, site);
}

namespace {

bool selected(const Selector& s, const engine::SimJob& j, const engine::Site& site) {
  const Config& conf = *site.config;
  const engine::SimRecord* rec = j.run_or_first_rec_if_any();
  if (!rec) return false;
  const Partition& part = conf.partitions[rec->part];
  if (!s.partition.empty() && part.name != s.partition) return false;
  if (s.tier >= 0 && part.priority_tier != s.tier) return false;
  if (!s.qos.empty()) {
    if (engine::job_qos(j, site) != s.qos) return false;
  }
  if (!s.account.empty() && engine::job_account(j, site) != s.account) return false;
  const std::uint32_t cpus = j.start != engine::kNoTime ? j.alloc.cpus() : j.req.cpus;
  return cpus >= s.size_lo && cpus <= s.size_hi;
}

// Nearest-rank percentile, as metrics.cpp computes p95 (0 for no jobs: nothing waited).
double percentile(std::vector<double>& v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size())));
  return v[std::max<std::size_t>(rank, 1) - 1];
}

double wait_stat(const Goal& g, const RunView& run) {
  std::vector<double> waits;
  for (const engine::SimJob& j : run.result.jobs) {
    if (j.state == engine::JobState::kRejected || j.start == engine::kNoTime) continue;
    if (selected(g.selector, j, run.site)) waits.push_back(static_cast<double>(j.start - j.begin));
  }
  switch (g.metric) {
    case Metric::kWaitMean: {
      double sum = 0;
      for (double w : waits) sum += w;
      return waits.empty() ? 0 : sum / static_cast<double>(waits.size());
    }
    case Metric::kWaitP50:
      return percentile(waits, 0.5);
    case Metric::kWaitMax:
      return percentile(waits, 1.0);
    default:
      return percentile(waits, 0.95);
  }
}

double starved(const Goal& g, const RunView& run) {
  double n = 0;
  for (const engine::SimJob& j : run.result.jobs) {
    if (j.state == engine::JobState::kPending && selected(g.selector, j, run.site)) ++n;
  }
  return n;
}

// An account with no user below it gets no usage whatever the weights (FAIR002's defect), so
// it would pin share_error at 100 % for every candidate; it is left out.
bool account_has_users(const AssocTree& tree, const std::string& account) {
  const std::uint32_t id = tree.find_account(account);
  return id != kNoAssoc && rules::shares::has_users_below(tree, id);
}

// The worst account's |delivered - target| / target, over accounts with a target share.
double share_error(const Goal& g, const RunView& run) {
  double worst = 0;
  for (const engine::AccountShare& s : run.metrics.account_shares) {
    if (s.target <= 0) continue;
    if (!g.selector.account.empty() && s.account != g.selector.account) continue;
    if (run.site.tree && !account_has_users(*run.site.tree, s.account)) continue;
    worst = std::max(worst, std::fabs(s.actual - s.target) / s.target);
  }
  return worst;
}

}  // namespace

double evaluate(const Goal& g, const RunView& run) {
  switch (g.metric) {
    case Metric::kShareError:
      return share_error(g, run);
    case Metric::kUtilisation:
      return run.metrics.utilization;
    case Metric::kBackfillShare:
      return run.metrics.backfill_share;
    case Metric::kStarved:
      return starved(g, run);
    case Metric::kFindings: {
      if (!run.findings) return 0;
      const int level = g.selector.severity == "error" ? 0 : g.selector.severity == "info" ? 2 : 1;
      return static_cast<double>(run.findings->at_or_above[level]);
    }
    default:
      return wait_stat(g, run);
  }
}

}  // namespace sa::tune
