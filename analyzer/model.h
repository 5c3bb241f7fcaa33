#pragma once
// The typed, resolved model of one cluster's slurm.conf: every default applied, every
// alias resolved, hostlists expanded. Times are integer seconds (kInfiniteTime for
// UNLIMITED), memory is MB. The engine and the rules read only this, never raw text.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analyzer/licenses.h"
#include "analyzer/source_manager.h"
#include "analyzer/version.h"

namespace sa {

struct GresSpec {
  std::string name;  // "gpu"
  std::string type;  // "a100" or empty
  std::uint64_t count = 0;
  bool no_consume = false;
};

enum class NodeState { kUnknown, kIdle, kDown, kDrain, kFail, kFailing, kFuture, kCloud };

struct Node {
  std::string name;
  SourceLoc loc;
  std::uint32_t cpus = 1;
  std::uint32_t boards = 1;
  std::uint32_t sockets = 1;  // total sockets (boards x sockets per board)
  std::uint32_t cores_per_socket = 1;
  std::uint32_t threads_per_core = 1;
  std::uint64_t real_memory_mb = 1;
  std::uint64_t mem_spec_limit_mb = 0;
  std::uint32_t tmp_disk_mb = 0;
  std::uint32_t weight = 1;
  std::uint32_t core_spec_count = 0;
  std::vector<std::string> features;  // Features= (Slurm's available features), as written
  // The features the node has now. slurm.conf has no ActiveFeatures key (read_config.c
  // _nodename_options), so slurmctld starts them as a copy of Features (slurmctld/read_config.c
  // _build_node_config_list); only a NodeFeatures plugin (knl_generic, helpers) or
  // `scontrol update ActiveFeatures=` makes them differ, and placement uses them.
  std::vector<std::string> active_features;
  std::vector<GresSpec> gres;
  NodeState state = NodeState::kUnknown;
  std::string reason;
  std::uint32_t cores() const { return sockets * cores_per_socket; }
  /// Threads a core offers the scheduler (node_conf.c's tpc): 1 where CPUs counts cores
  /// (CPUs=8 on 8 cores of 2 threads), else ThreadsPerCore.
  std::uint32_t schedulable_threads() const { return cores() >= cpus ? 1 : threads_per_core; }
  /// GPUs jobs consume (Gres=gpu items, not the no_consume ones).
  std::uint64_t gpus() const;
  /// This node's count of one TRES as slurmctld's node tres_cnt holds it: its CPUs,
  /// RealMemory (MB), 1 for node, its CPUs for billing (no TRESBillingWeights applied), and
  /// gres/NAME or gres/NAME:TYPE summed over its Gres items; 0 for any other TRES.
  std::uint64_t tres_count(std::string_view tres) const;
  /// Memory Slurm can hand out to jobs: RealMemory less MemSpecLimit (0 when that leaves none).
  std::uint64_t usable_mem_mb() const {
    return real_memory_mb > mem_spec_limit_mb ? real_memory_mb - mem_spec_limit_mb : 0;
  }
  bool usable() const {
    return state != NodeState::kDown && state != NodeState::kDrain && state != NodeState::kFail &&
           state != NodeState::kFuture;
  }
};

enum class PartitionState { kUp, kDown, kDrain, kInactive };

/// OverSubscribe as Slurm stores it: NO (1), EXCLUSIVE (0), YES:n, FORCE:n.
struct OverSubscribe {
  enum class Mode { kNo, kExclusive, kYes, kForce } mode = Mode::kNo;
  std::uint32_t count = 1;  // jobs per resource for YES/FORCE
};

/// PreemptMode: at most one base mode plus GANG or WITHIN (22.05+), never both; PRIORITY
/// (25.05+) not with GANG.
struct PreemptMode {
  enum class Base { kOff, kCancel, kRequeue, kSuspend } base = Base::kOff;
  bool gang = false;
  bool within = false;
  bool priority = false;
};

struct TresWeight {
  std::string tres;  // lower-cased type[/name], e.g. "cpu", "mem", "gres/gpu"
  double weight = 0;
};

struct Partition {
  std::string name;
  SourceLoc loc;
  std::string nodes_expr;            // as written (after DEFAULT inheritance)
  std::vector<std::uint32_t> nodes;  // indices into Config::nodes, de-duplicated, config order
  bool is_default = false;
  bool hidden = false;
  PartitionState state = PartitionState::kUp;
  std::int64_t max_time = -1;      // seconds; kInfiniteTime = UNLIMITED
  std::int64_t default_time = -1;  // seconds; kInfiniteTime when unset (MaxTime applies)
  bool default_time_set = false;
  std::uint32_t max_nodes = 0xFFFFFFFF;
  std::uint32_t min_nodes = 0;
  std::uint32_t max_cpus_per_node = 0xFFFFFFFF;
  std::uint16_t priority_tier = 1;
  std::uint16_t priority_job_factor = 1;
  OverSubscribe oversubscribe;
  std::optional<PreemptMode> preempt_mode;  // unset: the cluster's PreemptMode
  std::uint32_t grace_time = 0;             // seconds
  std::vector<std::string> allow_accounts, deny_accounts, allow_qos, deny_qos, allow_groups;
  std::string qos;
  std::vector<TresWeight> tres_billing_weights;
  std::uint64_t def_mem_per_cpu = 0, def_mem_per_node = 0, max_mem_per_cpu = 0, max_mem_per_node = 0;
  // DefMemPerGPU / DefCPUPerGPU written on the partition (unset: the cluster's apply).
  std::optional<std::uint64_t> def_mem_per_gpu, def_cpus_per_gpu;
  bool exclusive_user = false;
  bool lln = false;
  // Its own SelectTypeParameters (CR_Core or CR_Socket, with or without _Memory). For its
  // jobs they replace the cluster's core/socket and memory modes when the cluster's mode is
  // CR_Core or CR_Socket (cons_common _setup_cr_type); slurmctld ignores them otherwise.
  bool select_own = false, select_socket = false, select_memory = false;
  bool root_only = false;
  bool req_resv = false;
  std::optional<std::uint32_t> over_time_limit;  // minutes; unset: cluster value
  std::map<std::string, std::string> raw;        // every key set for it, canonical spelling
};

struct NodeSet {
  std::string name;
  SourceLoc loc;
  std::string feature;
  std::vector<std::uint32_t> nodes;
};

struct PriorityFlags {
  bool fair_tree = true;
  bool depth_oblivious = false;
  bool accrue_always = false;
  bool small_relative_to_time = false;
  bool calculate_running = false;
  bool incr_only = false;
  bool max_tres = false;
  bool max_tres_gres = false;
  bool no_normal_assoc = false, no_normal_part = false, no_normal_qos = false, no_normal_tres = false;
};

enum class UsageReset { kNone, kNow, kDaily, kWeekly, kMonthly, kQuarterly, kYearly };

struct PrioritySettings {
  std::string type = "priority/multifactor";
  std::uint32_t weight_age = 0, weight_assoc = 0, weight_fairshare = 0, weight_job_size = 0, weight_partition = 0,
                weight_qos = 0;
  std::vector<TresWeight> weight_tres;
  PriorityFlags flags;
  std::int64_t max_age = 7 * 86400;
  std::int64_t decay_half_life = 7 * 86400;
  std::int64_t calc_period = 300;
  UsageReset usage_reset_period = UsageReset::kNone;
  bool favor_small = false;
  std::uint32_t fairshare_dampening_factor = 1;
  std::string site_factor_plugin;
  bool multifactor() const { return type == "priority/multifactor"; }
};

/// The main scheduling loop and backfill options from SchedulerParameters, defaults applied.
/// Units as stored by Slurm except bf_window, which is converted to seconds.
struct SchedulerSettings {
  std::string type = "sched/backfill";
  std::uint32_t time_slice = 30;  // SchedulerTimeSlice, seconds
  std::string parameters;         // SchedulerParameters as written
  // Top-level keys Slurm reads as uint16; a value out of range keeps the default.
  std::uint16_t kill_wait = 30;        // KillWait, seconds between SIGTERM and SIGKILL
  std::uint16_t message_timeout = 10;  // MessageTimeout, seconds; also bounds max_sched_time
  // main loop
  std::int64_t default_queue_depth = 100;
  std::int64_t partition_job_depth = 0;
  std::int64_t sched_interval = 60;
  std::int64_t sched_min_interval_us = 2;
  std::int64_t max_sched_time = 2;
  std::int64_t sched_max_job_start = 0;
  std::int64_t batch_sched_delay = 3;
  std::int64_t max_rpc_cnt = 0;
  bool defer = false, defer_batch = false, assoc_limit_stop = false;
  // backfill
  std::int64_t bf_interval = 30;
  std::int64_t bf_max_time = 30;
  std::int64_t bf_window = 1440 * 60;  // seconds (written in minutes)
  std::int64_t bf_resolution = 60;
  std::int64_t bf_max_job_test = 500;
  std::int64_t bf_max_job_part = 0, bf_max_job_user = 0, bf_max_job_user_part = 0, bf_max_job_assoc = 0,
               bf_max_job_start = 0;
  std::int64_t bf_max_job_array_resv = 20;
  std::int64_t bf_job_part_count_reserve = 0;
  std::int64_t bf_min_age_reserve = 0;
  std::int64_t bf_min_prio_reserve = 0;
  std::int64_t bf_node_space_size = 500;
  std::int64_t bf_yield_interval_us = 2'000'000, bf_yield_sleep_us = 500'000;
  std::int64_t bf_window_linear = 0;
  bool bf_continue = false, bf_busy_nodes = false, bf_one_resv_per_job = false, bf_running_job_reserve = false,
       bf_licenses = false;
  bool pack_serial_at_end = false;     // cons_tres puts 1-CPU, 1-node jobs on the last nodes
  std::int64_t max_switch_wait = 300;  // seconds: the most a --switches job waits (job_mgr.c _max_switch_wait)
};

struct PreemptSettings {
  std::string type = "preempt/none";
  PreemptMode mode;
  std::int64_t exempt_time = -1;  // seconds; -1 when unset
  std::string parameters;
  bool youngest_first = false;  // victims youngest first (see resolve_preempt for the spellings)
  // PreemptParameters=min_exempt_priority (23.02+): a job above it is never a victim.
  std::uint32_t min_exempt_priority = 0xFFFFFFFFU;  // unset: no job is exempt by priority
  bool enabled() const { return type != "preempt/none"; }
  /// slurm_conf.preempt_mode is nonzero: a base mode or GANG (what backfill.c's NoReserve
  /// one-minute test asks, whatever PreemptType says).
  bool mode_set() const { return mode.base != PreemptMode::Base::kOff || mode.gang; }
};

struct SelectSettings {
  std::string type = "select/cons_tres";
  enum class Resource { kNone, kCpu, kCore, kSocket, kMemory } resource = Resource::kCore;
  bool memory = true;              // a *_Memory mode (or CR_Memory): memory is a consumable resource
  std::vector<std::string> flags;  // CR_ONE_TASK_PER_CORE, CR_LLN, ...
  std::string parameters;          // as written, or the default that applies
  std::uint64_t def_mem_per_cpu = 0, def_mem_per_node = 0, max_mem_per_cpu = 0, max_mem_per_node = 0;
  // DefMemPerCPU=0 written: a job without --mem is given 0 MB a CPU and shares its nodes.
  // (Unwritten, or DefMemPerNode=0, it is given each node's whole memory.) A partition's own
  // DefMemPerCPU=0 is skipped by job_mgr.c _get_def_mem, so only the cluster's counts.
  bool def_mem_per_cpu_zero = false;
  std::uint64_t def_mem_per_gpu = 0, def_cpus_per_gpu = 0;  // DefMemPerGPU, DefCPUPerGPU (0: none)
};

struct AccountingSettings {
  std::string storage_type;          // empty when unset (no accounting)
  std::vector<std::string> enforce;  // AccountingStorageEnforce words, lower-cased
  std::string tres;                  // AccountingStorageTRES
  bool uses_slurmdbd() const { return storage_type == "accounting_storage/slurmdbd"; }
  /// AccountingStorageEnforce sets this word's bit, directly or through a word that implies
  /// it (all; safe: limits, associations; limits, qos, wckeys, 1, 2: associations).
  bool enforces(const std::string& word) const;
};

/// One SwitchName line of topology.conf (TopologyPlugin=topology/tree), as Slurm 22.05 keeps
/// it in switch_record_table (src/common/slurm_topology.h switch_record_t).
struct Switch {
  std::string name;
  SourceLoc loc;
  int level = 0;  // 0: a leaf (Nodes=); else one more than its highest child
  std::uint32_t link_speed = 1;
  // The switch that lists it in Switches= (the last such line), else 0: Slurm's table is
  // zero-filled, so a root's parent is switch 0 (topology_tree.c _find_child_switches).
  std::uint32_t parent = 0;
  std::vector<std::uint32_t> children;  // Switches=, as indexes into Topology::switches
  std::vector<std::uint32_t> nodes;     // Config::nodes indexes, ascending: a leaf's own, else its children's
};

/// topology.conf as topology/tree reads it (analyzer/topology.h); empty without that plugin or
/// when Slurm would refuse the file.
struct Topology {
  std::vector<Switch> switches;  // file order: ties between equal switches go to the first
  bool optional = false;         // TopologyParam=TopoOptional: only jobs asking for --switches use it
  // TopologyParam=SwitchAsNodeRank (23.02+): slurmctld numbers its nodes by leaf switch.
  bool switch_as_node_rank = false;
  bool empty() const { return switches.empty(); }
};

/// A scalar setting as written: its canonical key spelling, value and location.
struct Setting {
  std::string key;
  std::string value;
  SourceLoc loc;        // the key
  SourceLoc value_loc;  // the value
};

struct Config {
  SlurmVersion version = kDefaultSlurmVersion;
  std::string cluster_name;  // lower-cased, as Slurm stores it
  std::vector<std::string> slurmctld_hosts;
  std::vector<Node> nodes;
  std::vector<Partition> partitions;
  std::vector<NodeSet> nodesets;
  std::vector<std::string> gres_types;
  std::vector<License> licenses;  // Licenses= (cluster licences), repeats summed
  PrioritySettings priority;
  SchedulerSettings scheduler;
  PreemptSettings preempt;
  SelectSettings select;
  AccountingSettings accounting;
  Topology topology;  // topology.conf, when TopologyPlugin=topology/tree
  std::string enforce_part_limits = "NO";
  std::uint32_t over_time_limit = 0;        // minutes
  std::map<std::string, Setting> settings;  // lower-cased key -> last value written
  /// name -> index into nodes; for lookups only (never iterate it into output: unordered).
  std::unordered_map<std::string, std::uint32_t> node_index;

