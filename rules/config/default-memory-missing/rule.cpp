// CONF106: memory is a consumable resource and no default memory applies (no DefMemPerCPU or
// DefMemPerNode, the partition's or the cluster's). slurmctld then gives a job without --mem
// pn_min_memory 0, which cons_tres reads as "all of the node's memory" (_verify_node_state:
// a node with any memory allocated is not considered), so such a job runs alone on each of
// its nodes whatever CPUs it leaves idle. select/cons_tres without SelectTypeParameters is
// CR_Core_Memory (read_config.c), so a config that never mentions memory gets this. Nodes
// left at RealMemory=1 are CONF045's; partitions whose jobs take whole nodes anyway
// (OverSubscribe=EXCLUSIVE, select/linear) lose nothing; DefMemPerCPU=0 written gives jobs
// 0 MB (whole_node_by_default). Under FORCE:n this is also GANG003's case, left to this rule.
#include <algorithm>

#include <fmt/format.h>

#include "analyzer/text_util.h"
#include "engine/max_memory.h"
#include "rules/analysis/backfill_stats.h"
#include "rules/analysis/evidence.h"
#include "rules/framework/context.h"
#include "rules/framework/rule.h"
#include "rules/framework/sink.h"

namespace sa::rules {

namespace {

// Nodes of `p` that can share: more than one CPU and a RealMemory of their own.
std::vector<std::uint32_t> shareable_nodes(const Config& c, const Partition& p) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t n : sorted_nodes(p)) {
    if (c.nodes[n].cpus > 1 && c.nodes[n].real_memory_mb > 1 && c.nodes[n].usable_mem_mb() > 0) out.push_back(n);
  }
  return out;
}

struct Exposed {
  const Partition* part = nullptr;
  std::vector<std::uint32_t> nodes;
};

std::vector<Exposed> exposed_partitions(const Config& c) {
  std::vector<Exposed> out;
  for (const Partition& p : c.partitions) {
    if (p.state != PartitionState::kUp || !whole_node_by_default(c, p)) continue;
    std::vector<std::uint32_t> nodes = shareable_nodes(c, p);
    if (!nodes.empty()) out.push_back({&p, std::move(nodes)});
  }
  return out;
}

// The smallest usable memory per CPU over the exposed nodes, divided among the jobs
// OverSubscribe=FORCE:n stacks on a CPU: a DefMemPerCPU no node is short of, and one that
// lets FORCE:n happen (GANG003 leaves these partitions to this rule).
// `capped`: a MaxMemPerCPU is lower, and the default is that (above it, it would multiply
// every such job's CPUs: CONF109).
std::uint64_t fitting_def_mem(const Config& c, const std::vector<Exposed>& exposed, bool& capped) {
  std::uint64_t best = 0;
  std::vector<const Partition*> parts;
  for (const Exposed& e : exposed) {
    parts.push_back(e.part);
    const std::uint64_t rows = e.part->oversubscribe.mode == OverSubscribe::Mode::kForce ? share_rows(*e.part) : 1;
    for (std::uint32_t n : e.nodes) {
      const std::uint64_t v = c.nodes[n].usable_mem_mb() / (c.nodes[n].cpus * rows);
      if (v > 0 && (best == 0 || v < best)) best = v;
    }
  }
  const std::uint64_t max_per_cpu = engine::lowest_max_per_cpu(c, parts);
  capped = best && max_per_cpu && max_per_cpu < best;
  return capped ? max_per_cpu : best;
}

// The simulated jobs that ran so: started in an exposed partition with a whole node's memory
// (no --mem and no default) on nodes where memory is counted, and fewer CPUs than a node has.
struct AloneJobs {
  std::size_t started = 0;  // started jobs of the exposed partitions
  std::vector<const engine::SimJob*> alone;
  double mean_cpus = 0;
};

AloneJobs alone_jobs(const Simulation& sim, const std::vector<Exposed>& exposed, std::uint32_t min_node_cpus) {
  AloneJobs a;
  const Config& c = *sim.site.config;
  std::uint64_t cpus = 0;
  for (const engine::SimJob& j : sim.result.jobs) {
    if (j.run_rec < 0 || j.start == engine::kNoTime) continue;
    const engine::SimRecord& r = j.recs[static_cast<std::size_t>(j.run_rec)];
    // By name: a re-simulated variant resolves its own Config, so its partitions live elsewhere.
    const std::string& part = c.partitions[r.part].name;
    if (std::none_of(exposed.begin(), exposed.end(), [&](const Exposed& e) { return e.part->name == part; })) continue;
    ++a.started;
    const engine::Demand& d = r.demand;
    if (!d.mem_whole_node || !d.mem_tracked || d.whole_nodes ||
        j.req.cpus >= static_cast<std::uint64_t>(min_node_cpus) * std::max<std::uint32_t>(1, d.min_nodes))
      continue;
    a.alone.push_back(&j);
    cpus += j.req.cpus;
  }
  if (!a.alone.empty()) a.mean_cpus = static_cast<double>(cpus) / static_cast<double>(a.alone.size());
  return a;
}

