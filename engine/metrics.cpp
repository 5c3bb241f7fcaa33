#include "engine/metrics.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace sa::engine {

namespace {

// `slowdown_sum` is the bounded slowdowns summed in job order, as the waits came.
WaitStats summarise(std::vector<double> waits, double slowdown_sum) {
  WaitStats w;
  w.jobs = waits.size();
  if (waits.empty()) return w;
  std::sort(waits.begin(), waits.end());
  double sum = 0;
  for (double x : waits) sum += x;
  w.mean = sum / static_cast<double>(waits.size());
  const std::size_t n = waits.size();
  w.median = n % 2 ? waits[n / 2] : (waits[n / 2 - 1] + waits[n / 2]) / 2.0;
  // Nearest-rank percentile: the smallest wait with at least 95 % of jobs at or below it.
  const std::size_t rank = static_cast<std::size_t>(std::ceil(0.95 * static_cast<double>(n)));
  w.p95 = waits[std::max<std::size_t>(rank, 1) - 1];
  w.max = waits.back();
  w.bounded_slowdown = slowdown_sum / static_cast<double>(n);
  return w;
}

// The started jobs of one partition, account, size class or QOS: indices into the tally's
// waits (every job is in four groups; holding its values four times cost 64 bytes a job),
// and their bounded slowdowns summed in job order (only their mean is reported).
struct Group {
  std::vector<std::uint32_t> members;
  double slowdown_sum = 0;
  void add(std::uint32_t i, double slowdown) {
    members.push_back(i);
    slowdown_sum += slowdown;
  }
};

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size())));
  return v[std::max<std::size_t>(rank, 1) - 1];
}

GangMetrics gang_metrics(const SimResult& r, const Site& site) {
  const Config& conf = *site.config;
  GangMetrics g;
  g.sharing = r.sharing;
  g.suspends = r.counters.suspends;
  g.preempt_requeues = r.counters.preempt_requeues;
  g.preempt_cancels = r.counters.preempt_cancels;
  g.preempt_lost_cpu_seconds = r.preempt_lost_cpu_seconds;
  std::vector<double> stretches;
  double sum = 0;
  for (const SimJob& j : r.jobs) {
    if (j.rare.get().suspends > 0) ++g.suspended_jobs;
    if (j.state != JobState::kDone || j.start == kNoTime || j.end_state == EndState::kPreempted) continue;
    const double stretch = stretch_of(j);
    stretches.push_back(stretch);
    sum += stretch;
    if (stretch > g.stretch_max) {
      g.stretch_max = stretch;
      g.stretch_max_job = j.req.id;
    }
  }
  if (!stretches.empty()) {
    g.stretch_mean = sum / static_cast<double>(stretches.size());
    g.stretch_p95 = percentile(stretches, 0.95);
  }
  for (std::size_t p = 0; p < conf.partitions.size(); ++p) {
    double run = 0, sus = 0;
    if (p < r.timeline.running.size()) {
      for (double v : r.timeline.running[p]) run += v;
      for (double v : r.timeline.suspended[p]) sus += v;
    }
    g.suspended_cpu_seconds += sus;
    if (sus > 0) g.suspended_share[conf.partitions[p].name] = sus / (run + sus);
  }
  for (const NodePeak& peak : r.node_peaks) {
    const Node& n = conf.nodes[peak.node];
    const std::uint64_t real = n.usable_mem_mb();
    g.max_jobs_per_node = std::max(g.max_jobs_per_node, peak.jobs);
    if (peak.unbounded >= 2) ++g.nodes_unbounded_shared;
    if (real == 0) continue;
    const double ratio = static_cast<double>(peak.mem_mb) / static_cast<double>(real);
    if (peak.mem_mb > real) ++g.nodes_over_memory;
    if (ratio > g.worst_memory_ratio) {
      g.worst_memory_ratio = ratio;
      g.worst_memory_node = n.name;
      g.worst_memory_mb = peak.mem_mb;
      g.worst_memory_real_mb = real;
    }
  }
  return g;
}

// What the pass over the started jobs gathers: CPU time used, waits and slowdowns by group,
// and the usage charged to each account.
struct JobTally {
  double cpu_seconds = 0;
  std::vector<double> waits;  // every started job, in job order
  double slowdown_sum = 0;    // (in the same order)
  std::map<std::string, Group> part, acct, size, qos;
  std::map<std::string, double> charged;
  double charged_total = 0;
};

// Counts the job's end state and how it started; false when it never started.
bool count_job(const SimJob& j, const SimResult& r, const Config& conf, Metrics& m) {
  if (j.state == JobState::kRejected) {
    ++m.rejected;
    return false;
  }
  if (j.state == JobState::kPending) ++m.pending_at_end;
  if (j.state == JobState::kRunning) ++m.running_at_end;
  if (j.cancelled_pending()) ++m.cancelled_pending;
  const std::int64_t bf_interval = conf.scheduler.bf_interval;
  const bool backfill = conf.scheduler.type == "sched/backfill" && bf_interval > 0;
  const std::int64_t waited_until = j.waited_until(r.end);
  if (backfill && !j.bf_tested && j.started_by != StartedBy::kBackfill && waited_until - j.begin >= bf_interval &&
      j.state != JobState::kFuture) {
    ++m.never_reached_by_backfill;
  }
  if (j.start == kNoTime) return false;
  ++m.started;
  if (j.state == JobState::kDone) ++m.completed;
  if (j.started_by == StartedBy::kBackfill)
    ++m.backfill_starts;
  else
    ++m.main_starts;
  return true;
}

