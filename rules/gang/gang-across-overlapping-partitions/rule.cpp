// GANG002: gang scheduling with partitions that share nodes. gang.c keeps one job list and
// one active map per partition; the only link between partitions is the "shadow" a running
// job casts on partitions of strictly lower PriorityTier. What that means for two
// overlapping partitions:
// - same PriorityTier: neither sees the other's jobs. Once a partition's idle CPUs run out,
//   cons_tres (job_test.c, step 4) fits a job into its own partition's rows on CPUs that
//   jobs of the other partition hold, and both run at once: the CPUs are overcommitted and
//   nothing timeslices them.
// - different tiers without preempt/partition_prio: the select step does not keep a job off
//   the other tier's CPUs, and the higher tier's shadow suspends the lower-tier job for as
//   long as the higher-tier job runs (a lower-tier job placed on such CPUs is suspended at
//   once): suspension the site never configured, with no timeslicing between the two.
// With preempt/partition_prio different tiers are deliberate preemption and not reported.
// Whether a job may land on the other partition's CPUs at all follows _verify_node_state:
// exclusive partitions never share, and a partition that shares CPUs (FORCE:n/YES:n, n >= 2)
// and a one-row partition keep off each other's nodes. The gang guide itself advises
// against overlapping partitions with gang scheduling.
#include <algorithm>
#include <iterator>
#include <map>
#include <set>

#include <fmt/format.h>

#include "rules/analysis/backfill_stats.h"
#include "rules/analysis/evidence.h"
#include "rules/framework/context.h"
#include "rules/framework/rule.h"
#include "rules/framework/sink.h"

