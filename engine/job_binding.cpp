// Binding a recorded or generated job to the site as _job_create and job_allocate do at
// submission: partitions (with the trace's names mapped), association, QOS, reservation,
// one queue record per partition with its defaults and limits, and the refusals sbatch
// would print (slurm_errno.c) for what slurmctld rejects outright.
#include <algorithm>
#include <iterator>

#include <fmt/format.h>

#include "analyzer/partition_access.h"
#include "analyzer/text_util.h"
#include "analyzer/values.h"
#include "engine/max_memory.h"
#include "engine/simulator.h"

namespace sa::engine {

namespace {

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

// A partition's AllowQos/DenyQos, AllowAccounts/DenyAccounts or AllowGroups refused the job
// (not RootOnly, DRAIN/INACTIVE or its shape): what EnforcePartLimits decides about.
bool access_list_error(const char* error) {
  return error == kInvalidAccount || error == kInvalidQos || error == kGroupDenied;
}

bool listed(const std::vector<std::string>& list, const std::string& name) {
  for (const std::string& item : list) {
    if (iequals(item, name) || iequals(item, "ALL")) return true;
  }
  return false;
}

// Why no usable node of the partition can ever hold the job (sbatch refuses it). It says the
// memory when it is counted: a default above a node's memory per CPU is the usual cause
// (CONF102), and "cannot hold 16 CPUs" alone would read as a size problem.
std::string never_fits(const Demand& d, const Partition& part, std::size_t usable) {
  std::string mem;
  if (d.mem_tracked && d.mem_per_cpu)
    mem = fmt::format(" with {} MB each{}", d.mem_per_cpu, d.whole_nodes ? " (every CPU of a whole node)" : "");
  else if (d.mem_tracked && d.mem_per_node)
    mem = fmt::format(" with {} MB a node", d.mem_per_node);
  return fmt::format("partition {} cannot hold {} CPUs{}{}{} on {} usable nodes", part.name, d.cpus,
                     d.min_nodes > 1 ? fmt::format(" over {} nodes", d.min_nodes) : "", mem,
                     d.gpus ? fmt::format(" and {} GPUs", d.gpus) : "", usable);
}

// The partition limit that holds the record (job_limits_check), if any. The job's QOS `jq`
// may lift one (_part_access_check: PartitionTimeLimit, PartitionMaxNodes, PartitionMinNodes
// flags).
HoldReason partition_hold(const Partition& part, const SimRecord& rec, const QosRecord* jq, bool mem_within) {
  auto lifted = [jq](const char* flag) { return jq && jq->has_flag(flag); };
  const Demand& d = rec.demand;
  if (part.max_time >= 0 && rec.time_limit > part.max_time && !lifted("PartitionTimeLimit"))
    return HoldReason::kPartitionTimeLimit;
  if (rec.time_limit < 0 && part.max_time >= 0 && !lifted("PartitionTimeLimit")) return HoldReason::kPartitionTimeLimit;
  if (part.max_nodes != 0xFFFFFFFFU && d.min_nodes > part.max_nodes && !lifted("PartitionMaxNodes"))
    return HoldReason::kPartitionNodeLimit;
  if (d.min_nodes < part.min_nodes && !lifted("PartitionMinNodes")) return HoldReason::kPartitionNodeLimit;
  if (part.state == PartitionState::kDown) return HoldReason::kPartitionDown;
  if (!mem_within) return HoldReason::kMaxMemPerLimit;
  return HoldReason::kNone;
}

}  // namespace

void Simulator::bind(const Workload& workload, bool replay_dependencies, std::vector<JobRequest>* take) {
  // Mapping trace names onto the site is counted (SimCounters::mapped_*), not diagnosed
  // per job: a trace from another machine maps every job.
  jobs_.reserve(workload.jobs.size());
  if (take)
    bind_taken(std::move(*take));
  else
    for (const JobRequest& r : workload.jobs) bind_one(JobRequest(r));
  if (replay_dependencies) bind_dependencies();
  arrays_.bind(jobs_);
}

void Simulator::bind_one(JobRequest&& request) {
  SimJob j;
  j.req = std::move(request);
  bind_job(j);
  jobs_.push_back(std::move(j));
}

void Simulator::bind_taken(std::vector<JobRequest> requests) {
  // A moved-from request still holds its place in the vector's storage, so the requests and
  // the jobs made from them would both be whole at the end of binding: the run's peak. The
  // rest is moved to a smaller vector after every eighth, which gives the storage back.
  const std::size_t step = std::max<std::size_t>(requests.size() / 8, 4096);
  std::size_t next = 0;
  while (next < requests.size()) {
    bind_one(std::move(requests[next++]));
    if (next == step && next < requests.size()) {
      requests = std::vector<JobRequest>(std::make_move_iterator(requests.begin() + static_cast<std::ptrdiff_t>(next)),
                                         std::make_move_iterator(requests.end()));
      next = 0;
    }
  }
}

void Simulator::refuse(SimJob& job, const char* error, const std::string& detail) {
  job.state = JobState::kRejected;
  job.rare.edit().reject_error = error;
  job.rare.edit().reject_reason = detail.empty() ? std::string(error) : fmt::format("{}: {}", error, detail);
}

std::string Simulator::refusal(const JobRequest& request) {
  SimJob job;
  job.req = request;
  bind_job(job);
  if (job.state != JobState::kRejected && limits_.active()) refuse_over_submit_limits(job);
  if (job.state == JobState::kRejected) return job.rare.get().reject_reason.str();
  // Accepted while held, but no node set can take it: it would pend for ever.
  if (job.never_runs() && job.recs.front().hold_reason == HoldReason::kBadConstraints)
    return "accepted while held but never runnable: no node set meets its request";
  // Accepted, but every partition denies it (EnforcePartLimits=NO): it would pend for ever.
  if (job.never_runs()) {
    std::string why;
    access_refusal(
        conf_.partitions[job.recs.front().part], request, job.assoc, job_account(job, site_),
        job.qos < 0 ? std::string(request.qos.str()) : site_.qos.records[static_cast<std::size_t>(job.qos)].name, why);
    return std::string(kQueuedForEver) + why;
  }
  return {};
}

bool Simulator::refuse_over_submit_limits(SimJob& job) {
  // acct_policy_validate runs against every partition the job names; one failure refuses
  // the submission ("Job violates accounting/QOS policy").
  for (const SimRecord& rec : job.recs) {
    if (const LimitBlock b = limits_.validate_submit(limit_key(job, rec), rec.tres, rec.time_limit)) {
      refuse(job, kAccountingPolicy, fmt::format("{}: {}", b.reason, describe_block(b)));
      return true;
    }
  }
  return false;
}

std::vector<std::uint32_t> Simulator::job_partitions(const JobRequest& r) {
  // By name, through the trace map, else the default partition.
  std::vector<std::uint32_t> parts;
  auto index_of = [&](const Partition* p) { return static_cast<std::uint32_t>(p - conf_.partitions.data()); };
  for (const std::string& name : r.partitions) {
    const Partition* p = conf_.find_partition(name);
    if (!p) {
      auto it = opt_.partition_map.find(name);
      if (it != opt_.partition_map.end()) p = conf_.find_partition(it->second);
      if (!p) p = conf_.default_partition();
      counts_.mapped(MappedName::kPartition);
    }
    if (p && std::find(parts.begin(), parts.end(), index_of(p)) == parts.end()) parts.push_back(index_of(p));
  }
  if (r.partitions.empty()) {
    if (const Partition* p = conf_.default_partition()) parts.push_back(index_of(p));
  }
  // part_ptr_list is kept in PriorityTier order, highest first.
  std::stable_sort(parts.begin(), parts.end(), [&](std::uint32_t a, std::uint32_t b) {
    return conf_.partitions[a].priority_tier > conf_.partitions[b].priority_tier;
  });
  return parts;
}

void Simulator::bind_association(SimJob& job) {
  // Exact (user, account), the user's first association, or a stable hash onto the tree's
  // users when the trace's users are not in it.
  const AssocTree* tree = site_.tree;
  if (!tree) return;
  const JobRequest& r = job.req;
  std::uint32_t id = kNoAssoc;
  if (!r.account.empty()) id = tree->find_user(r.user, r.account);
  if (id == kNoAssoc) {
    for (const Association& a : tree->assocs) {
      if (a.is_user() && a.user == r.user && (r.account.empty() || a.default_account == a.account)) {
        id = a.id;
        break;
      }
    }
  }
  if (id == kNoAssoc && !tree_users_.empty()) {
    id = tree_users_[fnv1a(r.user + "/" + r.account) % tree_users_.size()];
    counts_.mapped(MappedName::kUser);
  }
  job.assoc = id;
}

std::string Simulator::bind_qos(SimJob& job) {
  std::string qos_name = job.req.qos;
  if (qos_name.empty() && job.assoc != kNoAssoc) qos_name = site_.tree->assocs[job.assoc].default_qos;
  if (qos_name.empty()) qos_name = "normal";
  const QosRecord* q = site_.qos.find(qos_name);
  if (!q) {
    q = site_.qos.find("normal");
    counts_.mapped(MappedName::kQos);
  }
  job.qos = q ? static_cast<std::int32_t>(q - site_.qos.records.data()) : -1;
  return q ? q->name : qos_name;
}

void Simulator::bind_job(SimJob& job) {
  const JobRequest& r = job.req;
  job.begin = std::max(r.submit, r.eligible == kNoTime ? r.submit : r.eligible);
  const std::vector<std::uint32_t> parts = job_partitions(r);
  if (parts.empty()) {
    refuse(job, kNoDefaultPartition, "none named and no Default=YES partition");
    return;
  }
  if (!r.licenses.empty() && !licenses_valid(r.licenses.vec(), conf_.licenses)) {
    refuse(job, kInvalidLicense, fmt::format("--licenses for {} not configured (Licenses=)", r.licenses.front().name));
    return;
  }
  bind_association(job);
  const std::string qos_used = bind_qos(job);
  const std::string& account = job_account(job, site_);
  job.user_id = limits_.user_id(r.user);
  job.account_id = limits_.account_id(account);
  // AccountingStorageEnforce=qos: the QOS must be one of the association's (_job_create's
  // valid_qos check); an association without a QOS list is not checked.
  if (job.assoc != kNoAssoc && conf_.accounting.enforces("qos")) {
    const std::vector<std::string>& allowed_qos = site_.tree->assocs[job.assoc].qos;
    if (!allowed_qos.empty() && !listed(allowed_qos, qos_used)) {
      refuse(job, kInvalidQos,
             fmt::format("QOS {} is not in the QOS list of user {} in account {}", qos_used, r.user, account));
      return;
    }
  }
  if (!r.reservation.empty()) {
    job.resv = resv_ ? resv_->find(r.reservation) : -1;
    if (job.resv < 0) {
      refuse(job, kReservationInvalid, r.reservation);
      return;
    }
    if (!resv_->may_use(job.resv, r.user, account)) {
      refuse(job, kReservationAccess, r.reservation);
      return;
    }
  }
  // One record per partition, with the partition's defaults and limit checks. The refusal
  // kept is the last partition's, as job_mgr.c's _valid_job_part reports the last failure.
  Refusal last;
  std::string limit_reason;
  bool access_failed = false;
  for (std::uint32_t p : parts) {
    if (std::optional<SimRecord> rec = make_record(job, p, account, qos_used, last)) {
      if (rec->hold_reason != HoldReason::kNone && rec->hold_reason != HoldReason::kPartitionDown &&
          !never_runs(rec->hold_reason))
        limit_reason = hold_reason_name(rec->hold_reason, conf_.version);
      job.recs.push_back(std::move(*rec));
    } else {
      access_failed = access_failed || access_list_error(last.error);
    }
  }
  // EnforcePartLimits=ALL: one partition the job may not use refuses it (_valid_job_part
  // breaks on the first failure); ANY and NO keep the partitions it may use.
  if (access_failed && iequals(conf_.enforce_part_limits, "ALL")) {
    refuse(job, last.error, last.reason);
    return;
  }
  if (job.recs.empty()) {
    refuse(job, last.error ? last.error : kNodeConfigUnavailable,
           last.reason.empty() ? "no usable partition" : last.reason);
    return;
  }
  enforce_part_limits(job, limit_reason);
}

bool Simulator::queued_despite(const char* error) const {
  // _part_access_check runs the account and QOS lists, and from 23.02 the group list, only
  // under EnforcePartLimits; with NO (the default) _valid_job_part accepts the job, and
  // select_nodes refuses it on every pass (node_scheduler.c): it pends for ever. RootOnly
  // (ACCESS_DENIED), 22.05's group check and DRAIN/INACTIVE still refuse it at submission.
  if (!iequals(conf_.enforce_part_limits, "NO") || !access_list_error(error)) return false;
  return error != kGroupDenied || conf_.version.at_least(23, 2);
}

const char* Simulator::access_refusal(const Partition& part, const JobRequest& r, std::uint32_t assoc,
                                      const std::string& account, const std::string& qos_used,
                                      std::string& reason) const {
  // _part_access_check, in its order: RootOnly, the group list, then accounts and QOS
  // (_valid_job_part_acct/_qos; the account lists as the configured release reads them,
  // analyzer/partition_access.h), then whether the partition takes submissions at all.
  if (part.root_only && r.user != "root") {
    reason = fmt::format("partition {} is RootOnly", part.name);
    return kAccessDenied;
  }
  if (!part.allow_groups.empty() && !listed(part.allow_groups, "ALL") && !r.group.empty() &&
      !listed(part.allow_groups, r.group)) {
    reason = fmt::format("group {} is not in partition {}'s AllowGroups", r.group, part.name);
    return kGroupDenied;
  }
  if (!account_admitted(conf_, part, site_.tree, assoc, account)) {
    reason = fmt::format("account {} may not use partition {}", account, part.name);
    return kInvalidAccount;
  }
  if ((!part.allow_qos.empty() && !listed(part.allow_qos, qos_used)) ||
      (!part.deny_qos.empty() && listed(part.deny_qos, qos_used))) {
    reason = fmt::format("QOS {} may not use partition {}", qos_used, part.name);
    return kInvalidQos;
  }
  // DRAIN and INACTIVE partitions take no new jobs; DOWN ones queue them (PartitionDown).
  if (part.state == PartitionState::kInactive || part.state == PartitionState::kDrain) {
    reason = fmt::format("partition {} is {}", part.name, part.state == PartitionState::kDrain ? "DRAIN" : "INACTIVE");
    return kPartitionNotAvail;
  }
  return nullptr;
}

// job_allocate's select_nodes returns ESLURM_JOB_HELD for a held job before its node tests, so
// a held job they would refuse is accepted, on the partition's nodes; it never runs.
std::optional<SimRecord> Simulator::held_bad_constraints(const JobRequest& r, SimRecord& rec,
                                                         const Refusal& refusal) const {
  if (!refusal.at_select || !r.hold) return std::nullopt;
  rec.nodes = -1;
  rec.alternatives.clear();
  rec.hold_reason = HoldReason::kBadConstraints;
  return std::move(rec);
}

std::optional<SimRecord> Simulator::make_record(const SimJob& job, std::uint32_t p, const std::string& account,
                                                const std::string& qos_used, Refusal& refusal) {
  const JobRequest& r = job.req;
  const Partition& part = conf_.partitions[p];
  std::string reason;
  HoldReason access_hold = HoldReason::kNone;
  if (const char* error = access_refusal(part, r, job.assoc, account, qos_used, reason)) {
    refusal = Refusal{error, std::move(reason)};
    if (!queued_despite(error)) return std::nullopt;
    access_hold = error == kInvalidQos    ? HoldReason::kQosNotAllowed
                  : error == kGroupDenied ? HoldReason::kGroupNotAllowed
                                          : HoldReason::kAccountNotAllowed;
  }
  SimRecord rec;
  rec.part = p;
  // acct_policy_set_qos_order: the partition QOS rules unless the job QOS has OverPartQOS.
  const QosRecord* pq = part.qos.empty() ? nullptr : site_.qos.find(part.qos);
  const std::int32_t part_qos = pq ? static_cast<std::int32_t>(pq - site_.qos.records.data()) : -1;
  if (part_qos >= 0 && job.qos >= 0 && part_qos != job.qos) {
    const bool over = limits_.qos_table(job.qos).over_part_qos;
    rec.qos1 = over ? job.qos : part_qos;
    rec.qos2 = over ? part_qos : job.qos;
  } else {
    rec.qos1 = job.qos >= 0 ? job.qos : part_qos;
  }
  rec.time_limit = record_time_limit(job, rec, part);
  rec.demand = record_demand(r, part);
  const NodeChoice* choice = node_choice(job, p, refusal);
  if (!choice) return held_bad_constraints(r, rec, refusal);
  rec.nodes = choice->nodes;
  rec.alternatives = choice->alternatives;
  Demand& d = rec.demand;
  d.min_nodes = std::max({d.min_nodes, choice->required_count, choice->min_nodes});
  if (d.max_nodes && d.max_nodes < d.min_nodes) d.max_nodes = d.min_nodes;
  // --gpus-per-node counts on the final node count (-w and counted features raise it).
  if (r.gpus == 0 && r.extra.get().gpus_per_node > 0) {
    d.gpus = r.extra.get().gpus_per_node * d.min_nodes;
    d.gpus_per_node = static_cast<std::uint16_t>(std::min<std::uint32_t>(r.extra.get().gpus_per_node, 0xFFFF));
  }
  if (choice->required >= 0) d.required = &node_sets_[static_cast<std::size_t>(choice->required)];
  if (!choice->counted.empty()) d.counted = &choice->counted;
  // The request as submitted is what ReqTRES shows (the max_mem capture: cpu=2,mem=10000M for
  // -n 2 --mem-per-cpu=5000 that ran on 6 CPUs); the memory maximum then shapes what it takes.
  rec.tres = request_tres(d, part);
  const bool mem_within = apply_max_memory(conf_, part, r, d);
  NodeBitset allowed = record_nodes(rec);
  allowed &= pool_.usable();
  if (!pool_.could_ever_fit(d, allowed)) {
    refusal = Refusal{kNodeConfigUnavailable, never_fits(d, part, allowed.count()), true};
    return held_bad_constraints(r, rec, refusal);
  }
  const QosRecord* jq = job.qos >= 0 ? &site_.qos.records[static_cast<std::size_t>(job.qos)] : nullptr;
  rec.hold_reason = partition_hold(part, rec, jq, mem_within);
  // A denied job that EnforcePartLimits=NO let in shows select_nodes' Reason, checked there
  // before the partition's limits.
  if (access_hold != HoldReason::kNone) rec.hold_reason = access_hold;
  return rec;
}

std::int64_t Simulator::record_time_limit(const SimJob& job, const SimRecord& rec, const Partition& part) const {
  // A job without a time limit: under enforced limits acct_policy gives it the first
  // MaxWall that applies (QOS in precedence order, then the association's) before the
  // partition's DefaultTime or MaxTime (_set_time_limit).
  const JobRequest& r = job.req;
  if (r.time_limit > 0) return r.time_limit;
  const std::int64_t max_wall = limits_.default_wall(limit_key(job, rec));
  if (max_wall != kUnlimited) return max_wall * 60;
  if (part.default_time_set && part.default_time != kInfiniteTime) return part.default_time;
  return part.max_time;  // -1: infinite
}

Demand Simulator::record_demand(const JobRequest& r, const Partition& part) const {
  Demand d;
  d.cpus = std::max<std::uint32_t>(1, r.cpus);
  d.min_nodes = std::max<std::uint32_t>(1, r.nodes);
  d.gpus = r.gpus;
  d.whole_nodes =
      r.exclusive || part.oversubscribe.mode == OverSubscribe::Mode::kExclusive || conf_.select.type == "select/linear";
  d.max_cpus_per_node = static_cast<std::uint16_t>(std::min<std::uint32_t>(part.max_cpus_per_node, 0xFFFF));
  d.cpus_per_node = static_cast<std::uint16_t>(std::min<std::uint32_t>(r.cpus_per_node, 0xFFFF));
  // -c without --ntasks-per-node: every node the job takes holds one task or more (capacity).
  if (const std::uint32_t cpt = r.extra.get().cpus_per_task; d.cpus_per_node == 0 && cpt > 1) {
    d.cpus_per_node = static_cast<std::uint16_t>(std::min<std::uint32_t>(cpt, 0xFFFF));
    d.task_cpus = true;
  }
  d.least_loaded = part.lln || std::any_of(conf_.select.flags.begin(), conf_.select.flags.end(),
                                           [](const std::string& f) { return iequals(f, "CR_LLN"); });
  d.max_nodes = r.extra.get().max_nodes;  // squared with min_nodes once the record's nodes are known
  // _eval_nodes: pack_serial_at_end takes a job of min_cpus 1 on one node (req_nodes 1) to
  // _eval_nodes_serial (cons_tres only; select/linear places whole nodes its own way). req_nodes
  // is -N's maximum when one is given; -N 1-2 -n 1 has 1 by then (sbatch lowers it to -n).
  d.serial_at_end = conf_.scheduler.pack_serial_at_end && conf_.select.type == "select/cons_tres" && d.cpus == 1 &&
                    d.min_nodes == 1 && r.extra.get().max_nodes <= 1;
  // cons_common _setup_cr_type: a partition's own SelectTypeParameters replace the cluster's
  // CR_Core/CR_Socket and CR_Memory bits for its jobs, only when the cluster's are CR_Core or
  // CR_Socket (else slurmctld logs that it cannot use them). CR_Core under a cluster's
  // CR_Core_Memory thus makes the partition's jobs take no memory from their nodes. (Gang's
  // sharing rows keep the cluster's units.)
  d.mem_tracked = conf_.memory_counted(part);
  if (part.select_own && conf_.partition_select_allowed())
    d.alt_unit = part.select_socket != (conf_.select.resource == SelectSettings::Resource::kSocket);
  if (r.mem_set) {
    if (r.mem_mb == 0)
      d.mem_whole_node = true;
    else if (r.mem_per_cpu)
      d.mem_per_cpu = r.mem_mb;
    else
      d.mem_per_node = r.mem_mb;
  } else if (part.def_mem_per_cpu) {
    d.mem_per_cpu = part.def_mem_per_cpu;
  } else if (part.def_mem_per_node) {
    d.mem_per_node = part.def_mem_per_node;
  } else if (conf_.select.def_mem_per_cpu) {
    d.mem_per_cpu = conf_.select.def_mem_per_cpu;
  } else if (conf_.select.def_mem_per_cpu_zero) {
    // DefMemPerCPU=0: 0 MB a CPU (a real 22.05 runs such jobs side by side, Mem=0 each:
    // tests/golden/mini_slurm_fidelity/default_memory_zero); nothing bounds what they use.
    d.mem_unknown = true;
  } else if (conf_.select.def_mem_per_node) {
    d.mem_per_node = conf_.select.def_mem_per_node;
  } else {
    // No default anywhere: the job is given each node's whole memory, which keeps other
    // jobs off its nodes when memory is consumable (and is unbounded when it is not).
    d.mem_whole_node = true;
    d.mem_unknown = true;
  }
  apply_gpu_defaults(r, part, d);
  return d;
}

void Simulator::apply_gpu_defaults(const JobRequest& r, const Partition& part, Demand& d) const {
  // cons_common _set_gpu_defaults, when a job asks for GPUs: each GPU it takes on a node
  // brings CPUs (--cpus-per-gpu; DefCPUPerGPU when -c was not given) and, when the job named
  // no memory, memory (--mem-per-gpu; DefMemPerGPU), replacing DefMemPerCPU's there
  // (_verify_node_state clears pn_min_memory; gres_select_util_job_mem_set). A real 22.05:
  // tests/golden/mini_slurm_fidelity/gpu_defaults. The docs call DefMemPerGPU and DefMemPerCPU
  // mutually exclusive; slurmctld takes both, each for its own jobs, and so does this.
  const RequestExtras& x = r.extra.get();
  if ((r.gpus == 0 && x.gpus_per_node == 0) || conf_.select.type != "select/cons_tres") return;
  d.gpu_weight = true;
  std::uint64_t cpg = x.cpus_per_gpu;
  if (cpg == 0 && x.cpus_per_task == 0) cpg = conf_.cpus_per_gpu_default(part);
  d.cpus_per_gpu = static_cast<std::uint16_t>(std::min<std::uint64_t>(cpg, 0xFFFF));
  d.gpu_rules = d.cpus_per_gpu > 0;
  const std::uint64_t mpg = x.mem_per_gpu ? x.mem_per_gpu : conf_.mem_per_gpu_default(part);
  if (mpg == 0) return;
  d.gpu_rules = true;
  // A job that named its memory keeps it, yet a node still gives it a GPU only where that GPU's
  // default memory is free (the capture's job 5: --mem=1000 waited while n1 had 18000 MB).
  d.mem_per_gpu = static_cast<std::uint32_t>(std::min<std::uint64_t>(mpg, 0xFFFFFFFF));
  if (r.mem_set) return;
  d.gpu_mem_alloc = true;
  if (x.mem_per_gpu) {
    // --mem-per-gpu is known at submission, so the job's memory there is its GPUs' (job_mgr.c
    // job_get_tres_mem: ReqMem 2000M for --mem-per-gpu=2000 and one GPU): what priority and
    // limits read. (DefMemPerGPU is applied only when nodes are chosen.)
    const std::uint64_t per_node = x.gpus_per_node ? x.gpus_per_node : r.gpus;
    d.mem_per_cpu = 0;
    d.mem_per_node = mpg * per_node;
  }
  d.mem_whole_node = false;
  d.mem_unknown = false;
}

void Simulator::enforce_part_limits(SimJob& job, const std::string& limit_reason) {
  // EnforcePartLimits: ALL rejects when any partition's limits fail, ANY when all do; NO
  // leaves the job pending with the partition's Reason.
  const std::string& enforce = conf_.enforce_part_limits;
  std::size_t held = 0;
  for (const SimRecord& rec : job.recs)
    held += rec.hold_reason != HoldReason::kNone && rec.hold_reason != HoldReason::kPartitionDown &&
            !never_runs(rec.hold_reason);
  if ((iequals(enforce, "ALL") && held > 0) ||
      ((iequals(enforce, "ANY") || iequals(enforce, "YES")) && held == job.recs.size())) {
    // job_limits_check's failure becomes the submission's error (_job_create).
    // A memory the job named above MaxMemPerNode fails earlier, in _validate_min_mem_partition
    // (the max_mem capture: "Memory required by task is not available"); a default one only
    // in job_limits_check.
    const char* error = limit_reason == "PartitionTimeLimit"                  ? kInvalidTimeLimit
                        : limit_reason == "PartitionNodeLimit"                ? kInvalidNodeCount
                        : limit_reason == "MaxMemPerLimit" && job.req.mem_set ? kInvalidTaskMemory
                                                                              : kPartConfigUnavailable;
    refuse(job, error, fmt::format("EnforcePartLimits={}: {}", enforce, limit_reason));
    job.recs.clear();
  }
}

}  // namespace sa::engine
