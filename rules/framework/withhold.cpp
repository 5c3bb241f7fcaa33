#include "rules/framework/withhold.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "rules/framework/rule.h"
#include "rules/framework/sink.h"

namespace sa::rules {

namespace {

// Partition names under "partition"/"partitions" keys, a few levels deep (evidence tables
// nest job lists inside metrics).
void evidence_partitions(const nlohmann::json& j, int depth, std::set<std::string>& out) {
  if (depth > 4) return;
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (it.key() == "partition" && it.value().is_string())
        out.insert(it.value().get<std::string>());
      else if (it.key() == "partitions" && it.value().is_array()) {
        for (const auto& p : it.value()) {
          if (p.is_string()) out.insert(p.get<std::string>());
        }
      } else {
        evidence_partitions(it.value(), depth + 1, out);
      }
    }
  } else if (j.is_array()) {
    for (const auto& item : j) evidence_partitions(item, depth + 1, out);
  }
}

bool rests_on_simulation(const Finding& f) {
  return f.evidence.contains("scenario") || (f.fix && !f.fix->resimulated.is_null() && !f.fix->resimulated.empty());
}

bool same_place(const Location& a, const Location& b) {
  return a.file == b.file && a.line == b.line && a.column == b.column;
}

// Fewer jobs than this short of 80% started says nothing of a partition (unless refused).
constexpr std::size_t kMinShortfall = 5;

// Another partition that takes jobs shares a node with `p` and has a higher PriorityTier.
bool below_higher_tier(const Config& c, const Partition& p) {
  for (const Partition& q : c.partitions) {
    if (&q == &p || q.priority_tier <= p.priority_tier || q.state != PartitionState::kUp) continue;
    for (std::uint32_t n : q.nodes) {
      if (std::find(p.nodes.begin(), p.nodes.end(), n) != p.nodes.end()) return true;
    }
  }
  return false;
}

// The thin partitions whose evidence is withheld, by name: those refused or starved.
std::map<std::string, const ThinPartition*> withheld_partitions(const Thinness& t) {
  std::map<std::string, const ThinPartition*> thin;
  for (const ThinPartition& p : t.partitions) {
    if (p.withheld()) thin[p.coverage->name] = &p;
  }
  return thin;
}

// Whether every partition given jobs is withheld (then so is a finding about no partition).
bool all_partitions_withheld(const engine::LoadCoverage& coverage,
                             const std::map<std::string, const ThinPartition*>& thin) {
  bool any = false;
  for (const engine::PartitionCoverage& p : coverage.partitions) {
    if (!p.offered) continue;
    if (!thin.count(p.name)) return false;
    any = true;
  }
  return any;
}

std::string partition_why(const ThinPartition& tp) {
  return fmt::format(
      "partition {}: {} of {} simulated jobs started{}", tp.coverage->name, tp.coverage->started, tp.coverage->offered,
      tp.starved() ? fmt::format(", {} of its {} nodes without RealMemory (CONF045)", tp.starved_nodes, tp.nodes) : "");
}

}  // namespace

bool withholds_everything(const engine::LoadCoverage& coverage, const Config& config) {
  const Thinness t = thinness(coverage, config);
  return (t.overall && t.overall_refused) || all_partitions_withheld(coverage, withheld_partitions(t));
}

Thinness thinness(const engine::LoadCoverage& coverage, const Config& config) {
  Thinness t;
  std::size_t excused = 0;  // pending jobs a higher tier holds back
  for (const engine::PartitionCoverage& p : coverage.partitions) {
    const Partition* part = config.find_partition(p.name);
    const bool lower_tier = part && below_higher_tier(config, *part);
    if (lower_tier) excused += p.pending_at_end;
    if (!p.offered || p.coverage() >= engine::kMinCoverage) continue;
    const bool refused = p.refused >= p.pending_at_end;
    // A handful of jobs still queued is no load that failed to run: a partition the load gives
    // three jobs is under 80% when the last one submitted is pending at the end.
    if (!refused && p.offered - p.cancelled - p.started < kMinShortfall) continue;
    if (!refused && lower_tier &&
        static_cast<double>(p.started + p.pending_at_end) >= engine::kMinCoverage * static_cast<double>(p.offered)) {
      continue;
    }
    ThinPartition thin{&p, refused};
    if (part && config.select.memory) {
      thin.nodes = part->nodes.size();
      for (std::uint32_t n : part->nodes) thin.starved_nodes += config.nodes[n].real_memory_mb <= 1;
    }
    t.partitions.push_back(thin);
  }
  const auto& total = coverage.total;
  t.overall = total.offered == 0 ||
              static_cast<double>(total.started + excused) < engine::kMinCoverage * static_cast<double>(total.offered);
  t.overall_refused =
      total.offered == 0 || static_cast<double>(total.refused) > 0.2 * static_cast<double>(total.offered);
  return t;
}

