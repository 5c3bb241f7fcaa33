#include "report/model_json.h"

#include "analyzer/values.h"

namespace sa::report {

using nlohmann::json;

namespace {

json time_or_null(std::int64_t seconds) { return seconds == kInfiniteTime ? json(nullptr) : json(seconds); }
json u32_or_null(std::uint32_t value) { return value == kInfinite32 ? json(nullptr) : json(value); }

json tres_json(const std::vector<TresWeight>& weights) {
  json j = json::object();
  for (const TresWeight& w : weights) j[w.tres] = w.weight;
  return j;
}

json node_json(const Node& n) {
  json gres = json::array();
  for (const GresSpec& g : n.gres) {
    gres.push_back({{"Name", g.name}, {"Type", g.type}, {"Count", g.count}, {"NoConsume", g.no_consume}});
  }
  return {{"NodeName", n.name},
          {"CPUs", n.cpus},
          {"Boards", n.boards},
          {"Sockets", n.sockets},
          {"CoresPerSocket", n.cores_per_socket},
          {"ThreadsPerCore", n.threads_per_core},
          {"RealMemory", n.real_memory_mb},
          {"MemSpecLimit", n.mem_spec_limit_mb},
          {"TmpDisk", n.tmp_disk_mb},
          {"Weight", n.weight},
          {"CoreSpecCount", n.core_spec_count},
          {"Features", n.features},
          {"Gres", gres},
          {"State", node_state_string(n.state)},
          {"Reason", n.reason}};
}

// The names of `ids`, at most `max_names` of them: `model` on `n[000-999][000-999]` must
// not print a million names per partition.
json name_list(const std::vector<std::uint32_t>& ids, const Config& config, std::size_t max_names) {
  json names = json::array();
  for (std::size_t k = 0; k < ids.size() && k < max_names; ++k) names.push_back(config.nodes[ids[k]].name);
  return names;
}

json partition_json(const Partition& p, const Config& config, std::size_t max_names) {
  json nodes = name_list(p.nodes, config, max_names);
  json j = {{"PartitionName", p.name},
            {"Nodes", nodes},
            {"NodesExpression", p.nodes_expr},
            {"Default", p.is_default},
            {"Hidden", p.hidden},
            {"State", partition_state_string(p.state)},
            {"MaxTime", time_or_null(p.max_time)},
            {"DefaultTime", p.default_time_set ? time_or_null(p.default_time) : time_or_null(p.max_time)},
            {"MaxNodes", u32_or_null(p.max_nodes)},
            {"MinNodes", p.min_nodes},
            {"MaxCPUsPerNode", u32_or_null(p.max_cpus_per_node)},
            {"PriorityTier", p.priority_tier},
            {"PriorityJobFactor", p.priority_job_factor},
            {"OverSubscribe", oversubscribe_string(p.oversubscribe)},
            {"PreemptMode", p.preempt_mode ? json(preempt_mode_string(*p.preempt_mode)) : json(nullptr)},
            {"GraceTime", p.grace_time},
            {"AllowAccounts", p.allow_accounts},
            {"DenyAccounts", p.deny_accounts},
            {"AllowQos", p.allow_qos},
            {"DenyQos", p.deny_qos},
            {"AllowGroups", p.allow_groups},
            {"QOS", p.qos},
            {"TRESBillingWeights", tres_json(p.tres_billing_weights)},
            {"DefMemPerCPU", p.def_mem_per_cpu},
            {"DefMemPerNode", p.def_mem_per_node},
            {"MaxMemPerCPU", p.max_mem_per_cpu},
            {"MaxMemPerNode", p.max_mem_per_node},
            {"ExclusiveUser", p.exclusive_user},
            {"LLN", p.lln},
            {"RootOnly", p.root_only},
            {"ReqResv", p.req_resv},
            {"OverTimeLimit", p.over_time_limit ? json(*p.over_time_limit) : json(nullptr)}};
  j["Written"] = p.raw;
  if (p.nodes.size() > max_names) j["NodesOmitted"] = p.nodes.size() - max_names;
  return j;
}

json priority_json(const PrioritySettings& p) {
  const PriorityFlags& f = p.flags;
  json flags = json::array();
  auto flag = [&](bool on, const char* name) {
    if (on) flags.push_back(name);
  };
  flag(f.fair_tree, "FAIR_TREE");
  flag(f.depth_oblivious, "DEPTH_OBLIVIOUS");
  flag(f.accrue_always, "ACCRUE_ALWAYS");
  flag(f.small_relative_to_time, "SMALL_RELATIVE_TO_TIME");
  flag(f.calculate_running, "CALCULATE_RUNNING");
  flag(f.incr_only, "INCR_ONLY");
  flag(f.max_tres, "MAX_TRES");
  flag(f.max_tres_gres, "MAX_TRES_GRES");
  flag(f.no_normal_assoc, "NO_NORMAL_ASSOC");
  flag(f.no_normal_part, "NO_NORMAL_PART");
  flag(f.no_normal_qos, "NO_NORMAL_QOS");
  flag(f.no_normal_tres, "NO_NORMAL_TRES");
  static const char* kResets[] = {"NONE", "NOW", "DAILY", "WEEKLY", "MONTHLY", "QUARTERLY", "YEARLY"};
  return {{"PriorityType", p.type},
          {"PriorityWeightAge", p.weight_age},
          {"PriorityWeightAssoc", p.weight_assoc},
          {"PriorityWeightFairshare", p.weight_fairshare},
          {"PriorityWeightJobSize", p.weight_job_size},
          {"PriorityWeightPartition", p.weight_partition},
          {"PriorityWeightQOS", p.weight_qos},
          {"PriorityWeightTRES", tres_json(p.weight_tres)},
          {"PriorityFlags", flags},
          {"PriorityMaxAge", p.max_age},
          {"PriorityDecayHalfLife", p.decay_half_life},
          {"PriorityCalcPeriod", p.calc_period},
          {"PriorityUsageResetPeriod", kResets[static_cast<int>(p.usage_reset_period)]},
          {"PriorityFavorSmall", p.favor_small},
          {"FairShareDampeningFactor", p.fairshare_dampening_factor},
          {"PrioritySiteFactorPlugin", p.site_factor_plugin}};
}

json scheduler_json(const SchedulerSettings& s) {
  json params = {{"default_queue_depth", s.default_queue_depth},
                 {"partition_job_depth", s.partition_job_depth},
                 {"sched_interval", s.sched_interval},
                 {"sched_min_interval", s.sched_min_interval_us},
                 {"max_sched_time", s.max_sched_time},
                 {"sched_max_job_start", s.sched_max_job_start},
                 {"batch_sched_delay", s.batch_sched_delay},
                 {"max_rpc_cnt", s.max_rpc_cnt},
                 {"defer", s.defer},
                 {"defer_batch", s.defer_batch},
                 {"assoc_limit_stop", s.assoc_limit_stop},
                 {"bf_interval", s.bf_interval},
                 {"bf_max_time", s.bf_max_time},
                 {"bf_window", s.bf_window},
                 {"bf_resolution", s.bf_resolution},
                 {"bf_max_job_test", s.bf_max_job_test},
                 {"bf_max_job_part", s.bf_max_job_part},
                 {"bf_max_job_user", s.bf_max_job_user},
                 {"bf_max_job_user_part", s.bf_max_job_user_part},
                 {"bf_max_job_assoc", s.bf_max_job_assoc},
                 {"bf_max_job_start", s.bf_max_job_start},
                 {"bf_max_job_array_resv", s.bf_max_job_array_resv},
                 {"bf_job_part_count_reserve", s.bf_job_part_count_reserve},
                 {"bf_min_age_reserve", s.bf_min_age_reserve},
                 {"bf_min_prio_reserve", s.bf_min_prio_reserve},
                 {"bf_node_space_size", s.bf_node_space_size},
                 {"bf_yield_interval", s.bf_yield_interval_us},
                 {"bf_yield_sleep", s.bf_yield_sleep_us},
                 {"bf_window_linear", s.bf_window_linear},
                 {"bf_continue", s.bf_continue},
                 {"bf_busy_nodes", s.bf_busy_nodes},
                 {"bf_one_resv_per_job", s.bf_one_resv_per_job},
                 {"bf_running_job_reserve", s.bf_running_job_reserve},
                 {"bf_licenses", s.bf_licenses}};
  return {{"SchedulerType", s.type},
          {"SchedulerTimeSlice", s.time_slice},
          {"SchedulerParametersWritten", s.parameters},
          {"SchedulerParameters", params}};
}

json select_json(const SelectSettings& s) {
  static const char* kResources[] = {"none", "CPU", "Core", "Socket", "Memory"};
  return {{"SelectType", s.type},
          {"SelectTypeParameters", s.parameters},
          {"ConsumableResource", kResources[static_cast<int>(s.resource)]},
          {"MemoryTracked", s.memory},
          {"Flags", s.flags},
          {"DefMemPerCPU", s.def_mem_per_cpu},
          {"DefMemPerNode", s.def_mem_per_node},
          {"MaxMemPerCPU", s.max_mem_per_cpu},
          {"MaxMemPerNode", s.max_mem_per_node}};
}

}  // namespace

std::string oversubscribe_string(const OverSubscribe& os) {
  switch (os.mode) {
    case OverSubscribe::Mode::kNo:
      return "NO";
    case OverSubscribe::Mode::kExclusive:
      return "EXCLUSIVE";
    case OverSubscribe::Mode::kYes:
      return "YES:" + std::to_string(os.count);
    case OverSubscribe::Mode::kForce:
      return "FORCE:" + std::to_string(os.count);
  }
  return "NO";
}

std::string preempt_mode_string(const PreemptMode& mode) {
  static const char* kBases[] = {"OFF", "CANCEL", "REQUEUE", "SUSPEND"};
  std::string out = kBases[static_cast<int>(mode.base)];
  if (mode.gang) out += ",GANG";
  if (mode.within) out += ",WITHIN";
  if (mode.priority) out += ",PRIORITY";
  return out;
}

std::string node_state_string(NodeState state) {
  static const char* kNames[] = {"UNKNOWN", "IDLE", "DOWN", "DRAIN", "FAIL", "FAILING", "FUTURE", "CLOUD"};
  return kNames[static_cast<int>(state)];
}

std::string partition_state_string(PartitionState state) {
  static const char* kNames[] = {"UP", "DOWN", "DRAIN", "INACTIVE"};
  return kNames[static_cast<int>(state)];
}

json model_json(const Config& config, std::size_t max_names) {
  json nodes = json::array(), partitions = json::array(), nodesets = json::array();
  for (std::size_t i = 0; i < config.nodes.size() && i < max_names; ++i) nodes.push_back(node_json(config.nodes[i]));
  for (const Partition& p : config.partitions) {
    partitions.push_back(partition_json(p, config, max_names));
  }
  for (const NodeSet& s : config.nodesets) {
    json members = name_list(s.nodes, config, max_names);
    nodesets.push_back({{"NodeSet", s.name}, {"Feature", s.feature}, {"Nodes", members}});
    if (s.nodes.size() > max_names) nodesets.back()["NodesOmitted"] = s.nodes.size() - max_names;
  }
  json settings = json::object();
  for (const auto& [lower, s] : config.settings) settings[s.key] = s.value;
  json model = {
      {"SlurmVersion", config.version.to_string()},
      {"ClusterName", config.cluster_name},
      {"SlurmctldHost", config.slurmctld_hosts},
      {"GresTypes", config.gres_types},
      {"Nodes", nodes},
      {"NodeSets", nodesets},
      {"Partitions", partitions},
      {"Priority", priority_json(config.priority)},
      {"Scheduler", scheduler_json(config.scheduler)},
      {"Select", select_json(config.select)},
      {"Preempt",
       {{"PreemptType", config.preempt.type},
        {"PreemptMode", preempt_mode_string(config.preempt.mode)},
        {"PreemptExemptTime", config.preempt.exempt_time < 0 ? json(nullptr) : json(config.preempt.exempt_time)},
        {"PreemptParameters", config.preempt.parameters}}},
      {"Accounting",
       {{"AccountingStorageType", config.accounting.storage_type},
        {"AccountingStorageEnforce", config.accounting.enforce},
        {"AccountingStorageTRES", config.accounting.tres}}},
      {"EnforcePartLimits", config.enforce_part_limits},
      {"OverTimeLimit", config.over_time_limit},
      {"Settings", settings}};
  if (config.nodes.size() > max_names) model["NodesOmitted"] = config.nodes.size() - max_names;
  return model;
}

}  // namespace sa::report
