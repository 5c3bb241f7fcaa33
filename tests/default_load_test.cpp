// The default load honours every admission rule of the partitions it targets, and the engine
// refuses a recorded job that breaks one with Slurm's own message (slurm_errno.c), counted
// per partition in the load coverage.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "engine/coverage.h"
#include "engine/workload/default_load.h"
#include "engine/workload/sacct_writer.h"
#include "engine/workload/scale.h"
#include "tests/engine_test_util.h"
#include "tests/scratch_dir.h"

namespace {

using sa::test::job;
using sa::test::SimSite;
namespace engine = sa::engine;

constexpr const char* kNodes = "SchedulerType=sched/backfill\nNodeName=n[1-8] CPUs=16 RealMemory=64000 State=UNKNOWN\n";

struct Case {
  const char* name;
  const char* partitions;  // the partition lines; the refusing one is named `p`
  engine::JobRequest bad;  // a job that breaks p's rule
  const char* error;       // what sbatch would say
};

engine::JobRequest in_p(std::uint32_t cpus = 1) { return job(1, 0, cpus, 60, 600, "p"); }

engine::JobRequest with(engine::JobRequest j, const char* account, const char* qos, const char* group = "") {
  j.account = account;
  j.qos = qos;
  j.group = group;
  return j;
}

std::vector<Case> cases() {
  engine::JobRequest nodes = in_p(16);
  nodes.nodes = 6;
  engine::JobRequest gpu = in_p(1);
  gpu.gpus = 1;
  return {
      // The access lists refuse at submission only under EnforcePartLimits (ALL here); with
      // NO (the default) the job is accepted and never runs (the test after this one).
      {"AllowQos", "EnforcePartLimits=ALL\nPartitionName=p Nodes=n[1-4] Default=YES AllowQos=gpu\n",
       with(in_p(), "a", "normal"), engine::kInvalidQos},
      // Without a QOS table no other QOS is known: p gets no jobs (and says why).
      {"DenyQos",
       "EnforcePartLimits=ALL\nPartitionName=p Nodes=n[1-4] DenyQos=normal\nPartitionName=q Nodes=n[5-8] "
       "Default=YES\n",
       with(in_p(), "a", "normal"), engine::kInvalidQos},
      // Since 23.02 the account lists are checked only where associations are enforced
      // (partition_access.h).
      {"AllowAccounts",
       "EnforcePartLimits=ALL\nAccountingStorageEnforce=associations\nPartitionName=p Nodes=n[1-4] Default=YES "
       "AllowAccounts=chem\n",
       with(in_p(), "bio", "normal"), engine::kInvalidAccount},
      {"DenyAccounts",
       "EnforcePartLimits=ALL\nAccountingStorageEnforce=associations\nPartitionName=p Nodes=n[1-4] Default=YES "
       "DenyAccounts=account1,account2,bio\n",
       with(in_p(), "bio", "normal"), engine::kInvalidAccount},
      {"AllowGroups", "EnforcePartLimits=ALL\nPartitionName=p Nodes=n[1-4] Default=YES AllowGroups=hpc\n",
       with(in_p(), "a", "normal", "staff"), engine::kGroupDenied},
      {"RootOnly", "PartitionName=p Nodes=n[1-4] RootOnly=YES\nPartitionName=q Nodes=n[5-8] Default=YES\n",
       with(in_p(), "a", "normal"), engine::kAccessDenied},
      {"Drain", "PartitionName=p Nodes=n[1-4] State=DRAIN\nPartitionName=q Nodes=n[5-8] Default=YES\n",
       with(in_p(), "a", "normal"), engine::kPartitionNotAvail},
      {"Inactive", "PartitionName=p Nodes=n[1-4] State=INACTIVE\nPartitionName=q Nodes=n[5-8] Default=YES\n",
       with(in_p(), "a", "normal"), engine::kPartitionNotAvail},
      {"MaxNodes", "EnforcePartLimits=ALL\nPartitionName=p Nodes=n[1-8] Default=YES MaxNodes=2\n",
       with(nodes, "a", "normal"), engine::kInvalidNodeCount},
      {"MaxTime", "EnforcePartLimits=ALL\nPartitionName=p Nodes=n[1-4] Default=YES MaxTime=5\n",
       with(in_p(), "a", "normal"), engine::kInvalidTimeLimit},
      {"NodeSize", "PartitionName=p Nodes=n[1-2] Default=YES\n", with(in_p(64), "a", "normal"),
       engine::kNodeConfigUnavailable},
      {"NoGpus", "PartitionName=p Nodes=n[1-4] Default=YES\n", with(gpu, "a", "normal"),
       engine::kNodeConfigUnavailable},
  };
}

class Admission : public ::testing::TestWithParam<Case> {};

TEST_P(Admission, DefaultLoadAvoidsTheRuleAndARecordedJobIsRefusedWithSlurmsMessage) {
  const Case& c = GetParam();
  SimSite s(std::string(kNodes) + c.partitions);
  engine::DefaultLoadOptions o;
  o.duration = 86400;
  const engine::DefaultLoad d = engine::default_load(s.site, o);
  ASSERT_FALSE(d.workload.jobs.empty()) << d.description;
  engine::Site site = s.site;
  engine::add_assumed_qos(site, d.workload);
  engine::SimOptions opt;
  opt.until = d.workload.until;
  const engine::SimResult r = engine::Simulator(site, opt).run(d.workload);
  const engine::LoadCoverage cov = engine::load_coverage(r, *site.config);
  EXPECT_EQ(cov.total.refused, 0u) << d.description;
  EXPECT_GE(cov.coverage(), engine::kMinCoverage) << d.description;
  // Where p takes no user jobs at all, the load goes to q; elsewhere p's jobs are of the
  // admitted kind, which refused == 0 above checks.
  if (std::string(c.partitions).find("PartitionName=q") != std::string::npos) {
    for (const engine::JobRequest& j : d.workload.jobs) EXPECT_EQ(j.partitions.front(), "q") << "job " << j.id;
  }
  // A recorded job that breaks the rule: refused with sbatch's message, counted under p.
  const engine::SimResult bad = s.run({c.bad});
  const engine::SimJob& j = sa::test::find_job(bad, 1);
  ASSERT_EQ(j.state, engine::JobState::kRejected) << c.name;
  EXPECT_EQ(j.rare.get().reject_error, c.error) << j.rare.get().reject_reason;
  const engine::LoadCoverage bad_cov = engine::load_coverage(bad, *s.site.config);
  ASSERT_NE(bad_cov.find("p"), nullptr);
  EXPECT_EQ(bad_cov.find("p")->refused_reasons.at(c.error), 1u);
}

INSTANTIATE_TEST_SUITE_P(Rules, Admission, ::testing::ValuesIn(cases()),
                         [](const auto& p) { return std::string(p.param.name); });

// EnforcePartLimits=NO (the default): _part_access_check leaves the lists to select_nodes, so a
// job the partition denies is accepted and pends for ever with select_nodes' Reason; the
// coverage counts it with the refused, under that Reason; 22.05 still refuses a group at
// submission; ALL refuses a job that names one partition it may not use, beside one it may.
TEST(Admission, EnforcePartLimitsNoAcceptsADeniedJobThatNeverRuns) {
  SimSite s(std::string(kNodes) + "PartitionName=p Nodes=n[1-4] Default=YES AllowQos=gpu\n");
  const engine::SimResult r = s.run({with(in_p(), "a", "normal")});
  const engine::SimJob& j = sa::test::find_job(r, 1);
  EXPECT_EQ(j.state, engine::JobState::kPending);
  EXPECT_EQ(j.start, engine::kNoTime);
  // squeue prints part_policy_valid_qos's state_desc, with the list as configured.
  EXPECT_EQ(r.reason_name(j.reason), "Job's QOS not permitted to use this partition (p allows gpu not normal)");
  const engine::LoadCoverage cov = engine::load_coverage(r, *s.site.config);
  EXPECT_EQ(cov.total.refused, 1u);
  EXPECT_EQ(cov.find("p")->refused_reasons.at("QOSNotAllowed (accepted under EnforcePartLimits=NO, never runs)"), 1u);
  // The default load offers no such job: its users ask for a QOS the partition takes.
  engine::DefaultLoadOptions o;
  o.duration = 86400;
  const engine::DefaultLoad d = engine::default_load(s.site, o);
  engine::Site site = s.site;
  engine::add_assumed_qos(site, d.workload);
  engine::SimOptions opt;
  opt.until = d.workload.until;
  const engine::SimResult dr = engine::Simulator(site, opt).run(d.workload);
  EXPECT_EQ(engine::load_coverage(dr, *site.config).total.refused, 0u) << d.description;

  const std::string groups = std::string(kNodes) + "PartitionName=p Nodes=n[1-4] Default=YES AllowGroups=hpc\n";
  SimSite old(groups, "22.05");
  const engine::SimResult gr = old.run({with(in_p(), "a", "normal", "staff")});
  EXPECT_EQ(sa::test::find_job(gr, 1).state, engine::JobState::kRejected);
  SimSite now(groups);
  const engine::SimResult nr = now.run({with(in_p(), "a", "normal", "staff")});
  EXPECT_EQ(sa::test::find_job(nr, 1).state, engine::JobState::kPending);
  // select_nodes' text prints the uid; the load's user name stands in for it.
  EXPECT_EQ(nr.reason_name(sa::test::find_job(nr, 1).reason),
            "uid u not in group permitted to use this partition (p). groups allowed: hpc");
  EXPECT_EQ(sa::test::find_job(nr, 1).recs[0].hold_reason, engine::HoldReason::kGroupNotAllowed);
  EXPECT_EQ(engine::load_coverage(nr, *now.site.config)
                .find("p")
                ->refused_reasons.at("AccountNotAllowed (accepted under EnforcePartLimits=NO, never runs)"),
            1u);

  SimSite all(std::string(kNodes) +
              "EnforcePartLimits=ALL\nPartitionName=p Nodes=n[1-4] AllowQos=gpu\n"
              "PartitionName=q Nodes=n[5-8] Default=YES\n");
  engine::JobRequest both = with(in_p(), "a", "normal");
  both.partitions = {"p", "q"};
  const engine::SimResult ar = all.run({both});
  EXPECT_EQ(sa::test::find_job(ar, 1).state, engine::JobState::kRejected);
  SimSite any(std::string(kNodes) +
              "EnforcePartLimits=ANY\nPartitionName=p Nodes=n[1-4] AllowQos=gpu\n"
              "PartitionName=q Nodes=n[5-8] Default=YES\n");
  const engine::SimResult yr = any.run({both});
  EXPECT_NE(sa::test::find_job(yr, 1).start, engine::kNoTime);
}

/// One day of the default load on `s`.
engine::DefaultLoad one_day(const SimSite& s) {
  engine::DefaultLoadOptions o;
  o.duration = 86400;
  return engine::default_load(s.site, o);
}

TEST(DefaultLoad, HonoursQosListsDefaultTimeAndMinNodes) {
  SimSite s(std::string(kNodes) +
            "PartitionName=p Nodes=n[1-8] Default=YES MinNodes=2 DefaultTime=01:00:00 MaxTime=1-00:00:00 "
            "AllowQos=long,short\n");
  const engine::DefaultLoad d = one_day(s);
  ASSERT_FALSE(d.workload.jobs.empty());
  EXPECT_EQ(d.workload.assumed_qos, (std::vector<std::string>{"long", "short"}));
  EXPECT_NE(d.description.find("invented"), std::string::npos);
  std::size_t no_time = 0;
  for (const engine::JobRequest& j : d.workload.jobs) {
    EXPECT_GE(j.nodes, 2u) << "job " << j.id;
    EXPECT_TRUE(j.qos == "long" || j.qos == "short") << j.qos;
    no_time += j.time_limit == engine::kNoTime;
  }
  EXPECT_GT(no_time, 0u) << "some jobs should give no --time and get the DefaultTime";
}

// Under MaxTime=UNLIMITED with no DefaultTime a quarter of the jobs give no --time and so run
// with no limit (the engine gives them the partition's UNLIMITED); a finite MaxTime, a
// DefaultTime or require_timelimit leaves every job with a stated or default limit.
TEST(DefaultLoad, JobsWithoutTimeRunUnlimitedWhereNothingGivesThemALimit) {
  auto unlimited_share = [](const std::string& conf) {
    SimSite s(std::string(kNodes) + conf);
    const engine::DefaultLoad d = one_day(s);
    std::size_t none = 0;
    for (const engine::JobRequest& j : d.workload.jobs) none += j.time_limit == engine::kNoTime;
    const engine::SimResult r = s.run(d.workload.jobs);
    std::size_t unlimited = 0;
    for (const engine::SimJob& j : r.jobs) unlimited += !j.recs.empty() && j.recs.front().time_limit < 0;
    EXPECT_EQ(unlimited, none) << conf;
    return static_cast<double>(none) / static_cast<double>(d.workload.jobs.size());
  };
  const double open = unlimited_share("PartitionName=p Nodes=n[1-8] Default=YES MaxTime=UNLIMITED\n");
  EXPECT_GT(open, 0.15);
  EXPECT_LT(open, 0.35);
  EXPECT_EQ(unlimited_share("PartitionName=p Nodes=n[1-8] Default=YES MaxTime=2-00:00:00\n"), 0.0);
  EXPECT_EQ(unlimited_share("JobSubmitPlugins=require_timelimit\nPartitionName=p Nodes=n[1-8] Default=YES\n"), 0.0);
}

TEST(DefaultLoad, PartitionsOfWholeNodesGetWholeNodeJobs) {
  // OverSubscribe=EXCLUSIVE (and select/linear) gives every job whole nodes: its users ask for
  // whole nodes, so the load's CPUs are what the jobs hold. The shared partition keeps its
  // 1-CPU and quarter-node jobs.
  SimSite s(std::string(kNodes) +
            "PartitionName=whole Nodes=n[1-4] Default=YES OverSubscribe=EXCLUSIVE MaxTime=1-00:00:00\n"
            "PartitionName=shared Nodes=n[5-8] MaxTime=1-00:00:00\n");
  const engine::DefaultLoad d = one_day(s);
  std::size_t whole = 0, small_shared = 0;
  for (const engine::JobRequest& j : d.workload.jobs) {
    const std::uint32_t per_node = s.site.config->nodes[0].cpus;
    if (j.partitions.front() == "whole") {
      ++whole;
      EXPECT_EQ(j.cpus, std::max<std::uint32_t>(1, j.nodes) * per_node) << "job " << j.id;
    } else {
      small_shared += j.cpus < per_node;
    }
  }
  EXPECT_GT(whole, 0u);
  EXPECT_GT(small_shared, 0u);
}

TEST(DefaultLoad, GpuJobsLeaveTheirMemoryToDefMemPerGpu) {
  // No DefMemPerCPU: the load's jobs ask memory in proportion to their CPUs, except GPU jobs
  // where DefMemPerGPU applies, which ask none and are given it a GPU.
  SimSite s(
      "SchedulerType=sched/backfill\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core_Memory\n"
      "GresTypes=gpu\nNodeName=g[1-4] CPUs=16 RealMemory=64000 Gres=gpu:4 State=UNKNOWN\n"
      "NodeName=c[1-4] CPUs=16 RealMemory=64000 State=UNKNOWN\n"
      "PartitionName=gpu Nodes=g[1-4] Default=YES MaxTime=1-00:00:00 DefMemPerGPU=12000\n"
      "PartitionName=cpu Nodes=c[1-4] MaxTime=1-00:00:00 DefMemPerGPU=12000\n");
  const engine::DefaultLoad d = one_day(s);
  std::size_t gpu_jobs = 0, cpu_jobs = 0;
  for (const engine::JobRequest& j : d.workload.jobs) {
    EXPECT_EQ(j.mem_set, j.gpus == 0) << "job " << j.id;
    (j.gpus ? gpu_jobs : cpu_jobs) += 1;
  }
  EXPECT_GT(gpu_jobs, 0u);
  EXPECT_GT(cpu_jobs, 0u);
}

TEST(DefaultLoad, GpuNodesAreOfferedTheirGpuTimeNotTheirCpuTime) {
  // 64 CPUs and one GPU a node: counted in CPUs alone, the load would offer the GPUs more than
  // the time they have (1.32 of it here). A GPU is counted as the CPUs it keeps from others (64).
  SimSite s(
      "SchedulerType=sched/backfill\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core_Memory\n"
      "DefMemPerCPU=1000\nGresTypes=gpu\nNodeName=g[1-4] CPUs=64 RealMemory=64000 Gres=gpu:1 State=UNKNOWN\n"
      "PartitionName=gpu Nodes=g[1-4] Default=YES MaxTime=1-00:00:00\n");
  const engine::DefaultLoad d = one_day(s);
  double gpu_seconds = 0;
  for (const engine::JobRequest& j : d.workload.jobs)
    gpu_seconds += static_cast<double>(j.gpus) * static_cast<double>(j.run_time);
  const double offered = gpu_seconds / (4.0 * 86400);
  EXPECT_GT(offered, 0.5) << d.workload.jobs.size() << " jobs";
  EXPECT_LT(offered, 1.1) << d.workload.jobs.size() << " jobs";  // counted in CPUs: 1.32
}

// The CPU-seconds a partition's jobs were offered over its CPUs and the arrival span (work
// past the span's day of drain cut off, as the load counts it).
std::map<std::string, double> offered_by_partition(const engine::DefaultLoad& d, const SimSite& s, std::int64_t span) {
  std::map<std::string, double> work, cpus;
  for (const engine::JobRequest& j : d.workload.jobs) {
    const double run = static_cast<double>(std::min<std::int64_t>(j.run_time, span + 86400 - j.submit));
    work[j.partitions.front()] += static_cast<double>(j.cpus) * run;
  }
  for (const auto& p : s.site.config->partitions) {
    for (std::uint32_t n : p.nodes) cpus[p.name] += s.site.config->nodes[n].cpus;
  }
  std::map<std::string, double> out;
  for (const auto& [name, w] : work) out[name] = w / (cpus[name] * static_cast<double>(span));
  return out;
}

// The mean over six seeds of offered_by_partition on 14 days of the default load: a partition
// of few large nodes draws a few hundred jobs there, a handful of them large and long, so one
// seed's load lies well apart from the next.
std::map<std::string, double> mean_offered(const SimSite& s, std::size_t partitions) {
  std::map<std::string, double> mean;
  engine::DefaultLoadOptions o;
  o.duration = 14 * 86400;
  for (o.seed = 1; o.seed <= 6; ++o.seed) {
    const engine::DefaultLoad d = engine::default_load(s.site, o);
    const auto offered = offered_by_partition(d, s, o.duration);
    EXPECT_EQ(offered.size(), partitions) << d.description;
    for (const auto& [name, share] : offered) mean[name] += share / 6;
  }
  return mean;
}

TEST(DefaultLoad, EveryPartitionIsOfferedTheSameShareOfItsCpus) {
  // Two partitions of 1,024 CPUs each: eight 128-CPU nodes and 64 16-CPU nodes. Job shapes are
  // cut from the nodes (a node, a quarter of the partition), so a job of "big" asks several
  // times the CPUs of one of "small": picked in proportion to their CPUs, big was offered far
  // more than its CPUs and small far less. Each is offered the load's 95 %.
  SimSite s(
      "SchedulerType=sched/backfill\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"
      "NodeName=b[1-8] CPUs=128 RealMemory=512000 State=UNKNOWN\n"
      "NodeName=s[1-64] CPUs=16 RealMemory=64000 State=UNKNOWN\n"
      "PartitionName=big Nodes=b[1-8] MaxTime=2-00:00:00\n"
      "PartitionName=small Nodes=s[1-64] Default=YES MaxTime=2-00:00:00\n");
  const auto mean = mean_offered(s, 2);
  EXPECT_NEAR(mean.at("big"), 0.95, 0.15);    // 1.64 when picked by CPUs alone
  EXPECT_NEAR(mean.at("small"), 0.95, 0.15);  // 0.36
}

TEST(DefaultLoad, AOneHourTestPartitionIsOfferedShortJobsNotItsNodesTime) {
  // "test" (one hour, a higher tier) holds four of batch's sixteen nodes. Its jobs run a few
  // minutes, as test jobs do: it is offered its half of those nodes in short jobs, a light
  // load, and batch the rest of the 95 %.
  SimSite s(
      "SchedulerType=sched/backfill\nNodeName=n[1-16] CPUs=16 RealMemory=64000 State=UNKNOWN\n"
      "PartitionName=batch Nodes=n[1-16] Default=YES MaxTime=2-00:00:00\n"
      "PartitionName=test Nodes=n[1-4] MaxTime=01:00:00 PriorityTier=10\n");
  engine::DefaultLoadOptions o;
  o.duration = 14 * 86400;
  const engine::DefaultLoad d = engine::default_load(s.site, o);
  const auto offered = offered_by_partition(d, s, o.duration);
  ASSERT_EQ(offered.size(), 2u) << d.description;
  EXPECT_LT(offered.at("test"), 0.1) << d.description;
  EXPECT_NEAR(offered.at("batch"), 0.95, 0.15) << d.description;
}

TEST(DefaultLoad, NodesSharedByPartitionsAreOfferedTheirCpusOnce) {
  // "all" and "debug" hold the same eight nodes and "other" eight more: the shared nodes are
  // offered 95 % of their CPUs between the two partitions, not 95 % to each (means of six
  // seeds: 1.31 and 0.65 when each partition counted its own CPUs).
  SimSite s(std::string(kNodes) + "NodeName=m[1-8] CPUs=16 RealMemory=64000 State=UNKNOWN\n" +
            "PartitionName=all Nodes=n[1-8] Default=YES MaxTime=1-00:00:00\n"
            "PartitionName=debug Nodes=n[1-8] MaxTime=1-00:00:00\n"
            "PartitionName=other Nodes=m[1-8] MaxTime=1-00:00:00\n");
  const auto mean = mean_offered(s, 3);
  EXPECT_NEAR(mean.at("all") + mean.at("debug"), 0.95, 0.15);
  EXPECT_NEAR(mean.at("other"), 0.95, 0.15);
}

TEST(DefaultLoad, LeavesPartitionsThatTakeNoUserJobsIdleAndSaysWhy) {
  SimSite s(std::string(kNodes) +
            "PartitionName=p Nodes=n[1-4] Default=YES\nPartitionName=admin Nodes=n[1-8] RootOnly=YES\n"
            "PartitionName=old Nodes=n[1-8] State=DOWN\nPartitionName=maint Nodes=n[1-8] Hidden=YES\n");
  const engine::DefaultLoad d = engine::default_load(s.site, {});
  EXPECT_EQ(d.workload.idle_partitions, (std::vector<std::string>{"admin (RootOnly, no user jobs)", "old (State=DOWN)",
                                                                  "maint (Hidden, users do not see it)"}));
  for (const engine::JobRequest& j : d.workload.jobs) EXPECT_EQ(j.partitions.front(), "p");
}

TEST(SavedLoad, WritesWhatTheReaderReadsBack) {
  SimSite s(std::string(kNodes) + "PartitionName=p Nodes=n[1-8] Default=YES DefaultTime=30 AllowQos=gpu\n");
  engine::DefaultLoadOptions o;
  o.duration = 86400;
  const engine::DefaultLoad d = engine::default_load(s.site, o);
  std::ostringstream text;
  engine::write_sacct_load(text, d.workload);
  sa::SourceManager sources;
  sa::DiagnosticSink sink;
  const engine::Workload back = engine::read_sacct(sources.add("saved.psv", text.str()), sources, sink, {});
  EXPECT_FALSE(sink.has_errors());
  ASSERT_EQ(back.jobs.size(), d.workload.jobs.size());
  EXPECT_EQ(back.seed, d.workload.seed);
  EXPECT_EQ(back.until, d.workload.until);
  EXPECT_EQ(back.assumed_qos, d.workload.assumed_qos);
  EXPECT_EQ(back.description, d.workload.description);
  for (std::size_t i = 0; i < back.jobs.size(); ++i) {
    const engine::JobRequest &a = d.workload.jobs[i], &b = back.jobs[i];
    EXPECT_EQ(std::tie(a.id, a.submit, a.run_time, a.time_limit, a.cpus, a.nodes, a.gpus, a.mem_mb, a.mem_per_cpu),
              std::tie(b.id, b.submit, b.run_time, b.time_limit, b.cpus, b.nodes, b.gpus, b.mem_mb, b.mem_per_cpu))
        << "job " << a.id;
    EXPECT_EQ(std::tie(a.user, a.account, a.qos, a.group, a.partitions),
              std::tie(b.user, b.account, b.qos, b.group, b.partitions));
  }
}

TEST(ScaleToSite, MapsSizesAndArrivalsOntoTheSite) {
  SimSite s(std::string(kNodes) + "PartitionName=p Nodes=n[1-8] Default=YES\n");
  engine::Workload w;
  // A 4-CPU machine's trace: one job an hour of 1-4 CPUs running half an hour.
  for (std::uint32_t i = 1; i <= 48; ++i) w.jobs.push_back(job(i, (i - 1) * 3600, 1 + i % 4, 1800, 3600, ""));
  const engine::ScaleReport r = engine::scale_to_site(w, *s.site.config, 0.9);
  EXPECT_EQ(r.trace_cpus, 4u);
  EXPECT_EQ(r.site_cpus, 128u);
  EXPECT_DOUBLE_EQ(r.size_factor, 32.0);
  // Work over the new span at 90% of 128 CPUs.
  double work = 0;
  for (const auto& j : w.jobs) work += static_cast<double>(j.cpus) * static_cast<double>(j.run_time);
  const double span = static_cast<double>(w.jobs.back().submit - w.jobs.front().submit);
  EXPECT_NEAR(work / (128.0 * span), 0.9, 0.01);
  EXPECT_EQ(w.jobs.front().cpus, 64u);  // 2 CPUs of 4 -> half the site
}

}  // namespace

