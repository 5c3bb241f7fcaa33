// FAIR007: a partition with GPU nodes whose billing does not count GPUs. Without
// TRESBillingWeights a job's billable TRES is its CPU count (assoc_mgr_tres_weighted); with
// weights that leave out gres/gpu, GPUs weigh 0 (PriorityFlags=MAX_TRES only changes how
// the weighted values combine, so it does not help). Fair-share usage, and billing-based
// limits, then charge a job holding four GPUs and four cores as four CPUs, a small part of
// the node it keeps from everyone else.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "rules/analysis/evidence.h"
#include "rules/analysis/queue_pairs.h"
#include "rules/analysis/share_stats.h"
#include "rules/framework/context.h"
#include "rules/framework/rule.h"
#include "rules/framework/sink.h"

namespace sa::rules {

namespace {

bool bills_gpus(const Partition& p) {
  return std::any_of(p.tres_billing_weights.begin(), p.tres_billing_weights.end(),
                     [](const TresWeight& w) { return w.tres.rfind("gres/gpu", 0) == 0 && w.weight > 0; });
}

struct GpuPart {
  const Partition* part = nullptr;
  std::vector<std::uint32_t> gpu_nodes;
  std::uint64_t gpus = 0;
  double cpus_per_gpu = 0;  // the largest over its GPU nodes: what one GPU keeps from others
};

std::optional<GpuPart> gpu_partition(const Config& c, const Partition& p) {
  // An admins' maintenance partition over every node is not where users' GPU work is charged.
  if (!takes_user_jobs(p) || bills_gpus(p)) return std::nullopt;
  GpuPart g{&p, {}, 0, 0};
  for (std::uint32_t n : p.nodes) {
    const std::uint64_t count = c.nodes[n].gpus();
    if (!count) continue;
    g.gpu_nodes.push_back(n);
    g.gpus += count;
    g.cpus_per_gpu = std::max(g.cpus_per_gpu, static_cast<double>(c.nodes[n].cpus) / static_cast<double>(count));
  }
  if (g.gpu_nodes.empty()) return std::nullopt;
  // DefCpuPerGPU at least a node's CPUs per GPU makes a default GPU job take (and pay for)
  // its GPUs' part of the node: the CPU count already prices the GPUs.
  const std::uint64_t def = c.cpus_per_gpu_default(p);
  if (def && static_cast<double>(def) >= g.cpus_per_gpu) return std::nullopt;
  return g;
}

// The partition's TRESBillingWeights as written, else CPU=1.0 (what it bills without them).
std::string billing_base(const Partition& p) {
  auto it = p.raw.find("TRESBillingWeights");
  return it != p.raw.end() && !it->second.empty() ? it->second : "CPU=1.0";
}

std::string weights_with_gpu(const Partition& p, double w) {
  return fmt::format("{},GRES/gpu={:g}", billing_base(p), w);
}

// One weight cannot fit GPU nodes of very different shapes: the weight is set by the node
// with the most CPUs a GPU, and charges a GPU of the densest node that many times its part.
// Slurm bills any TRES AccountingStorageTRES tracks, typed GRES included (tres.html), and
// records a job's GPUs under the node's type even for an untyped --gres=gpu:N (gres_stepmgr.c
// fills the job's alloc list one entry per node GPU type), so a weight per type fits each;
// the weights are named where every GPU node of the partition has a type.
std::string mixed_nodes_note(const Config& c, const GpuPart& g, std::uint64_t per_gpu) {
  const auto ratio = [&](std::uint32_t n) {
    return static_cast<double>(c.nodes[n].cpus) / static_cast<double>(c.nodes[n].gpus());
  };
  std::uint32_t dense = g.gpu_nodes.front(), wide = dense;
  for (std::uint32_t n : g.gpu_nodes) {
    if (ratio(n) < ratio(dense)) dense = n;
    if (ratio(n) > ratio(wide)) wide = n;
  }
  if (ratio(wide) < 2 * ratio(dense)) return "";
  std::map<std::string, double> by_type;  // GPU type -> most CPUs a GPU among its nodes
  bool typed = true;
  for (std::uint32_t n : g.gpu_nodes) {
    for (const GresSpec& s : c.nodes[n].gres) {
      if (s.name != "gpu" || s.no_consume || !s.count) continue;
      if (s.type.empty()) typed = false;
      // A type whose nodes DefCpuPerGPU already prices (the rule's own exemption) needs none.
      if (ratio(n) > static_cast<double>(per_gpu)) by_type[s.type] = std::max(by_type[s.type], ratio(n));
    }
  }
  std::string weights, tracked;
  for (const auto& [type, w] : by_type) {
    weights += fmt::format(",GRES/gpu:{}={:g}", type, std::floor(w));
    tracked += fmt::format("{}gres/gpu:{}", tracked.empty() ? "" : ",", type);
  }
  return fmt::format(
      "; but its GPU nodes range from {:g} CPUs a GPU ({}) to {:g} ({}), so that one weight charges a GPU of {} "
      "{:.0f} times its part of the node: {}",
      std::floor(ratio(dense)), c.nodes[dense].name, std::floor(ratio(wide)), c.nodes[wide].name, c.nodes[dense].name,
      ratio(wide) / ratio(dense),
      typed && !by_type.empty()
          ? fmt::format("weight each GPU type instead (TRESBillingWeights=\"{}{}\", with {} added to "
                        "AccountingStorageTRES), or split the partition by GPU node",
                        billing_base(*g.part), weights, tracked)
          : std::string("split the partition by GPU node, or weight each GPU type (GRES/gpu:<type>=<its CPUs a GPU>, "
                        "with the types in AccountingStorageTRES)"));
}

struct GpuUse {
  std::size_t jobs = 0;
  double gpu_seconds = 0, charged = 0, charged_weighted = 0;
  std::map<std::string, std::pair<double, double>> by_account;  // gpu-seconds, charged
  std::vector<const engine::SimJob*> cheapest;                  // most GPU per charged unit
  engine::WaitStats waits;
};

double ran(const Simulation& sim, const engine::SimJob& j) {
  const std::int64_t end = j.end != engine::kNoTime ? j.end : sim.result.end;
  return static_cast<double>(std::max<std::int64_t>(0, end - j.start));
}

GpuUse gpu_use(const Simulation& sim, const std::set<std::string>& parts, double weight) {
  GpuUse u;
  double wait_sum = 0;
  for (const engine::SimJob& j : sim.result.jobs) {
    if (j.start == engine::kNoTime || !j.alloc.gpus() || !parts.count(partition_of(sim, j))) continue;
    const double t = ran(sim, j), g = j.alloc.gpus() * t, charge = j.billable * t;
    ++u.jobs;
    u.gpu_seconds += g;
    u.charged += charge;
    u.charged_weighted += charge + j.alloc.gpus() * weight * t;
    u.by_account[j.req.account].first += g;
    u.by_account[j.req.account].second += charge;
    u.cheapest.push_back(&j);
    wait_sum += static_cast<double>(wait_of(sim, j));
  }
  u.waits.jobs = u.jobs;
  if (u.jobs) u.waits.mean = wait_sum / static_cast<double>(u.jobs);
  std::stable_sort(u.cheapest.begin(), u.cheapest.end(), [](auto* a, auto* b) {
    return a->alloc.gpus() / std::max(1.0, a->billable) > b->alloc.gpus() / std::max(1.0, b->billable);
  });
  if (u.cheapest.size() > 5) u.cheapest.resize(5);
  return u;
}

nlohmann::json use_json(const GpuUse& u) {
  nlohmann::json accounts = nlohmann::json::array();
  double all_charged = 0, error = 0;
  for (const auto& [a, v] : u.by_account) all_charged += v.second;
  for (const auto& [a, v] : u.by_account) {
    const double gpu_share = u.gpu_seconds > 0 ? v.first / u.gpu_seconds : 0;
    const double charged_share = all_charged > 0 ? v.second / all_charged : 0;
    error += std::fabs(gpu_share - charged_share);
    accounts.push_back({{"account", a},
                        {"share_of_gpu_hours", std::round(gpu_share * 1e4) / 1e4},
                        {"share_of_charged_usage", std::round(charged_share * 1e4) / 1e4}});
  }
  // The finding's outcome: how far the accounts' charged usage lies from their GPU hours (half
  // the summed differences: the share of usage charged to the wrong accounts). Waits need not
  // move when GPUs are priced, so without it a fix that does its job read as changing nothing.
  return {{"gpu_charge_share_error", std::round(error / 2 * 1e4) / 1e4},
          {"gpu_jobs", u.jobs},
          {"gpu_hours", std::llround(u.gpu_seconds / 3600)},
          {"charged_billing_hours", std::llround(u.charged / 3600)},
          {"charged_if_gpus_weighted", std::llround(u.charged_weighted / 3600)},
          {"mean_wait_seconds", std::llround(u.waits.mean)},
          {"accounts", accounts}};
}

// The partition's TRESBillingWeights with GPUs priced at `cpus_per_gpu` (CPU=1 when it had
// none). The weights are written back as the resolver read them (per base unit, no suffix),
// so they read back to the same numbers.
ConfigEdit billing_with_gpus(const Partition& p, double cpus_per_gpu) {
  std::string weights = p.tres_billing_weights.empty() ? "cpu=1" : "";
  for (const TresWeight& w : p.tres_billing_weights) {
    weights += fmt::format("{}{}={}", weights.empty() ? "" : ",", w.tres, w.weight);
  }
  return ConfigEdit::partition_key(p.name, "TRESBillingWeights", fmt::format("{},gres/gpu={}", weights, cpus_per_gpu));
}

void add_evidence(const LintContext& ctx, Finding& f, const std::vector<GpuPart>& flagged, const GpuPart& g) {
  const Simulation* sim = ctx.simulation();
  if (!sim) return;
  const std::set<std::string> parts{g.part->name};
  const GpuUse before = gpu_use(*sim, parts, g.cpus_per_gpu);
  if (!before.jobs) return;  // the load ran no GPU job here (e.g. mostly CPU nodes): nothing to show
  f.evidence = simulated_evidence(*sim);
  f.evidence["metrics"] = use_json(before);
  for (const engine::SimJob* j : before.cheapest) f.evidence["examples"].push_back(job_json(*sim, *j));
  // One re-run prices GPUs in every flagged partition, shared by their findings.
  std::vector<ConfigEdit> priced;
  for (const GpuPart& x : flagged) priced.push_back(billing_with_gpus(*x.part, x.cpus_per_gpu));
  const SimulationPtr after_run = ctx.resimulate("TRESBillingWeights with GRES/gpu", priced);
  const Simulation& after = *after_run;
  f.fix->resimulated = use_json(gpu_use(after, parts, 0));
  f.fix->resimulated.erase("charged_if_gpus_weighted");  // the re-run already charges them
  f.fix->resimulated["scenario"] = scenario_json(after.scenario);
}

void check(const LintContext& ctx, FindingSink& sink) {
  const Config& c = ctx.config();
  // Needs no accounting: the billing weights and the nodes' GPUs are all in slurm.conf.
  if (!shares::fair_share_matters(c)) return;
  std::vector<GpuPart> flagged;
  for (const Partition& p : c.partitions) {
    if (auto g = gpu_partition(c, p)) flagged.push_back(*g);
  }
  for (const GpuPart& g : flagged) {
    const Partition& p = *g.part;
    // The example is the node that sets the weight (most CPUs per GPU), with a job taking
    // DefCpuPerGPU CPUs a GPU (one a GPU where none is set): there the GPUs leave the most of
    // the node charged to no one.
    std::uint32_t worst = g.gpu_nodes.front();
    for (std::uint32_t n : g.gpu_nodes) {
      if (c.nodes[n].cpus * c.nodes[worst].gpus() > c.nodes[worst].cpus * c.nodes[n].gpus()) worst = n;
    }
    const Node& node = c.nodes[worst];
    const std::uint64_t per_gpu = std::max<std::uint64_t>(1, c.cpus_per_gpu_default(p));
    const std::uint64_t cores = std::min<std::uint64_t>(node.gpus() * per_gpu, node.cpus);
    Finding& f = sink.report(
        ctx.conf_loc(p.loc),
        // No plural endings: partitions that differ only in counts must give the same message
        // shape, so that lint groups them into one finding.
        fmt::format("partition '{}' has no TRESBillingWeights weight for gres/gpu though its nodes hold {} GPUs "
                    "(GPU nodes: {}): jobs are charged for their CPUs only, so a job that takes every GPU of {} ({}) "
                    "and {} of its CPUs{} is charged {} of the node's {} CPUs, and GPU users' fair-share usage "
                    "understates what they take",
                    p.name, g.gpus, g.gpu_nodes.size(), node.name, node.gpus(), cores,
                    per_gpu > 1 ? fmt::format(" (DefCpuPerGPU={})", per_gpu) : "", cores, node.cpus));
    Location r = ctx.conf_loc(node.loc);
    r.note = fmt::format("{} GPUs, {} CPUs", node.gpus(), node.cpus);
    f.related.push_back(r);
    const std::string value = weights_with_gpu(p, g.cpus_per_gpu);
    f.fix = Fix{fmt::format("set TRESBillingWeights=\"{}\" on partition '{}' so a GPU costs the {:g} CPUs it keeps "
                            "from others{}",
                            value, p.name, g.cpus_per_gpu, mixed_nodes_note(c, g, per_gpu)),
                "TRESBillingWeights",
                value,
                {}};
    add_evidence(ctx, f, flagged, g);
  }
}

}  // namespace

}  // namespace sa::rules

SA_RULE({"FAIR007", "billing-ignores-gpus", Severity::kWarning, Check::kShareImbalance, SimUse::kEvidence,
         "a partition with GPU nodes whose billing counts CPUs only, so GPU work is charged as its cores", check})
