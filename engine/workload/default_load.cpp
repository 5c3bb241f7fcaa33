#include "engine/workload/default_load.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "analyzer/text_util.h"
#include "engine/workload/synthetic.h"

namespace sa::engine {

namespace {

struct Shape {
  std::uint32_t cpus = 1, nodes = 0, gpus = 0;
  double weight = 0;
};

// Who submits to a partition: a user in an account, the QOS they may use there (weighted
// towards the association's default QOS) and the tightest MaxWall on their association.
struct Submitter {
  std::string user, account;
  Weighted<std::string> qos;
  std::optional<std::int64_t> max_wall;
  double weight = 1;
};

struct PartLoad {
  const Partition* part = nullptr;
  double weight = 0;  // its CPUs
  std::vector<Shape> shapes;
  std::int64_t max_time = 0;  // finite cap for run times
  std::vector<Submitter> users;
  std::int64_t default_time = kNoTime;              // a finite DefaultTime: some jobs give no --time
  std::uint64_t mem_per_cpu = 0, mem_per_node = 0;  // explicit requests under MaxMemPer*
  std::int64_t max_run = 0;                         // longest run time: half the arrival span
};

bool is_all(const std::vector<std::string>& names) {
  return std::any_of(names.begin(), names.end(), [](const std::string& n) { return iequals(n, "ALL"); });
}

bool named(const std::vector<std::string>& names, const std::string& name) {
  return std::any_of(names.begin(), names.end(), [&](const std::string& n) { return iequals(n, name); });
}

std::uint32_t median_cpus(const Config& c, const Partition& p, std::uint32_t* gpus) {
  std::vector<std::uint32_t> cpus;
  std::vector<std::uint32_t> g;
  for (std::uint32_t n : p.nodes) {
    if (!c.nodes[n].usable()) continue;
    cpus.push_back(c.nodes[n].cpus);
    std::uint32_t count = 0;
    for (const GresSpec& s : c.nodes[n].gres) {
      if (s.name == "gpu") count += static_cast<std::uint32_t>(s.count);
    }
    g.push_back(count);
  }
  if (cpus.empty()) return 1;
  std::sort(cpus.begin(), cpus.end());
  std::sort(g.begin(), g.end());
  *gpus = g[g.size() / 2];
  return cpus[cpus.size() / 2];
}

// The memory per CPU that lets every CPU of the partition's smallest node be used.
std::uint64_t fair_mem_per_cpu(const Config& c, const Partition& p) {
  std::uint64_t fair = 0;
  for (std::uint32_t n : p.nodes) {
    const Node& node = c.nodes[n];
    if (!node.usable() || node.cpus == 0) continue;
    const std::uint64_t usable =
        node.real_memory_mb > node.mem_spec_limit_mb ? node.real_memory_mb - node.mem_spec_limit_mb : 1;
    const std::uint64_t per_cpu = std::max<std::uint64_t>(1, usable / node.cpus);
    fair = fair ? std::min(fair, per_cpu) : per_cpu;
  }
  return std::max<std::uint64_t>(1, fair);
}

// Job shapes cut from the partition's typical node: one CPU, a quarter node, a node, four
// nodes, an eighth and a quarter of the partition (capped); large shapes only where they
// fit, and node counts inside MinNodes..MaxNodes.
std::vector<Shape> shapes_for(const Config& c, const Partition& p) {
  std::uint32_t gpn = 0;
  const std::uint32_t cpn = std::max<std::uint32_t>(1, median_cpus(c, p, &gpn));
  const auto n = static_cast<std::uint32_t>(p.nodes.size());
  const std::uint32_t max_nodes = std::min(n, p.max_nodes);
  const std::uint32_t min_nodes = std::max<std::uint32_t>(1, p.min_nodes);
  std::vector<Shape> s;
  if (min_nodes <= 1) {
    s.push_back({1, 1, gpn ? 1u : 0u, 0.30});
    if (cpn >= 8) s.push_back({cpn / 4, 1, gpn ? std::max(1u, gpn / 4) : 0u, 0.25});
    s.push_back({cpn, 1, gpn, 0.25});
  }
  auto multi = [&](std::uint32_t nodes, double w) {
    nodes = std::max(nodes, min_nodes);
    if (nodes >= 2 && nodes <= max_nodes) s.push_back({nodes * cpn, nodes, nodes * gpn, w});
  };
  multi(std::min<std::uint32_t>(4, n / 2), 0.12);
  if (n >= 32) multi(std::min<std::uint32_t>(n / 8, 64), 0.04);
  // The large jobs that starve first when a policy fails them: a quarter of the partition,
  // at most 128 nodes (bigger ones are capability runs that sites schedule by hand).
  if (n >= 8) multi(std::min<std::uint32_t>(n / 4, 128), 0.02);
  for (Shape& x : s) x.cpus = std::min(x.cpus, x.nodes * std::min(cpn, p.max_cpus_per_node));
  // The same shape twice (small partitions) would only double its weight.
  std::vector<Shape> unique;
  for (const Shape& x : s) {
    auto same = std::find_if(unique.begin(), unique.end(), [&](const Shape& u) {
      return u.cpus == x.cpus && u.nodes == x.nodes && u.gpus == x.gpus;
    });
    if (same == unique.end())
      unique.push_back(x);
    else
      same->weight += x.weight;
  }
  return unique;
}

// The QOS a job may name in partition `p`: those the partition's AllowQos/DenyQos admit,
// that exist (or are assumed, without a QOS table), from `candidates` in order.
std::vector<std::string> admitted_qos(const Site& site, const Partition& p,
                                      const std::vector<std::string>& candidates) {
  std::vector<std::string> out;
  for (const std::string& raw : candidates) {
    const std::string q = to_lower(raw);
    if (q.empty() || iequals(q, "ALL")) continue;
    if (!p.allow_qos.empty() && !is_all(p.allow_qos) && !named(p.allow_qos, q)) continue;
    if (named(p.deny_qos, q)) continue;
    if (site.qos.from_input() && !site.qos.find(q)) continue;
    if (std::find(out.begin(), out.end(), q) == out.end()) out.push_back(q);
  }
  return out;
}

// The QOS mix of one submitter: mostly the default QOS, the rest spread over the others.
Weighted<std::string> qos_mix(const std::vector<std::string>& admitted, const std::string& default_qos) {
  Weighted<std::string> mix;
  const bool has_default = named(admitted, default_qos);
  for (const std::string& q : admitted) {
    const double others = has_default ? 0.2 / std::max<double>(1, static_cast<double>(admitted.size()) - 1) : 1.0;
    mix.push_back({q, has_default && iequals(q, default_qos) ? 0.8 : others});
  }
  return mix;
}

bool admits_account(const Partition& p, const std::string& account, const AssocTree* tree, std::uint32_t assoc) {
  auto listed = [&](const std::vector<std::string>& names) {
    if (!tree) return named(names, account);
    // Since 23.02 AllowAccounts and DenyAccounts also match the accounts above the job's.
    for (std::uint32_t a = tree->assocs[assoc].parent; a != kNoAssoc; a = tree->assocs[a].parent) {
      if (named(names, tree->assocs[a].account)) return true;
    }
    return false;
  };
  if (!p.allow_accounts.empty() && !is_all(p.allow_accounts) && !listed(p.allow_accounts)) return false;
  return !listed(p.deny_accounts);
}

std::optional<std::int64_t> assoc_max_wall(const AssocTree& tree, std::uint32_t id) {
  for (std::uint32_t a = id; a != kNoAssoc; a = tree.assocs[a].parent) {
    if (tree.assocs[a].limits.max_wall_per_job) return tree.assocs[a].limits.max_wall_per_job;
  }
  return std::nullopt;
}

std::vector<Submitter> tree_submitters(const Site& site, const Partition& p) {
  std::vector<Submitter> out;
  const AssocTree& tree = *site.tree;
  for (const auto& [who, share] : users_by_target_share(tree)) {
    const std::uint32_t id = tree.find_user(who.first, who.second);
    if (id == kNoAssoc || !admits_account(p, who.second, &tree, id)) continue;
    const Association& a = tree.assocs[id];
    std::vector<std::string> listed = a.qos;
    if (listed.empty()) listed.push_back(a.default_qos.empty() ? "normal" : a.default_qos);
    const std::vector<std::string> qos = admitted_qos(site, p, listed);
    if (qos.empty()) continue;
    out.push_back({who.first, to_lower(who.second), qos_mix(qos, a.default_qos.empty() ? "normal" : a.default_qos),
                   assoc_max_wall(tree, id), std::max(share, 1e-9)});  // a zero share still submits
  }
  return out;
}

// No association tree: a handful of users per account the partition names in AllowAccounts,
// else eight users in four accounts; QOS from AllowQos, else `normal`.
std::vector<Submitter> invented_submitters(const Site& site, const Partition& p) {
  std::vector<std::pair<std::string, std::string>> who;
  if (!p.allow_accounts.empty() && !is_all(p.allow_accounts)) {
    for (const std::string& acct : p.allow_accounts) {
      for (int i = 1; i <= 3; ++i) who.push_back({fmt::format("{}_user{}", to_lower(acct), i), to_lower(acct)});
    }
  } else {
    for (int i = 1; i <= 8; ++i) who.push_back({fmt::format("user{}", i), fmt::format("account{}", (i + 1) / 2)});
  }
  std::vector<std::string> candidates = {"normal"};
  if (!p.allow_qos.empty() && !is_all(p.allow_qos))
    candidates = p.allow_qos;
  else if (site.qos.from_input()) {
    for (const QosRecord& q : site.qos.records) candidates.push_back(q.name);
  }
  const std::vector<std::string> qos = admitted_qos(site, p, candidates);
  std::vector<Submitter> out;
  if (qos.empty()) return out;
  for (const auto& [user, account] : who) {
    if (!admits_account(p, account, nullptr, kNoAssoc)) continue;
    out.push_back({user, account, qos_mix(qos, "normal"), std::nullopt, 1.0});
  }
  return out;
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

template <typename T>
double total_weight(const std::vector<T>& items, double T::*weight) {
  double total = 0;
  for (const T& item : items) total += item.*weight;
  return total;
}

// The longest limit a job of this submitter and QOS may ask for here: the partition's
// MaxTime and every MaxWall that applies (the job's QOS, the partition's QOS, the association's).
std::int64_t limit_cap(const Site& site, const PartLoad& pl, const Submitter& who, const std::string& qos) {
  std::int64_t cap = pl.max_time;
  for (const std::string& name : {qos, pl.part->qos}) {
    if (name.empty()) continue;
    if (const QosRecord* q = site.qos.find(name); q && q->max_wall && *q->max_wall > 0)
      cap = std::min(cap, *q->max_wall);
  }
  if (who.max_wall && *who.max_wall > 0) cap = std::min(cap, *who.max_wall);
  return std::max<std::int64_t>(60, cap);
}

// Run time: log-normal around an eighth of the cap (at most an hour), with one job in
// twenty running close to its limit, the jobs a short bf_window cannot plan for. Where the
// partition has a DefaultTime, a quarter of the jobs give no --time and run under it. Runs
// stop at half the arrival span whatever their limit (backfill still plans with the limit):
// a week-long job in a three-day run only holds its nodes, and on a small cluster a few of
// them would leave the rest of the load pending at the end instead of exercising the policy.
JobRequest make_job(const Site& site, const PartLoad& pl, Rng& rng) {
  const Shape& shape = pick_weighted(pl.shapes, total_weight(pl.shapes, &Shape::weight), rng, &Shape::weight);
  const Submitter& who = pick_weighted(pl.users, total_weight(pl.users, &Submitter::weight), rng, &Submitter::weight);
  JobRequest j;
  j.cpus = shape.cpus;
  j.nodes = shape.nodes > 1 || pl.part->min_nodes > 1 ? shape.nodes : 0;
  j.gpus = shape.gpus;
  j.partitions.push_back(pl.part->name);
  j.user = who.user;
  j.account = who.account;
  j.qos = pick(who.qos, rng);
  if (!pl.part->allow_groups.empty() && !is_all(pl.part->allow_groups)) {
    j.group =
        pl.part
            ->allow_groups[static_cast<std::size_t>(rng.uniform() * static_cast<double>(pl.part->allow_groups.size()))];
  }
  if (pl.mem_per_cpu) {
    j.mem_mb = pl.mem_per_cpu;
    j.mem_per_cpu = j.mem_set = true;
  } else if (pl.mem_per_node) {
    j.mem_mb = pl.mem_per_node;
    j.mem_set = true;
  }
  std::int64_t cap = limit_cap(site, pl, who, j.qos);
  const bool no_time = pl.default_time != kNoTime && pl.default_time <= cap && rng.uniform() < 0.25;
  if (no_time) cap = pl.default_time;
  const double capd = static_cast<double>(cap);
  const double longest = std::min(capd, static_cast<double>(pl.max_run));
  const bool near_limit = rng.uniform() < 0.05;
  const Distribution dist{Distribution::Kind::kLognormal, std::min(3600.0, capd / 8), 1.3};
  const double run = near_limit ? longest * (0.6 + 0.35 * rng.uniform()) : std::clamp(rng.sample(dist), 30.0, longest);
  const double factor = near_limit ? 1.0 : 1.2 + 1.8 * rng.uniform();
  auto limit = static_cast<std::int64_t>(std::ceil(run * factor / 900.0)) * 900;
  j.time_limit = std::clamp<std::int64_t>(limit, 60, cap);
  if (near_limit) j.time_limit = cap;
  j.run_time = std::min<std::int64_t>(static_cast<std::int64_t>(run), j.time_limit);
  if (no_time) j.time_limit = kNoTime;  // slurmctld gives it the DefaultTime
  return j;
}

// A job the site admits: drawn again (a bounded number of times) when the engine's
// submission checks would refuse it, as a user would fix a rejected sbatch line.
std::optional<JobRequest> admitted_job(const Site& site, const PartLoad& pl, Rng& rng, Simulator& probe) {
  for (int attempt = 0; attempt < 8; ++attempt) {
    JobRequest j = make_job(site, pl, rng);
    if (probe.refusal(j).empty()) return j;
  }
  return std::nullopt;
}

// Why a partition gets no jobs, or "" when it can take them.
std::string idle_reason(const Config& c, const Partition& p) {
  if (p.state == PartitionState::kDown) return "State=DOWN";
  if (p.state == PartitionState::kDrain) return "State=DRAIN, takes no new jobs";
  if (p.state == PartitionState::kInactive) return "State=INACTIVE, takes no new jobs";
  if (p.root_only) return "RootOnly, no user jobs";
  if (p.hidden) return "Hidden, users do not see it";
  if (p.req_resv) return "ReqResv, jobs need a reservation";
  if (p.nodes.empty()) return "no nodes";
  if (std::none_of(p.nodes.begin(), p.nodes.end(), [&](std::uint32_t n) { return c.nodes[n].usable(); })) {
    return "no usable nodes (all DOWN, DRAIN, FAIL or FUTURE)";
  }
  return "";
}

struct Plan {
  std::vector<PartLoad> loads;
  std::vector<std::string> idle;
  std::set<std::string> assumed_qos;
  double capacity = 0;
};

Plan plan_partitions(const Site& site, std::int64_t duration) {
  const Config& c = *site.config;
  Plan plan;
  for (const Partition& p : c.partitions) {
    if (std::string why = idle_reason(c, p); !why.empty()) {
      plan.idle.push_back(fmt::format("{} ({})", p.name, why));
      continue;
    }
    PartLoad pl;
    pl.part = &p;
    pl.users = site.tree ? tree_submitters(site, p) : invented_submitters(site, p);
    if (pl.users.empty()) {
      plan.idle.push_back(fmt::format("{} (no {} may submit to it)", p.name,
                                      site.tree ? "association of the dump" : "account and QOS it allows"));
      continue;
    }
    for (std::uint32_t n : p.nodes) {
      if (c.nodes[n].usable()) pl.weight += c.nodes[n].cpus;
    }
    pl.shapes = shapes_for(c, p);
    pl.max_time = p.max_time > 0 ? p.max_time : 7 * 86400;
    pl.max_run = std::max<std::int64_t>(3600, duration / 2);
    if (p.default_time_set && p.default_time > 0) pl.default_time = p.default_time;
    const std::uint64_t max_per_cpu = p.max_mem_per_cpu ? p.max_mem_per_cpu : c.select.max_mem_per_cpu;
    const std::uint64_t max_per_node = p.max_mem_per_node ? p.max_mem_per_node : c.select.max_mem_per_node;
    const std::uint64_t def_per_cpu = p.def_mem_per_cpu ? p.def_mem_per_cpu : c.select.def_mem_per_cpu;
    const std::uint64_t def_per_node = p.def_mem_per_node ? p.def_mem_per_node : c.select.def_mem_per_node;
    // Users ask for memory in proportion to their CPUs where the site sets no default (a job
    // without --mem would take its nodes' whole memory) or caps it below the default.
    const std::uint64_t fair = fair_mem_per_cpu(c, p);
    if (c.select.memory && !def_per_cpu && !def_per_node) pl.mem_per_cpu = fair;
    if (max_per_cpu)
      pl.mem_per_cpu = std::min(def_per_cpu ? def_per_cpu : fair, max_per_cpu);
    else if (max_per_node && def_per_node > max_per_node)
      pl.mem_per_node = max_per_node;
    for (const Submitter& s : pl.users) {
      for (const auto& q : s.qos) {
        if (!site.qos.from_input() && !site.qos.find(q.first)) plan.assumed_qos.insert(q.first);
      }
    }
    plan.loads.push_back(std::move(pl));
  }
  return plan;
}

// Drops the shapes the site refuses for every submitter (a GPU shape on nodes without GPUs,
// memory beyond a node); a partition left without shapes gets no jobs.
void keep_admitted_shapes(const Site& site, Plan& plan, Simulator& probe) {
  std::vector<PartLoad> kept;
  for (PartLoad& pl : plan.loads) {
    std::string refusal;
    std::vector<Shape> shapes;
    for (const Shape& s : pl.shapes) {
      PartLoad one = pl;
      one.shapes = {s};
      Rng rng(0x5eed);
      bool admitted = false;
      for (int i = 0; i < 16 && !admitted; ++i) {
        JobRequest j = make_job(site, one, rng);
        const std::string why = probe.refusal(j);
        admitted = why.empty();
        if (!admitted) refusal = why;
      }
      if (admitted) shapes.push_back(s);
    }
    if (shapes.empty()) {
      plan.idle.push_back(fmt::format("{} (the site refuses every job shape: {})", pl.part->name, refusal));
      continue;
    }
    pl.shapes = std::move(shapes);
    kept.push_back(std::move(pl));
  }
  plan.loads = std::move(kept);
  std::set<std::uint32_t> nodes;
  for (const PartLoad& pl : plan.loads) {
    for (std::uint32_t n : pl.part->nodes) {
      if (site.config->nodes[n].usable()) nodes.insert(n);
    }
  }
  plan.capacity = 0;
  for (std::uint32_t n : nodes) plan.capacity += site.config->nodes[n].cpus;
}

// The mean CPU-seconds a job adds to the simulated span (arrivals plus a day's drain: a
// five-day job arriving on day two adds two days), estimated on a separate stream so the
// arrivals do not depend on how many samples this takes.
double mean_job_work(const Site& site, const std::vector<PartLoad>& loads, const DefaultLoadOptions& o) {
  const double part_total = total_weight(loads, &PartLoad::weight);
  Rng sampler(o.seed ^ 0x9e3779b97f4a7c15ULL);
  double work = 0;
  const int samples = std::max(1, o.work_samples);
  const double horizon = static_cast<double>(o.duration + 86400);
  for (int i = 0; i < samples; ++i) {
    const PartLoad& pl = pick_weighted(loads, part_total, sampler, &PartLoad::weight);
    const JobRequest j = make_job(site, pl, sampler);
    const double arrival = sampler.uniform() * static_cast<double>(o.duration);
    work += static_cast<double>(j.cpus) * std::min(static_cast<double>(j.run_time), horizon - arrival);
  }
  return std::max(1.0, work / samples);
}

struct ArrivalRate {
  double per_job = 0;  // mean CPU-seconds of a job
  double rate = 0;     // jobs per second, on average over a day
  double peak = 0;     // jobs per second at the top of the daily cycle
};

// The rate that offers o.offered_load of the capacity, lowered where it would bring more than
// o.max_jobs.
ArrivalRate arrival_rate(const Site& site, const Plan& plan, const DefaultLoadOptions& o) {
  ArrivalRate a;
  a.per_job = mean_job_work(site, plan.loads, o);
  a.rate = o.offered_load * plan.capacity / a.per_job;
  const double expected = a.rate * static_cast<double>(o.duration);
  if (expected > static_cast<double>(o.max_jobs)) a.rate *= static_cast<double>(o.max_jobs) / expected;
  a.peak = a.rate * (1.0 + o.daily_cycle);
  return a;
}

// Poisson arrivals thinned to the daily cycle (peak at 14:00), as the synthetic profiles do;
// returns how many draws the site refused.
std::size_t add_arrivals(const Site& site, const std::vector<PartLoad>& loads, const ArrivalRate& a,
                         const DefaultLoadOptions& o, Simulator& probe, Workload& w) {
  const double part_total = total_weight(loads, &PartLoad::weight);
  Rng rng(o.seed);
  double t = 0;
  std::size_t dropped = 0;
  for (std::uint32_t id = 1;;) {
    t += -std::log(1.0 - rng.uniform()) / a.peak;
    if (t >= static_cast<double>(o.duration)) break;
    const double hour = std::fmod(t / 3600.0, 24.0);
    const double now = a.rate * (1.0 + o.daily_cycle * std::cos(2.0 * std::numbers::pi * (hour - 14.0) / 24.0));
    if (rng.uniform() * a.peak > now) continue;
    const PartLoad& pl = pick_weighted(loads, part_total, rng, &PartLoad::weight);
    std::optional<JobRequest> j = admitted_job(site, pl, rng, probe);
    if (!j) {
      ++dropped;
      continue;
    }
    j->id = id++;
    j->submit = static_cast<std::int64_t>(t);
    w.jobs.push_back(std::move(*j));
  }
  return dropped;
}

}  // namespace

void add_assumed_qos(Site& site, const Workload& workload) {
  if (site.qos.from_input()) return;
  for (const std::string& name : workload.assumed_qos) {
    if (site.qos.find(name)) continue;
    QosRecord q;
    q.name = name;
    site.qos.records.push_back(std::move(q));
  }
}

DefaultLoad default_load(const Site& base, const DefaultLoadOptions& o) {
  DefaultLoad out;
  Workload& w = out.workload;
  w.format = WorkloadFormat::kSynthetic;
  w.names_accounts = true;
  w.source = "default load";
  w.seed = o.seed;
  // A day past the last arrival: long enough for the queue to drain where the policy lets
  // it, short enough that jobs it starves are still pending at the end.
  w.until = o.duration + 86400;
  out.invented_accounts = base.tree == nullptr;
  Plan plan = plan_partitions(base, o.duration);
  w.assumed_qos.assign(plan.assumed_qos.begin(), plan.assumed_qos.end());
  Site site = base;
  add_assumed_qos(site, w);
  Simulator probe(site, SimOptions{});
  keep_admitted_shapes(site, plan, probe);
  w.idle_partitions = plan.idle;
  const std::string idle = plan.idle.empty() ? "" : "; no jobs in " + join(plan.idle, ", ");
  std::vector<PartLoad>& loads = plan.loads;
  if (loads.empty()) {
    out.description = "no load: no partition takes user jobs on usable nodes" + idle;
    w.description = out.description;
    return out;
  }
  const double capacity = plan.capacity;
  const ArrivalRate a = arrival_rate(site, plan, o);
  const std::size_t dropped = add_arrivals(site, loads, a, o, probe, w);
  std::string invented;
  if (out.invented_accounts) {
    invented = "; without a sacctmgr dump its accounts and users are invented (no fair share)";
  }
  if (!w.assumed_qos.empty()) {
    invented += fmt::format("; QOS {} assumed from AllowQos (no --qos table)", join(w.assumed_qos, ", "));
  }
  out.description = fmt::format(
      "default synthetic load derived from the cluster: {} jobs over {} days in {} partitions, offering {:.0f}% of "
      "{:.0f} CPUs (daily peak {:.0f}%), seed {}{}{}{}",
      w.jobs.size(), o.duration / 86400, loads.size(), 100 * a.rate * a.per_job / capacity, capacity,
      100 * a.peak * a.per_job / capacity, o.seed, invented, idle,
      dropped ? fmt::format("; {} draws the site refused were left out", dropped) : "");
  w.description = out.description;
  return out;
}

}  // namespace sa::engine
