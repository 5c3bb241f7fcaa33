#pragma once
// sbatch --constraint expressions as slurmctld 22.05 reads and applies them. The parser
// follows job_scheduler.c build_feature_list() and _valid_feature_list(): a flat list of
// features, each with the operator that follows it, a count and the parenthesis depth.
// Operators are applied left to right without precedence (a|b&c is (a|b)&c), one level of
// parentheses, one bracket set; inside brackets '|' is the matching OR (every node has the
// same alternative) and '&' joins counted terms ([a*2&b*3]). The evaluation follows
// node_scheduler.c valid_feature_counts() (the per-node AND/OR filter), _valid_features()
// (a node must offer one bracket alternative) and _get_req_features() (counts).
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/result.h"

namespace sa {

/// A node's features (ActiveFeatures for placement). Names compare exactly, as Slurm's
/// xstrcmp does; the list is short, so a vector searched linearly.
using FeatureSet = std::vector<std::string>;

/// The operator after a term (Slurm's FEATURE_OP_*): kMatchingOr is '|' inside brackets
/// (XOR), kCountedAnd is '&' inside brackets (XAND).
enum class FeatureOp { kAnd, kOr, kMatchingOr, kCountedAnd, kEnd };

struct FeatureTerm {
  std::string name;
  std::uint32_t count = 0;  // '*N'; 0 = no count
  FeatureOp op = FeatureOp::kEnd;
  int paren = 0;            // Slurm's depth when the operator after the term was read
  bool in_paren = false;    // the name was written inside parentheses
  bool in_bracket = false;  // the name was written inside brackets
  std::size_t offset = 0;   // of the name in the text, 0-based
};

struct Constraint {
  std::string text;  // as written
  std::vector<FeatureTerm> terms;
  bool empty() const { return terms.empty(); }
  bool has_counts() const;
  bool has_matching_or() const;  // any kMatchingOr or kCountedAnd term
};

/// Parses --constraint text. Empty text is an empty constraint (no restriction). On failure
/// the error reads "character N: why" (N 1-based) and, when given, *error_offset is N-1.
/// Iterative and linear in the text: no recursion, whatever the nesting.
Result<Constraint> parse_constraint(std::string_view text, std::size_t* error_offset = nullptr);

/// True when one node's features pass the per-node filters (counts are checked on a set).
bool node_satisfies(const Constraint& constraint, const FeatureSet& node_features);

/// A node offered for a job: its index (into Config::nodes) and its features.
struct CandidateNode {
  std::uint32_t index = 0;
  const FeatureSet* features = nullptr;
};

/// True when the selection as a whole satisfies the constraint: every node passes
/// node_satisfies, every counted term has its count of nodes (counted bracket terms on
/// distinct nodes), and with a matching OR all nodes share one alternative.
bool nodes_satisfy(const Constraint& constraint, std::span<const CandidateNode> selection);

/// True when some selection drawn from `nodes` could satisfy the constraint: some node passes
/// the per-node filter, counts can be met, and one matching-OR alternative is offered.
bool could_ever_satisfy(const Constraint& constraint, std::span<const CandidateNode> nodes);

/// What slurmctld answers at submit (job_mgr.c via build_feature_list, slurm_errno.c texts).
enum class ConstraintVerdict { kOk, kInvalidFeature, kNodeConfigUnavailable };

/// kInvalidFeature when a named feature is on no node of the cluster (_valid_node_feature
/// searches every node, not only the partition's); kNodeConfigUnavailable when no selection
/// from the partition's nodes could satisfy it; else kOk.
ConstraintVerdict submit_verdict(const Constraint& constraint, std::span<const FeatureSet> cluster_nodes,
                                 std::span<const CandidateNode> partition_nodes);
/// "Invalid feature specification", "Requested node configuration is not available" or "".
std::string_view verdict_message(ConstraintVerdict verdict);

}  // namespace sa
