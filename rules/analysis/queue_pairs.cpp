#include "rules/analysis/queue_pairs.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include <fmt/format.h>

#include "analyzer/text_util.h"
#include "rules/analysis/evidence.h"

namespace sa::rules {

namespace {

// Cross-partition pairs grow with the product of two queues; past this many comparisons
// the later snapshots are skipped (the evidence says so) to keep a large site's lint fast.
constexpr std::size_t kPairBudget = 4'000'000;
constexpr std::size_t kExamples = 5;

bool names_accounts(const Partition& p) { return !p.allow_accounts.empty() && !is_all(p.allow_accounts); }

// Job id -> job, for the rows of the snapshots (lookups only, never iterated).
std::unordered_map<std::uint32_t, const engine::SimJob*> jobs_by_id(const Simulation& sim) {
  std::unordered_map<std::uint32_t, const engine::SimJob*> out;
  out.reserve(sim.result.jobs.size());
  for (const engine::SimJob& j : sim.result.jobs) out.emplace(j.req.id, &j);
  return out;
}

// The scheduler's order between two records (section 4 of algorithms.md), without the
// preemptor and reservation keys, which the snapshots do not carry.
bool ahead(const Config& c, const QueueRow& a, const QueueRow& b) {
  const std::uint16_t ta = c.partitions[a.part].priority_tier, tb = c.partitions[b.part].priority_tier;
  if (ta != tb) return ta > tb;
  if (a.row->priority != b.row->priority) return a.row->priority > b.row->priority;
  if (a.job->req.submit != b.job->req.submit) return a.job->req.submit < b.job->req.submit;
  return a.row->job_id < b.row->job_id;
}

// Partition name -> index, for the snapshots' rows (Config::find_partition walks them all).
using PartIndex = std::map<std::string, std::uint32_t, std::less<>>;

PartIndex part_index(const Config& c) {
  PartIndex out;
  for (std::uint32_t i = 0; i < c.partitions.size(); ++i) out.emplace(c.partitions[i].name, i);  // first wins
  return out;
}

// One snapshot's rows bucketed by partition, each bucket in queue order.
std::vector<std::vector<QueueRow>> queues_of(const Simulation& sim, const engine::PendingSnapshot& snap,
                                             const std::unordered_map<std::uint32_t, const engine::SimJob*>& jobs,
                                             const PartIndex& parts) {
  const Config& c = *sim.site.config;
  std::vector<std::vector<QueueRow>> out(c.partitions.size());
  for (const engine::SprioRow& r : snap.rows) {
    auto p = parts.find(r.partition);
    auto it = jobs.find(r.job_id);
    if (p == parts.end() || it == jobs.end()) continue;
    out[p->second].push_back({&r, it->second, p->second, snap.at});
  }
  for (auto& q : out)
    std::sort(q.begin(), q.end(), [&](const QueueRow& a, const QueueRow& b) { return ahead(c, a, b); });
  return out;
}

bool differs(double a, double b) { return std::fabs(a - b) > 1e-12; }

// Example pairs should show different jobs: neighbours a-b and b-c would repeat b.
bool fresh(const std::vector<std::pair<QueueRow, QueueRow>>& pairs, const QueueRow& a) {
  return std::none_of(pairs.begin(), pairs.end(), [&](const auto& p) {
    return p.first.row->job_id == a.row->job_id || p.second.row->job_id == a.row->job_id;
  });
}

}  // namespace

EffectiveWeights effective_weights(const Config& config) {
  EffectiveWeights w;
  const PrioritySettings& p = config.priority;
  if (!p.multifactor()) return w;
  // slurmctld zeroes these two without slurmdbd (CONF043 reports it).
  const bool dbd = config.accounting.uses_slurmdbd();
  w.age = dbd ? p.weight_age : 0;
  w.fairshare = dbd ? p.weight_fairshare : 0;
  w.assoc = p.weight_assoc;
  w.job_size = p.weight_job_size;
  w.partition = p.weight_partition;
  w.qos = p.weight_qos;
  for (const TresWeight& t : p.weight_tres) w.tres += t.weight;
  return w;
}

std::optional<FairTreeStep> fair_tree_step(const LintContext& ctx) {
  const Config& c = ctx.config();
  const PriorityFlags& f = c.priority.flags;
  const EffectiveWeights w = effective_weights(c);
  if (!f.fair_tree || f.depth_oblivious || w.fairshare <= 0 || !ctx.tree()) return std::nullopt;
  const std::size_t users = ctx.tree()->user_count();
  if (users == 0) return std::nullopt;
  return FairTreeStep{w.fairshare, users, w.fairshare / static_cast<double>(users)};
}

double max_job_factor(const Config& config) {
  double top = 1;  // DEF_PART_MAX_PRIORITY
  for (const Partition& q : config.partitions) top = std::max(top, static_cast<double>(q.priority_job_factor));
  return top;
}

double partition_factor(const Config& config, const Partition& p, double top) {
  return config.priority.flags.no_normal_part ? p.priority_job_factor : p.priority_job_factor / top;
}

std::uint64_t round_up_125(double v) {
  std::uint64_t base = 1;
  for (int i = 0; i < 19; ++i, base *= 10) {
    for (std::uint64_t m : {1u, 2u, 5u}) {
      if (static_cast<double>(base * m) >= v) return base * m;
    }
  }
  return base;
}

std::string points(double v) {
  // No thousands separators: messages put these next to config values and lists
  // ("PriorityWeightTRES=30,100" would read as two weights).
  if (std::fabs(v) < 100) return fmt::format("{:.3g}", v);
  return fmt::format("{}", std::llround(v));
}

bool is_all(const std::vector<std::string>& list) { return list.size() == 1 && (list[0] == "all" || list[0] == "ALL"); }

bool restricted(const Partition& p) {
  return names_accounts(p) || !p.allow_groups.empty() || (!p.allow_qos.empty() && !is_all(p.allow_qos)) ||
         !p.deny_accounts.empty();
}

bool schedules_jobs(const Partition& p) {
  return !p.nodes.empty() && p.state != PartitionState::kDown && p.state != PartitionState::kInactive;
}

bool partition_term_constant_in_tiers(const Config& c) {
  if (c.partitions.empty() || (c.preempt.enabled() && c.preempt.mode.priority)) return false;
  std::map<std::uint16_t, std::uint16_t> factor_of_tier;
  for (const Partition& p : c.partitions) {
    const auto [it, added] = factor_of_tier.emplace(p.priority_tier, p.priority_job_factor);
    if (!added && it->second != p.priority_job_factor) return false;
  }
  return true;
}

bool takes_user_jobs(const Partition& p) {
  return p.state == PartitionState::kUp && !p.root_only && !p.req_resv && !(p.hidden && restricted(p));
}

bool meant_to_lose(const Config& c, const Partition& a, const Partition& b, const QosTable* qos) {
  if (c.preempt.type == "preempt/partition_prio") {
    const PreemptMode mode = b.preempt_mode ? *b.preempt_mode : c.preempt.mode;
    if (mode.base != PreemptMode::Base::kOff || mode.gang) return true;
  }
  if (qos && c.preempt.type == "preempt/qos") {
    auto preemptable = [&](const std::string& name) {
      return std::any_of(qos->records.begin(), qos->records.end(), [&](const QosRecord& q) {
        return std::any_of(q.preempt.begin(), q.preempt.end(), [&](const std::string& p) { return iequals(p, name); });
      });
    };
    if (!b.qos.empty() && preemptable(b.qos)) return true;
    const bool listed = !b.allow_qos.empty() && std::none_of(b.allow_qos.begin(), b.allow_qos.end(),
                                                             [](const std::string& n) { return iequals(n, "ALL"); });
    if (listed && std::all_of(b.allow_qos.begin(), b.allow_qos.end(), preemptable)) return true;
  }
  const bool owner = !a.allow_accounts.empty() && std::none_of(a.allow_accounts.begin(), a.allow_accounts.end(),
                                                               [](const std::string& n) { return n == "ALL"; });
  // b admits an account a does not (b open, or another group's partition): a is its accounts'
  // claim on the nodes, and tier order is how the owners come first (CliMA's sunshine, tier 100,
  // over tensorlab's dgxlo, tier 1, on one DGX node, the two once at one tier).
  const auto in_a = [&](const std::string& acct) {
    return std::any_of(a.allow_accounts.begin(), a.allow_accounts.end(),
                       [&](const std::string& x) { return iequals(x, acct); });
  };
  return owner && (b.allow_accounts.empty() || !std::all_of(b.allow_accounts.begin(), b.allow_accounts.end(), in_a));
}

PartitionNodes::PartitionNodes(const Config& config) {
  sorted_.reserve(config.partitions.size());
  for (const Partition& p : config.partitions) {
    sorted_.push_back(p.nodes);
    std::sort(sorted_.back().begin(), sorted_.back().end());
  }
}

bool PartitionNodes::share(std::size_t a, std::size_t b) const {
  const std::vector<std::uint32_t>&x = sorted_[a], &y = sorted_[b];
  if (x.empty() || y.empty() || x.back() < y.front() || y.back() < x.front()) return false;
  // Each side starts where the other's range does.
  auto i = std::lower_bound(x.begin(), x.end(), y.front());
  auto j = std::lower_bound(y.begin(), y.end(), x.front());
  while (i != x.end() && j != y.end()) {
    if (*i == *j) return true;
    if (*i < *j)
      i = std::lower_bound(i + 1, x.end(), *j);
    else
      j = std::lower_bound(j + 1, y.end(), *i);
  }
  return false;
}

TieStats adjacent_ties(const Simulation& sim, std::size_t min_queue) {
  TieStats t;
  const auto jobs = jobs_by_id(sim);
  const PartIndex parts = part_index(*sim.site.config);
  std::vector<std::pair<QueueRow, QueueRow>> cross_user_examples;
  for (const engine::PendingSnapshot& snap : sim.result.snapshots) {
    for (const auto& q : queues_of(sim, snap, jobs, parts)) {
      if (q.size() < std::max<std::size_t>(2, min_queue)) continue;
      ++t.queues;
      for (std::size_t i = 1; i < q.size(); ++i) {
        const QueueRow &a = q[i - 1], &b = q[i];
        const bool tie = a.row->priority == b.row->priority;
        const bool other_user = a.row->user != b.row->user;
        const bool fs_differs = differs(a.row->factors.fairshare, b.row->factors.fairshare);
        ++t.adjacent;
        t.tied += tie;
        t.cross_user += other_user;
        t.cross_user_tied += tie && other_user;
        t.fairshare_differs_tied += tie && fs_differs;
        if (tie && fs_differs && t.examples.size() < 2 && fresh(t.examples, a)) t.examples.emplace_back(a, b);
        if (tie && other_user && cross_user_examples.size() < 2 && fresh(cross_user_examples, a)) {
          cross_user_examples.emplace_back(a, b);
        }
      }
    }
  }
  if (t.examples.empty()) t.examples = cross_user_examples;
  return t;
}

AgeOverrules age_overrules(const Simulation& sim, double engine::PriorityFactors::*factor, double weight) {
  AgeOverrules out;
  const double age_weight = effective_weights(*sim.site.config).age;
  const auto jobs = jobs_by_id(sim);
  const PartIndex parts = part_index(*sim.site.config);
  for (const engine::PendingSnapshot& snap : sim.result.snapshots) {
    for (const auto& q : queues_of(sim, snap, jobs, parts)) {
      for (std::size_t i = 1; i < q.size(); ++i) {
        const QueueRow &a = q[i - 1], &b = q[i];
        if (a.row->user == b.row->user) continue;
        ++out.cross_user;
        const double preferred = weight * (b.row->factors.*factor - a.row->factors.*factor);
        if (preferred < 1.0) continue;
        ++out.factor_prefers;
        if (age_weight * (a.row->factors.age - b.row->factors.age) < preferred) continue;
        ++out.age_decided;
        if (out.examples.size() < 2 && fresh(out.examples, a)) out.examples.emplace_back(a, b);
      }
    }
  }
  return out;
}

nlohmann::json tie_metrics(const TieStats& t) {
  auto share = [](double v) { return std::round(v * 1000.0) / 1000.0; };
  return {{"queues_examined", t.queues},
          {"adjacent_pairs", t.adjacent},
          {"tied_pairs", t.tied},
          {"tied_share", share(t.tied_share())},
          {"adjacent_pairs_of_different_users", t.cross_user},
          {"tied_pairs_of_different_users", t.cross_user_tied},
          {"tied_share_of_different_users", share(t.cross_user_tied_share())},
          {"tied_pairs_with_different_fairshare", t.fairshare_differs_tied}};
}

SnapshotQueues::SnapshotQueues(const Simulation& sim) : sim_(sim), by_part_(sim.site.config->partitions.size()) {
  const auto jobs = jobs_by_id(sim);
  const PartIndex parts = part_index(*sim.site.config);
  for (std::size_t s = 0; s < sim.result.snapshots.size(); ++s) {
    std::vector<std::vector<QueueRow>> queues = queues_of(sim, sim.result.snapshots[s], jobs, parts);
    for (std::size_t p = 0; p < queues.size(); ++p) {
      if (!queues[p].empty()) by_part_[p].emplace_back(s, std::move(queues[p]));
    }
  }
}

CrossPairStats cross_partition_pairs(const SnapshotQueues& queues, std::uint32_t first, std::uint32_t second) {
  CrossPairStats s;
  const Config& c = *queues.sim().site.config;
  const double wfs = effective_weights(c).fairshare;
  std::size_t spent = 0;
  // The snapshots where both partitions have pending rows, in time order.
  const auto &fa = queues.of(first), &fb = queues.of(second);
  for (auto ia = fa.begin(), ib = fb.begin(); ia != fa.end() && ib != fb.end();) {
    if (ia->first < ib->first) {
      ++ia;
      continue;
    }
    if (ib->first < ia->first) {
      ++ib;
      continue;
    }
    const auto& qa = ia->second;
    const auto& qb = ib->second;
    ++ia, ++ib;
    if (spent + qa.size() * qb.size() > kPairBudget && spent > 0) {
      s.sampled = true;
      break;
    }
    spent += qa.size() * qb.size();
    for (const QueueRow& a : qa) {
      for (const QueueRow& b : qb) {
        // The same job queued in both partitions competes with itself: not a pair.
        if (a.row->job_id == b.row->job_id) continue;
        ++s.pairs;
        if (wfs * (b.row->factors.fairshare - a.row->factors.fairshare) < 1.0) continue;
        ++s.fairshare_prefers_second;
        if (ahead(c, b, a))
          ++s.reversed;
        else if (s.examples.size() < 2)
          s.examples.emplace_back(a, b);
      }
    }
  }
  return s;
}

PartitionWaits partition_waits(const Simulation& sim, std::uint32_t part) {
  PartitionWaits out;
  std::vector<double> w;
  const Config& c = *sim.site.config;
  for (const engine::SimJob& j : sim.result.jobs) {
    if (j.recs.empty() || j.state == engine::JobState::kRejected || j.state == engine::JobState::kFuture ||
        j.cancelled_pending())
      continue;
    if (partition_of(sim, j) != c.partitions[part].name) continue;
    w.push_back(static_cast<double>(wait_of(sim, j)));
    out.pending_at_end += j.start == engine::kNoTime;
    out.longest.push_back(&j);
  }
  out.waits = wait_stats(std::move(w));
  std::stable_sort(out.longest.begin(), out.longest.end(), [&](const engine::SimJob* a, const engine::SimJob* b) {
    return wait_of(sim, *a) > wait_of(sim, *b);
  });
  if (out.longest.size() > kExamples) out.longest.resize(kExamples);
  return out;
}

nlohmann::json row_json(const Simulation& sim, const QueueRow& r) {
  nlohmann::json j = job_json(sim, *r.job);
  j["snapshot"] = {{"at", r.at},
                   {"partition", r.row->partition},
                   {"priority", r.row->priority},
                   {"factors", weighted_factors(*sim.site.config, r.row->factors)}};
  return j;
}

}  // namespace sa::rules