nlohmann::json run_metrics(const Simulation& sim, const std::vector<Exposed>& exposed, std::uint32_t min_node_cpus) {
  const AloneJobs a = alone_jobs(sim, exposed, min_node_cpus);
  nlohmann::json m = outcome_json(sim);
  m["jobs_started_there"] = a.started;
  m["jobs_alone_on_their_nodes"] = a.alone.size();
  m["their_mean_cpus"] = std::llround(a.mean_cpus);
  return m;
}

// The load's jobs, given no --mem: what users who do not state memory would submit. (A job
// that asks for GPUs where DefMemPerGPU applies is then given that much a GPU by the engine,
// as by slurmctld, and does not take whole nodes.)
struct NoMem {
  std::string label() const { return "its jobs given no --mem"; }
  void operator()(engine::JobRequest& j) const {
    j.mem_set = false;
    j.mem_mb = 0;
    j.mem_per_cpu = false;
  }
};

// The run that shows jobs alone on their nodes: the lint's own, or, where all its jobs ask for
// memory (the default load does where no default is set), the same load with no --mem.
struct Shown {
  const Simulation* sim = nullptr;  // null: no run shows it
  bool no_mem = false;              // the load's jobs were given no --mem, by `change`
  NoMem change;
  AloneJobs alone;
  SimulationPtr variant;  // holds sim (and alone's jobs) when it is a re-simulation
};

Shown shown_run(const LintContext& ctx, const std::vector<Exposed>& exposed, std::uint32_t min_cpus) {
  const Simulation* base = ctx.simulation();
  if (!base) return {};
  Shown s{base, false, {}, alone_jobs(*base, exposed, min_cpus), nullptr};
  if (!s.alone.alone.empty()) return s;
  const NoMem change;
  SimulationPtr variant = ctx.resimulate_load(change.label(), {}, change);
  s = {variant.get(), true, change, alone_jobs(*variant, exposed, min_cpus), variant};
  return s.alone.alone.empty() ? Shown{} : s;
}

std::string shown_text(const LintContext& ctx, const Shown& s) {
  if (!s.sim) return {};
  const engine::WaitStats& before = ctx.simulation()->metrics.overall;
  const engine::WaitStats& after = s.sim->metrics.overall;
  const long long mean = std::llround(s.alone.mean_cpus);
  const std::string cpus = fmt::format("{} CPU{}", mean, mean == 1 ? "" : "s");
  return s.no_mem ? fmt::format(
                        "; in the simulated load with {}, {} of the {} jobs started there ran so, asking {} "
                        "on average, and the mean wait went from {} (as simulated, with --mem) to {}",
                        s.change.label(), s.alone.alone.size(), s.alone.started, cpus,
                        slurm_duration(std::llround(before.mean)), slurm_duration(std::llround(after.mean)))
                  : fmt::format(
                        "; in the simulated load {} of the {} jobs started there ran so, asking {} on "
                        "average, and the site's CPUs were {:.0f}% used",
                        s.alone.alone.size(), s.alone.started, cpus, 100 * s.sim->metrics.utilization);
}

// The shown run's numbers, its longest waits among the jobs alone, and the fix re-simulated on
// the same load (the changed one where the jobs were given no --mem).
void add_evidence(const LintContext& ctx, Finding& f, const Shown& s, const std::vector<Exposed>& exposed,
                  std::uint32_t min_cpus, std::uint64_t def_mem) {
  if (!s.sim) return;
  f.evidence = simulated_evidence(*s.sim);
  if (s.no_mem) f.evidence["scenario"]["load"] = f.evidence["scenario"].value("load", "") + "; " + s.change.label();
  f.evidence["metrics"] = run_metrics(*s.sim, exposed, min_cpus);
  std::vector<const engine::SimJob*> longest = s.alone.alone;  // the ones that waited longest
  std::stable_sort(longest.begin(), longest.end(),
                   [&](auto* a, auto* b) { return wait_of(*s.sim, *a) > wait_of(*s.sim, *b); });
  add_examples(f.evidence, *s.sim, longest);
  const std::string label = fmt::format("DefMemPerCPU={}", def_mem);
  const std::vector<ConfigEdit> edit{ConfigEdit::setting("DefMemPerCPU", std::to_string(def_mem))};
  const SimulationPtr after =
      s.no_mem ? ctx.resimulate_load(label + ", " + s.change.label(), edit, s.change) : ctx.resimulate(label, edit);
  f.fix->resimulated = run_metrics(*after, exposed, min_cpus);
  f.fix->resimulated["scenario"] = scenario_json(after->scenario);
}