#include <unistd.h>
#include <zlib.h>

#include "engine/workload/gzip.h"

namespace {

std::string gzip_file(const std::string& name, const std::string& text) {
  std::string path = (sa::test::scratch_dir() / name).string();
  gzFile z = gzopen(path.c_str(), "wb");
  gzwrite(z, text.data(), static_cast<unsigned>(text.size()));
  gzclose(z);
  return path;
}

TEST(GzipTrace, ArchiveTracesAreReadAsTheyAre) {
  const std::string swf =
      "; MaxProcs: 8\n1 0 10 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n"
      "2 5 0 50 2 -1 -1 2 100 -1 1 2 1 -1 1 -1 -1 -1\n";
  sa::SourceManager sources;
  sa::DiagnosticSink sink;
  auto w = engine::read_workload(gzip_file("sa_trace.swf.gz", swf), sources, sink);
  ASSERT_TRUE(w.ok()) << w.error();
  EXPECT_EQ(w->jobs.size(), 2u);
}

TEST(GzipTrace, ABombStopsAtTheSizeCap) {
  const std::string zeros(std::size_t{8} << 20, '0');  // 8 MB that compress to a few KB
  std::ifstream in(gzip_file("sa_bomb.gz", zeros), std::ios::binary);
  const std::string packed((std::istreambuf_iterator<char>(in)), {});
  EXPECT_LT(packed.size(), 100000u);
  EXPECT_TRUE(engine::gunzip(packed, std::size_t{16} << 20).ok());
  auto capped = engine::gunzip(packed, std::size_t{1} << 20);
  ASSERT_FALSE(capped.ok());
  EXPECT_NE(capped.error().find("--limit file-bytes"), std::string::npos) << capped.error();
  EXPECT_FALSE(engine::gunzip(packed.substr(0, packed.size() / 2), std::size_t{16} << 20).ok());  // truncated
}

}  // namespace
