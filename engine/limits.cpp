#include "engine/limits.h"

#include <algorithm>
#include <cmath>

#include "analyzer/text_util.h"
#include "engine/limit_rules.h"

namespace sa::engine {

using namespace limit_detail;  // NOLINT(google-build-using-namespace): the two files share them

const char* tres_name(int pos) {
  static const char* const kNames[] = {"cpu", "mem", "node", "billing", "gres/gpu"};
  return pos >= 0 && pos < kTresCount ? kNames[pos] : "?";
}

TresCounts tres_limits(const std::optional<TresMap>& map) {
  TresCounts t = unlimited();
  if (!map) return t;
  for (const auto& [name, value] : *map) {
    if (value < 0) continue;
    if (name == "cpu")
      t[kTresCpu] = value;
    else if (name == "mem")
      t[kTresMem] = value;
    else if (name == "node")
      t[kTresNode] = value;
    else if (name == "billing")
      t[kTresBilling] = value;
    else if (name == "gres/gpu")
      t[kTresGpu] = value;
  }
  return t;
}

LimitTable::LimitTable()
    : grp_tres(unlimited()),
      grp_tres_mins(unlimited()),
      grp_tres_run_mins(unlimited()),
      max_tres_pj(unlimited()),
      max_tres_pn(unlimited()),
      max_tres_mins_pj(unlimited()),
      max_tres_pu(unlimited()),
      max_tres_pa(unlimited()),
      min_tres(unlimited()) {}

double weighted_billing(const Config& config, const Partition& part, const TresCounts& t) {
  if (part.tres_billing_weights.empty()) return static_cast<double>(t[kTresCpu]);
  const PriorityFlags& flags = config.priority.flags;
  double sum = 0, node_max = 0, gres = 0;
  for (const TresWeight& w : part.tres_billing_weights) {
    double v = 0;
    if (w.tres == "cpu")
      v = static_cast<double>(t[kTresCpu]) * w.weight;
    else if (w.tres == "mem")
      v = static_cast<double>(t[kTresMem]) * w.weight;
    else if (w.tres == "node")
      v = static_cast<double>(t[kTresNode]) * w.weight;
    else if (w.tres == "gres/gpu")
      v = static_cast<double>(t[kTresGpu]) * w.weight;
    else
      continue;
    sum += v;
    if (w.tres == "gres/gpu" && flags.max_tres_gres)
      gres += v;
    else
      node_max = std::max(node_max, v);
  }
  return flags.max_tres || flags.max_tres_gres ? node_max + gres : sum;
}

namespace {

TresCounts node_tres(const Node& n) {
  TresCounts t{};
  for (int i = 0; i < kTresCount; ++i)
    t[static_cast<std::size_t>(i)] = static_cast<std::int64_t>(n.tres_count(tres_name(i)));
  return t;
}

void add(TresCounts& sum, const TresCounts& t) {
  for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += t[i];
}

// The TRES a relative QOS's percentages are of (assoc_mgr_set_qos_tres_relative_cnt): the
// partition's when the QOS is a partition's QOS (partition_mgr.c _calc_part_tres passes its
// tres_cnt), else the cluster's (assoc_mgr_tres_array counts, controller.c set_cluster_tres).
// Billing differs between the two: a partition's is its TRESBillingWeights over its summed
// TRES (_calc_part_tres), the cluster's the sum of its nodes' billing, each the largest that
// any of its partitions with TRESBillingWeights gives it, else its CPUs
// (_set_node_billing_tres, which also falls back to the CPUs when the weights come to 0).
TresCounts relative_base(const Config& config, const std::string& qos) {
  TresCounts base{};
  for (const Partition& p : config.partitions) {
    if (!iequals(p.qos, qos)) continue;
    for (std::uint32_t n : p.nodes) add(base, node_tres(config.nodes[n]));
    base[kTresBilling] = static_cast<std::int64_t>(weighted_billing(config, p, base));
    return base;
  }
  std::vector<double> node_billing(config.nodes.size(), 0);
  for (const Partition& p : config.partitions) {
    if (p.tres_billing_weights.empty()) continue;
    for (std::uint32_t n : p.nodes)
      node_billing[n] = std::max(node_billing[n], weighted_billing(config, p, node_tres(config.nodes[n])));
  }
  std::int64_t billing = 0;
  for (std::size_t n = 0; n < config.nodes.size(); ++n) {
    const TresCounts t = node_tres(config.nodes[n]);
    add(base, t);
    // Each node's billing is stored as an integer (tres_cnt is uint64_t) before the sum.
    billing += node_billing[n] > 0 ? static_cast<std::int64_t>(node_billing[n]) : t[kTresCpu];
  }
  base[kTresBilling] = billing;
  return base;
}

// Flags=Relative (23.11+): every TRES limit of the QOS is a percentage (at most 100) of the
// base, rounded down (assoc_mgr.c _set_tres_cnt: count = min(count, 100) * base / 100),
// minutes and run-minutes limits included; job counts and walls are not TRES.
void make_relative(LimitTable& t, const TresCounts& base) {
  for (TresCounts* field : {&t.grp_tres, &t.grp_tres_mins, &t.grp_tres_run_mins, &t.max_tres_pj, &t.max_tres_pn,
                            &t.max_tres_mins_pj, &t.max_tres_pu, &t.max_tres_pa, &t.min_tres}) {
    for (int i = 0; i < kTresCount; ++i) {
      std::int64_t& v = (*field)[static_cast<std::size_t>(i)];
      if (v != kUnlimited) v = std::min<std::int64_t>(v, 100) * base[static_cast<std::size_t>(i)] / 100;
    }
  }
}

void finish(LimitTable& t) {
  t.any = any_set(t.grp_tres) || any_set(t.grp_tres_mins) || any_set(t.grp_tres_run_mins) || any_set(t.max_tres_pj) ||
          any_set(t.max_tres_pn) || any_set(t.max_tres_mins_pj) || any_set(t.max_tres_pu) || any_set(t.max_tres_pa) ||
          any_set(t.min_tres) || t.grp_jobs != kUnlimited || t.grp_submit != kUnlimited || t.max_jobs != kUnlimited ||
          t.max_submit != kUnlimited || t.max_jobs_pa != kUnlimited || t.max_submit_pa != kUnlimited ||
          t.grp_wall != kUnlimited || t.max_wall != kUnlimited;
}

}  // namespace

Limits::Limits(const Config& config, const AssocTree* tree, const QosTable& qos) : tree_(tree) {
  // `safe` implies `limits`; neither means no limit is enforced at all.
  safe_ = config.accounting.enforces("safe");
  enforce_ = safe_ || config.accounting.enforces("limits");
  if (tree) {
    for (const Association& a : tree->assocs) {
      LimitTable t;
      const AssocLimits& own = a.limits;
      const AssocLimits& eff = a.effective;
      t.grp_tres = tres_limits(own.grp_tres);
      t.grp_tres_mins = tres_limits(own.grp_tres_mins);
      t.grp_tres_run_mins = tres_limits(own.grp_tres_run_mins);
      t.grp_jobs = count(own.grp_jobs);
      t.grp_submit = count(own.grp_submit_jobs);
      t.grp_wall = minutes(own.grp_wall);
      t.max_tres_pj = tres_limits(eff.max_tres_per_job);
      t.max_tres_pn = tres_limits(eff.max_tres_per_node);
      t.max_tres_mins_pj = tres_limits(eff.max_tres_mins_per_job);
      t.max_jobs = count(eff.max_jobs);
      t.max_submit = count(eff.max_submit_jobs);
      t.max_wall = minutes(eff.max_wall_per_job);
      finish(t);
      assoc_.push_back(t);
    }
  }
  for (const QosRecord& q : qos.records) {
    LimitTable t;
    t.grp_tres = tres_limits(q.grp_tres);
    t.grp_tres_mins = tres_limits(q.grp_tres_mins);
    t.grp_tres_run_mins = tres_limits(q.grp_tres_run_mins);
    t.max_tres_pj = tres_limits(q.max_tres_per_job);
    t.max_tres_pn = tres_limits(q.max_tres_per_node);
    t.max_tres_mins_pj = tres_limits(q.max_tres_mins_per_job);
    t.max_tres_pu = tres_limits(q.max_tres_per_user);
    t.max_tres_pa = tres_limits(q.max_tres_per_account);
    t.min_tres = tres_limits(q.min_tres);
    t.grp_jobs = count(q.grp_jobs);
    t.grp_submit = count(q.grp_submit_jobs);
    t.max_jobs = count(q.max_jobs_per_user);
    t.max_submit = count(q.max_submit_per_user);
    t.max_jobs_pa = count(q.max_jobs_per_account);
    t.max_submit_pa = count(q.max_submit_per_account);
    t.grp_wall = minutes(q.grp_wall);
    t.max_wall = minutes(q.max_wall);
    t.deny_on_limit = q.has_flag("DenyOnLimit");
    t.over_part_qos = q.has_flag("OverPartQOS");
    t.no_reserve = q.has_flag("NoReserve");
    t.usage_factor = q.usage_factor;
    if (config.version.at_least(23, 11) && q.has_flag("Relative")) make_relative(t, relative_base(config, q.name));
    finish(t);
    qos_.push_back(t);
  }
  assoc_used_.resize(assoc_.size());
  qos_used_.resize(qos_.size());
  qos_user_used_.resize(qos_.size());
  qos_account_used_.resize(qos_.size());
  refresh_active();
}

std::int64_t Limits::default_wall(const LimitKey& key) const {
  if (!enforce_) return kUnlimited;
  for (std::int32_t q : {key.qos1, key.qos2}) {
    if (q >= 0 && qos_[static_cast<std::size_t>(q)].max_wall != kUnlimited)
      return qos_[static_cast<std::size_t>(q)].max_wall;
  }
  if (key.assoc < assoc_.size() && assoc_[key.assoc].max_wall != kUnlimited) return assoc_[key.assoc].max_wall;
  return kUnlimited;
}

void Limits::lift(const LimitBlock& b) {
  if (!b.reason) return;
  LimitTable* t = nullptr;
  if (b.qos >= 0 && static_cast<std::size_t>(b.qos) < qos_.size())
    t = &qos_[static_cast<std::size_t>(b.qos)];
  else if (b.assoc < assoc_.size())
    t = &assoc_[b.assoc];
  if (!t) return;
  const std::string r = b.reason;
  auto has = [&r](const char* s) { return r.find(s) != std::string::npos; };
  if (b.tres >= 0) {
    TresCounts* field = nullptr;
    if (has("RunMinutes"))
      field = &t->grp_tres_run_mins;
    else if (has("MinutesPerJob"))
      field = &t->max_tres_mins_pj;
    else if (has("Grp") && has("Minutes"))
      field = &t->grp_tres_mins;
    else if (has("Grp"))
      field = &t->grp_tres;
    else if (has("PerJob"))
      field = &t->max_tres_pj;
    else if (has("PerNode"))
      field = &t->max_tres_pn;
    else if (has("PerUser"))
      field = &t->max_tres_pu;
    else if (has("PerAccount"))
      field = &t->max_tres_pa;
    else if (has("Min"))
      field = &t->min_tres;
    if (field) (*field)[b.tres] = kUnlimited;
  } else if (has("GrpSubmit")) {
    t->grp_submit = kUnlimited;
  } else if (has("GrpJobs")) {
    t->grp_jobs = kUnlimited;
  } else if (has("GrpWall")) {
    t->grp_wall = kUnlimited;
  } else if (has("WallDuration")) {
    t->max_wall = kUnlimited;
  } else if (has("SubmitJobsPerAccount")) {
    t->max_submit_pa = kUnlimited;
  } else if (has("Submit")) {
    t->max_submit = kUnlimited;
  } else if (has("JobsPerAccount")) {
    t->max_jobs_pa = kUnlimited;
  } else if (has("Jobs")) {
    t->max_jobs = kUnlimited;
  }
  finish(*t);
  refresh_active();
}

void Limits::refresh_active() {
  bool any = false;
  for (const LimitTable& t : assoc_) any = any || t.any;
  for (const LimitTable& t : qos_) any = any || t.any;
  active_ = enforce_ && any;
  auto uses = [](const LimitTable& t) {
    return any_set(t.grp_tres_mins) || any_set(t.grp_tres_run_mins) || t.grp_wall != kUnlimited;
  };
  bool usage = false;
  for (const LimitTable& t : assoc_) usage = usage || uses(t);
  for (const LimitTable& t : qos_) usage = usage || uses(t);
  tracks_usage_ = active_ && usage;
}

std::uint32_t Limits::user_id(const std::string& user) {
  auto [it, fresh] = user_ids_.emplace(user, static_cast<std::uint32_t>(users_.size()));
  if (fresh) users_.push_back(user);
  return it->second;
}

std::uint32_t Limits::account_id(const std::string& account) {
  auto [it, fresh] = account_ids_.emplace(account, static_cast<std::uint32_t>(accounts_.size()));
  if (fresh) accounts_.push_back(account);
  return it->second;
}

UsedLimits& Limits::qos_user(std::int32_t qos, std::uint32_t user) const {
  auto& v = qos_user_used_[static_cast<std::size_t>(qos)];
  if (v.size() <= user) v.resize(std::max<std::size_t>(user + 1, users_.size()));
  return v[user];
}

UsedLimits& Limits::qos_account(std::int32_t qos, std::uint32_t account) const {
  auto& v = qos_account_used_[static_cast<std::size_t>(qos)];
  if (v.size() <= account) v.resize(std::max<std::size_t>(account + 1, accounts_.size()));
  return v[account];
}

// --- usage -------------------------------------------------------------------------------------

template <typename F>
void Limits::for_each_entity(const LimitKey& key, F&& f) {
  for (std::uint32_t a = key.assoc; a != kNoAssoc && a < assoc_.size(); a = tree_->assocs[a].parent) f(assoc_used_[a]);
  for (std::int32_t q : {key.qos1, key.qos2}) {
    if (q < 0) continue;
    f(qos_used_[static_cast<std::size_t>(q)]);
    f(qos_user(q, key.user));
    f(qos_account(q, key.account));
  }
}

void Limits::add_submit(const LimitKey& key) {
  for_each_entity(key, [](UsedLimits& u) { ++u.submit; });
}

void Limits::remove_submit(const LimitKey& key) {
  for_each_entity(key, [](UsedLimits& u) { u.submit = std::max<std::int64_t>(0, u.submit - 1); });
}

void Limits::job_begin(const LimitKey& key, const TresCounts& alloc, std::int64_t limit_secs) {
  const double secs = limit_secs < 0 ? 0xFFFFFFFFLL * 60.0 : static_cast<double>(limit_secs);
  for_each_entity(key, [&](UsedLimits& u) {
    ++u.jobs;
    for (int i = 0; i < kTresCount; ++i) {
      u.tres[i] += alloc[i];
      u.run_secs[i] += static_cast<double>(alloc[i]) * secs;
    }
  });
}

void Limits::job_fini(const LimitKey& key, const TresCounts& alloc, double run_secs_left) {
  for_each_entity(key, [&](UsedLimits& u) {
    u.jobs = std::max<std::int64_t>(0, u.jobs - 1);
    for (int i = 0; i < kTresCount; ++i) {
      u.tres[i] = std::max<std::int64_t>(0, u.tres[i] - alloc[i]);
      u.run_secs[i] = std::max(0.0, u.run_secs[i] - static_cast<double>(alloc[i]) * run_secs_left);
    }
  });
}

void Limits::job_ran(const LimitKey& key, const TresCounts& alloc, std::int64_t secs, double charge_factor) {
  for_each_entity(key, [&](UsedLimits& u) {
    for (int i = 0; i < kTresCount; ++i) {
      u.run_secs[i] = std::max(0.0, u.run_secs[i] - static_cast<double>(alloc[i]) * static_cast<double>(secs));
      u.usage_secs[i] += static_cast<double>(alloc[i]) * charge_factor;
    }
    u.wall_secs += charge_factor;
  });
}

void Limits::decay(double factor) {
  auto apply = [factor](UsedLimits& u) {
    for (double& v : u.usage_secs) v *= factor;
    u.wall_secs *= factor;
  };
  for (UsedLimits& u : assoc_used_) apply(u);
  for (UsedLimits& u : qos_used_) apply(u);
}

}  // namespace sa::engine