void check(const LintContext& ctx, FindingSink& sink) {
  const Config& c = ctx.config();
  const std::vector<Exposed> exposed = exposed_partitions(c);
  if (exposed.empty()) return;
  std::uint32_t min_cpus = 0xFFFFFFFF, max_cpus = 0;
  std::vector<std::string> names;
  for (const Exposed& e : exposed) {
    names.push_back(e.part->name);
    for (std::uint32_t n : e.nodes) {
      min_cpus = std::min(min_cpus, c.nodes[n].cpus);
      max_cpus = std::max(max_cpus, c.nodes[n].cpus);
    }
  }
  const std::string parts = names.size() == 1 ? fmt::format("partition {}", names[0])
                                              : fmt::format("{} partitions: {}", names.size(), join_names(names));
  const std::string sizes =
      min_cpus == max_cpus ? fmt::format("{}", min_cpus) : fmt::format("{}-{}", min_cpus, max_cpus);
  const std::string params = c.setting("SelectTypeParameters")
                                 ? c.select.parameters
                                 : c.select.parameters + ", the default of " + c.select.type;
  // A job_submit plugin commonly fills in --mem; the configuration cannot show whether it does.
  const Setting* submit = c.setting("JobSubmitPlugins");
  // DefMemPerGPU gives a job that asks for GPUs its memory (cons_tres _verify_node_state reads
  // the per-GPU default before pn_min_memory): only jobs without GPUs are left to take nodes.
  const bool gpus_covered =
      std::all_of(exposed.begin(), exposed.end(), [&](const Exposed& e) { return c.mem_per_gpu_default(*e.part) > 0; });
  const Shown shown = shown_run(ctx, exposed, min_cpus);
  Finding& f = sink.report(
      select_loc(ctx),
      fmt::format(
          "memory is a consumable resource ({}) and no DefMemPerCPU or DefMemPerNode is set, so a job without "
          "--mem is given the whole memory of each node it runs on, and no other job starts there however "
          "many of its CPUs are idle ({}, nodes of {} CPUs){}{}{}",
          params, parts, sizes, shown_text(ctx, shown),
          gpus_covered ? "; DefMemPerGPU gives memory only to jobs that ask for GPUs" : "",
          submit ? fmt::format(" (unless JobSubmitPlugins={} sets a memory request)", printable(submit->value)) : ""));
  if (submit || gpus_covered) f.severity = Severity::kInfo;
  for (const Exposed& e : exposed) {
    Location p = ctx.conf_loc(e.part->loc);
    p.note = fmt::format("partition {}: no default memory", e.part->name);
    f.related.push_back(p);
  }
  bool capped = false;
  const std::uint64_t def_mem = fitting_def_mem(c, exposed, capped);
  // Nodes with less than a MB per CPU (per job under FORCE) leave no default to suggest, and
  // DefMemPerCPU=0 would mean something else (0 MB a CPU, memory unbounded).
  if (def_mem == 0) return;
  const bool forced = std::any_of(exposed.begin(), exposed.end(), [](const Exposed& e) {
    return e.part->oversubscribe.mode == OverSubscribe::Mode::kForce && share_rows(*e.part) > 1;
  });
  f.fix = Fix{fmt::format("set DefMemPerCPU={} (MB, {}{}), so a job without --mem gets its CPUs' part of a node and "
                          "others can use the rest; users who need more ask with --mem{}",
                          def_mem,
                          capped ? "MaxMemPerCPU, under the smallest of these nodes' memory per CPU"
                                 : "the smallest of these nodes' memory per CPU",
                          forced ? ", shared by the jobs OverSubscribe=FORCE stacks on it" : "",
                          // The man page calls the three defaults mutually exclusive, while
                          // cons_tres _set_gpu_defaults still reads DefMemPerGPU for GPU jobs:
                          // what the pair does is the site's to check, so the fix says so.
                          gpus_covered ? "; the slurm.conf man page calls DefMemPerCPU and DefMemPerGPU mutually "
                                         "exclusive, so check that a GPU job without --mem still gets DefMemPerGPU's "
                                         "memory after the change (or have a job_submit plugin set --mem for jobs "
                                         "without GPUs instead)"
                                       : ""),
              "DefMemPerCPU",
              std::to_string(def_mem),
              {}};
  add_evidence(ctx, f, shown, exposed, min_cpus, def_mem);
}

}  // namespace

}  // namespace sa::rules

SA_RULE({"CONF106", "default-memory-missing", Severity::kWarning, Check::kConfig, SimUse::kEvidence,
         "memory consumable with no DefMemPerCPU/DefMemPerNode: a job without --mem takes a whole node", check})
