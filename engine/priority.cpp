#include "engine/priority.h"

#include <algorithm>
#include <cmath>

namespace sa::engine {

PriorityModel::PriorityModel(const Config& config, const AssocTree* tree, const QosTable& qos)
    : config_(config), s_(config.priority) {
  // Without slurmdbd there is no usage history: slurmctld forces the age and fair-share
  // weights to 0 (and logs an error).
  if (!config.accounting.uses_slurmdbd()) {
    s_.weight_age = 0;
    s_.weight_fairshare = 0;
  }
  // Live maxima over everything configured (assoc_mgr's max priorities, part_max_priority
  // which starts at DEF_PART_MAX_PRIORITY = 1).
  if (tree) {
    for (const Association& a : tree->assocs) {
      if (a.priority && *a.priority != 0xFFFFFFFFU) max_assoc_ = std::max(max_assoc_, static_cast<double>(*a.priority));
    }
  }
  for (const QosRecord& q : qos.records) max_qos_ = std::max(max_qos_, static_cast<double>(q.priority));
  for (const Partition& p : config.partitions)
    max_part_ = std::max(max_part_, static_cast<double>(p.priority_job_factor));
  // Job-size denominators are cluster-wide: every configured node and its CPUs.
  node_count_ = std::max<double>(1, static_cast<double>(config.nodes.size()));
  double cpus = 0;
  for (const Node& n : config.nodes) cpus += n.cpus;
  cluster_cpus_ = std::max(1.0, cpus);
  part_tres_.resize(config.partitions.size());
  for (std::size_t p = 0; p < config.partitions.size(); ++p) {
    for (const TresWeight& w : s_.weight_tres) {
      double total = 0;
      for (std::uint32_t i : config.partitions[p].nodes)
        total += static_cast<double>(config.nodes[i].tres_count(w.tres));
      part_tres_[p].push_back(total);
    }
  }
}

PriorityFactors PriorityModel::factors(const PriorityInput& in, std::int64_t now) const {
  PriorityFactors f;
  const PriorityFlags& fl = s_.flags;
  if (s_.weight_age && in.accrue_time != kNoTime && s_.max_age > 0) {
    const std::int64_t diff = std::max<std::int64_t>(0, now - in.accrue_time);
    f.age = diff < s_.max_age ? static_cast<double>(diff) / static_cast<double>(s_.max_age) : 1.0;
  }
  if (in.assoc_priority) {
    if (fl.no_normal_assoc)
      f.assoc = in.assoc_priority;
    else if (max_assoc_ > 0)
      f.assoc = in.assoc_priority / max_assoc_;
  }
  f.fairshare = in.fairshare;
  if (s_.weight_job_size) {
    const double min_nodes = in.min_nodes;
    const double cpu_cnt = in.cpus;
    double js = 0;
    if (fl.small_relative_to_time) {
      js = std::max(min_nodes * cluster_cpus_ / node_count_, cpu_cnt);
      std::int64_t limit = in.time_limit;
      if (limit <= 0) {
        const std::int64_t max_time = config_.partitions[in.partition].max_time;
        limit = max_time < 0 ? 0xFFFFFFFFLL * 60 : max_time;  // INFINITE is 0xFFFFFFFF minutes
      }
      const std::int64_t whole_minutes = limit / 60;  // Slurm keeps time limits in whole minutes
      const double minutes = static_cast<double>(whole_minutes);
      js = minutes > 0 ? js / minutes : js;
      js /= cluster_cpus_;
      if (s_.favor_small) js = 1.0 - js;
    } else if (s_.favor_small) {
      js = node_count_ > min_nodes ? (node_count_ - min_nodes) / node_count_ : 0.0;
      if (cpu_cnt != 0) {
        // Slurm subtracts in uint32: more CPUs than the cluster wraps, and the clamp gives 1.
        const double free_cpus =
            cpu_cnt > cluster_cpus_ ? 4294967296.0 - (cpu_cnt - cluster_cpus_) : cluster_cpus_ - cpu_cnt;
        js = (js + free_cpus / cluster_cpus_) / 2.0;
      }
    } else {
      js = min_nodes / node_count_;
      if (cpu_cnt != 0) js = (js + cpu_cnt / cluster_cpus_) / 2.0;
    }
    f.job_size = std::clamp(js, 0.0, 1.0);
  }
  const Partition& part = config_.partitions[in.partition];
  if (part.priority_job_factor && s_.weight_partition) {
    f.partition = fl.no_normal_part ? part.priority_job_factor : part.priority_job_factor / max_part_;
  }
  if (in.qos_priority && s_.weight_qos) {
    if (fl.no_normal_qos)
      f.qos = in.qos_priority;
    else if (max_qos_ > 0)
      f.qos = in.qos_priority / max_qos_;
  }
  f.tres.assign(s_.weight_tres.size(), 0.0);
  for (std::size_t t = 0; t < s_.weight_tres.size() && t < in.tres_counts.size(); ++t) {
    const double total = part_tres_[in.partition][t];
    if (fl.no_normal_tres)
      f.tres[t] = in.tres_counts[t];
    else if (total > 0)
      f.tres[t] = in.tres_counts[t] / total;
  }
  f.site = in.site;
  f.nice = in.nice;
  return f;
}

std::uint32_t PriorityModel::priority(const PriorityFactors& f) const {
  double p = s_.weight_age * f.age + s_.weight_assoc * f.assoc + s_.weight_fairshare * f.fairshare +
             s_.weight_job_size * f.job_size + s_.weight_partition * f.partition + s_.weight_qos * f.qos;
  for (std::size_t t = 0; t < f.tres.size(); ++t) p += s_.weight_tres[t].weight * f.tres[t];
  p += static_cast<double>(f.site) - static_cast<double>(f.nice);
  if (p < 1) p = 1;  // 0 means held
  const double truncated = std::trunc(p);
  if (truncated > 4294967295.0) return 0xFFFFFFFFU;
  return static_cast<std::uint32_t>(truncated);
}

}  // namespace sa::engine
