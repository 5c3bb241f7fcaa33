#include "engine/workload/default_load.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <optional>

#include <fmt/format.h>

#include "analyzer/text_util.h"
#include "engine/workload/default_load_plan.h"
#include "engine/workload/synthetic.h"

namespace sa::engine {

using namespace default_load_detail;  // NOLINT(google-build-using-namespace): the plan's types

namespace {

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
// partition has a DefaultTime, a quarter of the jobs give no --time and run under it; where
// it has neither a DefaultTime nor a MaxTime, a quarter give none and run unlimited. Runs
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
  // A GPU job where DefMemPerGPU applies asks no memory: the default gives it its GPUs' share
  // (the engine applies it as select/cons_tres does, Simulator::apply_gpu_defaults).
  if (j.gpus > 0 && site.config->mem_per_gpu_default(*pl.part) > 0) {
    // no --mem
  } else if (pl.mem_per_cpu) {
    j.mem_mb = pl.mem_per_cpu;
    j.mem_per_cpu = j.mem_set = true;
  } else if (pl.mem_per_node) {
    j.mem_mb = pl.mem_per_node;
    j.mem_set = true;
  }
  std::int64_t cap = limit_cap(site, pl, who, j.qos);
  const bool no_time = pl.default_time != kNoTime && pl.default_time <= cap && rng.uniform() < 0.25;
  if (no_time) cap = pl.default_time;
  // Under UNLIMITED with no DefaultTime a job without --time has no limit at all (a QOS or
  // association MaxWall, where one applies, gives it one: Simulator::record_time_limit). Its
  // run is drawn as any other's, but never "close to its limit": it has none.
  const bool unlimited = pl.unlimited_without_default && rng.uniform() < 0.25;
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
  if (unlimited) {
    j.run_time = static_cast<std::int64_t>(near_limit ? std::clamp(rng.sample(dist), 30.0, longest) : run);
    j.time_limit = kNoTime;
  }
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
      // EnforcePartLimits=NO takes a job the partition denies and never runs it: not refused.
      const std::string_view queued = kQueuedForEver;
      plan.idle.push_back(
          refusal.rfind(queued, 0) == 0
              ? fmt::format("{} (every job shape would be accepted and never run, EnforcePartLimits=NO: "
                            "{})",
                            pl.part->name, refusal.substr(queued.size()))
              : fmt::format("{} (the site refuses every job shape: {})", pl.part->name, refusal));
      continue;
    }
    pl.shapes = std::move(shapes);
    kept.push_back(std::move(pl));
  }
  plan.loads = std::move(kept);
  std::map<std::uint32_t, int> holders;  // usable node -> loaded partitions that hold it
  for (const PartLoad& pl : plan.loads) {
    for (std::uint32_t n : pl.part->nodes) {
      if (site.config->nodes[n].usable()) ++holders[n];
    }
  }
  plan.capacity = 0;
  for (const auto& [n, count] : holders) plan.capacity += site.config->nodes[n].cpus;
  for (PartLoad& pl : plan.loads) {
    pl.share = 0;
    for (std::uint32_t n : pl.part->nodes) {
      if (auto it = holders.find(n); it != holders.end())
        pl.share += site.config->nodes[n].cpus / static_cast<double>(it->second);
    }
  }
}

// What a job of `pl` brings on average: its shapes' mean CPUs, from their weights (a GPU job
// holds its GPUs' share of the partition even when it asks few CPUs: offering a share of the
// CPUs alone would offer GPU nodes many times the GPU time they have), and its mean run cut at
// the span's end (arrivals plus a day's drain: a five-day job arriving on day two adds two
// days), sampled. make_job draws a run apart from the shape, so their product is the mean
// work; drawn together, a few rare jobs both large and long made most of the estimate's noise.
struct JobWork {
  double cpus = 1, run = 1;
};

JobWork mean_job_work(const Site& site, const PartLoad& pl, int samples, double duration, Rng& sampler) {
  double cpus = 0, weights = 0;
  for (const Shape& shape : pl.shapes) {
    cpus += shape.weight * std::max(static_cast<double>(shape.cpus), shape.gpus * pl.cpus_per_gpu);
    weights += shape.weight;
  }
  double run = 0;
  const double horizon = duration + 86400;
  for (int i = 0; i < samples; ++i) {
    const JobRequest j = make_job(site, pl, sampler);
    run += std::min(static_cast<double>(j.run_time), horizon - sampler.uniform() * duration);
  }
  return {std::max(1.0, cpus / std::max(weights, 1e-9)), std::max(1.0, run / samples)};
}

struct ArrivalRate {
  double per_job = 0;  // mean CPU-seconds of a job
  double rate = 0;     // jobs per second, on average over a day
  double peak = 0;     // jobs per second at the top of the daily cycle
};

// The rate that offers o.offered_load of the capacity, lowered where it would bring more than
// o.max_jobs, and each partition's weight: its share of the capacity over its jobs' mean
// CPUs, so a partition of large nodes is offered as much of its CPUs as one of small nodes
// (picked by CPUs alone, CliMA's `any`, whose jobs ask about five times the CPUs of
// `clima2`'s, was offered 2.2 times its CPUs and `clima2` a quarter of them). Run times still
// weigh: a one-hour test partition is offered its share in short jobs, a light load, as test
// partitions carry, not its nodes' whole time. Estimated on a separate stream so the
// arrivals do not depend on how many samples this takes.
ArrivalRate arrival_rate(const Site& site, Plan& plan, const DefaultLoadOptions& o) {
  Rng sampler(o.seed ^ 0x9e3779b97f4a7c15ULL);
  const int parts = static_cast<int>(plan.loads.size());
  const int samples = std::max({1, std::min(o.work_samples, 400), o.work_samples / std::max(1, parts)});
  double weights = 0, work = 0;
  for (PartLoad& pl : plan.loads) {
    const JobWork w = mean_job_work(site, pl, samples, static_cast<double>(o.duration), sampler);
    pl.weight = pl.share / w.cpus;
    weights += pl.weight;
    work += pl.weight * w.cpus * w.run;
  }
  ArrivalRate a;
  a.per_job = weights > 0 ? std::max(1.0, work / weights) : 1.0;
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
      "default synthetic load derived from the cluster: {} jobs over {} day{} in {} partition{}, offering {:.0f}% of "
      "{:.0f} CPUs (daily peak {:.0f}%), seed {}{}{}{}",
      w.jobs.size(), o.duration / 86400, o.duration / 86400 == 1 ? "" : "s", loads.size(), loads.size() == 1 ? "" : "s",
      100 * a.rate * a.per_job / capacity, capacity, 100 * a.peak * a.per_job / capacity, o.seed, invented, idle,
      dropped ? fmt::format("; {} draws the site refused were left out", dropped) : "");
  w.description = out.description;
  return out;
}

}  // namespace sa::engine
