// Preemption in the engine (engine/preemption.h, gang_sim.cpp), hand-computed on two nodes
// of 4 CPUs: overlapping partitions at two PriorityTiers with SUSPEND,GANG (the lower job is
// suspended under the higher one's shadow and resumed when it ends), REQUEUE and CANCEL
// (the preemptor waits for the preemptee to go, GraceTime first), PreemptExemptTime, and
// memory that suspended jobs keep.
#include <gtest/gtest.h>

#include <string>

#include "engine/preemption.h"
#include "tests/engine_test_util.h"

namespace sa {
namespace {

using engine::JobEvent;
using test::find_job;
using test::job;

std::string site(const std::string& preempt, const std::string& low_extra = "", const std::string& memory = "4000") {
  return "NodeName=n[1-2] CPUs=4 RealMemory=" + memory +
         "\nSelectTypeParameters=CR_Core_Memory\nDefMemPerCPU=500\nSchedulerType=sched/builtin\n" + preempt +
         "\nPartitionName=low Nodes=n[1-2] Default=YES MaxTime=UNLIMITED PriorityTier=1 " + low_extra +
         "\nPartitionName=scav Nodes=n[1-2] MaxTime=UNLIMITED PriorityTier=1 PreemptMode=CANCEL"
         "\nPartitionName=high Nodes=n[1-2] MaxTime=UNLIMITED PriorityTier=2\n";
}

TEST(EnginePreempt, SuspendGangSuspendsTheLowerTierJobUntilThePreemptorEnds) {
  test::SimSite s(site("PreemptType=preempt/partition_prio\nPreemptMode=SUSPEND,GANG"));
  // Two low jobs fill both nodes; a high job for one node arrives at 100, starts at the
  // next run (101) on job 1's cores and its shadow suspends job 1 at once. Job 2 runs on.
  auto r = s.run({job(1, 0, 4, 1000, -1, "low"), job(2, 0, 4, 1000, -1, "low"), job(3, 100, 4, 200, -1, "high")});
  const engine::SimJob& j1 = find_job(r, 1);
  const engine::SimJob& j3 = find_job(r, 3);
  EXPECT_EQ(j3.start, 101);
  EXPECT_EQ(j3.end, 301);
  ASSERT_EQ(j1.rare.get().events.size(), 2u);
  EXPECT_EQ(j1.rare.get().events[0].kind, JobEvent::Kind::kSuspend);
  EXPECT_EQ(j1.rare.get().events[0].at, 101);
  EXPECT_EQ(j1.rare.get().events[1].kind, JobEvent::Kind::kResume);
  EXPECT_EQ(j1.rare.get().events[1].at, 301);
  // Suspended time is added back: 1000 s of work end at 1 + 1000 + 200.
  EXPECT_EQ(j1.rare.get().tot_sus_time, 200);
  EXPECT_EQ(j1.end, 1201);
  EXPECT_TRUE(find_job(r, 2).rare.get().events.empty());
  EXPECT_EQ(find_job(r, 2).end, 1001);
  EXPECT_EQ(r.counters.suspends, 1u);
}

// Four low jobs timeslice on two nodes (FORCE:2, REQUEUE with GraceTime=20) when a high job
// arrives at 100. Job 1 gets its grace at 101 (end 121), but gang suspends it at 120: the limit
// test at 121 skips a suspended job (job_time_limit), so the first test after its resume at 150
// requeues it (151), not a TIMEOUT at its cut limit. A requeued job then waits for its
// BeginTime (+121 s) even when gang requeues it the moment it restarts under the high job's
// shadow: each restart and requeue comes 121 s or more after the last (the engine used to
// restart it from its stale queue entry within the same second, endlessly).
TEST(EnginePreempt, AGraceThatRunsOutWhileSuspendedEndsAtTheTestAfterItsResume) {
  test::SimSite s(site("PreemptType=preempt/partition_prio\nPreemptMode=SUSPEND,GANG\nSchedulerTimeSlice=30",
                       "OverSubscribe=FORCE:2 PreemptMode=REQUEUE GraceTime=20"));
  auto r = s.run({job(1, 0, 4, 1000, -1, "low"), job(2, 0, 4, 1000, -1, "low"), job(3, 0, 4, 1000, -1, "low"),
                  job(4, 0, 4, 1000, -1, "low"), job(5, 100, 4, 200, -1, "high")});
  const engine::SimJob& j1 = find_job(r, 1);
  std::vector<std::int64_t> requeued;
  std::int64_t graced = engine::kNoTime;
  for (const engine::JobEvent& e : j1.rare.get().events) {
    if (e.kind == JobEvent::Kind::kPreemptGrace) graced = e.at;
    if (e.kind == JobEvent::Kind::kPreemptRequeue) requeued.push_back(e.at);
  }
  EXPECT_EQ(graced, 101);
  ASSERT_GE(requeued.size(), 2u);
  EXPECT_EQ(requeued[0], 151);
  for (std::size_t k = 1; k < requeued.size(); ++k) EXPECT_GE(requeued[k] - requeued[k - 1], 121) << k;
  EXPECT_EQ(j1.end_state, engine::EndState::kCompleted);  // its last run
  EXPECT_EQ(find_job(r, 5).start, 241);
  for (const engine::SimJob& j : r.jobs) EXPECT_EQ(j.state, engine::JobState::kDone) << "job " << j.req.id;
}

TEST(EnginePreempt, SuspendedJobsKeepTheirMemory) {
  // Each low job holds 4 CPUs x 500 MB = 2000 of a node's 3000 MB. The high job asks for
  // 2000 MB: a suspended job would stay resident, so there is no room and nothing is
  // preempted; the high job waits for job 1 to end.
  test::SimSite s(site("PreemptType=preempt/partition_prio\nPreemptMode=SUSPEND,GANG", "", "3000"));
  engine::JobRequest big = job(3, 100, 4, 200, -1, "high");
  big.mem_set = true;
  big.mem_mb = 2000;
  auto r = s.run({job(1, 0, 4, 1000, -1, "low"), job(2, 0, 4, 1000, -1, "low"), big});
  EXPECT_TRUE(find_job(r, 1).rare.get().events.empty());
  EXPECT_EQ(find_job(r, 3).start, 1001);
  // The peak each node was asked to hold: one low job at a time, 2000 MB.
  ASSERT_EQ(r.node_peaks.size(), 2u);
  EXPECT_EQ(r.node_peaks[0].mem_mb, 2000u);
}

TEST(EnginePreempt, RequeueSendsTheLowestPreemptableJobBack) {
  test::SimSite s(site("PreemptType=preempt/partition_prio\nPreemptMode=REQUEUE"));
  auto r = s.run({job(1, 0, 4, 1000, -1, "low"), job(2, 0, 4, 1000, -1, "low"), job(3, 100, 4, 200, -1, "high")});
  const engine::SimJob& j1 = find_job(r, 1);
  // Job 1 is the first candidate (same key, lower id): requeued at 101, eligible again
  // 121 s later; the preemptor starts in the run its end triggers, the same second.
  EXPECT_EQ(j1.rare.get().requeues, 1u);
  ASSERT_FALSE(j1.rare.get().events.empty());
  EXPECT_EQ(j1.rare.get().events[0].kind, JobEvent::Kind::kPreemptRequeue);
  EXPECT_EQ(j1.rare.get().events[0].by, 3u);
  EXPECT_EQ(j1.rare.get().events[0].at, 101);
  EXPECT_EQ(find_job(r, 3).start, 101);
  EXPECT_EQ(j1.rare.get().lost_cpu_seconds, 4.0 * 100);
  // It runs again from scratch once the high job has left n1.
  EXPECT_EQ(j1.start, 301);
  EXPECT_EQ(j1.end, 1301);
  EXPECT_EQ(r.counters.preempt_requeues, 1u);
}

TEST(EnginePreempt, CancelEndsThePreemptedJobAndGraceTimeDelaysIt) {
  test::SimSite s(site("PreemptType=preempt/partition_prio\nPreemptMode=REQUEUE", "GraceTime=30"));
  // Job 1 (scav, CANCEL) and job 2 (low, REQUEUE with 30 s grace). Candidates tie on key:
  // job 1 first. It is killed at once and the high job takes its node.
  auto r = s.run({job(1, 0, 4, 1000, -1, "scav"), job(2, 0, 4, 1000, -1, "low"), job(3, 100, 4, 200, -1, "high"),
                  job(4, 100, 4, 200, -1, "high")});
  const engine::SimJob& j1 = find_job(r, 1);
  EXPECT_EQ(j1.end_state, engine::EndState::kPreempted);
  EXPECT_EQ(j1.end, 101);
  EXPECT_EQ(find_job(r, 3).start, 101);
  // Job 4 needs job 2's node: SIGTERM at 101 (the first preemption's hold of KillWait +
  // MessageTimeout belongs to job 3, not job 4). GraceTime ends at 131; nothing looks at the
  // job then: slurmctld's limit test (31 s after its start, then every 30 s) requeues it at
  // 151, before job 4's own hold (to 141) meets a main-loop run (sched_interval: 180).
  const engine::SimJob& j2 = find_job(r, 2);
  ASSERT_GE(j2.rare.get().events.size(), 2u);
  EXPECT_EQ(j2.rare.get().events[0].kind, JobEvent::Kind::kPreemptGrace);
  EXPECT_EQ(j2.rare.get().events[0].at, 101);
  EXPECT_EQ(j2.rare.get().events[1].kind, JobEvent::Kind::kPreemptRequeue);
  EXPECT_EQ(j2.rare.get().events[1].at, 151);
  EXPECT_EQ(find_job(r, 4).start, 151);
}

TEST(EnginePreempt, ExemptTimeProtectsYoungJobs) {
  test::SimSite s(site("PreemptType=preempt/partition_prio\nPreemptMode=REQUEUE\nPreemptExemptTime=00:10:00"));
  // The low jobs started at 1 may not be preempted before 601; the first main-loop run from
  // then on (sched_interval's 60 s cycle) preempts job 1 and starts the high job.
  auto r = s.run({job(1, 0, 4, 1000, -1, "low"), job(2, 0, 4, 1000, -1, "low"), job(3, 100, 4, 200, -1, "high")});
  EXPECT_GE(find_job(r, 3).start, 601);
  EXPECT_LT(find_job(r, 3).start, 700);
  EXPECT_EQ(find_job(r, 1).rare.get().requeues, 1u);
}

// PreemptParameters=min_exempt_priority (23.02+): a running job whose priority is above it is
// never a victim. Jobs' priorities here are -nice (every weight 0): the low jobs at 9000 may
// be requeued under a threshold of 9500 and are exempt under 8000.
TEST(EnginePreempt, MinExemptPriorityKeepsHigherPriorityJobsRunning) {
  auto first_start_of_3 = [](const std::string& params) {
    test::SimSite s(site("PreemptType=preempt/partition_prio\nPreemptMode=REQUEUE\n" + params));
    auto r = s.run(
        {job(1, 0, 4, 1000, -1, "low", -9000), job(2, 0, 4, 1000, -1, "low", -9000), job(3, 100, 4, 200, -1, "high")});
    return find_job(r, 3).start;
  };
  const std::int64_t open = first_start_of_3("");
  EXPECT_LT(open, 1000) << "the high job preempts a low one";
  EXPECT_EQ(first_start_of_3("PreemptParameters=min_exempt_priority=9500"), open);
  EXPECT_GE(first_start_of_3("PreemptParameters=min_exempt_priority=8000"), 1000) << "both low jobs are exempt";
}

// PreemptMode=PRIORITY (25.05): a preemptor of lower job priority than the running job may
// not preempt it, even from a higher tier (preempt_partition_prio.c preempt_p_preemptable).
TEST(EnginePreempt, PreemptModePriorityKeepsHigherPriorityJobsFrom2505) {
  auto start_of_3 = [](const std::string& mode) {
    const auto a = test::analyze_body(site("PreemptType=preempt/partition_prio\nPreemptMode=" + mode), "25.05");
    engine::Site st;
    st.config = &a->config;
    engine::Workload w;
    w.jobs = {job(1, 0, 4, 1000, -1, "low", -9000), job(2, 0, 4, 1000, -1, "low", -9000),
              job(3, 100, 4, 200, -1, "high", -100)};
    return find_job(engine::Simulator(st, {}).run(w), 3).start;
  };
  EXPECT_LT(start_of_3("REQUEUE"), 1000);
  EXPECT_GE(start_of_3("REQUEUE,PRIORITY"), 1000) << "job 3 (priority 100) may not preempt jobs of 9000";
}

// Which spelling orders victims youngest first: 22.05 reads SchedulerParameters'
// preempt_youngest_first only; 23.02 and later read it or PreemptParameters=youngest_first.
TEST(EnginePreempt, YoungestFirstSpellingsByRelease) {
  auto youngest = [](const std::string& line, const char* version) {
    const auto a =
        test::analyze_body(site("PreemptType=preempt/partition_prio\nPreemptMode=REQUEUE\n" + line), version);
    return engine::PreemptPolicy(a->config, QosTable::slurm_default()).youngest_first();
  };
  EXPECT_TRUE(youngest("SchedulerParameters=preempt_youngest_first", "22.05"));
  EXPECT_TRUE(youngest("SchedulerParameters=preempt_youngest_first", "24.05"));
  EXPECT_FALSE(youngest("PreemptParameters=youngest_first", "22.05"));
  EXPECT_TRUE(youngest("PreemptParameters=youngest_first", "24.05"));
  EXPECT_FALSE(youngest("", "24.05"));
}

}  // namespace
}  // namespace sa
