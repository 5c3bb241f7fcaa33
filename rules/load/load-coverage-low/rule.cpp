// LOAD001: the simulated load did not run on the site. When fewer than 80% of the offered
// jobs start, overall or in a partition, the simulation says little about the policy there:
// the jobs were refused at submission (a QOS or account the partition does not allow, a size
// no node holds, a limit) or never left the queue. Every finding that rests on that run is
// withheld by the lint driver; this one says why, with Slurm's own refusal messages, so the
// admin can give the inputs that make the load real (the sacctmgr dump, the QOS table, a
// partition map for a trace from elsewhere).
#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "analyzer/text_util.h"
#include "engine/coverage.h"
#include "rules/analysis/evidence.h"
#include "rules/analysis/queue_pairs.h"
#include "rules/framework/context.h"
#include "rules/framework/rule.h"
#include "rules/framework/sink.h"
#include "rules/framework/withhold.h"

namespace sa::rules {

namespace {

constexpr double kFull = 0.9;  // a partition's nodes this busy over the run are full

// (count, reason), most frequent first, ties in the map's (name) order.
std::vector<std::pair<std::size_t, std::string>> by_count(const std::map<std::string, std::size_t>& count) {
  std::vector<std::pair<std::size_t, std::string>> out;
  for (const auto& [reason, n] : count) out.push_back({n, reason});
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  return out;
}

std::string reasons_text(const engine::PartitionCoverage& p) {
  std::string out;
  for (const auto& [n, reason] : by_count(p.refused_reasons))
    out += fmt::format("{}{} refused \"{}\"", out.empty() ? "" : ", ", n, reason);
  if (p.pending_at_end) out += fmt::format("{}{} still pending at the end", out.empty() ? "" : ", ", p.pending_at_end);
  return out;
}

std::string partition_text(const engine::PartitionCoverage& p) {
  return fmt::format("{}: {} of {} started ({})", p.name, p.started, p.offered, reasons_text(p));
}

// Up to five refused jobs per reason: the ones `explain JOBID` can be asked about.
nlohmann::json refused_examples(const Simulation& sim) {
  nlohmann::json out = nlohmann::json::array();
  std::map<std::string, int> per_reason;
  for (const engine::SimJob& j : sim.result.jobs) {
    if (j.state != engine::JobState::kRejected || per_reason[j.rare.get().reject_error]++ >= 5) continue;
    out.push_back({{"job", j.req.id},
                   {"partition", j.req.partitions.empty() ? "" : j.req.partitions.front()},
                   {"user", j.req.user},
                   {"account", j.req.account},
                   {"qos", j.req.qos},
                   {"cpus", j.req.cpus},
                   {"refused", j.rare.get().reject_reason}});
  }
  return out;
}

// Held jobs' likeliest cause, said by name: the starved thin partitions' nodes left at
// RealMemory=1 while memory is counted (CONF045). Empty when no thin partition is starved.
std::string memory_starved(const Config& c, const std::vector<ThinPartition>& thin) {
  std::size_t starved = 0, nodes = 0;
  for (const ThinPartition& p : thin) {
    if (!p.starved()) continue;
    starved += p.starved_nodes;
    nodes += p.nodes;
  }
  if (!starved) return {};
  const bool whole_node =
      std::all_of(c.partitions.begin(), c.partitions.end(), [&](const Partition& p) { return c.no_default_memory(p); });
  return fmt::format(
      "{} of their {} nodes have no RealMemory and offer 1 MB (CONF045), so {}; the findings that rest "
      "on that run are withheld",
      starved, nodes, whole_node ? "each runs one job at a time" : "jobs given or asking for memory cannot run there");
}

// How busy a partition's nodes were over the run, per resource: what any job held on them
// (CPU-, GPU- and MB-seconds) over what they have times the span. Jobs left pending on nodes
// that were full are the load's volume; pending beside idle resources is what the policy (or
// the job shapes) held back. GPUs count as well as CPUs: on a GPU node a job of a few CPUs
// can hold half its GPUs (predictive-analytics-lab's turing: 2 GPUs beside 128 CPUs), and a
// job that needs every GPU waits while the CPUs look idle. Memory counts where it is
// consumable (AllocPiece::mem is 0 otherwise).
struct BusyShare {
  double cpus = 0, gpus = 0, mem = 0;
  bool has_gpus = false, has_mem = false;
  double busiest() const { return std::max({cpus, gpus, mem}); }
  // The resource that was busiest, when it is not the CPUs.
  const char* binding() const {
    if (has_gpus && gpus > cpus && gpus >= mem) return "GPUs";
    if (has_mem && mem > cpus && mem > gpus) return "memory";
    return nullptr;
  }
};

BusyShare busy_share(const Simulation& sim, const Config& c, const Partition& p) {
  const engine::SimResult& r = sim.result;
  std::vector<char> in(c.nodes.size(), 0);
  double cpus = 0, gpus = 0, mem = 0;
  for (std::uint32_t n : p.nodes) {
    if (!c.nodes[n].usable() || in[n]) continue;
    in[n] = 1;
    cpus += c.nodes[n].cpus;
    gpus += static_cast<double>(c.nodes[n].gpus());
    mem += static_cast<double>(c.nodes[n].usable_mem_mb());
  }
  const double span = static_cast<double>(std::max<std::int64_t>(1, r.end - r.start));
  BusyShare b;
  if (cpus <= 0) return b;
  double held_cpus = 0, held_gpus = 0, held_mem = 0;
  for (const engine::SimJob& j : r.jobs) {
    if (j.start == engine::kNoTime) continue;
    const std::int64_t from = std::max(j.start, r.start),
                       to = std::min(j.end != engine::kNoTime ? j.end : r.end, r.end);
    if (to <= from) continue;
    const double secs = static_cast<double>(to - from);
    for (const engine::AllocPiece& piece : j.alloc.expanded()) {
      if (!in[r.config_node(piece.node)]) continue;
      held_cpus += piece.cpus * secs;
      held_gpus += piece.gpus * secs;
      held_mem += static_cast<double>(piece.mem) * secs;
    }
  }
  b.cpus = held_cpus / (cpus * span);
  b.has_gpus = gpus > 0;
  if (b.has_gpus) b.gpus = held_gpus / (gpus * span);
  b.has_mem = mem > 0 && held_mem > 0;
  if (b.has_mem) b.mem = held_mem / (mem * span);
  return b;
}

// "its nodes were 40% busy", or with the binding resource named: "its nodes' GPUs were 91%
// busy (their CPUs 40%)".
std::string busy_text(const BusyShare& b, bool whole_node_memory) {
  const char* what = b.binding();
  if (!what) return fmt::format("its nodes were {:.0f}% busy", 100 * b.cpus);
  const bool mem = std::string_view(what) == "memory";
  return fmt::format("its nodes' {} {} {:.0f}% busy (their CPUs {:.0f}%){}", what, mem ? "was" : "were",
                     100 * b.busiest(), 100 * b.cpus,
                     mem && whole_node_memory ? ", as a job without --mem takes a whole node's memory (CONF106)" : "");
}

// Full enough that the queue is the load's volume. Memory held because a job without --mem
// is given a whole node's (no DefMemPerCPU/DefMemPerNode while memory is consumable) is the
// policy's doing, which CONF106 names, not the load asking for more than the nodes have.
bool full(const BusyShare& b, bool whole_node_memory) {
  const double busiest = whole_node_memory ? std::max(b.cpus, b.gpus) : b.busiest();
  return busiest >= kFull;
}

double rounded4(double x) { return std::round(x * 1e4) / 1e4; }

// The Reasons the jobs still pending at the end of the run show in partition `p`: what held
// them, for `explain JOBID` to follow.
std::map<std::string, std::size_t> pending_reasons(const Simulation& sim, const Config& c, const Partition& p) {
  std::map<std::string, std::size_t> count;
  for (const engine::SimJob& j : sim.result.jobs) {
    if (j.state != engine::JobState::kPending || j.start != engine::kNoTime || j.recs.empty() || j.never_runs())
      continue;
    if (&c.partitions[j.recs.front().part] != &p) continue;
    const std::string& reason = sim.result.reason_name(j.reason);
    ++count[reason.empty() ? "None" : reason];
  }
  return count;
}

// The jobs of partition `part` still pending at the end that waited longest (up to two per
// partition, three in all): what `slurm-advisor explain` can take apart.
void add_held_examples(const Simulation& sim, std::uint32_t part, std::vector<const engine::SimJob*>& out) {
  constexpr std::size_t kPerPartition = 2, kAll = 3;
  std::size_t taken = 0;
  for (const engine::SimJob* j : partition_waits(sim, part).longest) {
    if (out.size() >= kAll || taken >= kPerPartition) return;
    if (j->start != engine::kNoTime) continue;
    out.push_back(j);
    ++taken;
  }
}

// Most frequent first: "Priority 7, Resources 1".
std::string counts_text(const std::map<std::string, std::size_t>& count) {
  std::vector<std::string> out;
  for (const auto& [n, reason] : by_count(count)) out.push_back(fmt::format("{} {}", reason, n));
  return join(out, ", ");
}

void check(const LintContext& ctx, FindingSink& sink) {
  const Config& c = ctx.config();
  if (!ctx.can_simulate()) {
    if (!ctx.wants_simulation()) return;
    // Where the configuration is not whole (Include files not read), defines no node, or its
    // partitions name only undefined nodes, the input diagnostics (CONF011/CONF048/CONF049 on
    // the Include, CONF047, CONF017) already carry the error: this only says what that leaves
    // the lint without, as a note. Without partitions, or with partitions that list no nodes,
    // nothing else says so (Slurm accepts both): that stays a warning, with the cause named.
    const int unread = ctx.site().conf ? ctx.site().conf->unreadable_includes : 0;
    const bool no_partition_nodes =
        std::all_of(c.partitions.begin(), c.partitions.end(), [](const Partition& p) { return p.nodes.empty(); });
    std::string cause;
    bool diagnosed = true;
    if (unread > 0) {
      cause = fmt::format(
          "{} Include file{} of this configuration could not be read (the Include errors say why), so "
          "its model may lack nodes and partitions; ",
          unread, unread == 1 ? "" : "s");
    } else if (c.nodes.empty() && c.setting("MaxNodeCount")) {
      // Dynamic nodes (slurmd -Z) register at run time: no defect, and nothing to simulate.
      cause = fmt::format(
          "its nodes register dynamically (MaxNodeCount={}, slurmd -Z), so slurm.conf defines none to simulate; ",
          printable(c.setting("MaxNodeCount")->value, 40));
    } else if (c.nodes.empty()) {
      cause = "the configuration defines no node (CONF047); ";
    } else if (c.partitions.empty()) {
      cause = "the configuration defines no partition; ";
      diagnosed = false;
    } else if (no_partition_nodes && std::all_of(c.partitions.begin(), c.partitions.end(),
                                                 [](const Partition& p) { return !p.nodes_expr.empty(); })) {
      cause = "no partition lists a node the configuration defines (CONF017); ";
    } else if (no_partition_nodes) {
      cause = "no partition has a node; ";
      diagnosed = false;
    } else {
      diagnosed = false;
    }
    Finding& f = sink.report(ctx.conf_file(), "nothing was simulated: " + cause + ctx.scenario().load +
                                                  "; no finding rests on a simulation of this site");
    f.evidence = {{"scenario", scenario_json(ctx.scenario())}};
    if (diagnosed) f.severity = Severity::kInfo;
    return;
  }
  const Simulation* sim = ctx.simulation();
  if (!sim) return;
  const engine::LoadCoverage cov = engine::load_coverage(sim->result, c);
  const Thinness t = thinness(cov, c);
  if (!t.any()) return;
  std::vector<const engine::PartitionCoverage*> thin;
  bool any_refused = t.overall && t.overall_refused;
  for (const ThinPartition& p : t.partitions) {
    thin.push_back(p.coverage);
    any_refused = any_refused || p.refused;
  }
  std::vector<std::string> parts;
  std::map<std::string, BusyShare> busy_of;  // thin partitions with a queue: their nodes' busy shares
  std::map<std::string, std::map<std::string, std::size_t>> held_by;  // and their pending jobs' Reasons
  bool all_full = !thin.empty();                 // every partition left with a queue had its nodes near full
  std::vector<const engine::SimJob*> held_jobs;  // the longest-waiting pending jobs, for `explain`
  for (const ThinPartition& tp : t.partitions) {
    const engine::PartitionCoverage* p = tp.coverage;
    std::string text = partition_text(*p);
    const Partition* part = c.find_partition(p->name);
    if (part && p->pending_at_end) {
      BusyShare busy = busy_share(*sim, c, *part);
      // Nodes at RealMemory=1 (CONF045) are "full" of memory at one job: the message names
      // that cause below, so their memory share says nothing more.
      if (tp.starved()) {
        busy.has_mem = false;
        busy.mem = 0;
      }
      busy_of[p->name] = busy;
      const bool whole_node_memory = c.no_default_memory(*part);
      all_full = all_full && full(busy, whole_node_memory);
      held_by[p->name] = pending_reasons(*sim, c, *part);
      add_held_examples(*sim, static_cast<std::uint32_t>(part - c.partitions.data()), held_jobs);
      const std::string reasons = counts_text(held_by[p->name]);
      text.insert(text.size() - 1, fmt::format("; {}{}{}", busy_text(busy, whole_node_memory),
                                               reasons.empty() ? "" : "; pending with Reason ", reasons));
    } else {
      all_full = false;
    }
    parts.push_back(text);
  }
  // Refused jobs leave nothing to judge, so the findings on them are withheld; jobs that
  // were admitted and never ran are what the policy did, and those findings stand, unless
  // nodes without RealMemory held them (withhold.h): then the cause is named and they go too.
  const std::string starved = any_refused ? std::string() : memory_starved(c, t.partitions);
  // Queued on full nodes: the load asks for about what the nodes run (the default load offers
  // 95% of the CPUs with daily peaks above them; CliMA's 'any' ran 97% busy), so the queue
  // is volume, not a policy that held free nodes back.
  const bool volume = !any_refused && starved.empty() && all_full;
  const std::string consequence =
      any_refused ? fmt::format("findings that rest on {} are withheld",
                                t.overall && t.overall_refused ? "the whole run" : "the refused partitions")
      : volume
          ? "the jobs were admitted and queued on full nodes: the load asks for as much as those nodes can run or "
            "more, so the queue is its volume, not idle nodes held back, and the simulated findings on this run stand"
      : starved.empty() ? "the jobs were admitted and held: the simulated findings show the policy that held them"
                        : "the jobs were admitted and held: " + starved;
  Location where = ctx.conf_file();
  std::vector<Location> related;
  for (const engine::PartitionCoverage* p : thin) {
    const Partition* part = c.find_partition(p->name);
    if (!part) continue;
    Location loc = ctx.conf_loc(part->loc);
    loc.note = fmt::format("partition {}: {} of {} jobs started", p->name, p->started, p->offered);
    if (where.line == 0)
      where = loc;  // the worst partition's line, the others related
    else
      related.push_back(loc);
  }
  Finding& f = sink.report(
      where, fmt::format("only {} of {} simulated jobs started ({:.0f}%){}{}; {}", cov.total.started, cov.total.offered,
                         cov.total.percent(), parts.empty() ? "" : ": ", join(parts, "; "), consequence));
  f.related = std::move(related);
  f.evidence = simulated_evidence(*sim);
  f.evidence["coverage"] = {{"offered", cov.total.offered},
                            {"started", cov.total.started},
                            {"refused", cov.total.refused},
                            {"pending_at_end", cov.total.pending_at_end},
                            {"coverage", cov.coverage()}};
  nlohmann::json rows = nlohmann::json::array();
  for (const engine::PartitionCoverage* p : thin) {
    rows.push_back({{"partition", p->name},
                    {"offered", p->offered},
                    {"started", p->started},
                    {"refused", p->refused},
                    {"pending_at_end", p->pending_at_end},
                    {"refused_reasons", p->refused_reasons}});
    if (auto b = busy_of.find(p->name); b != busy_of.end()) {
      const BusyShare& busy = b->second;
      rows.back()["nodes_busy_share"] = rounded4(busy.busiest());
      nlohmann::json shares = {{"cpus_busy", rounded4(busy.cpus)}};
      if (busy.has_gpus) shares["gpus_busy"] = rounded4(busy.gpus);
      if (busy.has_mem) shares["memory_busy"] = rounded4(busy.mem);
      rows.back()["busy_shares"] = shares;
    }
    if (auto h = held_by.find(p->name); h != held_by.end()) rows.back()["pending_reasons"] = h->second;
  }
  f.evidence["thin_partitions"] = rows;
  f.evidence["refused_jobs"] = refused_examples(*sim);
  for (const engine::SimJob* j : held_jobs) f.evidence["examples"].push_back(job_json(*sim, *j));
  if (cov.total.pending_at_end > cov.total.refused && !starved.empty()) {
    f.fix =
        Fix{"set RealMemory (in MB) on every NodeName line (CONF045), then lint again to see the policy on a "
            "run those nodes do not hold back",
            "",
            "",
            {}};
    return;
  }
  if (volume) {
    f.severity = Severity::kInfo;
    f.fix = Fix{ctx.scenario().seed == 0
                    ? "nothing to change in the config for this: the recorded load asks for more than these nodes "
                      "run in its span"
                    : "nothing to change in the config for this; to see the policy under the site's own demand, "
                      "lint with its recorded load (--workload: an SWF trace or a `sacct -P` dump)",
                "",
                "",
                {}};
    return;
  }
  if (cov.total.pending_at_end > cov.total.refused) {
    const std::string explain =
        held_jobs.empty()
            ? std::string("`slurm-advisor explain JOBID` on a pending job")
            : fmt::format("`slurm-advisor explain {}` with lint's inputs, for job {} of {}, which waited longest",
                          held_jobs.front()->req.id, held_jobs.front()->req.id, partition_of(*sim, *held_jobs.front()));
    f.fix = Fix{fmt::format("the jobs were admitted but did not start: look at what holds them (the config findings "
                            "on node memory, GPUs and limits; {}: each Reason it showed and what lay behind it)",
                            explain),
                "",
                "",
                {}};
    return;
  }
  f.fix =
      Fix{ctx.scenario().seed == 0
              ? "give the accounting files the load was recorded under (--assoc, --qos), map the trace's "
                "partitions onto this site's (--map-partition TRACE=SITE), or scale it to the site (--scale-to-site)"
              : "give the site's sacctmgr dump (--assoc) and QOS table (--qos), so the load is drawn from the "
                "associations and QOS that may really submit",
          "",
          "",
          {}};
}

}  // namespace

}  // namespace sa::rules

SA_RULE({"LOAD001", "load-coverage-low", Severity::kWarning, Check::kLoad, SimUse::kEvidence,
         "Fewer than 80% of the simulated jobs started, so the simulated evidence would rest on nothing", check})
