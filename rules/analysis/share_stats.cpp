#include "rules/analysis/share_stats.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "analyzer/partition_access.h"
#include "engine/fair_share.h"

namespace sa::rules::shares {

bool fair_share_matters(const Config& config) {
  return config.priority.multifactor() && config.priority.weight_fairshare > 0;
}

bool classic_fair_share(const Config& config) {
  return !config.priority.flags.fair_tree && !config.priority.flags.depth_oblivious;
}

bool is_root_user(const AssocTree& tree, const Association& a) {
  return a.is_user() && a.user == "root" && a.parent == tree.root;
}

bool has_users_below(const AssocTree& tree, std::uint32_t id) {
  std::vector<std::uint32_t> stack{id};
  while (!stack.empty()) {
    const Association& a = tree.assocs[stack.back()];
    stack.pop_back();
    if (a.is_user() && !is_root_user(tree, a)) return true;
    for (std::uint32_t c : a.children) stack.push_back(c);
  }
  return false;
}

std::vector<double> target_shares(const AssocTree& tree) {
  const engine::FairShare fs(tree, engine::FairShareSettings{});
  std::vector<double> out(tree.assocs.size(), 0.0);
  for (std::uint32_t id = 0; id < out.size(); ++id) out[id] = fs.target_share(id);
  return out;
}

std::vector<std::vector<std::uint32_t>> share_levels(const AssocTree& tree) {
  const engine::FairShare fs(tree, engine::FairShareSettings{});
  std::vector<std::vector<std::uint32_t>> out(tree.assocs.size());
  for (std::uint32_t id = 0; id < out.size(); ++id) out[id] = fs.fs_children(id);
  return out;
}

bool partition_admits(const Config& config, const AssocTree& tree, const Partition& p, std::uint32_t account) {
  if (p.state != PartitionState::kUp || p.root_only || p.req_resv) return false;
  return account_admitted(config, p, &tree, account, tree.assocs[account].account);
}

std::uint64_t cluster_cpus(const Config& config) {
  std::set<std::uint32_t> nodes;
  for (const Partition& p : config.partitions) {
    if (p.state != PartitionState::kUp) continue;
    for (std::uint32_t n : p.nodes) {
      if (config.nodes[n].usable()) nodes.insert(n);
    }
  }
  std::uint64_t cpus = 0;
  for (std::uint32_t n : nodes) cpus += config.nodes[n].cpus;
  return cpus;
}

std::string percent(double fraction) {
  const double pct = fraction * 100.0;
  if (pct == 0) return "0%";
  if (pct >= 10) return fmt::format("{:.1f}%", pct);
  if (pct >= 0.1) return fmt::format("{:.2f}%", pct);
  return fmt::format("{:.2g}%", pct);
}

}  // namespace sa::rules::shares
