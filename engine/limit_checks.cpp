// The limit checks of acct_policy.c as the scheduler meets them: before node selection
// (job counts and wall limits, _qos_job_runnable_pre_select and the association's), after it
// (TRES, _qos_job_runnable_post_select), and at submission (acct_policy_validate).
#include <algorithm>

#include "analyzer/text_util.h"
#include "engine/limit_rules.h"
#include "engine/limits.h"

namespace sa::engine {

using namespace limit_detail;  // NOLINT(google-build-using-namespace)

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

}  // namespace sa::engine
