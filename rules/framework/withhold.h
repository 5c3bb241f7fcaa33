#pragma once
// No evidence without a run: when the simulated load did not run in a partition (fewer than
// 80% of its offered jobs started, most of the shortfall refused, or held on nodes left at
// RealMemory=1) or on the site as a whole, the findings whose evidence comes from that run are
// withheld and listed as skipped with the reason (when every partition given jobs is withheld,
// so is a finding about none of them, and lint cuts its re-simulations short). A finding of a rule
// that also stands without a simulation (SimUse::kEvidence) is replaced by its static form,
// as --no-simulate would print it; LOAD001 says why.
#include <deque>
#include <string>
#include <vector>

#include "analyzer/model.h"
#include "engine/coverage.h"
#include "rules/framework/context.h"
#include "rules/framework/finding.h"

namespace sa::rules {

/// A partition where fewer than 80% of the offered jobs started, and why.
struct ThinPartition {
  const engine::PartitionCoverage* coverage = nullptr;
  bool refused = false;  // most of the shortfall was refused at submission: the run says nothing there
  // Jobs were held, and at least half its nodes have no RealMemory while memory is counted
  // (CONF045): each offers 1 MB, so the run shows that defect rather than the policy.
  std::size_t starved_nodes = 0, nodes = 0;
  bool starved() const { return !refused && starved_nodes > 0 && 2 * starved_nodes >= nodes; }
  /// The run says nothing here: the findings resting on it are withheld.
  bool withheld() const { return refused || starved(); }
};

/// How thin the run was. Jobs left pending in a partition below a higher PriorityTier on
/// the same nodes are that tier order's doing (TIER003 judges it), not a load that failed to
/// run, so such partitions are not thin for pending jobs; refusals always count.
struct Thinness {
  std::vector<ThinPartition> partitions;  // coverage order
  bool overall = false;                   // the whole run: under 80% counting those pending jobs as run
  bool overall_refused = false;           // and more than a fifth of the offered jobs were refused
  bool any() const { return overall || !partitions.empty(); }
};
Thinness thinness(const engine::LoadCoverage& coverage, const Config& config);

/// Whether the run is too thin for any of its evidence, whatever partition a finding is about:
/// the whole run was refused, or every partition given jobs is thin with its evidence withheld
/// (refused, or held on nodes without RealMemory). Then no re-simulation is worth finishing.
bool withholds_everything(const engine::LoadCoverage& coverage, const Config& config);

/// The partitions a finding is about: those whose PartitionName line it (or a related
/// location) points at, and those its evidence names under "partition"/"partitions".
std::vector<std::string> finding_partitions(const Finding& f, const LintContext& context);

/// Applies the rule above to `findings`; `static_context` is the site without a load. A
/// non-empty `stopped` (why a run stopped at the sim-steps limit, WORK008) withholds every
/// finding that rests on the simulation, LOAD001 included. A finding whose rule read a
/// re-simulation cut short (Finding::read_cut_run) rests on the simulation.
void withhold_thin_evidence(const engine::LoadCoverage& coverage, const LintContext& context,
                            const LintContext& static_context, std::deque<Finding>& findings,
                            std::vector<std::string>& skipped, const std::string& stopped = {});

}  // namespace sa::rules
