// Which of a partition's nodes a job may use: --constraint against each node's active
// features (node_scheduler.c valid_feature_counts: the per-node filter; a matching OR
// [a|b] gives one node set per alternative, tried in order as _get_req_features does),
// -w/--nodelist (every listed node is required, job_mgr.c's req_node_bitmap) and
// -x/--exclude. What slurmctld refuses at submit is refused here with its message: a
// feature no node has, or a constraint or node list the partition can never satisfy.
#include <algorithm>

#include <fmt/format.h>

#include "analyzer/constraint.h"
#include "analyzer/hostlist.h"
#include "engine/simulator.h"

namespace sa::engine {

namespace {

NodeBitset nodes_named(const Config& conf, const NodePool& pool, const std::string& hostlist, bool& unknown) {
  NodeBitset out(conf.nodes.size());
  // A list naming more hosts than the cluster has (twice over, for repeats) names unknown
  // ones and is refused anyway: a trace's `-w n[0-99999999]` stops there, not at a million.
  HostlistOptions bound;
  bound.max_names = std::min(bound.max_names, 2 * conf.nodes.size() + 16);
  auto names = expand_hostlist(hostlist, bound);
  if (!names) {
    unknown = true;
    return out;
  }
  for (const std::string& name : *names) {
    auto it = conf.node_index.find(name);
    if (it == conf.node_index.end()) {
      unknown = true;
      continue;
    }
    out.set(pool.internal_index(it->second));
  }
  return out;
}

}  // namespace

const NodeChoice* Simulator::node_choice(const SimJob& job, std::uint32_t p, Refusal& refusal) {
  const RequestExtras& x = job.req.extra.get();
  if (x.constraint.empty() && x.nodelist.empty() && x.exclude.empty()) return &kAnyNode;
  // The node count matters to a -w list from 23.02 (make_node_choice), so it is in the key.
  const std::string key =
      fmt::format("{}\x1f{}\x1f{}\x1f{}\x1f{}", p, x.constraint, x.nodelist, x.exclude, job.req.nodes);
  if (auto it = node_choices_.find(key); it != node_choices_.end()) {
    if (!it->second.error) return &it->second;
    refusal = Refusal{it->second.error, it->second.reason, it->second.at_select};
    return nullptr;
  }
  NodeChoice c = make_node_choice(job.req, p);
  const NodeChoice& kept = node_choices_.emplace(key, std::move(c)).first->second;
  if (!kept.error) return &kept;
  refusal = Refusal{kept.error, kept.reason, kept.at_select};
  return nullptr;
}

NodeChoice Simulator::make_node_choice(const JobRequest& r, std::uint32_t p) {
  NodeChoice c;
  const RequestExtras& x = r.extra.get();
  const Partition& part = conf_.partitions[p];
  NodeBitset own = part_nodes_[p];
  if (!x.constraint.empty()) {
    std::size_t at = 0;
    Result<Constraint> parsed = parse_constraint(x.constraint.view(), &at);
    if (!parsed) {
      c.error = kInvalidFeature;
      c.reason = fmt::format("--constraint {}: {}", x.constraint, parsed.error());
      return c;
    }
    if (cluster_features_.empty()) {  // once per run: every distinct constraint checks against it
      cluster_features_.reserve(conf_.nodes.size());
      for (const Node& n : conf_.nodes) cluster_features_.push_back(n.active_features);
    }
    std::vector<CandidateNode> in_part;
    for (std::uint32_t n : part.nodes) in_part.push_back({n, &conf_.nodes[n].active_features});
    const ConstraintVerdict v = submit_verdict(*parsed, cluster_features_, in_part);
    if (v != ConstraintVerdict::kOk) {
      c.error = v == ConstraintVerdict::kInvalidFeature ? kInvalidFeature : kNodeConfigUnavailable;
      c.at_select = v != ConstraintVerdict::kInvalidFeature;
      c.reason = fmt::format("--constraint {} in partition {}", x.constraint, part.name);
      return c;
    }
    apply_constraint(*parsed, own, c);
  }
  if (!x.exclude.empty()) {
    bool unknown = false;
    own.subtract(nodes_named(conf_, pool_, x.exclude, unknown));
  }
  if (!x.nodelist.empty()) {
    bool unknown = false;
    NodeBitset req = nodes_named(conf_, pool_, x.nodelist, unknown);
    if (unknown || !req.is_subset_of(own)) {
      // job_mgr.c: a requested node outside the partition (or unknown) fails the submission.
      c.error = kNodeConfigUnavailable;
      c.reason = fmt::format("--nodelist {} is not within partition {}", x.nodelist, part.name);
      return c;
    }
    if (conf_.version.at_least(23, 2) && r.nodes > 0 && req.count() > r.nodes) {
      // 23.02+: a list longer than the -N asked for is a set to choose from (_job_create
      // excludes every other node; NEWS "Allow for --nodelist to contain more nodes than
      // required by --nodes"). 22.05 made every listed node required.
      own &= req;
    } else {
      c.required_count = static_cast<std::uint32_t>(req.count());
      c.required = static_cast<std::int32_t>(node_sets_.size());
      node_sets_.push_back(std::move(req));
    }
  }
  if (!c.alternatives.empty()) {
    for (std::int32_t& a : c.alternatives) node_sets_[static_cast<std::size_t>(a)] &= own;
  }
  c.nodes = static_cast<std::int32_t>(node_sets_.size());
  node_sets_.push_back(std::move(own));
  return c;
}

void Simulator::apply_constraint(const Constraint& con, NodeBitset& own, NodeChoice& c) {
  std::vector<std::string> alternatives, counted;
  for (const FeatureTerm& t : con.terms) {
    if (t.count > 0) {
      counted.push_back(t.name);
      c.min_nodes += t.count;
    }
    if (t.in_bracket && (t.op == FeatureOp::kMatchingOr || !alternatives.empty()) && t.count == 0)
      alternatives.push_back(t.name);
  }
  auto has = [&](std::uint32_t internal, const std::string& f) {
    const FeatureSet& fs = conf_.nodes[pool_.config_index(internal)].active_features;
    return std::find(fs.begin(), fs.end(), f) != fs.end();
  };
  NodeBitset keep(own.size());
  own.for_each([&](std::size_t n) {
    const auto i = static_cast<std::uint32_t>(n);
    // With counts Slurm skips the per-node filter (valid_feature_counts); the counted nodes
    // must have one of the counted features, which is all this models of counts.
    const bool ok = counted.empty() ? node_satisfies(con, conf_.nodes[pool_.config_index(i)].active_features)
                                    : std::any_of(counted.begin(), counted.end(), [&](auto& f) { return has(i, f); });
    if (ok) keep.set(n);
  });
  own = std::move(keep);
  for (const FeatureTerm& t : con.terms) {
    if (t.count == 0) continue;
    NodeBitset with(own.size());
    own.for_each([&](std::size_t n) {
      if (has(static_cast<std::uint32_t>(n), t.name)) with.set(n);
    });
    node_sets_.push_back(std::move(with));
    c.counted.emplace_back(&node_sets_.back(), t.count);
  }
  for (const std::string& f : alternatives) {
    NodeBitset alt(own.size());
    own.for_each([&](std::size_t n) {
      if (has(static_cast<std::uint32_t>(n), f)) alt.set(n);
    });
    c.alternatives.push_back(static_cast<std::int32_t>(node_sets_.size()));
    node_sets_.push_back(std::move(alt));
  }
}

const NodeBitset& Simulator::record_nodes(const SimRecord& rec) const {
  return rec.nodes >= 0 ? node_sets_[static_cast<std::size_t>(rec.nodes)] : part_nodes_[rec.part];
}

}  // namespace sa::engine
