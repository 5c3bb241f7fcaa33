// Hand-computed scenarios for the scheduler engine: each pins one rule of slurmctld's main
// loop, backfill or priority (shared/reference/algorithms.md §1, §4-6). Times are worked
// out in the comments; jobs' priorities are set through nice (all weights are 0).
#include <gtest/gtest.h>

#include <sstream>

#include "engine/coverage.h"
#include "engine/metrics.h"
#include "engine/workload/synthetic.h"
#include "report/sim_report.h"
#include "tests/engine_test_util.h"

namespace sa {
namespace {

using engine::StartedBy;
using test::find_job;
using test::job;

constexpr const char* kNodes = "NodeName=n[1-4] CPUs=4 RealMemory=4000\nSelectTypeParameters=CR_Core\n";

TEST(EngineScenarios, HigherTierStartsBeforeHigherPriority) {
  test::SimSite s(std::string(kNodes) +
                  "SchedulerType=sched/builtin\n"
                  "PartitionName=low Nodes=n[1-2] PriorityTier=1 Default=YES MaxTime=UNLIMITED\n"
                  "PartitionName=high Nodes=n[1-2] PriorityTier=2 MaxTime=UNLIMITED\n");
  // A holds both nodes from t=1 (first background run after its submit) to 101; its end
  // runs the scheduler at once: C (tier 2, priority 10) goes before B (tier 1, priority 5000).
  auto r =
      s.run({job(1, 0, 8, 100, 200, "low"), job(2, 10, 8, 50, 100, "low", -5000), job(3, 10, 8, 50, 100, "high", -10)});
  EXPECT_EQ(find_job(r, 1).start, 1);
  EXPECT_EQ(find_job(r, 2).recs[0].priority, 5000u);
  EXPECT_EQ(find_job(r, 3).recs[0].priority, 10u);
  EXPECT_EQ(find_job(r, 3).start, 101);
  EXPECT_EQ(find_job(r, 2).start, 151);
}

TEST(EngineScenarios, FirstBlockedJobBlocksItsPartitionAndItsNodes) {
  test::SimSite s(std::string(kNodes) +
                  "SchedulerType=sched/builtin\n"
                  "PartitionName=p1 Nodes=n[1-3] Default=YES MaxTime=UNLIMITED\n"
                  "PartitionName=p2 Nodes=n4 MaxTime=UNLIMITED\n"
                  "PartitionName=p3 Nodes=n[1-4] MaxTime=UNLIMITED\n");
  // R holds n1-n2. At t=11 Big (12 CPUs in p1) cannot start: p1 fails and n1-n3 leave the
  // run, so Small (p1) waits although n3 is free, Other takes n4, and Over (p3) finds no
  // node. When Other ends (111) Over starts on n4, never on n3, which stays kept for Big.
  auto r =
      s.run({job(1, 0, 8, 1000, 2000, "p1"), job(2, 10, 12, 100, 200, "p1", -1000), job(3, 10, 4, 100, 200, "p1", -500),
             job(4, 10, 4, 100, 200, "p2", -100), job(5, 10, 4, 100, 200, "p3", -50)});
  EXPECT_EQ(find_job(r, 4).start, 11);
  EXPECT_EQ(find_job(r, 5).start, 111);
  ASSERT_EQ(find_job(r, 5).alloc.nodes(), 1u);
  EXPECT_EQ(r.config_node(find_job(r, 5).alloc.expanded()[0].node), 3u);  // n4
  EXPECT_EQ(find_job(r, 2).start, 1001);                                  // when R ends
  EXPECT_EQ(find_job(r, 3).start, 1101);                                  // only after Big
  for (std::uint32_t id = 1; id <= 5; ++id) EXPECT_EQ(find_job(r, id).started_by, StartedBy::kMain) << id;
}

// A job whose -w nodes cover its node count fails only those nodes for the rest of the run,
// not its partition (job_scheduler.c _schedule, req_node_bitmap): the gang p2 capture's job
// 10 started on n5 in the pass where jobs pinned to busy n3 and n4 were tried first.
TEST(EngineScenarios, AJobPinnedToBusyNodesDoesNotBlockItsPartition) {
  test::SimSite s(std::string(kNodes) +
                  "SchedulerType=sched/builtin\n"
                  "PartitionName=p Nodes=n[1-4] Default=YES MaxTime=UNLIMITED\n");
  std::vector<engine::JobRequest> jobs = {job(1, 0, 8, 1000, 2000, "p"), job(2, 10, 4, 100, 200, "p", -1000),
                                          job(3, 10, 4, 100, 200, "p", -500), job(4, 10, 4, 100, 200, "p", -100),
                                          job(5, 10, 4, 100, 200, "p", -50)};
  jobs[1].extra.edit().nodelist = "n1";  // held by job 1
  jobs[3].extra.edit().nodelist = "n1";  // also n1: not tried on it after job 2 kept it
  auto r = s.run(jobs);
  ASSERT_EQ(find_job(r, 1).start, 1);
  EXPECT_EQ(find_job(r, 2).start, 1001);
  EXPECT_EQ(find_job(r, 3).start, 11);  // behind job 2 in the same partition, on n3
  EXPECT_EQ(find_job(r, 5).start, 11);
  EXPECT_EQ(find_job(r, 3).started_by, StartedBy::kMain);
  // With -N 2 a one-node list does not cover the node count: the partition fails as usual.
  jobs[1].nodes = 2;
  jobs[1].cpus = 8;
  jobs[1].extra.edit().nodelist = "n1";
  auto blocked = s.run(jobs);
  EXPECT_EQ(find_job(blocked, 3).start, 1001);
}

const std::string kBackfillSite = std::string(kNodes) + "PartitionName=p Nodes=n[1-4] Default=YES MaxTime=UNLIMITED\n";

// EnforcePartLimits=NO: a job over its partition's MaxTime is not refused; it pends with the
// partition's Reason (job_mgr.c's PartitionTimeLimit), is never queued, and holds nothing up.
// The record keeps why; a record within every limit keeps HoldReason::kNone.
TEST(EngineScenarios, AJobOverThePartitionTimeLimitPendsWithItsReason) {
  test::SimSite s(std::string(kNodes) +
                  "SchedulerType=sched/builtin\nEnforcePartLimits=NO\n"
                  "PartitionName=p Nodes=n[1-4] Default=YES MaxTime=5\n");
  auto r = s.run({job(1, 0, 4, 100, 600, "p"), job(2, 0, 4, 100, 300, "p")});
  const engine::SimJob& held = find_job(r, 1);
  EXPECT_EQ(held.start, engine::kNoTime);
  ASSERT_EQ(held.recs.size(), 1U);
  EXPECT_EQ(held.recs[0].hold_reason, engine::HoldReason::kPartitionTimeLimit);
  EXPECT_EQ(r.reason_name(held.reason), "PartitionTimeLimit");
  EXPECT_EQ(find_job(r, 2).recs[0].hold_reason, engine::HoldReason::kNone);
  EXPECT_EQ(find_job(r, 2).start, 1);
  const SlurmVersion v = s.conf->config.version;
  EXPECT_STREQ(engine::hold_reason_name(engine::HoldReason::kPartitionNodeLimit, v), "PartitionNodeLimit");
  EXPECT_STREQ(engine::hold_reason_name(engine::HoldReason::kNone, v), "");
}

// EnforcePartLimits=NO and an account AllowAccounts leaves out (by name on 22.05): the job
// is queued, and backfill, which tests no account list, finds it fits now; select_nodes
// refuses the start, and backfill.c keeps its nodes from now over its limit instead, every
// cycle. Job 4 could backfill at once beside job 1; it waits behind the phantom until the
// main loop runs job 2 and then itself (a real 22.05 did the same:
// tests/golden/mini_slurm_fidelity/denied_account_backfill).
TEST(EngineScenarios, ADeniedAccountsJobHoldsBackfillReservationsItNeverUses) {
  test::SimSite s(
      "NodeName=n[1-4] CPUs=4 RealMemory=4000\nSelectTypeParameters=CR_Core\nEnforcePartLimits=NO\n"
      "SchedulerParameters=bf_interval=30,bf_resolution=60\n"
      "PartitionName=p Nodes=n[1-4] Default=YES MaxTime=UNLIMITED AllowAccounts=a\n",
      "22.05");
  auto in_account = [](engine::JobRequest j, const char* account) {
    j.account = account;
    return j;
  };
  auto r = s.run({in_account(job(1, 0, 8, 900, 1200, "p"), "a"), in_account(job(2, 5, 16, 100, 600, "p", -1000), "a"),
                  in_account(job(3, 5, 8, 100, 120, "p", -10), "b"), in_account(job(4, 5, 4, 100, 300, "p", -5), "a")});
  const engine::SimJob& denied = find_job(r, 3);
  EXPECT_EQ(denied.start, engine::kNoTime);
  // 22.05's part_policy_valid_acct writes the state_desc squeue prints.
  EXPECT_EQ(r.reason_name(denied.reason), "Job's account not permitted to use this partition (p allows a not b)");
  EXPECT_EQ(find_job(r, 2).start, 901);
  EXPECT_EQ(find_job(r, 4).start, 1001);
  EXPECT_EQ(find_job(r, 4).started_by, StartedBy::kMain);
}

// From 23.02 part_policy_valid_acct sets no Reason: the job keeps job_allocate's
// PartitionConfig (the lists are checked there only when associations are enforced). A
// DenyAccounts list reads "denies ... including" on 22.05.
TEST(EngineScenarios, ADeniedAccountsReasonFollowsTheRelease) {
  auto reason_on = [](const char* version, const char* list) {
    test::SimSite s(std::string("NodeName=n[1-2] CPUs=4 RealMemory=4000\nEnforcePartLimits=NO\n"
                                "AccountingStorageType=accounting_storage/slurmdbd\n"
                                "AccountingStorageEnforce=associations\n"
                                "PartitionName=p Nodes=n[1-2] Default=YES MaxTime=UNLIMITED ") +
                        list + "\n",
                    version);
    engine::JobRequest j = job(1, 0, 4, 100, 120, "p");
    j.account = "b";
    const engine::SimResult r = s.run({j});
    // The load coverage counts it under the same Reason.
    const engine::LoadCoverage cov = engine::load_coverage(r, s.conf->config);
    const engine::PartitionCoverage* p = cov.find("p");
    EXPECT_EQ(p ? p->refused : 0u, 1u) << version;
    if (p && std::string(version) != "22.05") {
      EXPECT_EQ(p->refused_reasons.count("PartitionConfig (accepted under EnforcePartLimits=NO, never runs)"), 1u);
    }
    return r.reason_name(find_job(r, 1).reason);
  };
  EXPECT_EQ(reason_on("23.02", "AllowAccounts=a"), "PartitionConfig");
  EXPECT_EQ(reason_on("24.05", "DenyAccounts=b,c"), "PartitionConfig");
  EXPECT_EQ(reason_on("22.05", "DenyAccounts=b,c"),
            "Job's account not permitted to use this partition (p denies b,c including b)");
}

// A recorded load's job cancelled while pending (sacct CANCELLED without Start): it holds its
// place until the scancel, then leaves. Job 2 (whole cluster, top priority) cannot start
// beside job 1 and fails the partition in every main pass; job 3 behind it waits, in a
// scheduler without backfill, until job 2's scancel at 300. Job 4 depends on job 2: afterok
// never holds (DependencyNeverSatisfied), afterany holds at the scancel.
TEST(EngineScenarios, AJobCancelledWhilePendingHoldsItsPlaceUntilTheScancel) {
  test::SimSite s(std::string(kNodes) + "SchedulerType=sched/builtin\nPartitionName=p Nodes=n[1-4] Default=YES\n");
  auto cancelled = [](engine::JobRequest j, std::int64_t at) {
    j.extra.edit().cancelled_at = at;
    j.run_time = at - j.submit;
    return j;
  };
  auto depends = [](engine::JobRequest j, engine::DependencyType t) {
    j.dependencies = {{t, 2, 0}};
    return j;
  };
  for (engine::DependencyType t : {engine::DependencyType::kAfterOk, engine::DependencyType::kAfterAny}) {
    auto r = s.run({job(1, 0, 4, 1000, 2000, "p"), cancelled(job(2, 5, 16, 0, 600, "p", -1000), 300),
                    job(3, 5, 4, 100, 600, "p", -10), depends(job(4, 5, 4, 100, 600, "p", -20), t)});
    const engine::SimJob& gone = find_job(r, 2);
    EXPECT_EQ(gone.start, engine::kNoTime);
    EXPECT_EQ(gone.state, engine::JobState::kDone);
    EXPECT_EQ(gone.end_state, engine::EndState::kCancelled);
    EXPECT_EQ(gone.end, 300);
    EXPECT_TRUE(gone.cancelled_pending());
    EXPECT_GE(find_job(r, 3).start, 300);
    EXPECT_LE(find_job(r, 3).start, 301);
    if (t == engine::DependencyType::kAfterOk) {
      EXPECT_EQ(find_job(r, 4).start, engine::kNoTime);
      EXPECT_EQ(r.reason_name(find_job(r, 4).reason), "DependencyNeverSatisfied");
    } else {
      EXPECT_GE(find_job(r, 4).start, 300);
    }
  }
}

// The simulation starts a job earlier than the recorded load did, and the recorded scancel
// still comes: the run ends then, cancelled.
TEST(EngineScenarios, ARunStartedBeforeTheRecordedScancelEndsAtIt) {
  test::SimSite s(kBackfillSite);
  engine::JobRequest j = job(1, 0, 4, 0, 600, "p");
  j.extra.edit().cancelled_at = 200;
  j.run_time = 200;
  auto r = s.run({j});
  const engine::SimJob& ran = find_job(r, 1);
  EXPECT_NE(ran.start, engine::kNoTime);
  EXPECT_EQ(ran.end, 200);
  EXPECT_EQ(ran.end_state, engine::EndState::kCancelled);
  EXPECT_FALSE(ran.cancelled_pending());
}

TEST(EngineScenarios, BackfillStartsASmallJobThatDoesNotDelayTheTopJob) {
  test::SimSite s(kBackfillSite + "SchedulerParameters=bf_interval=30,bf_resolution=60\n");
  // R (limit 1200) is planned to end at 1201, so Big reserves all four nodes over
  // [1200, 1860). Short (limit 600) fits before that and is backfilled at the first cycle
  // (t=30); Long (limit 3000) would cross the reservation and waits. R really ends at 901.
  auto r = s.run({job(1, 0, 8, 900, 1200, "p"), job(2, 5, 16, 100, 600, "p", -1000), job(3, 5, 4, 300, 600, "p", -10),
                  job(4, 5, 4, 100, 3000, "p", -5)});
  EXPECT_EQ(find_job(r, 3).start, 30);
  EXPECT_EQ(find_job(r, 3).started_by, StartedBy::kBackfill);
  EXPECT_EQ(find_job(r, 2).start, 901);
  EXPECT_EQ(find_job(r, 2).started_by, StartedBy::kMain);
  EXPECT_EQ(find_job(r, 4).start, 1001);
  EXPECT_GE(r.counters.bf_reservations, 2u);
}

TEST(EngineScenarios, JobPlannedBeyondBfWindowGetsNoReservation) {
  test::SimSite s(kBackfillSite + "SchedulerParameters=bf_interval=30,bf_resolution=60,bf_window=10\n");
  // With a 10-minute window Big's planned start (1201) is out of reach: no reservation,
  // so Long (limit 3000) is backfilled at 30 and Big waits for it.
  auto r = s.run({job(1, 0, 8, 900, 1200, "p"), job(2, 5, 16, 100, 600, "p", -1000), job(3, 5, 4, 300, 600, "p", -10),
                  job(4, 5, 4, 2000, 3000, "p", -5)});
  EXPECT_EQ(find_job(r, 4).start, 30);
  EXPECT_EQ(find_job(r, 4).started_by, StartedBy::kBackfill);
  EXPECT_EQ(find_job(r, 2).start, find_job(r, 4).end);
  EXPECT_EQ(find_job(r, 2).start, 2030);
  EXPECT_GT(r.counters.bf_no_resv_beyond_window, 0u);
}

// --time-min (backfill.c): job 1 holds n[1-2] until 1200 by its limit, so Big (16 CPUs) is
// planned there at 1200. Job 3 asks 3000 s but may run with 600: backfill tests it with 600,
// starts it at the first cycle (30) and it runs with 600 as its limit (Slurm sets the limit to
// the minimum, though 1140 s would fit). Job 4, the same without --time-min, waits for Big.
// Job 5 (--time-min 60 s) runs 2000 s and is killed at 90.
TEST(EngineScenarios, TimeMinStartsAJobWithItsMinimumAsItsLimit) {
  test::SimSite s(kBackfillSite + "SchedulerParameters=bf_interval=30,bf_resolution=60\n");
  std::vector<engine::JobRequest> jobs = {job(1, 0, 8, 1100, 1200, "p"), job(2, 5, 16, 100, 600, "p", -1000),
                                          job(3, 5, 4, 300, 3000, "p", -10), job(4, 5, 4, 300, 3000, "p", -9),
                                          job(5, 5, 4, 2000, 3000, "p", -8)};
  jobs[2].extra.edit().time_min = 600;
  jobs[4].extra.edit().time_min = 60;
  auto r = s.run(jobs);
  EXPECT_EQ(find_job(r, 3).start, 30);
  EXPECT_EQ(find_job(r, 3).started_by, StartedBy::kBackfill);
  EXPECT_EQ(find_job(r, 3).end, 330);  // its 300 s fit its 600 s
  EXPECT_EQ(find_job(r, 3).rare.get().run_limit, 600);
  EXPECT_EQ(find_job(r, 5).start, 30);
  // Its 60-s limit ends at 90; slurmctld's limit test (31 s after its start, then every
  // 30 s) kills it at 91.
  EXPECT_EQ(find_job(r, 5).end, 91);
  EXPECT_EQ(find_job(r, 5).end_state, engine::EndState::kTimeout);
  EXPECT_EQ(find_job(r, 2).start, 1101);  // job 1's end
  EXPECT_GE(find_job(r, 4).start, find_job(r, 2).start);
}

TEST(EngineScenarios, BfMaxJobUserCutsAUserOffForTheCycle) {
  const std::vector<engine::JobRequest> jobs = {
      job(1, 0, 8, 900, 1200, "p", 0, "a"), job(2, 5, 16, 100, 600, "p", -1000, "a"),
      job(3, 5, 4, 300, 600, "p", -10, "b"), job(4, 5, 4, 300, 600, "p", -8, "b")};
  test::SimSite free_site(kBackfillSite + "SchedulerParameters=bf_interval=30\n");
  auto r0 = free_site.run(jobs);
  EXPECT_EQ(find_job(r0, 3).start, 30);
  EXPECT_EQ(find_job(r0, 4).start, 30);
  // bf_max_job_user=1: b's second record is skipped in the cycle at 30 and starts in the
  // next one (60); the main loop at 60 cannot start it, Big blocks the partition.
  test::SimSite limited(kBackfillSite + "SchedulerParameters=bf_interval=30,bf_max_job_user=1\n");
  auto r1 = limited.run(jobs);
  EXPECT_EQ(find_job(r1, 3).start, 30);
  EXPECT_EQ(find_job(r1, 4).start, 60);
  EXPECT_EQ(find_job(r1, 4).started_by, StartedBy::kBackfill);
  EXPECT_GT(r1.counters.bf_skipped_by_user_limit, 0u);
}

TEST(EngineScenarios, AgeRisesOnlyAtPriorityCalcPeriod) {
  test::SimSite s(std::string(kNodes) +
                  "PartitionName=p Nodes=n[1-4] Default=YES MaxTime=UNLIMITED\n"
                  "AccountingStorageType=accounting_storage/slurmdbd\nAccountingStorageHost=db\n"
                  "PriorityWeightAge=1000\nPriorityMaxAge=00:17:00\nPriorityCalcPeriod=1\n");
  // P accrues from its submission (5: job_allocate sets begin_time then); passes run at 0,
  // 60, 120: age is 55/1020 between 60 and 120, then 115/1020 (PriorityMaxAge is whole
  // minutes, so 00:17:00 = 1020 s).
  engine::SimOptions opt;
  opt.snapshot_at = {70, 100, 130};
  auto r = s.run({job(1, 0, 16, 1000, 2000, "p"), job(2, 5, 4, 100, 200, "p")}, opt);
  ASSERT_EQ(r.snapshots.size(), 3u);
  std::vector<double> ages;
  for (const auto& snap : r.snapshots) {
    ASSERT_EQ(snap.rows.size(), 1u);
    ages.push_back(snap.rows[0].factors.age);
  }
  EXPECT_DOUBLE_EQ(ages[0], 55.0 / 1020);
  EXPECT_DOUBLE_EQ(ages[1], 55.0 / 1020);
  EXPECT_DOUBLE_EQ(ages[2], 115.0 / 1020);
  EXPECT_EQ(r.snapshots[2].rows[0].priority, 112u);  // 112.75 truncated
}

TEST(EnginePriority, SumIsTruncatedAndClampedTo32Bits) {
  auto a = test::analyze_body(
      "NodeName=n[1-2] CPUs=4\n"
      "PartitionName=a Nodes=n[1-2] Default=YES PriorityJobFactor=1\n"
      "PartitionName=b Nodes=n[1-2] PriorityJobFactor=3\n"
      "PriorityWeightPartition=1000\n");
  engine::PriorityModel m(a->config, nullptr, QosTable::slurm_default());
  engine::PriorityInput in;
  in.partition = 0;
  EXPECT_EQ(m.priority(m.factors(in, 0)), 333u);  // 1000/3 = 333.33 truncated, not rounded
  in.partition = 1;
  EXPECT_EQ(m.priority(m.factors(in, 0)), 1000u);
  in.nice = 5000;
  EXPECT_EQ(m.priority(m.factors(in, 0)), 1u);  // never below 1: 0 means held

  auto big = test::analyze_body(
      "NodeName=n[1-2] CPUs=4\nPartitionName=a Nodes=n[1-2] Default=YES\n"
      "PriorityWeightPartition=4000000000\nPriorityWeightJobSize=4000000000\n");
  engine::PriorityModel m2(big->config, nullptr, QosTable::slurm_default());
  engine::PriorityInput whole;
  whole.min_nodes = 2;
  whole.cpus = 8;
  EXPECT_DOUBLE_EQ(m2.factors(whole, 0).job_size, 1.0);
  EXPECT_EQ(m2.priority(m2.factors(whole, 0)), 4294967295u);
}

TEST(EnginePriority, FavorSmallWrapsLikeSlurmsUnsignedSubtraction) {
  auto a = test::analyze_body(
      "NodeName=n[1-2] CPUs=4\nPartitionName=a Nodes=n[1-2] Default=YES\n"
      "PriorityWeightJobSize=1000\nPriorityFavorSmall=YES\n");
  engine::PriorityModel m(a->config, nullptr, QosTable::slurm_default());
  engine::PriorityInput in;
  in.min_nodes = 1;
  in.cpus = 2;
  EXPECT_DOUBLE_EQ(m.factors(in, 0).job_size, (0.5 + 6.0 / 8.0) / 2.0);
  in.cpus = 12;  // more CPUs than the cluster: uint32 wrap, then the clamp gives 1
  EXPECT_DOUBLE_EQ(m.factors(in, 0).job_size, 1.0);
}

TEST(EngineScenarios, SameInputsGiveAByteIdenticalTrace) {
  auto conf = analyze_file(std::string(SA_SOURCE_DIR) + "/corpora/tiered-university/slurm.conf");
  ASSERT_TRUE(conf->ok());
  SourceManager sources;
  DiagnosticSink sink;
  FileId f = sources.add("profile",
                         "seed = 7\nduration = 2-00:00:00\njobs_per_hour = 40\ncpus = 1:5, 16:3, 64:1\n"
                         "runtime = lognormal 3600 1.2\nusers = alice:chem:1, bob:physics:2\n");
  engine::Profile p = engine::read_profile(f, sources, sink);
  ASSERT_FALSE(sink.has_errors());
  engine::Site site;
  site.config = &conf->config;
  auto trace = [&] {
    engine::Workload w = engine::generate(p, conf->config, nullptr);
    engine::SimResult r = engine::Simulator(site, {}).run(w);
    std::ostringstream out;
    report::write_trace_csv(out, r, site);
    return out.str();
  };
  const std::string first = trace();
  EXPECT_GT(std::count(first.begin(), first.end(), '\n'), 1000);
  EXPECT_EQ(first, trace());
}

}  // namespace
}  // namespace sa
