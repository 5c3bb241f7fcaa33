#include "report/evidence_glossary.h"

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <map>
#include <vector>

namespace sa::report {

namespace {

const std::map<std::string_view, std::string_view>& glossary() {
  static const std::map<std::string_view, std::string_view> kMeanings = {
      {"account", "the job's account"},
      {"accounts", "per account: its share of the GPU hours used and of the usage charged"},
      {"adjacent_pairs", "neighbouring pending jobs in priority order, in the sprio snapshots"},
      {"adjacent_pairs_of_different_users", "of those, pairs of jobs of different users"},
      {"age", "weighted age factor: priority points for time waited, up to PriorityWeightAge at PriorityMaxAge"},
      {"assoc", "weighted association factor: the association's own Priority"},
      {"all_job_waits", "waits of every job of the run, a job still pending counted to the end of the run"},
      {"at", "when, in seconds from the start of the simulated load"},
      {"backfill_cycles", "backfill cycles that ran in the simulation"},
      {"backfill_plans_beyond_window",
       "times backfill found a job's earliest start beyond bf_window and gave it no reservation"},
      {"backfill_reservations", "reservations backfill made for jobs it could not start"},
      {"backfill_share", "share of job starts made by the backfill scheduler (the rest by the main loop)"},
      {"backfill_starts", "jobs started by backfill"},
      {"bf_interval", "seconds between backfill cycles (bf_interval)"},
      {"bf_max_job_test", "the backfill test limit the finding is about"},
      {"bf_max_time", "seconds a backfill cycle may run (bf_max_time)"},
      {"bf_resolution", "backfill's time step, in seconds (bf_resolution)"},
      {"by_user_depth", "per user: how many of their jobs were pending at once"},
      {"busy_shares", "what jobs held of the partition's nodes over the span, per resource"},
      {"charged_billing_hours", "usage charged to fair share for these jobs, in billing hours"},
      {"charged_if_gpus_weighted", "what the same jobs would be charged if GPUs had a billing weight"},
      {"co_allocated_job_pairs", "pairs of jobs that held the same node at the same time"},
      {"coverage", "share of the offered jobs that started"},
      {"cpus_busy", "CPU time jobs held on the partition's nodes over their CPUs times the span"},
      {"cpus", "CPUs the job asked for"},
      {"cycles", "scheduler cycles counted"},
      {"delay_ratio", "mean wait of the partition behind over the one ahead"},
      {"delivered", "the share of usage the account got in the simulation"},
      {"depth_best", "the best-placed association's depth in the tree"},
      {"depth_oblivious_on_target_best", "with DEPTH_OBLIVIOUS, the best factor of an association exactly on target"},
      {"depth_oblivious_on_target_worst", "with DEPTH_OBLIVIOUS, the worst factor of an association exactly on target"},
      {"depth_worst", "the worst-placed association's depth in the tree"},
      {"end", "end of the simulated span, in seconds"},
      {"estimated_seconds_per_full_pass", "modelled slurmctld time for one pass over the whole queue"},
      {"estimated_switch_overhead_share", "modelled share of CPU time lost to suspending and resuming"},
      {"examples", "example jobs the claim is about"},
      {"factors", "the job's weighted priority factors, as sprio shows them"},
      {"fairshare", "weighted fair-share factor: priority points from the association's fair-share standing"},
      {"fairshare_factor_over_time", "the account's fair-share factor sampled through the run"},
      {"fairshare_points_apart", "priority points between the two fair-share standings"},
      {"fairshare_prefers_behind", "pending pairs in which fair share favoured the job the tier or weight put behind"},
      {"fairshare_reversed_order",
       "of those, pairs whose order fair share would have reversed without the tier or weight"},
      {"finished_jobs", "jobs that ran to their end"},
      {"fix_effect", "what the re-simulated fix did to the outcomes: better, worse, mixed or none"},
      {"fix_not_suggested", "why the fix is not suggested: its re-simulation changed nothing or made things worse"},
      {"fix_resimulated", "the same outcomes re-simulated with the fix applied"},
      {"gang", "gang scheduling and suspension counters of the run"},
      {"gpu_charge_share_error",
       "share of the GPU jobs' charged usage that lands on the wrong accounts, against their GPU hours"},
      {"gpu_hours", "GPU hours the jobs used"},
      {"gpu_jobs", "jobs that used GPUs"},
      {"gpus_busy", "GPU time jobs held on the partition's nodes over their GPUs times the span"},
      {"job", "job id in the simulated load (`slurm-advisor explain JOBID` takes it)"},
      {"jobs", "number of jobs"},
      {"jobs_alone_on_their_nodes", "jobs without --mem given a whole node's memory, so no other job shared it"},
      {"jobs_at_full_age", "waiting jobs whose age factor reached its maximum"},
      {"jobs_started_there", "jobs of the partitions concerned that started"},
      {"jobs_suspended", "jobs suspended at least once"},
      {"jobs_suspended_any_cause", "jobs suspended at least once, by gang or preemption"},
      {"jobs_that_queued", "jobs that waited at all before starting"},
      {"jobs_without_memory_bound", "jobs with no memory request or default while sharing a node"},
      {"jobsize", "weighted job-size factor"},
      {"level", "the account's level in the association tree"},
      {"load", "the simulated load: what was generated or read"},
      {"longest_limit", "the longest time limit a job may ask for in that partition"},
      {"longest_wait", "longest wait, in seconds"},
      {"lower_tier", "the partition at the lower PriorityTier"},
      {"max", "maximum"},
      {"max_jobs_per_node", "most jobs allocated on one node at once"},
      {"mean", "mean"},
      {"mean_fairshare_factor", "the account's mean fair-share factor through the run"},
      {"mean_fairshare_factor_other_accounts", "the other accounts' mean fair-share factor through the run"},
      {"mean_pending_fairshare_factor", "mean fair-share factor of the pending jobs"},
      {"mean_queue_depth", "queue records a backfill cycle met, on average"},
      {"mean_suspends_per_suspended_job", "suspensions per job that was suspended"},
      {"mean_wait", "mean wait, in seconds"},
      {"mean_wait_ahead", "mean wait in the partition that comes first, in seconds"},
      {"mean_wait_behind", "mean wait in the partition that comes second, in seconds"},
      {"mean_wait_by_cpus", "mean wait per job size"},
      {"mean_wait_seconds", "mean wait, in seconds"},
      {"memory_busy", "memory jobs were given on the partition's nodes over their memory times the span"},
      {"measured_from", "start of the measured span, in seconds"},
      {"measured_to", "end of the measured span, in seconds"},
      {"median", "median"},
      {"median_job_time_limit", "the median time limit the jobs asked for"},
      {"metrics", "the outcomes of the simulated run that show the defect"},
      {"most_jobs_on_one_node", "most jobs one node held at once"},
      {"never_reached_by_backfill", "jobs that waited a backfill interval or more and were never tested by backfill"},
      {"never_tested_waits", "waits of the jobs backfill never tested"},
      {"node", "node name"},
      {"nodes", "nodes"},
      {"nodes_asked_for_more_than_real_memory", "nodes whose jobs together asked for more memory than the node has"},
      {"nodes_busy_share", "the busiest of busy_shares: what jobs held of the partition's nodes over the span"},
      {"nodes_over_memory", "nodes whose running and suspended jobs asked for more than their RealMemory"},
      {"nodes_shared_without_memory_bound", "nodes that held two or more jobs with no memory bound at all"},
      {"offered", "jobs the load submitted"},
      {"on_target_factor_best", "fair-share factor of the best-placed association exactly on target"},
      {"on_target_factor_worst", "fair-share factor of the worst-placed association exactly on target"},
      {"p95", "95th percentile"},
      {"p95_wait", "95th percentile of the wait, in seconds"},
      {"partition", "partition"},
      {"partitions_beyond_window", "partitions where jobs may ask for longer than bf_window, with the longest limit"},
      {"peak_queue_depth", "largest queue a backfill cycle met"},
      {"pending_at_end", "jobs still pending when the simulation ended"},
      {"pending_jobs", "jobs pending"},
      {"pending_pairs", "pairs of pending jobs, one in each partition, seen in the sprio snapshots"},
      {"pending_reasons", "jobs still pending at the end per the Reason they showed then"},
      {"priority", "the job's priority"},
      {"priority_max_age_seconds", "PriorityMaxAge in seconds"},
      {"qos", "the job's QOS"},
      {"queues_examined", "queues (sprio snapshots) examined"},
      {"ratio", "ratio of the two values compared"},
      {"real_memory_mb", "the node's RealMemory, in MB"},
      {"records_skipped_by_per_entity_limits",
       "queue records backfill skipped for a per-user, partition or association limit"},
      {"refused", "jobs refused at submission"},
      {"refused_jobs", "example jobs refused at submission, with Slurm's message"},
      {"refused_reasons", "refused jobs per Slurm error message"},
      {"requested_mb", "memory the jobs asked for, in MB"},
      {"reservations", "backfill reservations made"},
      {"sampled_times_with_other_jobs_waiting", "share of the snapshots in which other accounts' jobs were waiting"},
      {"sampled_times_with_own_jobs_waiting", "share of the snapshots in which the account's own jobs were waiting"},
      {"scenario", "which load was simulated, with its seed and span"},
      {"scheduler_time_slice", "SchedulerTimeSlice, in seconds"},
      {"seed", "the seed of the generated load"},
      {"share_of_charged_usage", "share of the usage fair share charged"},
      {"share_of_gpu_hours", "share of the GPU hours used"},
      {"share_of_jobs_with_limit_at_most_4x_resolution",
       "share of jobs whose time limit is at most four bf_resolution steps"},
      {"share_of_queue_beyond_limit", "share of the queue beyond the limit, never tested"},
      {"shared_nodes", "nodes the two partitions share"},
      {"snapshot", "sprio snapshot time"},
      {"span_seconds", "length of the simulated span, in seconds"},
      {"start", "start, in seconds from the start of the simulated load"},
      {"started", "jobs that started"},
      {"started_jobs", "jobs that started"},
      {"starts", "job starts"},
      {"stopped_by_bf_max_job_start", "backfill cycles stopped by bf_max_job_start"},
      {"stopped_by_bf_max_job_test", "backfill cycles stopped by bf_max_job_test"},
      {"stopped_by_bf_max_time", "backfill cycles stopped by bf_max_time"},
      {"stopped_by_bf_node_space_size", "backfill cycles stopped by bf_node_space_size"},
      {"stopped_by_lock_yield", "backfill cycles that ended at a lock yield (without bf_continue)"},
      {"stretch", "wall time over run time of finished jobs (1 = never suspended)"},
      {"stretch_max", "largest wall time over run time"},
      {"stretch_mean", "mean wall time over run time"},
      {"stretch_p95", "95th percentile of wall time over run time"},
      {"submit", "submit time, in seconds from the start of the simulated load"},
      {"suspended_cpu_seconds", "CPU time held by suspended jobs"},
      {"suspended_seconds", "time jobs spent suspended"},
      {"suspended_share_of_allocated_cpu_time", "share of the allocated CPU time jobs spent suspended"},
      {"suspends", "suspensions"},
      {"suspends_per_running_hour", "suspensions per hour of running jobs"},
      {"switch_cost_seconds_assumed", "assumed seconds lost per suspend or resume"},
      {"target", "the account's target share"},
      {"test_cost_us_assumed", "assumed microseconds per backfill will-run test"},
      {"their_mean_cpus", "mean CPUs those jobs asked for"},
      {"thin_partitions", "partitions where fewer than 80% of the offered jobs started"},
      {"tied_pairs", "neighbouring pending jobs with equal priority, ordered by submit time"},
      {"tied_pairs_of_different_users", "of those, pairs of jobs of different users"},
      {"tied_pairs_with_different_fairshare", "tied pairs whose users' fair-share standing differed"},
      {"tied_share", "share of neighbouring pairs that tied"},
      {"tied_share_of_different_users", "share of different-user neighbouring pairs that tied"},
      {"time_limit", "the job's time limit"},
      {"timeslices", "gang timeslice rounds"},
      {"timeslice_rounds",
       "times the gang scheduler ran its timeslice (every SchedulerTimeSlice), whether or not it suspended a job"},
      {"unplanned_job_waits",
       "waits of the jobs backfill found able to start only beyond bf_window (so gave no reservation) at least once; "
       "re-simulated: the same jobs"},
      {"user", "the job's user"},
      {"user_depth", "a user's pending jobs at once"},
      {"utilization",
       "share of the usable CPU time jobs ran (above 1: CPUs overcommitted, several jobs running on one)"},
      {"variant", "the setting (and, where named, the load) changed for a re-simulation"},
      {"wait_seconds", "waits, in seconds"},
      {"wait_seconds_of_jobs_that_queued", "waits of the jobs that queued at all, in seconds"},
      {"will_run_tests", "backfill will-run tests made"},
      {"worst_memory_node", "the node whose jobs asked for the most memory against its RealMemory"},
      {"worst_requested_to_real_memory", "on that node, memory asked for over RealMemory"},
      {"worst_unbounded_node", "the node that held the most jobs without a memory bound"},
  };
  return kMeanings;
}

bool size_class(std::string_view k) {
  return !k.empty() && std::all_of(k.begin(), k.end(),
                                   [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '-'; });
}

// The words of a snake_case key.
std::vector<std::string> words(const std::string& key) {
  std::vector<std::string> out(1);
  for (char c : key) {
    if (c == '_' || c == ' ')
      out.emplace_back();
    else
      out.back() += c;
  }
  return out;
}

bool has_word(const std::string& key, std::initializer_list<const char*> any) {
  for (const std::string& w : words(key)) {
    for (const char* a : any) {
      if (w == a) return true;
    }
  }
  return false;
}

}  // namespace

std::string evidence_meaning(std::string_view key) {
  auto it = glossary().find(key);
  if (it != glossary().end()) return std::string(it->second);
  if (key.find(" ahead of ") != std::string_view::npos) {
    return "a pair of partitions, the first always scheduled before the second, with their pending pairs and waits";
  }
  if (key.rfind("higher tier ", 0) == 0)
    return "a partition at a higher PriorityTier on the same nodes, with its waits";
  if (key.rfind("tres/", 0) == 0) return "weighted TRES factor of that resource";
  if (size_class(key)) return "jobs of this many CPUs (a size class), or the item's position in a list";
  return {};
}

void collect_evidence_keys(const nlohmann::json& v, std::set<std::string>& keys) {
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end(); ++it) {
      keys.insert(it.key());
      // Slurm's refusal messages and Reasons are data under these, not keys to explain.
      if (it.key() != "refused_reasons" && it.key() != "pending_reasons") collect_evidence_keys(it.value(), keys);
    }
  } else if (v.is_array()) {
    for (const auto& x : v) collect_evidence_keys(x, keys);
  }
}

// Waits and spans are seconds in the evidence; people read them as durations. Whole words
// only: "jobs_waiting" is a share and "cpu_seconds" an amount of work, not a duration.
bool is_duration_key(const std::string& parent, const std::string& key) {
  if (key == "time_limit" || has_word(key, {"wait", "waits"})) return true;
  if (key.size() > 8 && key.compare(key.size() - 8, 8, "_seconds") == 0 && !has_word(key, {"cpu"})) return true;
  // Inside a wait object every figure but the job count is seconds: mean/median/p95/max, and
  // mean_wait_by_cpus's size classes.
  return has_word(parent, {"wait", "waits"}) && key != "jobs" && !has_word(key, {"slowdown"});
}

}  // namespace sa::report
