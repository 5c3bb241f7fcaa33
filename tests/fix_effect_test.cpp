// How a re-simulated fix is judged: outcomes compared key by key (1% tolerance), mechanism
// counters ignored, and a fix that only worsens or changes nothing withdrawn with its numbers.
#include "rules/framework/fix_effect.h"

#include <gtest/gtest.h>

namespace sa::rules {
namespace {

Finding with_fix(nlohmann::json metrics, nlohmann::json resimulated) {
  Finding f;
  f.code = "BF001";
  f.evidence["metrics"] = std::move(metrics);
  f.fix = Fix{"raise bf_window to 7200", "SchedulerParameters", "bf_window=7200", std::move(resimulated)};
  return f;
}

TEST(FixEffect, OnlyWorseOutcomesWithdrawTheFixAndKeepItsNumbers) {
  Finding f =
      with_fix({{"unplanned_job_waits", {{"mean", 22440}, {"p95", 118380}}}, {"backfill_plans_beyond_window", 3000}},
               {{"unplanned_job_waits", {{"mean", 26002}, {"p95", 118380}}}, {"backfill_plans_beyond_window", 295}});
  EXPECT_EQ(fix_effect(f), FixEffect::kWorse);
  judge_fix(f);
  EXPECT_FALSE(f.fix.has_value());
  EXPECT_EQ(f.evidence["fix_effect"], "worse");
  EXPECT_EQ(f.evidence["fix_not_suggested"],
            "re-simulated on the same load, \"raise bf_window to 7200\" made these outcomes worse, so it is not "
            "suggested");
  EXPECT_EQ(f.evidence["fix_resimulated"]["unplanned_job_waits"]["mean"], 26002);
}

TEST(FixEffect, MixedOutcomesKeepTheFix) {
  Finding f = with_fix({{"unplanned_job_waits", {{"mean", 22440}}}, {"pending_at_end", 4}, {"utilization", 0.804}},
                       {{"unplanned_job_waits", {{"mean", 26002}}}, {"pending_at_end", 1}, {"utilization", 0.801}});
  judge_fix(f);
  ASSERT_TRUE(f.fix.has_value());
  EXPECT_EQ(f.evidence["fix_effect"], "mixed");
  EXPECT_FALSE(f.evidence.contains("fix_not_suggested"));
}

TEST(FixEffect, ChangesWithinOnePercentAreNoChange) {
  Finding f =
      with_fix({{"pending_at_end", 1000}, {"utilization", 0.800}}, {{"pending_at_end", 1009}, {"utilization", 0.805}});
  EXPECT_EQ(fix_effect(f), FixEffect::kNone);
  judge_fix(f);
  EXPECT_FALSE(f.fix.has_value());
  EXPECT_NE(f.evidence["fix_not_suggested"].get<std::string>().find("changed none of these outcomes"),
            std::string::npos);
}

TEST(FixEffect, BackfillsReachAndShareAreMechanismNotOutcome) {
  // BF002 on a site whose nodes run one job at a time (llm-jp's sakura config, no RealMemory):
  // a raised bf_max_job_test tests every job and backfill starts more of them, but no job
  // waits less and as many are left pending.
  Finding f = with_fix({{"wait_seconds", {{"jobs", 312}, {"mean", 144068}}},
                        {"pending_at_end", 6747},
                        {"utilization", 0.009},
                        {"backfill_share", 0.638},
                        {"never_reached_by_backfill", 6282},
                        {"never_tested_waits", {{"jobs", 6282}, {"mean", 201326}}}},
                       {{"wait_seconds", {{"jobs", 312}, {"mean", 144060}}},
                        {"pending_at_end", 6747},
                        {"utilization", 0.009},
                        {"backfill_share", 0.696},
                        {"never_reached_by_backfill", 0},
                        {"never_tested_waits", {{"jobs", 0}, {"mean", 0}}}});
  EXPECT_EQ(fix_effect(f), FixEffect::kNone);
  // The same mechanism beside a wait that did fall: better.
  Finding g = with_fix({{"wait_seconds", {{"mean", 1000}}}, {"never_reached_by_backfill", 50}},
                       {{"wait_seconds", {{"mean", 800}}}, {"never_reached_by_backfill", 0}});
  EXPECT_EQ(fix_effect(g), FixEffect::kBetter);
}

TEST(FixEffect, GpuBillingIsJudgedByWhereTheChargedUsageLands) {
  // FAIR007 on maatthias' sdcc: pricing GPUs moves no wait, but the charged usage of the GPU
  // jobs lands on the right accounts (0.232 of it misplaced before, 0.0549 after).
  Finding f = with_fix({{"gpu_charge_share_error", 0.232}, {"mean_wait_seconds", 10001}},
                       {{"gpu_charge_share_error", 0.0549}, {"mean_wait_seconds", 10001}});
  EXPECT_EQ(fix_effect(f), FixEffect::kBetter);
}

TEST(FixEffect, NodesSharingUnboundedMemoryAreAnOutcome) {
  // GANG001 on mkbahk's IPU cluster: counting memory changes no wait, but no node is shared
  // without a memory bound any more.
  Finding f = with_fix({{"nodes_shared_without_memory_bound", 5}, {"nodes_over_memory", 0}, {"wait_seconds", 11974}},
                       {{"nodes_shared_without_memory_bound", 0}, {"nodes_over_memory", 0}, {"wait_seconds", 11974}});
  EXPECT_EQ(fix_effect(f), FixEffect::kBetter);
}

TEST(FixEffect, BetterOutcomesAndNoResimulationAreLeftAlone) {
  Finding better = with_fix({{"pending_at_end", 4}}, {{"pending_at_end", 1}});
  judge_fix(better);
  EXPECT_TRUE(better.fix.has_value());
  EXPECT_EQ(better.evidence["fix_effect"], "better");
  Finding unrun = with_fix({{"pending_at_end", 4}}, nullptr);
  EXPECT_EQ(fix_effect(unrun), FixEffect::kUnknown);
  judge_fix(unrun);
  EXPECT_TRUE(unrun.fix.has_value());
  EXPECT_FALSE(unrun.evidence.contains("fix_effect"));
}

}  // namespace
}  // namespace sa::rules