namespace sa::rules {

namespace {

enum class Req { kReserved, kOneRow, kAvailable };  // _get_job_node_req for a job without --oversubscribe

Req req_of(const Partition& p) {
  if (p.oversubscribe.mode == OverSubscribe::Mode::kExclusive) return Req::kReserved;
  if (p.oversubscribe.mode == OverSubscribe::Mode::kForce) return Req::kAvailable;
  return Req::kOneRow;
}

// May a job of `a` be given CPUs that jobs of `b` hold?
bool can_join(const Config& c, const Partition& a, const Partition& b) {
  const Req ra = req_of(a), rb = req_of(b);
  if (ra == Req::kReserved || rb == Req::kReserved) return false;
  // select/linear counts whole nodes: only a sharing partition's job joins a busy node.
  if (c.select.type == "select/linear") return ra == Req::kAvailable && share_rows(a) >= 2;
  if (rb == Req::kOneRow) return ra == Req::kOneRow;
  return ra == Req::kAvailable || share_rows(b) < 2;
}

struct Pair {
  std::uint32_t a, b;  // config order, a < b
  std::size_t shared_nodes = 0;
  bool same_tier = true;
  std::set<std::pair<std::uint32_t, std::uint32_t>> co_allocated;  // job ids (a's, b's)
};

std::size_t shared_nodes(const Partition& a, const Partition& b) {
  const std::vector<std::uint32_t> x = sorted_nodes(a), y = sorted_nodes(b);
  std::vector<std::uint32_t> both;
  std::set_intersection(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(both));
  return both.size();
}

std::vector<Pair> risky_pairs(const Config& c) {
  std::vector<Pair> out;
  const bool by_tier = c.preempt.type == "preempt/partition_prio";
  for (std::uint32_t i = 0; i < c.partitions.size(); ++i) {
    const Partition& a = c.partitions[i];
    if (a.state != PartitionState::kUp) continue;
    for (std::uint32_t j = i + 1; j < c.partitions.size(); ++j) {
      const Partition& b = c.partitions[j];
      if (b.state != PartitionState::kUp || !partitions_overlap(a, b)) continue;
      const bool same = a.priority_tier == b.priority_tier;
      if (!same && by_tier) continue;
      if (!can_join(c, a, b) && !can_join(c, b, a)) continue;
      Pair p{i, j, shared_nodes(a, b), same, {}};
      out.push_back(std::move(p));
    }
  }
  return out;
}

struct Held {
  std::int64_t from, to;
  const engine::SimJob* job;
  std::uint32_t part;
  const std::uint64_t* units;  // null: the whole node
  std::size_t words;
};

bool units_overlap(const Held& x, const Held& y) {
  if (!x.units || !y.units) return true;
  for (std::size_t w = 0; w < std::min(x.words, y.words); ++w) {
    if (x.units[w] & y.units[w]) return true;
  }
  return false;
}

// Per node, the CPU holdings of the paired partitions' jobs over time.
std::map<std::uint32_t, std::vector<Held>> holdings(const Simulation& sim, const std::set<std::uint32_t>& parts) {
  std::map<std::uint32_t, std::vector<Held>> by_node;
  for (const engine::SimJob& j : sim.result.jobs) {
    if (j.start == engine::kNoTime || j.run_rec < 0) continue;
    const std::uint32_t part = j.recs[static_cast<std::size_t>(j.run_rec)].part;
    if (!parts.count(part)) continue;
    const std::int64_t to = j.end != engine::kNoTime ? j.end : sim.result.end;
    const engine::Allocation& a = j.alloc;
    const std::vector<engine::AllocPiece> pieces = a.expanded();  // (a finished job keeps runs)
    for (std::size_t k = 0; k < pieces.size(); ++k) {
      const std::size_t first = pieces[k].unit_word;
      const std::size_t last = k + 1 < pieces.size() ? pieces[k + 1].unit_word : a.units.size();
      const bool has_units = first < last && last <= a.units.size();
      by_node[pieces[k].node].push_back(
          {j.start, to, &j, part, has_units ? a.units.data() + first : nullptr, has_units ? last - first : 0});
    }
  }
  return by_node;
}

// Pairs of jobs of a reported partition pair that held the same CPUs at the same time.
void find_co_allocations(const Simulation& sim, std::vector<Pair>& pairs) {
  std::set<std::uint32_t> parts;
  std::map<std::pair<std::uint32_t, std::uint32_t>, Pair*> index;
  for (Pair& p : pairs) {
    parts.insert(p.a);
    parts.insert(p.b);
    index[{p.a, p.b}] = &p;
  }
  for (auto& [node, held] : holdings(sim, parts)) {
    std::stable_sort(held.begin(), held.end(), [](const Held& x, const Held& y) { return x.from < y.from; });
    std::vector<const Held*> active;
    for (const Held& h : held) {
      std::erase_if(active, [&](const Held* x) { return x->to <= h.from; });
      for (const Held* x : active) {
        if (x->part == h.part || !units_overlap(*x, h)) continue;
        const bool x_first = x->part < h.part;
        auto it = index.find(x_first ? std::make_pair(x->part, h.part) : std::make_pair(h.part, x->part));
        if (it == index.end()) continue;
        it->second->co_allocated.insert(x_first ? std::make_pair(x->job->req.id, h.job->req.id)
                                                : std::make_pair(h.job->req.id, x->job->req.id));
      }
      active.push_back(&h);
    }
  }
}

const engine::SimJob* job_by_id(const Simulation& sim, std::uint32_t id) {
  for (const engine::SimJob& j : sim.result.jobs) {
    if (j.req.id == id) return &j;
  }
  return nullptr;
}

// Jobs of the lower-tier partition that were suspended, and for how long in all.
nlohmann::json lower_tier_suspensions(const Simulation& sim, const Pair& p) {
  const Config& c = *sim.site.config;
  const std::uint32_t lo = c.partitions[p.a].priority_tier < c.partitions[p.b].priority_tier ? p.a : p.b;
  std::size_t jobs = 0;
  std::int64_t seconds = 0;
  for (const engine::SimJob& j : sim.result.jobs) {
    const engine::JobRare& rare = j.rare.get();
    if (j.run_rec < 0 || j.recs[static_cast<std::size_t>(j.run_rec)].part != lo || rare.suspends == 0) continue;
    ++jobs;
    seconds += rare.tot_sus_time;
  }
  return {{"partition", c.partitions[lo].name}, {"jobs_suspended_any_cause", jobs}, {"suspended_seconds", seconds}};
}

void add_evidence(const Simulation& sim, const Pair& p, Finding& f) {
  f.evidence = simulated_evidence(sim);
  f.evidence["metrics"] = {
      {"co_allocated_job_pairs", p.co_allocated.size()}, {"shared_nodes", p.shared_nodes}, {"gang", gang_json(sim)}};
  if (!p.same_tier) f.evidence["metrics"]["lower_tier"] = lower_tier_suspensions(sim, p);
  std::size_t shown = 0;
  for (const auto& [x, y] : p.co_allocated) {
    if (shown++ >= 2) break;
    for (std::uint32_t id : {x, y}) {
      if (const engine::SimJob* j = job_by_id(sim, id)) f.evidence["examples"].push_back(job_json(sim, *j));
    }
  }
}

std::string message(const Config& c, const Pair& p) {
  const Partition& a = c.partitions[p.a];
  const Partition& b = c.partitions[p.b];
  if (p.same_tier) {
    return fmt::format(
        "partitions '{}' and '{}' share {} nodes at the same PriorityTier={} while gang scheduling is "
        "on: gang timeslices each partition on its own, so once idle CPUs run out a job of one can be "
        "given CPUs a job of the other holds and both run at once, never timesliced against each other",
        a.name, b.name, p.shared_nodes, a.priority_tier);
  }
  const Partition& hi = a.priority_tier > b.priority_tier ? a : b;
  const Partition& lo = a.priority_tier > b.priority_tier ? b : a;
  return fmt::format(
      "partitions '{}' (PriorityTier={}) and '{}' (PriorityTier={}) share {} nodes while gang "
      "scheduling is on without preempt/partition_prio: a running '{}' job's gang shadow suspends any "
      "'{}' job on its CPUs until it ends, suspension that is neither configured as preemption nor "
      "timesliced",
      hi.name, hi.priority_tier, lo.name, lo.priority_tier, p.shared_nodes, hi.name, lo.name);
}

void check(const LintContext& ctx, FindingSink& sink) {
  const Config& c = ctx.config();
  if (!c.preempt.mode.gang) return;
  std::vector<Pair> pairs = risky_pairs(c);
  if (pairs.empty()) return;
  const Simulation* sim = ctx.simulation();
  if (sim) find_co_allocations(*sim, pairs);
  for (const Pair& p : pairs) {
    Finding& f = sink.report(ctx.conf_loc(c.partitions[p.b].loc), message(c, p));
    Location other = ctx.conf_loc(c.partitions[p.a].loc);
    other.note = fmt::format("partition '{}'", c.partitions[p.a].name);
    f.related.push_back(other);
    f.fix = Fix{p.same_tier ? "give the partitions disjoint nodes, or make one OverSubscribe=EXCLUSIVE; if one should "
                              "win, give it a higher PriorityTier with PreemptType=preempt/partition_prio and "
                              "PreemptMode=SUSPEND,GANG"
                            : "set PreemptType=preempt/partition_prio (with PreemptMode=SUSPEND,GANG) if the higher "
                              "tier is meant to suspend the lower, or give the partitions disjoint nodes",
                "",
                "",
                {}};
    if (sim) add_evidence(*sim, p, f);
  }
}

}  // namespace

}  // namespace sa::rules

SA_RULE({"GANG002", "gang-across-overlapping-partitions", Severity::kWarning, Check::kGangOversubscription,
         SimUse::kEvidence,
         "gang scheduling with overlapping partitions: jobs of the two are never timesliced against each other", check})
