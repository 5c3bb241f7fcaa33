// What each partition of the default load gets (default_load.h): its submitters from the share
// tree or invented, job shapes cut from its nodes, memory requests under its caps, or the reason
// it gets none. Kept apart from the random draws of jobs and arrivals in default_load.cpp.
#include "engine/workload/default_load_plan.h"

#include <algorithm>

#include <fmt/format.h>

#include "analyzer/text_util.h"

namespace sa::engine::default_load_detail {

bool is_all(const std::vector<std::string>& names) {
  return std::any_of(names.begin(), names.end(), [](const std::string& n) { return iequals(n, "ALL"); });
}

namespace {

bool named(const std::vector<std::string>& names, const std::string& name) {
  return std::any_of(names.begin(), names.end(), [&](const std::string& n) { return iequals(n, name); });
}

std::uint32_t median_cpus(const Config& c, const Partition& p, std::uint32_t* gpus) {
  std::vector<std::uint32_t> cpus;
  std::vector<std::uint32_t> g;
  for (std::uint32_t n : p.nodes) {
    if (!c.nodes[n].usable()) continue;
    cpus.push_back(c.nodes[n].cpus);
    // Consumable GPUs only: a no_consume GPU is not something a job's request is given.
    g.push_back(static_cast<std::uint32_t>(std::min<std::uint64_t>(c.nodes[n].gpus(), 0xFFFFFFFF)));
  }
  if (cpus.empty()) return 1;
  std::sort(cpus.begin(), cpus.end());
  std::sort(g.begin(), g.end());
  *gpus = g[g.size() / 2];
  return cpus[cpus.size() / 2];
}

// The memory per CPU that lets every CPU of the partition's smallest node be used.
std::uint64_t fair_mem_per_cpu(const Config& c, const Partition& p) {
  std::uint64_t fair = 0;
  for (std::uint32_t n : p.nodes) {
    const Node& node = c.nodes[n];
    if (!node.usable() || node.cpus == 0) continue;
    const std::uint64_t per_cpu = std::max<std::uint64_t>(1, node.usable_mem_mb() / node.cpus);
    fair = fair ? std::min(fair, per_cpu) : per_cpu;
  }
  return std::max<std::uint64_t>(1, fair);
}

// Job shapes cut from the partition's typical node: one CPU, a quarter node, a node, four
// nodes, an eighth and a quarter of the partition (capped); large shapes only where they
// fit, and node counts inside MinNodes..MaxNodes.
std::vector<Shape> shapes_for(const Config& c, const Partition& p) {
  std::uint32_t gpn = 0;
  const std::uint32_t cpn = std::max<std::uint32_t>(1, median_cpus(c, p, &gpn));
  const auto n = static_cast<std::uint32_t>(p.nodes.size());
  const std::uint32_t max_nodes = std::min(n, p.max_nodes);
  const std::uint32_t min_nodes = std::max<std::uint32_t>(1, p.min_nodes);
  std::vector<Shape> s;
  if (min_nodes <= 1) {
    s.push_back({1, 1, gpn ? 1u : 0u, 0.30});
    if (cpn >= 8) s.push_back({cpn / 4, 1, gpn ? std::max(1u, gpn / 4) : 0u, 0.25});
    s.push_back({cpn, 1, gpn, 0.25});
  }
  auto multi = [&](std::uint32_t nodes, double w) {
    nodes = std::max(nodes, min_nodes);
    if (nodes >= 2 && nodes <= max_nodes) s.push_back({nodes * cpn, nodes, nodes * gpn, w});
  };
  multi(std::min<std::uint32_t>(4, n / 2), 0.12);
  if (n >= 32) multi(std::min<std::uint32_t>(n / 8, 64), 0.04);
  // The large jobs that starve first when a policy fails them: a quarter of the partition,
  // at most 128 nodes (bigger ones are capability runs that sites schedule by hand).
  if (n >= 8) multi(std::min<std::uint32_t>(n / 4, 128), 0.02);
  for (Shape& x : s) x.cpus = std::min(x.cpus, x.nodes * std::min(cpn, p.max_cpus_per_node));
  // Where every job is given whole nodes (select/linear, OverSubscribe=EXCLUSIVE) users ask for
  // whole nodes: a 1-CPU job there holds all its node's CPUs, and a load drawn in CPUs would
  // offer many times the capacity it says (goetze11's select/linear site held 53 of 227 jobs).
  if (c.select.type == "select/linear" || p.oversubscribe.mode == OverSubscribe::Mode::kExclusive) {
    for (Shape& x : s) x.cpus = std::max(x.cpus, x.nodes * std::min(cpn, p.max_cpus_per_node));
  }
  // The same shape twice (small partitions) would only double its weight.
  std::vector<Shape> unique;
  for (const Shape& x : s) {
    auto same = std::find_if(unique.begin(), unique.end(), [&](const Shape& u) {
      return u.cpus == x.cpus && u.nodes == x.nodes && u.gpus == x.gpus;
    });
    if (same == unique.end())
      unique.push_back(x);
    else
      same->weight += x.weight;
  }
  return unique;
}

// The QOS a job may name in partition `p`: those the partition's AllowQos/DenyQos admit,
// that exist (or are assumed, without a QOS table), from `candidates` in order.
std::vector<std::string> admitted_qos(const Site& site, const Partition& p,
                                      const std::vector<std::string>& candidates) {
  std::vector<std::string> out;
  for (const std::string& raw : candidates) {
    const std::string q = to_lower(raw);
    if (q.empty() || iequals(q, "ALL")) continue;
    if (!p.allow_qos.empty() && !is_all(p.allow_qos) && !named(p.allow_qos, q)) continue;
    if (named(p.deny_qos, q)) continue;
    if (site.qos.from_input() && !site.qos.find(q)) continue;
    if (std::find(out.begin(), out.end(), q) == out.end()) out.push_back(q);
  }
  return out;
}

// The QOS mix of one submitter: mostly the default QOS, the rest spread over the others.
Weighted<std::string> qos_mix(const std::vector<std::string>& admitted, const std::string& default_qos) {
  Weighted<std::string> mix;
  const bool has_default = named(admitted, default_qos);
  for (const std::string& q : admitted) {
    const double others = has_default ? 0.2 / std::max<double>(1, static_cast<double>(admitted.size()) - 1) : 1.0;
    mix.push_back({q, has_default && iequals(q, default_qos) ? 0.8 : others});
  }
  return mix;
}

bool admits_account(const Partition& p, const std::string& account, const AssocTree* tree, std::uint32_t assoc) {
  auto listed = [&](const std::vector<std::string>& names) {
    if (!tree) return named(names, account);
    // Since 23.02 AllowAccounts and DenyAccounts also match the accounts above the job's.
    for (std::uint32_t a = tree->assocs[assoc].parent; a != kNoAssoc; a = tree->assocs[a].parent) {
      if (named(names, tree->assocs[a].account)) return true;
    }
    return false;
  };
  if (!p.allow_accounts.empty() && !is_all(p.allow_accounts) && !listed(p.allow_accounts)) return false;
  return !listed(p.deny_accounts);
}

std::optional<std::int64_t> assoc_max_wall(const AssocTree& tree, std::uint32_t id) {
  for (std::uint32_t a = id; a != kNoAssoc; a = tree.assocs[a].parent) {
    if (tree.assocs[a].limits.max_wall_per_job) return tree.assocs[a].limits.max_wall_per_job;
  }
  return std::nullopt;
}

std::vector<Submitter> tree_submitters(const Site& site, const Partition& p) {
  std::vector<Submitter> out;
  const AssocTree& tree = *site.tree;
  for (const auto& [who, share] : users_by_target_share(tree)) {
    const std::uint32_t id = tree.find_user(who.first, who.second);
    if (id == kNoAssoc || !admits_account(p, who.second, &tree, id)) continue;
    const Association& a = tree.assocs[id];
    std::vector<std::string> listed = a.qos;
    if (listed.empty()) listed.push_back(a.default_qos.empty() ? "normal" : a.default_qos);
    const std::vector<std::string> qos = admitted_qos(site, p, listed);
    if (qos.empty()) continue;
    out.push_back({who.first, to_lower(who.second), qos_mix(qos, a.default_qos.empty() ? "normal" : a.default_qos),
                   assoc_max_wall(tree, id), std::max(share, 1e-9)});  // a zero share still submits
  }
  return out;
}

// No association tree: a handful of users per account the partition names in AllowAccounts,
// else eight users in four accounts; QOS from AllowQos, else `normal`.
std::vector<Submitter> invented_submitters(const Site& site, const Partition& p) {
  std::vector<std::pair<std::string, std::string>> who;
  if (!p.allow_accounts.empty() && !is_all(p.allow_accounts)) {
    for (const std::string& acct : p.allow_accounts) {
      for (int i = 1; i <= 3; ++i) who.push_back({fmt::format("{}_user{}", to_lower(acct), i), to_lower(acct)});
    }
  } else {
    for (int i = 1; i <= 8; ++i) who.push_back({fmt::format("user{}", i), fmt::format("account{}", (i + 1) / 2)});
  }
  std::vector<std::string> candidates = {"normal"};
  if (!p.allow_qos.empty() && !is_all(p.allow_qos))
    candidates = p.allow_qos;
  else if (site.qos.from_input()) {
    for (const QosRecord& q : site.qos.records) candidates.push_back(q.name);
  }
  const std::vector<std::string> qos = admitted_qos(site, p, candidates);
  std::vector<Submitter> out;
  if (qos.empty()) return out;
  for (const auto& [user, account] : who) {
    if (!admits_account(p, account, nullptr, kNoAssoc)) continue;
    out.push_back({user, account, qos_mix(qos, "normal"), std::nullopt, 1.0});
  }
  return out;
}

// Why a partition gets no jobs, or "" when it can take them.
std::string idle_reason(const Config& c, const Partition& p) {
  if (p.state == PartitionState::kDown) return "State=DOWN";
  if (p.state == PartitionState::kDrain) return "State=DRAIN, takes no new jobs";
  if (p.state == PartitionState::kInactive) return "State=INACTIVE, takes no new jobs";
  if (p.root_only) return "RootOnly, no user jobs";
  if (p.hidden) return "Hidden, users do not see it";
  if (p.req_resv) return "ReqResv, jobs need a reservation";
  if (p.nodes.empty()) return "no nodes";
  if (std::none_of(p.nodes.begin(), p.nodes.end(), [&](std::uint32_t n) { return c.nodes[n].usable(); })) {
    return "no usable nodes (all DOWN, DRAIN, FAIL or FUTURE)";
  }
  return "";
}

}  // namespace

Plan plan_partitions(const Site& site, std::int64_t duration) {
  const Config& c = *site.config;
  // job_submit/require_timelimit refuses a job without --time: no such job is offered there.
  const bool time_required = c.time_limit_required();
  Plan plan;
  for (const Partition& p : c.partitions) {
    if (std::string why = idle_reason(c, p); !why.empty()) {
      plan.idle.push_back(fmt::format("{} ({})", p.name, why));
      continue;
    }
    PartLoad pl;
    pl.part = &p;
    pl.users = site.tree ? tree_submitters(site, p) : invented_submitters(site, p);
    if (pl.users.empty()) {
      plan.idle.push_back(fmt::format("{} (no {} may submit to it)", p.name,
                                      site.tree ? "association of the dump" : "account and QOS it allows"));
      continue;
    }
    std::uint64_t gpus = 0;
    for (std::uint32_t n : p.nodes) {
      if (!c.nodes[n].usable()) continue;
      pl.cpus += c.nodes[n].cpus;
      gpus += c.nodes[n].gpus();
    }
    if (gpus) pl.cpus_per_gpu = pl.cpus / static_cast<double>(gpus);
    pl.shapes = shapes_for(c, p);
    pl.max_time = p.max_time > 0 ? p.max_time : 7 * 86400;
    pl.max_run = std::max<std::int64_t>(3600, duration / 2);
    if (p.default_time_set && p.default_time > 0) pl.default_time = p.default_time;
    pl.unlimited_without_default = p.max_time < 0 && pl.default_time == kNoTime && !time_required;
    const std::uint64_t max_per_cpu = p.max_mem_per_cpu ? p.max_mem_per_cpu : c.select.max_mem_per_cpu;
    const std::uint64_t max_per_node = p.max_mem_per_node ? p.max_mem_per_node : c.select.max_mem_per_node;
    const std::uint64_t def_per_cpu = p.def_mem_per_cpu ? p.def_mem_per_cpu : c.select.def_mem_per_cpu;
    const std::uint64_t def_per_node = p.def_mem_per_node ? p.def_mem_per_node : c.select.def_mem_per_node;
    // Users ask for memory in proportion to their CPUs where the site sets no default (a job
    // without --mem would take its nodes' whole memory) or caps it below the default.
    const std::uint64_t fair = fair_mem_per_cpu(c, p);
    if (c.select.memory && !def_per_cpu && !def_per_node) pl.mem_per_cpu = fair;
    if (max_per_cpu)
      pl.mem_per_cpu = std::min(def_per_cpu ? def_per_cpu : fair, max_per_cpu);
    else if (max_per_node && def_per_node > max_per_node)
      pl.mem_per_node = max_per_node;
    for (const Submitter& s : pl.users) {
      for (const auto& q : s.qos) {
        if (!site.qos.from_input() && !site.qos.find(q.first)) plan.assumed_qos.insert(q.first);
      }
    }
    plan.loads.push_back(std::move(pl));
  }
  return plan;
}

}  // namespace sa::engine::default_load_detail
