// MaxMemPerCPU and MaxMemPerNode at a job's partition (engine/max_memory.cpp), as the max_mem
// capture of a real 22.05 shows them (tests/golden/mini_slurm_fidelity/max_mem).
#include <gtest/gtest.h>

#include <limits>

#include "engine/max_memory.h"
#include "tests/engine_test_util.h"

namespace sa {
namespace {

using test::find_job;
using test::job;

// Four 16-CPU nodes of 64000 MB; capped: MaxMemPerCPU=2000; nodecap: MaxMemPerNode=20000.
const std::string kSite =
    "NodeName=n[1-4] CPUs=16 RealMemory=64000\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core_Memory\n"
    "PriorityType=priority/multifactor\nPriorityWeightJobSize=1000\nPriorityWeightTRES=CPU=1000,Mem=1000\n";
const std::string kParts =
    "PartitionName=capped Nodes=n[1-2] Default=YES MaxTime=UNLIMITED DefMemPerCPU=1000 MaxMemPerCPU=2000\n"
    "PartitionName=defover Nodes=n[1-2] MaxTime=UNLIMITED DefMemPerCPU=3000 MaxMemPerCPU=2000\n"
    "PartitionName=nodecap Nodes=n[3-4] MaxTime=UNLIMITED DefMemPerCPU=1000 MaxMemPerNode=20000\n";

engine::JobRequest with_mem(engine::JobRequest j, std::uint64_t mb, bool per_cpu) {
  j.mem_mb = mb;
  j.mem_per_cpu = per_cpu;
  j.mem_set = true;
  return j;
}

TEST(EngineMaxMemory, PerCpuMemoryAboveTheMaximumMultipliesTheCpusOfEachTask) {
  test::SimSite s(kSite + "EnforcePartLimits=ALL\n" + kParts);
  engine::JobRequest one_cpu_tasks = with_mem(job(1, 0, 2, 100, 600, "capped"), 5000, true);
  one_cpu_tasks.extra.edit().ntasks = 2;
  engine::JobRequest two_cpu_task = with_mem(job(2, 0, 2, 100, 600, "capped"), 3000, true);
  two_cpu_task.extra.edit().cpus_per_task = 2;
  engine::JobRequest by_default = job(3, 0, 2, 100, 600, "defover");  // DefMemPerCPU 3000
  engine::JobRequest under = with_mem(job(4, 0, 4, 100, 600, "capped"), 2000, true);
  auto r = s.run({one_cpu_tasks, two_cpu_task, by_default, under});
  // -n 2 --mem-per-cpu=5000: three times the CPUs at 1667 MB (the capture's job 1).
  const engine::Demand& d1 = find_job(r, 1).recs[0].demand;
  EXPECT_EQ(d1.cpus, 6U);
  EXPECT_EQ(d1.mem_per_cpu, 1667U);
  EXPECT_EQ(d1.cpus_per_node, 3U);
  EXPECT_EQ(find_job(r, 1).alloc.cpus(), 6U);
  // -c 2 at 3000 MB: -c 4 at 1500 (job 2); the default above the maximum likewise (job 3).
  EXPECT_EQ(find_job(r, 2).alloc.cpus(), 4U);
  EXPECT_EQ(find_job(r, 2).recs[0].demand.mem_per_cpu, 1500U);
  EXPECT_EQ(find_job(r, 3).alloc.cpus(), 4U);
  EXPECT_EQ(find_job(r, 3).recs[0].demand.mem_per_cpu, 1500U);
  EXPECT_EQ(find_job(r, 4).alloc.cpus(), 4U);
  EXPECT_EQ(find_job(r, 4).recs[0].demand.mem_per_cpu, 2000U);
  // What the job asked is what limits and priority read (ReqTRES cpu=2,mem=10000M).
  EXPECT_EQ(find_job(r, 1).recs[0].tres[engine::kTresCpu], 2);
  EXPECT_EQ(find_job(r, 1).recs[0].tres[engine::kTresMem], 10000);
  EXPECT_EQ(find_job(r, 1).recs[0].factors.job_size, find_job(r, 3).recs[0].factors.job_size);
  EXPECT_LT(find_job(r, 1).recs[0].factors.job_size, find_job(r, 4).recs[0].factors.job_size);
}

TEST(EngineMaxMemory, PerNodeMemoryUnderAPerCpuMaximumTakesEnoughCpusOnItsNode) {
  test::SimSite s(kSite + kParts);
  engine::JobRequest j = with_mem(job(1, 0, 1, 100, 600, "capped"), 9000, false);
  j.nodes = 1;
  auto r = s.run({j});
  // -N 1 -n 1 --mem=9000 under 2000 MB a CPU: 5 CPUs on its node, its request still 1 CPU.
  EXPECT_EQ(find_job(r, 1).alloc.cpus(), 5U);
  EXPECT_EQ(find_job(r, 1).recs[0].tres[engine::kTresCpu], 1);
}

TEST(EngineMaxMemory, MemoryAboveMaxMemPerNodeIsRefusedOrPendsWithMaxMemPerLimit) {
  engine::JobRequest big = with_mem(job(1, 0, 1, 100, 600, "nodecap"), 30000, false);
  engine::JobRequest wide = with_mem(job(2, 0, 8, 100, 600, "nodecap"), 3000, true);
  wide.nodes = 1;
  wide.extra.edit().ntasks = 8;
  wide.extra.edit().max_nodes = 1;
  engine::JobRequest fits = job(3, 0, 4, 100, 600, "nodecap");
  // Under EnforcePartLimits (mini-slurm's ALL): both refused at submission, as the capture's
  // sbatch reported for its lines 14 and 16.
  test::SimSite enforced(kSite + "EnforcePartLimits=ALL\n" + kParts);
  auto r = enforced.run({big, wide, fits});
  EXPECT_EQ(find_job(r, 1).rare.get().reject_error.str(), engine::kInvalidTaskMemory);
  EXPECT_EQ(find_job(r, 2).rare.get().reject_error.str(), engine::kInvalidTaskMemory);
  EXPECT_EQ(find_job(r, 3).start, 1);
  // EnforcePartLimits=NO: queued, never started, Reason MaxMemPerLimit.
  test::SimSite lax(kSite + "EnforcePartLimits=NO\n" + kParts);
  auto r2 = lax.run({big, fits});
  EXPECT_EQ(find_job(r2, 1).start, engine::kNoTime);
  ASSERT_EQ(find_job(r2, 1).recs.size(), 1U);
  EXPECT_EQ(find_job(r2, 1).recs[0].hold_reason, engine::HoldReason::kMaxMemPerLimit);
  EXPECT_EQ(r2.reason_name(find_job(r2, 1).reason), "MaxMemPerLimit");
}

// 24.05.2 through 24.11.0 keep a -c the job gave and raise only its CPU count (cpu_factor);
// 22.05, 24.05.0 and 24.11.1 on scale the CPUs of each task.
TEST(EngineMaxMemory, TheTaskSizeFollowsTheRelease) {
  engine::JobRequest j = with_mem(job(1, 0, 2, 100, 600, "capped"), 3000, true);
  j.extra.edit().cpus_per_task = 2;
  auto demand_on = [&](const char* version) {
    test::SimSite s(kSite + kParts, version);
    return s.run({j}).jobs.front().recs.front().demand;
  };
  for (const char* scaled : {"22.05", "24.05", "24.11.1"}) {
    SCOPED_TRACE(scaled);
    EXPECT_EQ(demand_on(scaled).cpus, 4U);
    EXPECT_EQ(demand_on(scaled).cpus_per_node, 4U);
  }
  for (const char* kept : {"24.05.2", "24.11.0"}) {
    SCOPED_TRACE(kept);
    EXPECT_EQ(demand_on(kept).cpus, 4U);
    EXPECT_EQ(demand_on(kept).cpus_per_node, 2U);
  }
}

// Hostile sizes stay bounded: the multiplier stops at Slurm's 16-bit CPUs per task, the job
// cannot be placed and is refused, nothing wraps.
TEST(EngineMaxMemory, AHostileMemorySizeIsBoundedAndRefused) {
  test::SimSite s(kSite + "MaxMemPerCPU=1\nPartitionName=p Nodes=n[1-4] Default=YES\n");
  engine::JobRequest huge = with_mem(job(1, 0, 4, 100, 600, "p"), std::numeric_limits<std::uint64_t>::max(), true);
  engine::JobRequest wide = with_mem(job(2, 0, 2, 100, 600, "p"), 3, true);
  auto r = s.run({huge, wide});
  EXPECT_EQ(find_job(r, 1).state, engine::JobState::kRejected);
  EXPECT_EQ(find_job(r, 2).alloc.cpus(), 6U);  // 3 MB a CPU under 1: three times the CPUs
}

TEST(EngineMaxMemory, APartitionsOwnMaximumReplacesTheClustersWhateverItsForm) {
  test::SimSite s(kSite + "MaxMemPerNode=10000\n" + kParts + "PartitionName=plain Nodes=n[3-4] MaxTime=UNLIMITED\n");
  const Config& c = s.conf->config;
  auto limit_of = [&](const char* name) {
    for (const Partition& p : c.partitions) {
      if (p.name == name) return engine::memory_limit(c, p);
    }
    return engine::MemoryLimit{};
  };
  EXPECT_EQ(limit_of("capped").mb, 2000U);
  EXPECT_TRUE(limit_of("capped").per_cpu);
  EXPECT_EQ(limit_of("plain").mb, 10000U);
  EXPECT_FALSE(limit_of("plain").per_cpu);
}

}  // namespace
}  // namespace sa
