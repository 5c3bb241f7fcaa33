// Gang scheduling replayed on the examples of Slurm's gang scheduling page (the seed
// ../shared/seeds/003_b86fd66865a5a46e.txt): five nodes n[12-16], SchedulerTimeSlice=30,
// PreemptMode=GANG, one OverSubscribe=FORCE partition. The page's squeue listings are
// checked as the running (R) and suspended (S) sets after each timeslice. The clock starts
// at the first submission; the timeslicer wakes at 30, 60, 90, ... from there.
#include <gtest/gtest.h>

#include <string>

#include "tests/engine_test_util.h"

namespace sa {
namespace {

using test::find_job;

/// "R" or "S" for a job at time t (after everything that happened at t), "-" otherwise.
std::string state_at(const engine::SimJob& job, std::int64_t t) {
  if (job.start == engine::kNoTime || job.start > t || (job.end != engine::kNoTime && job.end <= t)) return "-";
  std::string s = "R";
  for (const engine::JobEvent& e : job.rare.get().events) {
    if (e.at > t) break;
    if (e.kind == engine::JobEvent::Kind::kSuspend) s = "S";
    if (e.kind == engine::JobEvent::Kind::kResume) s = "R";
  }
  return s;
}

/// "3R 4S" for the listed jobs at time t.
std::string states(const engine::SimResult& r, std::vector<std::uint32_t> ids, std::int64_t t) {
  std::string out;
  for (std::uint32_t id : ids) out += (out.empty() ? "" : " ") + std::to_string(id) + state_at(find_job(r, id), t);
  return out;
}

engine::JobRequest nodes_job(std::uint32_t id, std::int64_t submit, std::uint32_t nodes, std::uint32_t cpus,
                             std::int64_t run) {
  engine::JobRequest j = test::job(id, submit, cpus, run, -1, "active");
  j.nodes = nodes;
  return j;
}

const std::string kLinear =
    "NodeName=n[12-16] CPUs=8 RealMemory=16000\n"
    "SelectType=select/linear\nSchedulerType=sched/builtin\n"
    "PreemptMode=GANG\nSchedulerTimeSlice=30\n"
    "PartitionName=active Nodes=n[12-16] Default=YES MaxTime=UNLIMITED OverSubscribe=FORCE\n";

TEST(EngineGang, TwoWholeClusterJobsTakeTurns) {
  test::SimSite s(kLinear);
  // sbatch -N5 twice. Job 4 starts on job 3's nodes and is suspended at once. The first
  // slice only turns both "fillers" into candidates, so job 3 keeps running; from then on
  // they swap every slice.
  auto r = s.run({nodes_job(3, 0, 5, 5, 300), nodes_job(4, 5, 5, 5, 300)});
  EXPECT_EQ(states(r, {3, 4}, 10), "3R 4S");
  EXPECT_EQ(states(r, {3, 4}, 30), "3R 4S");
  EXPECT_EQ(states(r, {3, 4}, 60), "3S 4R");
  EXPECT_EQ(states(r, {3, 4}, 90), "3R 4S");
  EXPECT_EQ(states(r, {3, 4}, 120), "3S 4R");
  // Each runs 300 s; suspended time is added back, so both take about twice as long.
  const engine::SimJob& j3 = find_job(r, 3);
  const engine::SimJob& j4 = find_job(r, 4);
  EXPECT_EQ(j3.end - j3.start - j3.rare.get().tot_sus_time, 300);
  EXPECT_EQ(j4.end - j4.start - j4.rare.get().tot_sus_time, 300);
  EXPECT_GT(j3.rare.get().tot_sus_time, 200);
  EXPECT_EQ(j3.end_state, engine::EndState::kCompleted);
}

TEST(EngineGang, ANonConflictingJobKeepsRunningWhileTheOthersRotate) {
  test::SimSite s(kLinear);
  // -N3, -N2, -N3: job 10 gets the two nodes job 9 left and never stops; 9 and 11 share
  // n[12-14] and take turns (the page's second example).
  auto r = s.run({nodes_job(9, 0, 3, 3, 600), nodes_job(10, 1, 2, 2, 600), nodes_job(11, 2, 3, 3, 600)});
  EXPECT_EQ(find_job(r, 11).alloc.expanded()[0].node, find_job(r, 9).alloc.expanded()[0].node);
  EXPECT_EQ(states(r, {9, 10, 11}, 10), "9R 10R 11S");
  EXPECT_EQ(states(r, {9, 10, 11}, 60), "9S 10R 11R");
  EXPECT_EQ(states(r, {9, 10, 11}, 90), "9R 10R 11S");
  EXPECT_TRUE(find_job(r, 10).rare.get().events.empty());
}

TEST(EngineGang, LocalBackfillingRunsASmallJobBesideTheSuspendedLargeOne) {
  test::SimSite s(kLinear);
  // -N3, -N5, -N2: job 13 needs all five nodes and is suspended under job 12; job 14 lands
  // on the two nodes only job 13 holds and runs at once ("local backfilling").
  auto r = s.run({nodes_job(12, 0, 3, 3, 600), nodes_job(13, 1, 5, 5, 600), nodes_job(14, 2, 2, 2, 600)});
  EXPECT_EQ(states(r, {12, 13, 14}, 10), "12R 13S 14R");
  EXPECT_EQ(states(r, {12, 13, 14}, 60), "12S 13R 14S");
  EXPECT_EQ(states(r, {12, 13, 14}, 90), "12R 13S 14R");
}

std::string consumable(const std::string& params) {
  return "NodeName=n[12-16] Sockets=2 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=16000\n"
         "SelectType=select/cons_tres\nSelectTypeParameters=" +
         params +
         "\nDefMemPerCPU=100\nSchedulerType=sched/builtin\nPreemptMode=GANG\nSchedulerTimeSlice=30\n"
         "PartitionName=active Nodes=n[12-16] Default=YES MaxTime=UNLIMITED OverSubscribe=FORCE\n";
}

std::vector<engine::JobRequest> six_jobs(std::uint32_t first) {
  // sbatch -n10 -N5 --ntasks-per-node=2 six times: 2 CPUs on each node per job, so four jobs
  // fill the cores. (The page says -n10 -N5; real Slurm packs that 6,1,1,1,1 — see
  // tests/golden/mini_slurm_gang — and the page's listings need two per node.)
  std::vector<engine::JobRequest> jobs;
  for (std::uint32_t k = 0; k < 6; ++k) {
    jobs.push_back(nodes_job(first + k, k, 5, 10, 900));
    jobs.back().cpus_per_node = 2;
  }
  return jobs;
}

TEST(EngineGang, CrCoreTimeslicesOnlyTheJobsThatShareCores) {
  test::SimSite s(consumable("CR_Core_Memory"));
  auto r = s.run(six_jobs(44));
  // Jobs 48 and 49 land on the cores of 44 and 45 (the first free ones of the second row);
  // 46 and 47 never stop.
  for (const engine::AllocPiece& p : find_job(r, 44).alloc.expanded()) EXPECT_EQ(p.cpus, 2u);
  EXPECT_EQ(find_job(r, 48).alloc.units, find_job(r, 44).alloc.units);
  EXPECT_EQ(find_job(r, 49).alloc.units, find_job(r, 45).alloc.units);
  EXPECT_EQ(states(r, {44, 45, 46, 47, 48, 49}, 10), "44R 45R 46R 47R 48S 49S");
  EXPECT_EQ(states(r, {44, 45, 46, 47, 48, 49}, 60), "44S 45S 46R 47R 48R 49R");
  EXPECT_EQ(states(r, {44, 45, 46, 47, 48, 49}, 90), "44R 45R 46R 47R 48S 49S");
  EXPECT_TRUE(find_job(r, 46).rare.get().events.empty());
  EXPECT_TRUE(find_job(r, 47).rare.get().events.empty());
}

TEST(EngineGang, CrCpuRotatesAllSixJobsThroughTheCpus) {
  test::SimSite s(consumable("CR_CPU_Memory"));
  auto r = s.run(six_jobs(51));
  // CPU counts, not cores: every job takes its turn (the page's CR_CPU example).
  EXPECT_EQ(states(r, {51, 52, 53, 54, 55, 56}, 10), "51R 52R 53R 54R 55S 56S");
  EXPECT_EQ(states(r, {51, 52, 53, 54, 55, 56}, 60), "51R 52R 53S 54S 55R 56R");
  EXPECT_EQ(states(r, {51, 52, 53, 54, 55, 56}, 90), "51S 52S 53R 54R 55R 56R");
  EXPECT_EQ(states(r, {51, 52, 53, 54, 55, 56}, 120), "51R 52R 53R 54R 55S 56S");
  for (std::uint32_t id = 51; id <= 56; ++id) EXPECT_FALSE(find_job(r, id).rare.get().events.empty()) << id;
}

TEST(EngineGang, TheTraceIsDeterministic) {
  test::SimSite s(consumable("CR_CPU_Memory"));
  auto a = s.run(six_jobs(51));
  auto b = s.run(six_jobs(51));
  for (std::uint32_t id = 51; id <= 56; ++id) {
    const auto& ea = find_job(a, id).rare.get().events;
    const auto& eb = find_job(b, id).rare.get().events;
    ASSERT_EQ(ea.size(), eb.size());
    for (std::size_t k = 0; k < ea.size(); ++k) {
      EXPECT_EQ(ea[k].at, eb[k].at);
      EXPECT_EQ(ea[k].kind, eb[k].kind);
    }
    EXPECT_EQ(find_job(a, id).end, find_job(b, id).end);
  }
}

}  // namespace
}  // namespace sa
