#include "engine/preemption.h"

#include <algorithm>

#include "analyzer/text_util.h"

namespace sa::engine {

PreemptPolicy::PreemptPolicy(const Config& config, const QosTable& qos) : config_(config), qos_(qos) {
  const PreemptSettings& ps = config.preempt;
  if (ps.type == "preempt/partition_prio")
    kind_ = Kind::kPartition;
  else if (ps.type == "preempt/qos")
    kind_ = Kind::kQos;
  gang_ = ps.mode.gang;
  within_ = ps.mode.within;
  enabled_ = kind_ != Kind::kNone && (ps.mode.base != PreemptMode::Base::kOff || ps.mode.gang || ps.mode.within);
  const std::size_t n = qos.records.size();
  qos_preempts_.assign(n, std::vector<char>(n, 0));
  qos_mode_.assign(n, PreemptMode::Base::kOff);
  qos_mode_set_.assign(n, 0);
  qos_within_.assign(n, 0);
  qos_priority_.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const QosRecord& q = qos.records[i];
    for (const std::string& name : q.preempt) {
      if (const QosRecord* ee = qos.find(name)) qos_preempts_[i][static_cast<std::size_t>(ee - qos.records.data())] = 1;
    }
    // sacctmgr prints the QOS PreemptMode as "cluster" or a word list ("requeue", "suspend,within").
    for (const std::string& word : split(q.preempt_mode, ',')) {
      const std::string w = to_lower(trim(word));
      if (w == "cancel")
        qos_mode_[i] = PreemptMode::Base::kCancel, qos_mode_set_[i] = 1;
      else if (w == "requeue")
        qos_mode_[i] = PreemptMode::Base::kRequeue, qos_mode_set_[i] = 1;
      else if (w == "suspend")
        qos_mode_[i] = PreemptMode::Base::kSuspend, qos_mode_set_[i] = 1;
      else if (w == "off")
        qos_mode_set_[i] = 1;
      else if (w == "within")
        qos_within_[i] = 1;
      else if (w == "priority" && config.version.at_least(25, 5))
        qos_priority_[i] = 1;
    }
  }
}

PreemptMode::Base PreemptPolicy::mode(std::uint32_t part, std::int32_t qos) const {
  if (kind_ == Kind::kQos) {
    if (qos >= 0 && qos_mode_set_[static_cast<std::size_t>(qos)]) return qos_mode_[static_cast<std::size_t>(qos)];
    return config_.preempt.mode.base;
  }
  const Partition& p = config_.partitions[part];
  if (p.preempt_mode) return p.preempt_mode->base;
  return config_.preempt.mode.base;
}

bool PreemptPolicy::can_preempt(std::uint32_t or_part, std::int32_t or_qos, std::uint32_t or_prio,
                                std::uint32_t ee_part, std::int32_t ee_qos, std::uint32_t ee_prio) const {
  if (!enabled_) return false;
  if (kind_ == Kind::kPartition) {
    const Partition& ee = config_.partitions[ee_part];
    const Partition& orp = config_.partitions[or_part];
    // preempt_p_preemptable. PreemptMode=PRIORITY (25.05, the preemptor partition's or the
    // cluster's; the analyzer reads the word only there): a preemptor of lower job priority
    // may not. A partition's own OFF protects its jobs; an unset mode does not.
    if (((orp.preempt_mode && orp.preempt_mode->priority) || config_.preempt.mode.priority) && or_prio < ee_prio)
      return false;
    if (ee.priority_tier >= orp.priority_tier) return false;
    return !(ee.preempt_mode && ee.preempt_mode->base == PreemptMode::Base::kOff && !ee.preempt_mode->gang);
  }
  if (kind_ == Kind::kQos) {
    if (or_qos < 0 || ee_qos < 0) return false;
    const auto a = static_cast<std::size_t>(or_qos), b = static_cast<std::size_t>(ee_qos);
    if (a == b) return (qos_within_[a] || within_) && or_prio > ee_prio;
    if (qos_preempts_[a][b] == 0) return false;
    // PreemptMode=PRIORITY (25.05) on the preemptor's QOS or the cluster: only a job of
    // higher priority preempts (preempt_qos.c).
    if (qos_priority_[a] || config_.preempt.mode.priority) return or_prio > ee_prio;
    return true;
  }
  return false;
}

std::int64_t PreemptPolicy::grace(std::uint32_t part, std::int32_t qos) const {
  if (kind_ == Kind::kPartition) return config_.partitions[part].grace_time;
  if (kind_ == Kind::kQos && qos >= 0) return qos_.records[static_cast<std::size_t>(qos)].grace_time;
  return 0;
}

std::int64_t PreemptPolicy::exempt_after(std::int32_t qos1, std::int32_t qos2) const {
  for (std::int32_t q : {qos1, qos2}) {
    if (q < 0) continue;
    const auto& t = qos_.records[static_cast<std::size_t>(q)].preempt_exempt_time;
    if (t) return *t;
  }
  return std::max<std::int64_t>(0, config_.preempt.exempt_time);
}

std::uint32_t PreemptPolicy::order_key(std::uint32_t part, std::int32_t qos, std::uint32_t nodes) const {
  std::uint32_t key = 0;
  if (kind_ == Kind::kPartition)
    key = static_cast<std::uint32_t>(config_.partitions[part].priority_tier) << 16;
  else if (qos >= 0)
    key = std::min<std::uint32_t>(qos_.records[static_cast<std::size_t>(qos)].priority, 0xFFFF) << 16;
  return key + std::min<std::uint32_t>(nodes, 0xFFFF);
}

}  // namespace sa::engine
