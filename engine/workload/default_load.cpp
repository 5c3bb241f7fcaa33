#include "engine/workload/default_load.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <set>

#include <fmt/format.h>

#include "engine/workload/synthetic.h"

namespace sa::engine {

namespace {

struct Shape {
  std::uint32_t cpus = 1, nodes = 0, gpus = 0;
  double weight = 0;
};

struct PartLoad {
  const Partition* part = nullptr;
  double weight = 0;  // its CPUs
  std::vector<Shape> shapes;
  std::int64_t max_time = 0;  // finite cap for run times
  Weighted<std::pair<std::string, std::string>> users;
};

std::uint32_t median_cpus(const Config& c, const Partition& p, std::uint32_t* gpus) {
  std::vector<std::uint32_t> cpus;
  std::vector<std::uint32_t> g;
  for (std::uint32_t n : p.nodes) {
    cpus.push_back(c.nodes[n].cpus);
    std::uint32_t count = 0;
    for (const GresSpec& s : c.nodes[n].gres) {
      if (s.name == "gpu") count += static_cast<std::uint32_t>(s.count);
    }
    g.push_back(count);
  }
  std::sort(cpus.begin(), cpus.end());
  std::sort(g.begin(), g.end());
  *gpus = g[g.size() / 2];
  return cpus[cpus.size() / 2];
}

// Job shapes cut from the partition's typical node: one CPU, a quarter node, a node, four
// nodes, an eighth and a quarter of the partition (capped); large shapes only where they fit.
std::vector<Shape> shapes_for(const Config& c, const Partition& p) {
  std::uint32_t gpn = 0;
  const std::uint32_t cpn = std::max<std::uint32_t>(1, median_cpus(c, p, &gpn));
  const auto n = static_cast<std::uint32_t>(p.nodes.size());
  const std::uint32_t max_nodes = std::min(n, p.max_nodes);
  std::vector<Shape> s;
  s.push_back({1, 1, gpn ? 1u : 0u, 0.30});
  if (cpn >= 8) s.push_back({cpn / 4, 1, gpn ? std::max(1u, gpn / 4) : 0u, 0.25});
  s.push_back({cpn, 1, gpn, 0.25});
  auto multi = [&](std::uint32_t nodes, double w) {
    if (nodes >= 2 && nodes <= max_nodes) s.push_back({nodes * cpn, nodes, nodes * gpn, w});
  };
  multi(std::min<std::uint32_t>(4, n / 2), 0.12);
  if (n >= 32) multi(std::min<std::uint32_t>(n / 8, 64), 0.04);
  // The large jobs that starve first when a policy fails them: a quarter of the partition,
  // at most 128 nodes (bigger ones are capability runs that sites schedule by hand).
  if (n >= 8) multi(std::min<std::uint32_t>(n / 4, 128), 0.02);
  for (Shape& x : s) x.cpus = std::min(x.cpus, x.nodes * std::min(cpn, p.max_cpus_per_node));
  return s;
}

bool admits(const AssocTree& tree, const Partition& p, std::uint32_t user) {
  auto listed = [&](const std::vector<std::string>& names) {
    // Since 23.02 AllowAccounts and DenyAccounts also match the accounts above the job's.
    for (std::uint32_t a = tree.assocs[user].parent; a != kNoAssoc; a = tree.assocs[a].parent) {
      if (std::find(names.begin(), names.end(), tree.assocs[a].account) != names.end()) return true;
    }
    return false;
  };
  if (!p.allow_accounts.empty() && !listed(p.allow_accounts)) return false;
  return !listed(p.deny_accounts);
}

Weighted<std::pair<std::string, std::string>> users_for(const Partition& p, const AssocTree* tree) {
  Weighted<std::pair<std::string, std::string>> users;
  if (tree) {
    users = users_by_target_share(*tree, [&](std::uint32_t id) { return admits(*tree, p, id); });
    for (auto& u : users) u.second = std::max(u.second, 1e-9);  // a zero share still submits
    return users;
  }
  // No tree: eight users in four accounts, or one user per account the partition allows.
  if (!p.allow_accounts.empty()) {
    for (const std::string& acct : p.allow_accounts) users.push_back({{"user_" + acct, acct}, 1.0});
    return users;
  }
  for (int i = 1; i <= 8; ++i) users.push_back({{fmt::format("user{}", i), fmt::format("account{}", (i + 1) / 2)}, 1.0});
  return users;
}

template <typename T>
const T& pick_weighted(const std::vector<T>& items, double total, Rng& rng, double T::*weight) {
  double x = rng.uniform() * total;
  for (const T& item : items) {
    if (x < item.*weight) return item;
    x -= item.*weight;
  }
  return items.back();
}

// Run time: log-normal around an eighth of MaxTime (at most an hour), with one job in
// twenty running close to its limit, the jobs a short bf_window cannot plan for.
JobRequest make_job(const PartLoad& pl, Rng& rng) {
  double total = 0;
  for (const Shape& s : pl.shapes) total += s.weight;
  const Shape& shape = pick_weighted(pl.shapes, total, rng, &Shape::weight);
  JobRequest j;
  j.cpus = shape.cpus;
  j.nodes = shape.nodes > 1 ? shape.nodes : 0;
  j.gpus = shape.gpus;
  j.partitions.push_back(pl.part->name);
  const auto& user = pick(pl.users, rng);
  j.user = user.first;
  j.account = user.second;
  const double cap = static_cast<double>(pl.max_time);
  const bool near_limit = rng.uniform() < 0.05;
  const Distribution dist{Distribution::Kind::kLognormal, std::min(3600.0, cap / 8), 1.3};
  const double run = near_limit ? cap * (0.6 + 0.35 * rng.uniform()) : std::clamp(rng.sample(dist), 30.0, cap);
  const double factor = near_limit ? 1.0 : 1.2 + 1.8 * rng.uniform();
  auto limit = static_cast<std::int64_t>(std::ceil(run * factor / 900.0)) * 900;
  j.time_limit = std::clamp<std::int64_t>(limit, 60, pl.max_time);
  if (near_limit) j.time_limit = pl.max_time;
  j.run_time = std::min<std::int64_t>(static_cast<std::int64_t>(run), j.time_limit);
  return j;
}

std::vector<PartLoad> partition_loads(const Config& c, const AssocTree* tree, double* capacity) {
  std::vector<PartLoad> loads;
  std::set<std::uint32_t> nodes;
  for (const Partition& p : c.partitions) {
    if (p.state != PartitionState::kUp || p.root_only || p.req_resv || p.nodes.empty()) continue;
    PartLoad pl;
    pl.part = &p;
    for (std::uint32_t n : p.nodes) {
      if (!c.nodes[n].usable()) continue;
      pl.weight += c.nodes[n].cpus;
      nodes.insert(n);
    }
    pl.users = users_for(p, tree);
    if (pl.weight <= 0 || pl.users.empty()) continue;
    pl.shapes = shapes_for(c, p);
    pl.max_time = p.max_time > 0 ? p.max_time : 7 * 86400;
    loads.push_back(std::move(pl));
  }
  *capacity = 0;
  for (std::uint32_t n : nodes) *capacity += c.nodes[n].cpus;
  return loads;
}

}  // namespace

DefaultLoad default_load(const Config& config, const AssocTree* tree, const DefaultLoadOptions& o) {
  DefaultLoad out;
  Workload& w = out.workload;
  w.format = WorkloadFormat::kSynthetic;
  w.names_accounts = true;
  w.source = "default load";
  double capacity = 0;
  std::vector<PartLoad> loads = partition_loads(config, tree, &capacity);
  if (loads.empty()) {
    out.description = "no load: no partition is up with usable nodes and users";
    return out;
  }
  double total_weight = 0;
  for (const PartLoad& pl : loads) total_weight += pl.weight;
  // The mean CPU-seconds a job adds to the simulated span (arrivals plus a day's drain: a
  // five-day job arriving on day two adds two days), estimated on a separate stream so the
  // arrivals below do not depend on how many samples this takes.
  Rng probe(o.seed ^ 0x9e3779b97f4a7c15ULL);
  double work = 0;
  constexpr int kProbe = 4000;
  const double horizon = static_cast<double>(o.duration + 86400);
  for (int i = 0; i < kProbe; ++i) {
    const PartLoad& pl = pick_weighted(loads, total_weight, probe, &PartLoad::weight);
    const JobRequest j = make_job(pl, probe);
    const double arrival = probe.uniform() * static_cast<double>(o.duration);
    work += static_cast<double>(j.cpus) * std::min(static_cast<double>(j.run_time), horizon - arrival);
  }
  const double per_job = std::max(1.0, work / kProbe);
  double rate = o.offered_load * capacity / per_job;  // jobs per second
  std::int64_t duration = o.duration;
  const double expected = rate * static_cast<double>(duration);
  if (expected > static_cast<double>(o.max_jobs)) rate *= static_cast<double>(o.max_jobs) / expected;
  Rng rng(o.seed);
  double t = 0;
  // Poisson arrivals thinned to the daily cycle (peak at 14:00), as the synthetic profiles do.
  const double peak = rate * (1.0 + o.daily_cycle);
  for (std::uint32_t id = 1;;) {
    t += -std::log(1.0 - rng.uniform()) / peak;
    if (t >= static_cast<double>(duration)) break;
    const double hour = std::fmod(t / 3600.0, 24.0);
    const double now = rate * (1.0 + o.daily_cycle * std::cos(2.0 * std::numbers::pi * (hour - 14.0) / 24.0));
    if (rng.uniform() * peak > now) continue;
    const PartLoad& pl = pick_weighted(loads, total_weight, rng, &PartLoad::weight);
    JobRequest j = make_job(pl, rng);
    j.id = id++;
    j.submit = static_cast<std::int64_t>(t);
    w.jobs.push_back(std::move(j));
  }
  out.description = fmt::format(
      "default synthetic load derived from the cluster: {} jobs over {} days in {} partitions, offering {:.0f}% of "
      "{:.0f} CPUs (daily peak {:.0f}%), seed {}",
      w.jobs.size(), duration / 86400, loads.size(), 100 * rate * per_job / capacity, capacity,
      100 * peak * per_job / capacity, o.seed);
  return out;
}

}  // namespace sa::engine
