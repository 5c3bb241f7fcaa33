// The Reason a held queue record shows: its state_reason's name, and for a record a
// partition's access lists deny, the state_desc squeue prints in its place.
#include <fmt/format.h>

#include "analyzer/text_util.h"
#include "engine/simulator.h"

namespace sa::engine {

const char* hold_reason_name(HoldReason h, const SlurmVersion& version) {
  switch (h) {
    case HoldReason::kNone:
      return "";
    case HoldReason::kPartitionTimeLimit:
      return "PartitionTimeLimit";
    case HoldReason::kPartitionNodeLimit:
      return "PartitionNodeLimit";
    case HoldReason::kPartitionDown:
      return "PartitionDown";
    case HoldReason::kQosNotAllowed:
      return "QOSNotAllowed";
    case HoldReason::kAccountNotAllowed:
      return version.at_least(23, 2) ? "PartitionConfig" : "AccountNotAllowed";
    case HoldReason::kGroupNotAllowed:
      return "AccountNotAllowed";  // WAIT_ACCOUNT
    case HoldReason::kBadConstraints:
      return "BadConstraints";
    case HoldReason::kMaxMemPerLimit:
      return "MaxMemPerLimit";  // WAIT_PN_MEM_LIMIT
  }
  return "";
}

// What squeue's %r prints for a record the partition's lists deny: the state_desc select_nodes
// sets, at submission (job_allocate's test) and on every pass, else the Reason's name.
// - QOS list, every release: part_policy_valid_qos's text with the list as configured
//   (partition_mgr.c).
// - Account list: 22.05's part_policy_valid_acct writes its text (the denied_account_backfill
//   capture shows it from the first second); from 23.02 it sets nothing, and the job keeps
//   job_allocate's WAIT_PART_CONFIG (job_mgr.c maps ESLURM_REQUESTED_PART_CONFIG_UNAVAILABLE),
//   as that capture's sacct records it. (Source-read: mini-slurm runs 22.05.)
// - Group list (queued from 23.02 only): select_nodes' text, which prints the uid; the load
//   has the user's name, which stands in for the number.
std::string Simulator::hold_reason_text(const SimJob& job, const SimRecord& rec) const {
  const Partition& part = conf_.partitions[rec.part];
  auto joined = [](const std::vector<std::string>& list) { return join(list, ","); };
  switch (rec.hold_reason) {
    case HoldReason::kQosNotAllowed:
      return part.allow_qos.empty()
                 ? fmt::format("Job's QOS not permitted to use this partition ({} denies {} including {})", part.name,
                               joined(part.deny_qos), job_qos(job, site_))
                 : fmt::format("Job's QOS not permitted to use this partition ({} allows {} not {})", part.name,
                               joined(part.allow_qos), job_qos(job, site_));
    case HoldReason::kAccountNotAllowed:
      if (conf_.version.at_least(23, 2)) return hold_reason_name(rec.hold_reason, conf_.version);
      return part.allow_accounts.empty()
                 ? fmt::format("Job's account not permitted to use this partition ({} denies {} including {})",
                               part.name, joined(part.deny_accounts), job_account(job, site_))
                 : fmt::format("Job's account not permitted to use this partition ({} allows {} not {})", part.name,
                               joined(part.allow_accounts), job_account(job, site_));
    case HoldReason::kGroupNotAllowed:
      return fmt::format("uid {} not in group permitted to use this partition ({}). groups allowed: {}",
                         job.req.user.str(), part.name, joined(part.allow_groups));
    default:
      return hold_reason_name(rec.hold_reason, conf_.version);
  }
}

void Simulator::settle_limit_reasons() {
  if (limit_reason_due_.empty()) return;
  const std::uint16_t shown = reason_id("PartitionConfig");
  for (std::uint32_t j : limit_reason_due_) {
    SimJob& job = jobs_[j];
    if (job.state == JobState::kPending && job.reason == shown && !job.recs.empty())
      set_reason(job, reason_id(hold_reason_text(job, job.recs.front())));
  }
  limit_reason_due_.clear();
}

}  // namespace sa::engine
