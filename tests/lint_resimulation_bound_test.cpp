// A lint re-simulates each rule's fix once, however many partitions the rule flags
// (rules/framework/context.h): every re-simulation is a whole run of the load, and a config
// with hundreds of timesliced partitions ran one each (207 lines of slurm.conf, 66 runs and
// 6.6 GB before the limit of 15 CPU-minutes stopped it). Here each per-partition rule flags
// several partitions and runs one re-simulation, with the change on all of them. And a lint
// keeps a finished re-simulation only while a rule reads it, so its memory is not every run.
#include <chrono>
#include <deque>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "engine/coverage.h"
#include "engine/site_loader.h"
#include "engine/workload/default_load.h"
#include "rules/framework/context.h"
#include "rules/framework/lint.h"
#include "rules/framework/withhold.h"
#include "tests/scratch_dir.h"

namespace fs = std::filesystem;

namespace {

const fs::path kRules = fs::path(SA_SOURCE_DIR) / "rules";

fs::path write(const std::string& name, const std::string& text) {
  const fs::path p = sa::test::scratch_dir() / name;
  std::ofstream(p) << text;
  return p;
}

sa::rules::LintReport lint(const std::string& code, const sa::engine::SitePaths& paths) {
  auto site = sa::engine::load_site(paths);
  EXPECT_TRUE(site.ok()) << site.error();
  sa::rules::LintOptions options;
  options.only = {code};
  return sa::rules::run_lint(**site, options);
}

// The re-simulation a finding shows: its fix's, or where the fix changed nothing and was
// dropped, the one kept in its evidence (rules/framework/fix_effect.h).
nlohmann::json resimulated(const sa::rules::Finding& f) {
  if (f.fix) return f.fix->resimulated;
  return f.evidence.value("fix_resimulated", nlohmann::json::object());
}

std::string variant_of(const sa::rules::Finding& f) {
  const nlohmann::json r = resimulated(f);
  return r.contains("scenario") ? r["scenario"].value("variant", "") : "";
}

TEST(LintResimulations, SixTimeslicedPartitionsShareOneRun) {
  // GANG006's fixture load, on six partitions of their own nodes instead of one.
  std::string conf =
      "ClusterName=g6\nSlurmctldHost=head\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core_Memory\n"
      "DefMemPerCPU=900\nPreemptMode=GANG\nSchedulerTimeSlice=60\nNodeName=n[1-6] CPUs=8 RealMemory=32000\n";
  for (int i = 1; i <= 6; ++i)
    conf += "PartitionName=ts" + std::to_string(i) + " Nodes=n" + std::to_string(i) + " OverSubscribe=FORCE:3" +
            " MaxTime=12:00:00" + (i == 1 ? " Default=YES" : "") + "\n";
  sa::engine::SitePaths paths;
  paths.conf = write("ts6.conf", conf).string();
  // The fixture's load (twice what the nodes run), scaled to six nodes and dealt to the six
  // partitions alike.
  paths.synthetic = write("ts6.profile.txt",
                          "seed = 11\nduration = 12:00:00\njobs_per_hour = 24\ncpus = 1:30, 4:40, 8:30\n"
                          "runtime = lognormal 3600 0.8\nruntime_max = 12:00:00\nlimit_factor = 1.5 3\n"
                          "limit_round = 900\nusers = alice:physics:1, bob:physics:1\n"
                          "partitions = ts1:1, ts2:1, ts3:1, ts4:1, ts5:1, ts6:1\n")
                        .string();
  const sa::rules::LintReport report = lint("GANG006", paths);
  // One finding (the six are one defect), every other partition a related place with its
  // own text: all six flagged, one re-simulation with the change on all of them.
  ASSERT_EQ(report.findings.size(), 1u);
  const sa::rules::Finding& f = report.findings[0];
  std::size_t others = 0;
  for (const sa::rules::Location& r : f.related) others += r.note.find("timeslicing stretches") == 0;
  EXPECT_EQ(others, 5u);
  EXPECT_EQ(report.resimulations, 1u);
  EXPECT_EQ(variant_of(f), "OverSubscribe=FORCE:1 on ts1, ts2, ts3 and 3 more partitions");
  // Its own partition, in the shared run: no job suspended there.
  EXPECT_EQ(resimulated(f)["partition"], "ts1");
  EXPECT_EQ(resimulated(f)["suspended_share_of_allocated_cpu_time"], 0) << resimulated(f);
}

TEST(LintResimulations, OnePartitionWeightForEveryPartitionTermThatDominates) {
  // TIER001's weight fixture with a third partition between the two: 'priority' is 90,000
  // points ahead of standard and 'mid' 40,000, both past the 11,000 of fair share and age.
  // PriorityWeightPartition is one setting: both findings propose the value that brings the
  // largest gap to half the range (100,000 x 11,000 / 2 / 90,000 = 6,111, so 5,000), and
  // share one run of it.
  const fs::path dir = kRules / "tiers/partition-weight-dominates/fires";
  std::ifstream in(dir / "weight.conf");
  std::stringstream conf;
  conf << in.rdbuf() << "PartitionName=mid Nodes=n[1-4] MaxTime=1-00:00:00 PriorityJobFactor=5\n";
  sa::engine::SitePaths paths;
  paths.conf = write("weight3.conf", conf.str()).string();
  paths.assoc = (dir / "weight.assoc.cfg").string();
  const sa::rules::LintReport report = lint("TIER001", paths);
  ASSERT_EQ(report.findings.size(), 2u);
  EXPECT_EQ(report.resimulations, 1u);
  for (const sa::rules::Finding& f : report.findings) {
    ASSERT_TRUE(f.fix.has_value()) << f.message;
    EXPECT_EQ(f.fix->value, "5000") << f.message;
    EXPECT_EQ(variant_of(f), "PriorityWeightPartition=5000");
  }
}

TEST(LintResimulations, DefaultTimeOnTwoPartitionsIsOneRun) {
  // BF008's recorded load, its jobs dealt to two partitions alike (each has over ten jobs
  // without --time, all running under four hours).
  const fs::path dir = kRules / "backfill/default-time-far-above-run-times/fires";
  std::ifstream in(dir / "recorded_load.conf");
  std::stringstream conf;
  conf << in.rdbuf() << "PartitionName=short Nodes=n[1-4] MaxTime=7-00:00:00 DefaultTime=3-00:00:00\n";
  std::ifstream trace(dir / "recorded_load.sacct.psv");
  std::string out, line;
  int row = 0;
  while (std::getline(trace, line)) {
    // Partition is the tenth column: every other job goes to 'short'.
    if (line[0] != '#' && line.rfind("JobIDRaw", 0) != 0 && ++row % 2 == 0) {
      std::size_t at = 0;
      for (int bars = 0; bars < 9; ++bars) at = line.find('|', at) + 1;
      line.insert(at, "short");
    }
    out += line + "\n";
  }
  sa::engine::SitePaths paths;
  paths.conf = write("bf8.conf", conf.str()).string();
  paths.workload = write("bf8.sacct.psv", out).string();
  const sa::rules::LintReport report = lint("BF008", paths);
  // One finding for both (one defect), 'short' a related place with its own text.
  ASSERT_EQ(report.findings.size(), 1u);
  const sa::rules::Finding& f = report.findings[0];
  ASSERT_EQ(f.related.size(), 1u);
  EXPECT_EQ(f.related[0].note.rfind("partition 'short' sets DefaultTime=3-00:00:00, ", 0), 0u) << f.related[0].note;
  EXPECT_EQ(report.resimulations, 1u);
  // Each at the p95 run time of its own jobs without --time, rounded up to the hour.
  EXPECT_EQ(variant_of(f), "DefaultTime=04:00:00 on long, DefaultTime=05:00:00 on short");
  EXPECT_EQ(resimulated(f)["wait_seconds_without_time"]["jobs"], 36);
}

// BF008's recorded load and its site, for the context's own tests.
std::unique_ptr<sa::engine::LoadedSite> recorded_site() {
  const fs::path dir = kRules / "backfill/default-time-far-above-run-times/fires";
  sa::engine::SitePaths paths;
  paths.conf = (dir / "recorded_load.conf").string();
  paths.workload = (dir / "recorded_load.sacct.psv").string();
  auto site = sa::engine::load_site(paths);
  EXPECT_TRUE(site.ok()) << site.error();
  return site.ok() ? std::move(*site) : nullptr;
}

std::vector<std::int64_t> starts(const sa::rules::Simulation& sim) {
  std::vector<std::int64_t> out;
  for (const sa::engine::SimJob& j : sim.result.jobs) out.push_back(j.start);
  return out;
}

TEST(LintResimulations, AFinishedRunLivesWhileARuleHoldsIt) {
  const auto site = recorded_site();
  ASSERT_TRUE(site);
  sa::rules::LintContext ctx(*site, &site->workload, {});
  const std::vector<sa::ConfigEdit> edit{sa::ConfigEdit::scheduler_parameter("bf_window", "7200")};
  std::weak_ptr<const sa::rules::Simulation> first;
  std::vector<std::int64_t> first_starts;
  {
    const sa::rules::LintContext::RuleRuns rule;  // as the lint driver opens around a rule
    {
      const sa::rules::SimulationPtr a = ctx.resimulate("bf_window=7200", edit);
      first = a;
      first_starts = starts(*a);
    }
    // The rule asks again (as for its next finding): the run it holds, not a second one.
    const sa::rules::SimulationPtr b = ctx.resimulate("bf_window=7200", edit);
    EXPECT_EQ(b, first.lock());
    EXPECT_EQ(ctx.resimulation_runs(), 1u);
  }
  // The rule returned and nothing else holds the run: the context let go of it too.
  EXPECT_TRUE(first.expired());
  // Asked for again, the label runs again, to the same run (one label all along).
  const sa::rules::SimulationPtr again = ctx.resimulate("bf_window=7200", edit);
  EXPECT_EQ(ctx.resimulations(), 1u);
  EXPECT_EQ(ctx.resimulation_runs(), 2u);
  ASSERT_FALSE(first_starts.empty());
  EXPECT_EQ(starts(*again), first_starts);
  EXPECT_EQ(again->scenario.variant, "bf_window=7200");
}

TEST(LintResimulations, APrefetchedRunIsKeptUntilItsRuleAsks) {
  const auto site = recorded_site();
  ASSERT_TRUE(site);
  sa::rules::LintContext ctx(*site, &site->workload, {});
  ctx.start_simulation();
  const std::vector<sa::ConfigEdit> edit{sa::ConfigEdit::scheduler_parameter("bf_window", "7200")};
  ctx.prefetch("bf_window=7200", edit);
  ASSERT_NE(ctx.simulation(), nullptr);
  std::weak_ptr<const sa::rules::Simulation> held;
  {
    // Running or done, the prefetched run is the one the rule gets.
    const sa::rules::SimulationPtr r = ctx.resimulate("bf_window=7200", edit);
    EXPECT_EQ(ctx.resimulation_runs(), 1u);
    held = r;
  }
  // The prefetch's thread lets go of its copy as it ends, which may be just after the rule's.
  for (int i = 0; i < 500 && !held.expired(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_TRUE(held.expired());
  EXPECT_FALSE(ctx.stopped_run());
}

// 40 nodes without RealMemory under CR_Core_Memory (CONF045): each offers 1 MB, runs one job
// at a time, and the default load queues behind them, so nothing a re-simulation shows could
// stand. With `fed`, a second partition of nodes with RealMemory runs its jobs.
std::unique_ptr<sa::engine::LoadedSite> starved_site(bool fed) {
  std::string conf =
      "ClusterName=st\nSlurmctldHost=head\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core_Memory\n"
      "NodeName=n[1-40] CPUs=16\nPartitionName=batch Nodes=n[1-40] Default=YES MaxTime=2-00:00:00\n";
  if (fed) conf += "NodeName=m[1-40] CPUs=16 RealMemory=64000\nPartitionName=fed Nodes=m[1-40] MaxTime=2-00:00:00\n";
  sa::engine::SitePaths paths;
  paths.conf = write(fed ? "fed.conf" : "starved.conf", conf).string();
  auto site = sa::engine::load_site(paths);
  EXPECT_TRUE(site.ok()) << site.error();
  return site.ok() ? std::move(*site) : nullptr;
}

// The default load runs until a day after its last arrival, as lint runs it.
sa::rules::Scenario until_end_of(const sa::engine::DefaultLoad& load) {
  sa::rules::Scenario scenario;
  scenario.end = load.workload.until;
  return scenario;
}

// The base run, then a re-simulation asked for after it, as a rule asks.
struct BaseAndVariant {
  bool everything_withheld = false;
  sa::rules::SimulationPtr base, variant;
};
BaseAndVariant base_and_variant(const sa::engine::LoadedSite& site) {
  const sa::engine::DefaultLoad load = sa::engine::default_load(site.site);
  sa::rules::LintContext ctx(site, &load.workload, until_end_of(load));
  ctx.start_simulation();
  BaseAndVariant out;
  out.base = ctx.shared_simulation();
  const sa::Config& config = site.conf->config;
  out.everything_withheld =
      sa::rules::withholds_everything(sa::engine::load_coverage(out.base->result, config), config);
  out.variant = ctx.resimulate("bf_window=2880", {sa::ConfigEdit::scheduler_parameter("bf_window", "2880")});
  return out;
}

// A base run too thin for any evidence (every partition given jobs held on nodes without
// RealMemory) stops the re-simulations: their findings would be withheld, and on a 1,000-node
// site each was another 30-s run (a lint of 93 s wall, 41 s with this).
TEST(LintResimulations, ARunTooThinForEvidenceCutsItsResimulations) {
  const auto starved = starved_site(false);
  ASSERT_TRUE(starved);
  const BaseAndVariant cut = base_and_variant(*starved);
  EXPECT_TRUE(cut.everything_withheld);
  EXPECT_FALSE(cut.base->result.cancelled);
  EXPECT_TRUE(cut.variant->result.cancelled);
  EXPECT_LT(cut.variant->result.end, cut.base->result.end);
  // One partition that runs its jobs keeps every re-simulation whole.
  const auto fed = starved_site(true);
  ASSERT_TRUE(fed);
  const BaseAndVariant whole = base_and_variant(*fed);
  EXPECT_FALSE(whole.everything_withheld);
  EXPECT_FALSE(whole.variant->result.cancelled);
  EXPECT_EQ(starts(*whole.variant).size(), starts(*whole.base).size());
}

// Through the lint: BF001's simulated finding is withheld as before (its static form stays),
// and so is a finding about no partition, and one whose rule read a cut re-simulation.
TEST(LintResimulations, FindingsOnACutOrStarvedRunAreWithheld) {
  const auto site = starved_site(false);
  ASSERT_TRUE(site);
  sa::rules::LintOptions options;
  options.only = {"BF001"};
  const sa::rules::LintReport report = sa::rules::run_lint(*site, options);
  ASSERT_EQ(report.findings.size(), 1u);
  EXPECT_EQ(report.findings[0].code, "BF001");
  EXPECT_FALSE(report.findings[0].evidence.contains("scenario"));  // the static form
  const std::string skipped = nlohmann::json(report.skipped).dump();
  EXPECT_NE(skipped.find("BF001 (simulated evidence withheld: partition batch: "), std::string::npos) << skipped;

  const sa::engine::DefaultLoad load = sa::engine::default_load(site->site);
  sa::rules::LintContext ctx(*site, &load.workload, until_end_of(load));
  ctx.start_simulation();
  const sa::rules::LintContext static_ctx(*site, nullptr, {}, false);
  const auto coverage = sa::engine::load_coverage(ctx.simulation()->result, site->conf->config);
  std::deque<sa::rules::Finding> findings(2);
  findings[0].code = "BF002";  // about bf_max_job_test: no partition
  findings[0].check = sa::rules::Check::kBackfillLimits;
  findings[0].evidence["scenario"] = nlohmann::json::object();
  findings[1].code = "GANG006";
  findings[1].check = sa::rules::Check::kGangOversubscription;
  findings[1].read_cut_run = true;  // no scenario of its own
  std::vector<std::string> withheld;
  sa::rules::withhold_thin_evidence(coverage, ctx, static_ctx, findings, withheld);
  EXPECT_TRUE(findings.empty());
  ASSERT_EQ(withheld.size(), 2u);
  EXPECT_EQ(withheld[0].rfind("BF002 (simulated evidence withheld: partition batch: ", 0), 0u) << withheld[0];
  EXPECT_NE(withheld[0].find("40 of its 40 nodes without RealMemory (CONF045)"), std::string::npos) << withheld[0];
  EXPECT_EQ(withheld[1].rfind("GANG006 (simulated evidence withheld: partition batch: ", 0), 0u) << withheld[1];
}

}  // namespace
