#include "engine/limits.h"

#include <algorithm>
#include <cmath>

#include "analyzer/text_util.h"

namespace sa::engine {

namespace {

// The Reason strings of job_reason_string(), by limit kind and TRES (cpu, mem, node,
// billing, gres), as _get_tres_state_reason() maps them. Slurm's spelling is irregular
// ("AssocGrpCpuLimit" but "AssocGrpBilling", "QOSMaxMemoryPerJob" but "AssocMaxMemPerJob",
// no "QOS" prefix on the per-account ones) and has no node-per-node reason, which falls
// back to the "Unknown" one.
enum Kind { kGrp, kGrpMin, kGrpRunMin, kMaxPerJob, kMaxMinsPerJob, kMaxPerNode, kMaxPerAcct, kMaxPerUser, kMin };

const char* const kAssocReasons[][kTresCount] = {
    {"AssocGrpCpuLimit", "AssocGrpMemLimit", "AssocGrpNodeLimit", "AssocGrpBilling", "AssocGrpGRES"},
    {"AssocGrpCPUMinutesLimit", "AssocGrpMemMinutes", "AssocGrpNodeMinutes", "AssocGrpBillingMinutes",
     "AssocGrpGRESMinutes"},
    {"AssocGrpCPURunMinutesLimit", "AssocGrpMemRunMinutes", "AssocGrpNodeRunMinutes", "AssocGrpBillingRunMinutes",
     "AssocGrpGRESRunMinutes"},
    {"AssocMaxCpuPerJobLimit", "AssocMaxMemPerJob", "AssocMaxNodePerJobLimit", "AssocMaxBillingPerJob",
     "AssocMaxGRESPerJob"},
    {"AssocMaxCpuMinutesPerJobLimit", "AssocMaxMemMinutesPerJob", "AssocMaxNodeMinutesPerJob",
     "AssocMaxBillingMinutesPerJob", "AssocMaxGRESMinutesPerJob"},
    {"AssocMaxCpuPerNode", "AssocMaxMemPerNode", "AssocMaxUnknownPerNode", "AssocMaxBillingPerNode",
     "AssocMaxGRESPerNode"},
};
const char* const kQosReasons[][kTresCount] = {
    {"QOSGrpCpuLimit", "QOSGrpMemLimit", "QOSGrpNodeLimit", "QOSGrpBilling", "QOSGrpGRES"},
    {"QOSGrpCPUMinutesLimit", "QOSGrpMemoryMinutes", "QOSGrpNodeMinutes", "QOSGrpBillingMinutes", "QOSGrpGRESMinutes"},
    {"QOSGrpCPURunMinutesLimit", "QOSGrpMemoryRunMinutes", "QOSGrpNodeRunMinutes", "QOSGrpBillingRunMinutes",
     "QOSGrpGRESRunMinutes"},
    {"QOSMaxCpuPerJobLimit", "QOSMaxMemoryPerJob", "QOSMaxNodePerJobLimit", "QOSMaxBillingPerJob", "QOSMaxGRESPerJob"},
    {"QOSMaxCpuMinutesPerJobLimit", "QOSMaxMemoryMinutesPerJob", "QOSMaxNodeMinutesPerJob",
     "QOSMaxBillingMinutesPerJob", "QOSMaxGRESMinutesPerJob"},
    {"QOSMaxCpuPerNode", "QOSMaxMemoryPerNode", "QOSMaxUnknownPerNode", "QOSMaxBillingPerNode", "QOSMaxGRESPerNode"},
    {"MaxCpuPerAccount", "MaxMemoryPerAccount", "MaxNodePerAccount", "MaxBillingPerAccount", "MaxGRESPerAccount"},
    {"QOSMaxCpuPerUserLimit", "QOSMaxMemoryPerUser", "QOSMaxNodePerUserLimit", "QOSMaxBillingPerUser",
     "QOSMaxGRESPerUser"},
    {"QOSMinCpuNotSatisfied", "QOSMinMemory", "QOSMinNode", "QOSMinBilling", "QOSMinGRES"},
};

TresCounts unlimited() {
  TresCounts t;
  t.fill(kUnlimited);
  return t;
}

std::int64_t minutes(const std::optional<std::int64_t>& secs) { return secs && *secs >= 0 ? *secs / 60 : kUnlimited; }
std::int64_t count(const std::optional<std::int64_t>& v) { return v && *v >= 0 ? *v : kUnlimited; }

bool any_set(const TresCounts& t) {
  return std::any_of(t.begin(), t.end(), [](std::int64_t v) { return v != kUnlimited; });
}

// The job's time limit in minutes as acct_policy sees it (INFINITE stays unlimited).
std::int64_t limit_minutes(std::int64_t secs) { return secs < 0 ? kUnlimited : (secs + 59) / 60; }

LimitBlock block(const char* reason, std::int32_t qos, std::uint32_t assoc, int tres, std::int64_t limit,
                 std::int64_t used, std::int64_t want) {
  LimitBlock b;
  b.reason = reason;
  b.qos = qos;
  b.assoc = assoc;
  b.tres = tres;
  b.limit = limit;
  b.used = used;
  b.want = want;
  return b;
}

// _validate_tres_usage_limits: the first TRES (in array order) whose limit is set and not
// already imposed by a QOS checked earlier. kOk, or the failing position.
enum class Usage { kOk, kCurExceeds, kReqExceeds, kNotSafe };
Usage tres_usage(const TresCounts& limit, TresCounts* imposed, bool impose, const TresCounts& req,
                 const std::array<std::int64_t, kTresCount>* usage, const std::array<std::int64_t, kTresCount>* cur,
                 bool safe, int* pos) {
  for (int i = 0; i < kTresCount; ++i) {
    *pos = i;
    if ((imposed && (*imposed)[i] != kUnlimited) || limit[i] == kUnlimited) continue;
    if (impose && imposed) (*imposed)[i] = limit[i];
    if (cur && req[i] && (*cur)[i] >= limit[i]) return Usage::kCurExceeds;
    if (safe) {
      if (req[i] > limit[i]) return Usage::kReqExceeds;
      const std::int64_t c = cur ? (*cur)[i] : 0;
      if (usage && req[i] && req[i] + (*usage)[i] > limit[i] - c) return Usage::kNotSafe;
    }
  }
  return Usage::kOk;
}

// _validate_tres_limits_for_qos (max_limit or min): per-job and per-node request checks.
bool tres_per_job(const TresCounts& limit, TresCounts& imposed, const TresCounts& req, std::int64_t divisor, bool max,
                  int* pos) {
  for (int i = 0; i < kTresCount; ++i) {
    *pos = i;
    if (imposed[i] != kUnlimited || limit[i] == kUnlimited) continue;
    imposed[i] = limit[i];
    const std::int64_t v = divisor > 0 ? req[i] / divisor : req[i];
    if (max ? v > limit[i] : v < limit[i]) return false;
  }
  return true;
}

// _validate_tres_limits_for_assoc: like the QOS one, but TRES the job does not ask for and
// TRES a QOS already limits are skipped.
bool tres_per_job_assoc(const TresCounts& limit, const TresCounts& qos_imposed, const TresCounts& req,
                        std::int64_t divisor, int* pos) {
  for (int i = 0; i < kTresCount; ++i) {
    *pos = i;
    if (qos_imposed[i] != kUnlimited || limit[i] == kUnlimited || !req[i]) continue;
    const std::int64_t v = divisor > 0 ? req[i] / divisor : req[i];
    if (v > limit[i]) return false;
  }
  return true;
}

std::array<std::int64_t, kTresCount> to_minutes(const std::array<double, kTresCount>& secs, double factor) {
  std::array<std::int64_t, kTresCount> m{};
  for (int i = 0; i < kTresCount; ++i) m[i] = static_cast<std::int64_t>(secs[i] / 60.0) * (factor == 0.0 ? 0 : 1);
  return m;
}

}  // namespace

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

namespace {

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
    t.usage_factor = q.usage_factor;
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

// --- the checks ------------------------------------------------------------------------------

// _qos_job_runnable_pre_select: job counts and wall limits.
LimitBlock Limits::qos_pre(const LimitKey& key, std::int32_t q, LimitTable& out, std::int64_t limit_min) const {
  const LimitTable& t = qos_[static_cast<std::size_t>(q)];
  const UsedLimits& grp = qos_used_[static_cast<std::size_t>(q)];
  if (out.grp_jobs == kUnlimited && t.grp_jobs != kUnlimited) {
    out.grp_jobs = t.grp_jobs;
    if (grp.jobs >= t.grp_jobs) return block("QOSGrpJobsLimit", q, kNoAssoc, -1, t.grp_jobs, grp.jobs, 1);
  }
  if (out.grp_wall == kUnlimited && t.grp_wall != kUnlimited) {
    out.grp_wall = t.grp_wall;
    const std::int64_t wall_mins = static_cast<std::int64_t>(grp.wall_secs) / 60;
    if (wall_mins >= t.grp_wall || (safe_ && limit_min != kUnlimited && wall_mins + limit_min > t.grp_wall)) {
      return block("QOSGrpWallLimit", q, kNoAssoc, -1, t.grp_wall, wall_mins, limit_min);
    }
  }
  if (out.max_jobs_pa == kUnlimited && t.max_jobs_pa != kUnlimited) {
    out.max_jobs_pa = t.max_jobs_pa;
    const UsedLimits& a = qos_account(q, key.account);
    if (a.jobs >= t.max_jobs_pa) return block("MaxJobsPerAccount", q, kNoAssoc, -1, t.max_jobs_pa, a.jobs, 1);
  }
  if (out.max_jobs == kUnlimited && t.max_jobs != kUnlimited) {
    out.max_jobs = t.max_jobs;
    const UsedLimits& u = qos_user(q, key.user);
    if (u.jobs >= t.max_jobs) return block("QOSMaxJobsPerUserLimit", q, kNoAssoc, -1, t.max_jobs, u.jobs, 1);
  }
  if (out.max_wall == kUnlimited && t.max_wall != kUnlimited) {
    out.max_wall = t.max_wall;
    // A job without a limit is given the QOS MaxWall (_set_time_limit), so it fits.
    if (limit_min != kUnlimited && limit_min > t.max_wall) {
      return block("QOSMaxWallDurationPerJobLimit", q, kNoAssoc, -1, t.max_wall, 0, limit_min);
    }
  }
  return {};
}

// _qos_job_runnable_post_select: TRES limits, in Slurm's order.
LimitBlock Limits::qos_post(const LimitKey& key, std::int32_t q, LimitTable& out, const TresCounts& req,
                            const TresCounts& req_mins) const {
  const LimitTable& t = qos_[static_cast<std::size_t>(q)];
  const UsedLimits& grp = qos_used_[static_cast<std::size_t>(q)];
  const double uf = key.job_qos >= 0 ? std::max(0.0, qos_[static_cast<std::size_t>(key.job_qos)].usage_factor) : 1.0;
  const auto run_mins = to_minutes(grp.run_secs, uf);
  const auto usage_mins = to_minutes(grp.usage_secs, uf);
  int pos = 0;
  auto tres_block = [&](Kind kind, std::int64_t limit, std::int64_t used, std::int64_t want) {
    return block(kQosReasons[kind][pos], q, kNoAssoc, pos, limit, used, want);
  };
  if (tres_usage(t.grp_tres_mins, &out.grp_tres_mins, true, req_mins, &run_mins, &usage_mins, safe_, &pos) !=
      Usage::kOk) {
    return tres_block(kGrpMin, t.grp_tres_mins[pos], usage_mins[pos], req_mins[pos]);
  }
  if (tres_usage(t.grp_tres, &out.grp_tres, true, req, &grp.tres, nullptr, true, &pos) != Usage::kOk) {
    return tres_block(kGrp, t.grp_tres[pos], grp.tres[pos], req[pos]);
  }
  if (tres_usage(t.grp_tres_run_mins, &out.grp_tres_run_mins, true, req_mins, &run_mins, nullptr, true, &pos) !=
      Usage::kOk) {
    return tres_block(kGrpRunMin, t.grp_tres_run_mins[pos], run_mins[pos], req_mins[pos]);
  }
  if (!tres_per_job(t.max_tres_mins_pj, out.max_tres_mins_pj, req_mins, 0, true, &pos)) {
    return tres_block(kMaxMinsPerJob, t.max_tres_mins_pj[pos], 0, req_mins[pos]);
  }
  if (!tres_per_job(t.max_tres_pj, out.max_tres_pj, req, 0, true, &pos)) {
    return tres_block(kMaxPerJob, t.max_tres_pj[pos], 0, req[pos]);
  }
  if (!tres_per_job(t.max_tres_pn, out.max_tres_pn, req, req[kTresNode], true, &pos)) {
    return tres_block(kMaxPerNode, t.max_tres_pn[pos], 0, req[kTresNode] > 0 ? req[pos] / req[kTresNode] : req[pos]);
  }
  if (!tres_per_job(t.min_tres, out.min_tres, req, 0, false, &pos)) {
    return tres_block(kMin, t.min_tres[pos], 0, req[pos]);
  }
  const UsedLimits& a = qos_account(q, key.account);
  if (tres_usage(t.max_tres_pa, &out.max_tres_pa, true, req, &a.tres, nullptr, true, &pos) != Usage::kOk) {
    return tres_block(kMaxPerAcct, t.max_tres_pa[pos], a.tres[pos], req[pos]);
  }
  const UsedLimits& u = qos_user(q, key.user);
  if (tres_usage(t.max_tres_pu, &out.max_tres_pu, true, req, &u.tres, nullptr, true, &pos) != Usage::kOk) {
    return tres_block(kMaxPerUser, t.max_tres_pu[pos], u.tres[pos], req[pos]);
  }
  return {};
}

LimitBlock Limits::runnable_pre(const LimitKey& key, std::int64_t limit_secs) const {
  if (!active_) return {};
  LimitTable out;  // what the QOS have imposed, hiding the same limits further down
  const std::int64_t limit_min = limit_minutes(limit_secs);
  for (std::int32_t q : {key.qos1, key.qos2}) {
    if (q < 0) continue;
    if (LimitBlock b = qos_pre(key, q, out, limit_min)) return b;
  }
  // pre_select, association part: GrpJobs and GrpWall at every level, MaxJobs and
  // MaxWall on the job's own association only (pre-propagated).
  bool parent = false;
  for (std::uint32_t a = key.assoc; a != kNoAssoc && a < assoc_.size(); a = tree_->assocs[a].parent) {
    const LimitTable& t = assoc_[a];
    const UsedLimits& used = assoc_used_[a];
    if (out.grp_jobs == kUnlimited && t.grp_jobs != kUnlimited && used.jobs >= t.grp_jobs) {
      return block("AssocGrpJobsLimit", -1, a, -1, t.grp_jobs, used.jobs, 1);
    }
    if (out.grp_wall == kUnlimited && t.grp_wall != kUnlimited) {
      const std::int64_t wall_mins = static_cast<std::int64_t>(used.wall_secs) / 60;
      if (wall_mins >= t.grp_wall || (safe_ && limit_min != kUnlimited && wall_mins + limit_min > t.grp_wall)) {
        return block("AssocGrpWallLimit", -1, a, -1, t.grp_wall, wall_mins, limit_min);
      }
    }
    if (!parent) {
      if (out.max_jobs_pa == kUnlimited && out.max_jobs == kUnlimited && t.max_jobs != kUnlimited &&
          used.jobs >= t.max_jobs) {
        return block("AssocMaxJobsLimit", -1, a, -1, t.max_jobs, used.jobs, 1);
      }
      if (out.max_wall == kUnlimited && t.max_wall != kUnlimited && limit_min != kUnlimited && limit_min > t.max_wall) {
        return block("AssocMaxWallDurationPerJobLimit", -1, a, -1, t.max_wall, 0, limit_min);
      }
    }
    parent = true;
  }
  return {};
}

LimitBlock Limits::runnable_post(const LimitKey& key, const TresCounts& req, std::int64_t limit_secs) const {
  if (!active_) return {};
  LimitTable out;
  const std::int64_t limit_min = limit_minutes(limit_secs);
  TresCounts req_mins;
  for (int i = 0; i < kTresCount; ++i) req_mins[i] = limit_min == kUnlimited ? 0 : req[i] * limit_min;
  // An unlimited job's TRES-minutes: Slurm multiplies by INFINITE (a huge number).
  if (limit_min == kUnlimited) {
    for (int i = 0; i < kTresCount; ++i) req_mins[i] = req[i] ? 0xFFFFFFFFLL * req[i] : 0;
  }
  for (std::int32_t q : {key.qos1, key.qos2}) {
    if (q < 0) continue;
    if (LimitBlock b = qos_post(key, q, out, req, req_mins)) return b;
  }
  const double uf = key.job_qos >= 0 ? std::max(0.0, qos_[static_cast<std::size_t>(key.job_qos)].usage_factor) : 1.0;
  bool parent = false;
  for (std::uint32_t a = key.assoc; a != kNoAssoc && a < assoc_.size(); a = tree_->assocs[a].parent) {
    const LimitTable& t = assoc_[a];
    const UsedLimits& used = assoc_used_[a];
    int pos = 0;
    const auto run_mins = to_minutes(used.run_secs, uf);
    const auto usage_mins = to_minutes(used.usage_secs, uf);
    if (tres_usage(t.grp_tres_mins, &out.grp_tres_mins, false, req_mins, &run_mins, &usage_mins, safe_, &pos) !=
        Usage::kOk) {
      return block(kAssocReasons[kGrpMin][pos], -1, a, pos, t.grp_tres_mins[pos], usage_mins[pos], req_mins[pos]);
    }
    if (tres_usage(t.grp_tres, &out.grp_tres, false, req, &used.tres, nullptr, true, &pos) != Usage::kOk) {
      return block(kAssocReasons[kGrp][pos], -1, a, pos, t.grp_tres[pos], used.tres[pos], req[pos]);
    }
    if (tres_usage(t.grp_tres_run_mins, &out.grp_tres_run_mins, false, req_mins, &run_mins, nullptr, true, &pos) !=
        Usage::kOk) {
      return block(kAssocReasons[kGrpRunMin][pos], -1, a, pos, t.grp_tres_run_mins[pos], run_mins[pos], req_mins[pos]);
    }
    if (!parent) {
      if (!tres_per_job_assoc(t.max_tres_mins_pj, out.max_tres_mins_pj, req_mins, 0, &pos)) {
        return block(kAssocReasons[kMaxMinsPerJob][pos], -1, a, pos, t.max_tres_mins_pj[pos], 0, req_mins[pos]);
      }
      if (!tres_per_job_assoc(t.max_tres_pj, out.max_tres_pj, req, 0, &pos)) {
        return block(kAssocReasons[kMaxPerJob][pos], -1, a, pos, t.max_tres_pj[pos], 0, req[pos]);
      }
      if (!tres_per_job_assoc(t.max_tres_pn, out.max_tres_pn, req, req[kTresNode], &pos)) {
        return block(kAssocReasons[kMaxPerNode][pos], -1, a, pos, t.max_tres_pn[pos], 0,
                     req[kTresNode] > 0 ? req[pos] / req[kTresNode] : req[pos]);
      }
    }
    parent = true;
  }
  return {};
}

// _qos_policy_validate: submit counts always; per-job limits only when strict.
LimitBlock Limits::qos_submit(const LimitKey& key, std::int32_t q, LimitTable& out, const TresCounts& req,
                              std::int64_t limit_min, bool strict) const {
  const LimitTable& t = qos_[static_cast<std::size_t>(q)];
  int pos = 0;
  if (strict) {
    if (!tres_per_job(t.max_tres_pa, out.max_tres_pa, req, 0, true, &pos)) {
      return block(kQosReasons[kMaxPerAcct][pos], q, kNoAssoc, pos, t.max_tres_pa[pos], 0, req[pos]);
    }
    TresCounts grp = t.grp_tres;
    if (!tres_per_job(grp, out.grp_tres, req, 0, true, &pos)) {
      return block(kQosReasons[kGrp][pos], q, kNoAssoc, pos, t.grp_tres[pos], 0, req[pos]);
    }
  }
  const UsedLimits& grp_used = qos_used_[static_cast<std::size_t>(q)];
  if (out.grp_submit == kUnlimited && t.grp_submit != kUnlimited) {
    out.grp_submit = t.grp_submit;
    if (grp_used.submit + 1 > t.grp_submit) {
      return block("QOSGrpSubmitJobsLimit", q, kNoAssoc, -1, t.grp_submit, grp_used.submit, 1);
    }
  }
  if (strict) {
    if (!tres_per_job(t.max_tres_pj, out.max_tres_pj, req, 0, true, &pos)) {
      return block(kQosReasons[kMaxPerJob][pos], q, kNoAssoc, pos, t.max_tres_pj[pos], 0, req[pos]);
    }
    if (!tres_per_job(t.max_tres_pn, out.max_tres_pn, req, req[kTresNode], true, &pos)) {
      return block(kQosReasons[kMaxPerNode][pos], q, kNoAssoc, pos, t.max_tres_pn[pos], 0, req[pos]);
    }
    if (!tres_per_job(t.max_tres_pu, out.max_tres_pu, req, 0, true, &pos)) {
      return block(kQosReasons[kMaxPerUser][pos], q, kNoAssoc, pos, t.max_tres_pu[pos], 0, req[pos]);
    }
    if (out.max_wall == kUnlimited && t.max_wall != kUnlimited) {
      out.max_wall = t.max_wall;
      if (limit_min != kUnlimited && limit_min > t.max_wall) {
        return block("QOSMaxWallDurationPerJobLimit", q, kNoAssoc, -1, t.max_wall, 0, limit_min);
      }
    }
  }
  if (out.max_submit_pa == kUnlimited && t.max_submit_pa != kUnlimited) {
    out.max_submit_pa = t.max_submit_pa;
    const UsedLimits& a = qos_account(q, key.account);
    if (a.submit + 1 > t.max_submit_pa) {
      return block("MaxSubmitJobsPerAccount", q, kNoAssoc, -1, t.max_submit_pa, a.submit, 1);
    }
  }
  if (out.max_submit == kUnlimited && t.max_submit != kUnlimited) {
    out.max_submit = t.max_submit;
    const UsedLimits& u = qos_user(q, key.user);
    if (u.submit + 1 > t.max_submit) {
      return block("QOSMaxSubmitJobPerUserLimit", q, kNoAssoc, -1, t.max_submit, u.submit, 1);
    }
  }
  if (strict && !tres_per_job(t.min_tres, out.min_tres, req, 0, false, &pos)) {
    return block(kQosReasons[kMin][pos], q, kNoAssoc, pos, t.min_tres[pos], 0, req[pos]);
  }
  return {};
}

LimitBlock Limits::validate_submit(const LimitKey& key, const TresCounts& req, std::int64_t limit_secs) const {
  if (!active_) return {};
  LimitTable out;
  const std::int64_t limit_min = limit_minutes(limit_secs);
  // Without a QOS Slurm checks strictly; with one, only DenyOnLimit makes it strict.
  bool strict = key.qos1 < 0;
  for (std::int32_t q : {key.qos1, key.qos2}) {
    if (q >= 0 && qos_[static_cast<std::size_t>(q)].deny_on_limit) strict = true;
  }
  for (std::int32_t q : {key.qos1, key.qos2}) {
    if (q < 0) continue;
    if (LimitBlock b = qos_submit(key, q, out, req, limit_min, strict)) return b;
  }
  bool parent = false;
  int pos = 0;
  for (std::uint32_t a = key.assoc; a != kNoAssoc && a < assoc_.size(); a = tree_->assocs[a].parent) {
    const LimitTable& t = assoc_[a];
    const UsedLimits& used = assoc_used_[a];
    if (strict && !tres_per_job_assoc(t.grp_tres, out.grp_tres, req, 0, &pos)) {
      return block(kAssocReasons[kGrp][pos], -1, a, pos, t.grp_tres[pos], 0, req[pos]);
    }
    if (out.grp_submit == kUnlimited && t.grp_submit != kUnlimited && used.submit + 1 > t.grp_submit) {
      return block("AssocGrpSubmitJobsLimit", -1, a, -1, t.grp_submit, used.submit, 1);
    }
    if (strict && out.grp_wall == kUnlimited && t.grp_wall != kUnlimited && limit_min != kUnlimited &&
        limit_min > t.grp_wall) {
      return block("AssocGrpWallLimit", -1, a, -1, t.grp_wall, 0, limit_min);
    }
    if (!parent) {
      if (strict && !tres_per_job_assoc(t.max_tres_pj, out.max_tres_pj, req, 0, &pos)) {
        return block(kAssocReasons[kMaxPerJob][pos], -1, a, pos, t.max_tres_pj[pos], 0, req[pos]);
      }
      if (strict && !tres_per_job_assoc(t.max_tres_pn, out.max_tres_pn, req, req[kTresNode], &pos)) {
        return block(kAssocReasons[kMaxPerNode][pos], -1, a, pos, t.max_tres_pn[pos], 0, req[pos]);
      }
      if (out.max_submit_pa == kUnlimited && out.max_submit == kUnlimited && t.max_submit != kUnlimited &&
          used.submit + 1 > t.max_submit) {
        return block("AssocMaxSubmitJobLimit", -1, a, -1, t.max_submit, used.submit, 1);
      }
      if (strict && out.max_wall == kUnlimited && t.max_wall != kUnlimited && limit_min != kUnlimited &&
          limit_min > t.max_wall) {
        return block("AssocMaxWallDurationPerJobLimit", -1, a, -1, t.max_wall, 0, limit_min);
      }
    }
    parent = true;
  }
  return {};
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