  const Partition* find_partition(const std::string& name) const;
  const Partition* default_partition() const;
  /// Partitions may set their own SelectTypeParameters (cons_common _setup_cr_type: only
  /// under the cluster's CR_Core or CR_Socket, never with select/linear).
  bool partition_select_allowed() const;
  /// JobSubmitPlugins loads job_submit/require_timelimit, which refuses a job without --time
  /// and --time=UNLIMITED: every job states a finite limit.
  bool time_limit_required() const;
  /// Memory is a consumable resource for `p`'s jobs: its own SelectTypeParameters where they
  /// apply, else the cluster's (select/linear allocates whole nodes and counts none).
  bool memory_counted(const Partition& p) const;
  /// No default memory applies to `p`'s jobs: neither it nor the cluster sets DefMemPerCPU or
  /// DefMemPerNode (a partition's DefMemPerCPU=0 is skipped, job_mgr.c _get_def_mem) and the
  /// cluster's DefMemPerCPU=0 is not written. A job without --mem is then given each of its
  /// nodes' whole memory.
  bool no_default_memory(const Partition& p) const;
  /// DefMemPerGPU and DefCPUPerGPU for `p`'s jobs that ask for GPUs: its own where written
  /// (even 0), else the cluster's; 0 when none applies. Only select/cons_tres reads them
  /// (cons_common _set_gpu_defaults), so 0 under any other SelectType.
  std::uint64_t mem_per_gpu_default(const Partition& p) const;
  /// The memory default a job of `p` without --mem gets, in the order slurmctld applies it:
  /// the partition's DefMemPerCPU, its DefMemPerNode, then the cluster's (where a written
  /// DefMemPerNode already displaced DefMemPerCPU when read). mb 0: none.
  struct MemoryDefault {
    bool own = false;      // the partition's own setting
    bool per_cpu = false;  // DefMemPerCPU (else DefMemPerNode)
    std::uint64_t mb = 0;
  };
  MemoryDefault memory_default(const Partition& p) const;
  /// The CPUs a job of `p` is given at a time on `n` (cons_tres): a core's schedulable threads
  /// under CR_Core, a socket's under CR_Socket, one under CR_CPU; memory per CPU is charged
  /// on all of them.
  std::uint32_t cpu_unit(const Partition& p, const Node& n) const;
  std::uint64_t cpus_per_gpu_default(const Partition& p) const;
  /// The value written for a scalar key (any case), or nullptr.
  const Setting* setting(const std::string& key) const;
};

}  // namespace sa
