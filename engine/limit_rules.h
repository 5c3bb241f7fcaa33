#pragma once
// Slurm's acct_policy.c vocabulary shared by the limit tables (limits.cpp) and the checks
// (limit_checks.cpp): the Reason strings by limit kind and TRES, and the TRES comparisons the
// runnable and submit checks are built from. Internal to those two files.
#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>

#include "engine/limits.h"

namespace sa::engine::limit_detail {

// The Reason strings of job_reason_string(), by limit kind and TRES (cpu, mem, node,
// billing, gres), as _get_tres_state_reason() maps them. Slurm's spelling is irregular
// ("AssocGrpCpuLimit" but "AssocGrpBilling", "QOSMaxMemoryPerJob" but "AssocMaxMemPerJob",
// no "QOS" prefix on the per-account ones) and has no node-per-node reason, which falls
// back to the "Unknown" one.
enum Kind { kGrp, kGrpMin, kGrpRunMin, kMaxPerJob, kMaxMinsPerJob, kMaxPerNode, kMaxPerAcct, kMaxPerUser, kMin };

inline const char* const kAssocReasons[][kTresCount] = {
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
inline const char* const kQosReasons[][kTresCount] = {
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

inline TresCounts unlimited() {
  TresCounts t;
  t.fill(kUnlimited);
  return t;
}

inline std::int64_t minutes(const std::optional<std::int64_t>& secs) {
  return secs && *secs >= 0 ? *secs / 60 : kUnlimited;
}
inline std::int64_t count(const std::optional<std::int64_t>& v) { return v && *v >= 0 ? *v : kUnlimited; }

inline bool any_set(const TresCounts& t) {
  return std::any_of(t.begin(), t.end(), [](std::int64_t v) { return v != kUnlimited; });
}

// The job's time limit in minutes as acct_policy sees it (INFINITE stays unlimited).
inline std::int64_t limit_minutes(std::int64_t secs) { return secs < 0 ? kUnlimited : (secs + 59) / 60; }

inline LimitBlock block(const char* reason, std::int32_t qos, std::uint32_t assoc, int tres, std::int64_t limit,
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
inline Usage tres_usage(const TresCounts& limit, TresCounts* imposed, bool impose, const TresCounts& req,
                        const std::array<std::int64_t, kTresCount>* usage,
                        const std::array<std::int64_t, kTresCount>* cur, bool safe, int* pos) {
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
inline bool tres_per_job(const TresCounts& limit, TresCounts& imposed, const TresCounts& req, std::int64_t divisor,
                         bool max, int* pos) {
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
inline bool tres_per_job_assoc(const TresCounts& limit, const TresCounts& qos_imposed, const TresCounts& req,
                               std::int64_t divisor, int* pos) {
  for (int i = 0; i < kTresCount; ++i) {
    *pos = i;
    if (qos_imposed[i] != kUnlimited || limit[i] == kUnlimited || !req[i]) continue;
    const std::int64_t v = divisor > 0 ? req[i] / divisor : req[i];
    if (v > limit[i]) return false;
  }
  return true;
}

inline std::array<std::int64_t, kTresCount> to_minutes(const std::array<double, kTresCount>& secs, double factor) {
  std::array<std::int64_t, kTresCount> m{};
  for (int i = 0; i < kTresCount; ++i) m[i] = static_cast<std::int64_t>(secs[i] / 60.0) * (factor == 0.0 ? 0 : 1);
  return m;
}

}  // namespace sa::engine::limit_detail