std::vector<std::string> finding_partitions(const Finding& f, const LintContext& context) {
  std::set<std::string> names;
  for (const Partition& p : context.config().partitions) {
    const Location at = context.conf_loc(p.loc);
    if (at.line == 0) continue;
    auto here = [&](const Location& l) { return l.file == at.file && l.line == at.line; };
    if (here(f.loc) || std::any_of(f.related.begin(), f.related.end(), here)) names.insert(p.name);
  }
  evidence_partitions(f.evidence, 0, names);
  return {names.begin(), names.end()};
}

void withhold_thin_evidence(const engine::LoadCoverage& coverage, const LintContext& context,
                            const LintContext& static_context, std::deque<Finding>& findings,
                            std::vector<std::string>& skipped, const std::string& stopped) {
  // Only a run whose jobs were refused rests on nothing; jobs admitted and left pending are
  // the policy's outcome, and the findings about it stand (LOAD001 still says so), unless
  // nodes without RealMemory held them (CONF045): then the run shows that defect instead.
  const Thinness t = thinness(coverage, context.config());
  const std::map<std::string, const ThinPartition*> thin = withheld_partitions(t);
  const bool thin_overall = t.overall && t.overall_refused;
  // Every partition given jobs withheld: a finding about none of them rests on them all, and
  // is withheld with the first one's reason (coverage order).
  const ThinPartition* everywhere = nullptr;
  if (all_partitions_withheld(coverage, thin)) {
    everywhere =
        &*std::find_if(t.partitions.begin(), t.partitions.end(), [](const ThinPartition& p) { return p.withheld(); });
  }
  const bool any_cut = std::any_of(findings.begin(), findings.end(), [](const Finding& f) { return f.read_cut_run; });
  if (thin.empty() && !thin_overall && stopped.empty() && !any_cut) return;
  std::deque<Finding> kept;
  std::map<std::string, std::pair<std::size_t, std::string>> withheld;  // code -> (count, why)
  std::map<std::string, std::vector<Location>> restate;                 // kEvidence code -> places
  for (Finding& f : findings) {
    const Rule* rule = find_rule(f.code);
    // LOAD001 judges the run itself: it stands unless the run was cut short.
    const bool on_the_run = f.check == Check::kLoad ? !stopped.empty() : rests_on_simulation(f) || f.read_cut_run;
    if (!rule || !on_the_run) {
      kept.push_back(std::move(f));
      continue;
    }
    std::string why;
    if (!stopped.empty()) {
      why = stopped;
    } else if (thin_overall) {
      why = fmt::format("only {} of {} simulated jobs started", coverage.total.started, coverage.total.offered);
    } else {
      for (const std::string& p : finding_partitions(f, context)) {
        if (auto it = thin.find(p); it != thin.end()) {
          why = partition_why(*it->second);
          break;
        }
      }
      if (why.empty() && everywhere) why = partition_why(*everywhere);
    }
    if (why.empty() && f.read_cut_run) why = "a re-simulation it reads was cut short";
    if (why.empty()) {
      kept.push_back(std::move(f));
      continue;
    }
    auto& w = withheld[f.code];
    ++w.first;
    if (w.second.empty()) w.second = why;
    if (rule->simulation == SimUse::kEvidence) restate[f.code].push_back(f.loc);
  }
  // The static form of each withheld finding whose rule stands without a simulation.
  for (const auto& [code, places] : restate) {
    FindingSink sink;
    const Rule* rule = find_rule(code);
    sink.begin_rule(rule);
    try {
      rule->run(static_context, sink);
    } catch (const std::exception&) {
      continue;  // the finding stays withheld; the rule's own run already reported any error
    }
    for (Finding& f : sink.findings()) {
      if (std::any_of(places.begin(), places.end(), [&](const Location& l) { return same_place(l, f.loc); })) {
        kept.push_back(std::move(f));
      }
    }
  }
  for (const auto& [code, w] : withheld) {
    skipped.push_back(fmt::format("{} ({}simulated evidence withheld: {}; see {})", code,
                                  w.first > 1 ? fmt::format("{} findings' ", w.first) : "", w.second,
                                  stopped.empty() ? "LOAD001" : "WORK008"));
  }
  findings = std::move(kept);
}

}  // namespace sa::rules