void tally_started_job(const SimJob& j, const SimResult& r, const Site& site, JobTally& t) {
  const Config& conf = *site.config;
  const std::int64_t end = j.end != kNoTime ? j.end : r.end;
  const double run = static_cast<double>(std::max<std::int64_t>(0, end - j.start));
  // Suspended time holds CPUs without using them: utilisation counts running time only
  // (above 100 % it means CPUs were overcommitted, e.g. FORCE without gang).
  t.cpu_seconds += std::max(0.0, run - static_cast<double>(j.rare.get().tot_sus_time)) * j.alloc.cpus();
  const double wait = static_cast<double>(j.start - j.begin);
  const double slowdown = std::max(1.0, (wait + run) / std::max(run, 10.0));
  const SimRecord& rec = j.recs[static_cast<std::size_t>(j.run_rec)];
  const std::string& account = job_account(j, site);
  const auto i = static_cast<std::uint32_t>(t.waits.size());
  t.waits.push_back(wait);
  t.slowdown_sum += slowdown;
  t.part[conf.partitions[rec.part].name].add(i, slowdown);
  t.acct[account].add(i, slowdown);
  t.size[size_class(j.alloc.cpus())].add(i, slowdown);
  t.qos[j.qos >= 0 ? site.qos.records[static_cast<std::size_t>(j.qos)].name : std::string("-")].add(i, slowdown);
  if (site.tree && j.assoc != kNoAssoc) {
    // Charged to the user's account and every ancestor account, as usage rolls up.
    const double c = j.billable * run;
    for (std::uint32_t a = site.tree->assocs[j.assoc].parent; a != kNoAssoc; a = site.tree->assocs[a].parent) {
      if (a != site.tree->root) t.charged[site.tree->assocs[a].account] += c;
    }
    t.charged_total += c;
  }
}

// Utilisation of the usable CPUs over the simulated span, and the shares maintenance and
// unavailable nodes took of it.
void set_utilisation(const SimResult& r, const Config& conf, double cpu_seconds, Metrics& m) {
  double usable_cpus = 0;
  for (const Node& n : conf.nodes) {
    if (n.usable()) usable_cpus += n.cpus;
  }
  const double span = static_cast<double>(std::max<std::int64_t>(1, r.end - r.start));
  m.utilization = usable_cpus > 0 ? cpu_seconds / (usable_cpus * span) : 0;
  const double whole = usable_cpus * span;
  const double left = whole - r.maint_cpu_seconds - r.unavailable_cpu_seconds;
  m.utilization_available = left > 0 ? cpu_seconds / left : 0;
  m.maint_share = whole > 0 ? r.maint_cpu_seconds / whole : 0;
  m.unavailable_share = whole > 0 ? r.unavailable_cpu_seconds / whole : 0;
}

WaitStats summarise_group(const JobTally& t, const Group& g) {
  std::vector<double> waits;
  waits.reserve(g.members.size());
  for (std::uint32_t i : g.members) waits.push_back(t.waits[i]);
  return summarise(std::move(waits), g.slowdown_sum);
}

// The groups first, then the whole list sorted in place: no second copy of every wait.
void set_wait_stats(JobTally& t, Metrics& m) {
  for (const auto& [k, g] : t.part) m.by_partition[k] = summarise_group(t, g);
  for (const auto& [k, g] : t.acct) m.by_account[k] = summarise_group(t, g);
  for (const auto& [k, g] : t.size) m.by_size[k] = summarise_group(t, g);
  for (const auto& [k, g] : t.qos) m.by_qos[k] = summarise_group(t, g);
  m.overall = summarise(std::move(t.waits), t.slowdown_sum);
}

// Each account's target share against the share of the charged usage it got.
void set_account_shares(const SimResult& r, const AssocTree& tree, const JobTally& t, Metrics& m) {
  for (std::uint32_t id : tree.hierarchical_order()) {
    const Association& a = tree.assocs[id];
    if (a.is_user() || id == tree.root) continue;
    AccountShare s;
    s.account = a.account;
    s.target = id < r.target_share.size() ? r.target_share[id] : 0;
    auto it = t.charged.find(a.account);
    s.actual = t.charged_total > 0 && it != t.charged.end() ? it->second / t.charged_total : 0;
    m.account_shares.push_back(s);
  }
}

}  // namespace

double stretch_of(const SimJob& j) {
  const double wall = static_cast<double>(j.end - j.start);
  const double ran = wall - static_cast<double>(j.rare.get().tot_sus_time);
  return ran > 0 ? wall / ran : 1.0;
}

std::string size_class(std::uint32_t cpus) {
  if (cpus <= 1) return "1";
  if (cpus <= 16) return "2-16";
  if (cpus <= 128) return "17-128";
  if (cpus <= 1024) return "129-1024";
  return "1025+";
}

Metrics compute_metrics(const SimResult& r, const Site& site) {
  Metrics m;
  m.start = r.start;
  m.end = r.end;
  m.jobs = r.jobs.size();
  JobTally t;
  t.waits.reserve(r.jobs.size());  // (every job at most: no doubling slack at the run's peak)
  for (const SimJob& j : r.jobs) {
    if (count_job(j, r, *site.config, m)) tally_started_job(j, r, site, t);
  }
  set_utilisation(r, *site.config, t.cpu_seconds, m);
  for (const SimJob& j : r.jobs) {
    m.requeues += j.rare.get().requeues;
    m.lost_cpu_seconds += j.rare.get().lost_cpu_seconds;
  }
  m.gang = gang_metrics(r, site);
  const std::size_t starts = m.main_starts + m.backfill_starts;
  m.backfill_share = starts ? static_cast<double>(m.backfill_starts) / static_cast<double>(starts) : 0;
  set_wait_stats(t, m);
  if (site.tree) set_account_shares(r, *site.tree, t, m);
  return m;
}

}  // namespace sa::engine
