// Applying a parsed constraint to nodes, the way slurmctld 22.05 does in node_scheduler.c:
// valid_feature_counts() filters nodes by the AND/OR terms (skipped entirely when any term has
// a count, and blind to bracket terms), _valid_features() keeps a node only if it offers one
// bracket alternative, and _get_req_features() picks each counted term's nodes (the counted
// terms of a bracket on distinct nodes). Slurm does this on bitmaps of all nodes; here the
// same steps run on one node's feature list or on a selection.
#include <algorithm>
#include <cstdint>
#include <map>

#include "analyzer/constraint.h"

namespace sa {

namespace {

bool has(const FeatureSet& features, const std::string& name) {
  return std::find(features.begin(), features.end(), name) != features.end();
}

bool is_bracket_op(FeatureOp op) { return op == FeatureOp::kMatchingOr || op == FeatureOp::kCountedAnd; }

// valid_feature_counts() on one node: left to right, one parenthesis level, bracket terms
// ignored; with any count nothing is filtered here.
bool and_or_filter(const Constraint& c, const FeatureSet& f) {
  if (c.has_counts()) return true;
  bool result = true, paren_value = true;
  bool* work = &result;
  FeatureOp last_op = FeatureOp::kAnd, last_paren_op = FeatureOp::kAnd;
  int last_paren = 0;
  for (const FeatureTerm& t : c.terms) {
    if (last_paren < t.paren) {  // a parenthesis opens
      last_paren_op = last_op;
      last_op = FeatureOp::kAnd;
      paren_value = true;
      work = &paren_value;
    }
    const bool h = has(f, t.name);
    if (!is_bracket_op(t.op)) {
      if (last_op == FeatureOp::kAnd) *work = *work && h;
      if (last_op == FeatureOp::kOr) *work = *work || h;
    }
    if (last_paren > t.paren) {  // it closes: AND joins, OR and the bracket ops widen
      result = last_paren_op == FeatureOp::kAnd ? result && paren_value : result || paren_value;
      work = &result;
    }
    last_op = t.op;
    last_paren = t.paren;
  }
  return *work;
}

// The terms [first, last] of one operand: a single term, or a parenthesised group that ends
// at the term written before ')'.
struct Unit {
  std::size_t first = 0, last = 0;
};

std::vector<Unit> units_of(const Constraint& c) {
  std::vector<Unit> units;
  for (std::size_t i = 0; i < c.terms.size(); ++i) {
    Unit u{i, i};
    if (c.terms[i].in_paren) {
      while (u.last + 1 < c.terms.size() && c.terms[u.last].paren > 0) ++u.last;
    }
    units.push_back(u);
    i = u.last;
  }
  return units;
}

bool unit_holds(const Constraint& c, const Unit& u, const FeatureSet& f) {
  bool value = has(f, c.terms[u.first].name);
  for (std::size_t k = u.first + 1; k <= u.last; ++k) {
    const bool h = has(f, c.terms[k].name);
    value = c.terms[k - 1].op == FeatureOp::kOr ? value || h : value && h;
  }
  return value;
}

// The bracket's alternatives for a matching OR: its units split at the '|' inside brackets.
std::vector<std::vector<Unit>> alternatives_of(const Constraint& c) {
  std::vector<std::vector<Unit>> alternatives(1);
  for (const Unit& u : units_of(c)) {
    if (!c.terms[u.first].in_bracket) continue;
    alternatives.back().push_back(u);
    if (c.terms[u.last].op == FeatureOp::kMatchingOr) alternatives.emplace_back();
  }
  if (alternatives.back().empty()) alternatives.pop_back();
  return alternatives;
}

bool alternative_holds(const Constraint& c, const std::vector<Unit>& alternative, const FeatureSet& f) {
  bool value = true;
  FeatureOp op = FeatureOp::kAnd;
  for (const Unit& u : alternative) {
    const bool h = unit_holds(c, u, f);
    value = op == FeatureOp::kOr ? value || h : value && h;
    op = c.terms[u.last].op;
  }
  return value;
}

bool is_matching_or(const Constraint& c) {
  for (const FeatureTerm& t : c.terms) {
    if (t.op == FeatureOp::kMatchingOr) return true;
  }
  return false;
}

// _valid_features(): with bracket terms a node must offer one of them.
bool offers_bracket_term(const Constraint& c, const FeatureSet& f) {
  for (const Unit& u : units_of(c)) {
    if (c.terms[u.first].in_bracket && unit_holds(c, u, f)) return true;
  }
  return false;
}

std::vector<const FeatureSet*> features_of(std::span<const CandidateNode> nodes) {
  std::vector<const FeatureSet*> out;
  static const FeatureSet kNone;
  for (const CandidateNode& n : nodes) out.push_back(n.features ? n.features : &kNone);
  return out;
}

// Hall's condition for the counted bracket terms: every subset of terms has at least as many
// nodes offering one of them as it needs in all. Exact for up to kHallTerms terms; beyond
// that a greedy pick in written order, as _get_req_features() itself picks.
constexpr std::size_t kHallTerms = 12;

bool distinct_counts_fit(const std::vector<std::uint32_t>& counts, const std::vector<std::uint64_t>& masks) {
  if (counts.empty()) return true;
  if (counts.size() > kHallTerms) {
    std::vector<bool> used(masks.size(), false);
    for (std::size_t k = 0; k < counts.size(); ++k) {
      std::uint32_t need = counts[k];
      for (std::size_t n = 0; n < masks.size() && need > 0; ++n) {
        if (!used[n] && k < 64 && (masks[n] >> k & 1U)) used[n] = true, --need;
      }
      if (need > 0) return false;
    }
    return true;
  }
  std::map<std::uint64_t, std::uint64_t> classes;  // term mask -> nodes offering exactly those
  for (std::uint64_t m : masks) ++classes[m];
  for (std::uint64_t subset = 1; subset < (1ULL << counts.size()); ++subset) {
    std::uint64_t need = 0, offered = 0;
    for (std::size_t k = 0; k < counts.size(); ++k) need += (subset >> k & 1U) ? counts[k] : 0;
    for (const auto& [mask, n] : classes) offered += (mask & subset) ? n : 0;
    if (offered < need) return false;
  }
  return true;
}

// Every counted term finds its count among `nodes`; bracket ones on distinct nodes.
bool counts_fit(const Constraint& c, const std::vector<const FeatureSet*>& nodes) {
  std::vector<Unit> bracket_units;
  std::vector<std::uint32_t> bracket_counts;
  for (const Unit& u : units_of(c)) {
    const FeatureTerm& t = c.terms[u.last];
    if (t.count == 0) continue;
    if (c.terms[u.first].in_bracket) {
      bracket_units.push_back(u);
      bracket_counts.push_back(t.count);
      continue;
    }
    std::uint64_t offered = 0;
    for (const FeatureSet* f : nodes) offered += unit_holds(c, u, *f) ? 1 : 0;
    if (offered < t.count) return false;
  }
  std::vector<std::uint64_t> masks;
  for (const FeatureSet* f : nodes) {
    std::uint64_t mask = 0;
    for (std::size_t k = 0; k < bracket_units.size() && k < 64; ++k) {
      if (unit_holds(c, bracket_units[k], *f)) mask |= 1ULL << k;
    }
    if (mask) masks.push_back(mask);
  }
  return distinct_counts_fit(bracket_counts, masks);
}

}  // namespace

bool node_satisfies(const Constraint& c, const FeatureSet& f) {
  if (c.empty()) return true;
  if (!and_or_filter(c, f)) return false;
  return !c.has_matching_or() || offers_bracket_term(c, f);
}

bool nodes_satisfy(const Constraint& c, std::span<const CandidateNode> selection) {
  const std::vector<const FeatureSet*> nodes = features_of(selection);
  for (const FeatureSet* f : nodes) {
    if (!node_satisfies(c, *f)) return false;
  }
  if (!counts_fit(c, nodes)) return false;
  if (!is_matching_or(c) || nodes.empty()) return true;
  for (const std::vector<Unit>& alternative : alternatives_of(c)) {
    if (std::all_of(nodes.begin(), nodes.end(),
                    [&](const FeatureSet* f) { return alternative_holds(c, alternative, *f); }))
      return true;
  }
  return false;
}

bool could_ever_satisfy(const Constraint& c, std::span<const CandidateNode> candidates) {
  std::vector<const FeatureSet*> eligible;
  for (const FeatureSet* f : features_of(candidates)) {
    if (node_satisfies(c, *f)) eligible.push_back(f);
  }
  if (eligible.empty() || !counts_fit(c, eligible)) return false;
  if (!is_matching_or(c)) return true;
  for (const std::vector<Unit>& alternative : alternatives_of(c)) {
    if (std::any_of(eligible.begin(), eligible.end(),
                    [&](const FeatureSet* f) { return alternative_holds(c, alternative, *f); }))
      return true;
  }
  return false;
}

ConstraintVerdict submit_verdict(const Constraint& c, std::span<const FeatureSet> cluster_nodes,
                                 std::span<const CandidateNode> partition_nodes) {
  for (const FeatureTerm& t : c.terms) {
    if (std::none_of(cluster_nodes.begin(), cluster_nodes.end(), [&](const FeatureSet& f) { return has(f, t.name); }))
      return ConstraintVerdict::kInvalidFeature;
  }
  return could_ever_satisfy(c, partition_nodes) ? ConstraintVerdict::kOk : ConstraintVerdict::kNodeConfigUnavailable;
}

}  // namespace sa
