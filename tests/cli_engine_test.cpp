// simulate and sprio end to end: outputs, exit codes, and bad workloads as diagnostics.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "tests/cli_util.h"
#include "tests/fidelity_capture.h"

namespace {

using sa::test::CommandResult;
using sa::test::run;
using sa::test::write_temp;

const std::string kDir = std::string(SA_SOURCE_DIR) + "/corpora/tiered-university/";
const std::string kSite = kDir + "slurm.conf --assoc " + kDir + "sacctmgr_dump.cfg --qos " + kDir + "qos.psv";

std::string small_profile() {
  return write_temp("profile.txt",
                    "seed = 3\nduration = 12:00:00\njobs_per_hour = 20\ncpus = 4:1, 96:1\n"
                    "runtime = lognormal 1800 1\npartition = standard96:1, medium:1\nusers = tree\n");
}

TEST(CliEngine, SimulateJsonAndTrace) {
  const std::string trace = write_temp("trace.csv", "");
  CommandResult r = run("simulate " + kSite + " --synthetic " + small_profile() + " --format json --trace " + trace);
  ASSERT_EQ(r.status, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_GT(j["jobs"]["total"].get<int>(), 150);
  EXPECT_EQ(j["jobs"]["total"], j["jobs"]["started"]);
  EXPECT_TRUE(j.contains("by_partition") && j["by_partition"].contains("medium"));
  EXPECT_GT(j["utilization"].get<double>(), 0.0);
  std::ifstream in(trace);
  std::string header;
  std::getline(in, header);
  for (const char* col :
       {"job_id", "submit", "start", "end", "partition", "priority", "started_by", "nodelist", "fairshare", "age"}) {
    EXPECT_NE(header.find(col), std::string::npos) << col;
  }
  std::string row;
  std::getline(in, row);
  EXPECT_TRUE(row.find(",main,") != std::string::npos || row.find(",backfill,") != std::string::npos) << row;
}

TEST(CliEngine, SimulateShowsGangSuspensionsInMetricsTimelineAndTrace) {
  // The gang example site (CR_Core_Memory, FORCE:2, 30-s slices) offered twice its CPUs.
  const std::string dir = std::string(SA_SOURCE_DIR) + "/corpora/gang-timeslice/";
  const std::string profile = write_temp("gang_profile.txt",
                                         "seed = 5\nduration = 06:00:00\njobs_per_hour = 40\n"
                                         "cpus = 8:1\nruntime = fixed 1800\nlimit_factor = 2 2\n");
  const std::string trace = write_temp("gang_trace.csv", "");
  CommandResult r =
      run("simulate " + dir + "slurm-cons-tres.conf --synthetic " + profile + " --format json --trace " + trace);
  ASSERT_EQ(r.status, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["sharing"]["enabled"].get<bool>());
  EXPECT_GT(j["sharing"]["suspends"].get<int>(), 0);
  EXPECT_GT(j["sharing"]["stretch"]["max"].get<double>(), 1.0);
  EXPECT_EQ(j["sharing"]["max_jobs_per_node"].get<int>(), 2);  // FORCE:2
  ASSERT_TRUE(j["timeline"]["partitions"].contains("active"));
  EXPECT_FALSE(j["timeline"]["partitions"]["active"]["suspended_cpu_seconds"].empty());
  EXPECT_FALSE(j["node_peaks"].empty());
  std::ifstream in(trace);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find(":suspend;"), std::string::npos);
  EXPECT_NE(text.find("events,placement_legal\n"), std::string::npos);
}

TEST(CliEngine, SprioJsonFromASimulation) {
  CommandResult r = run("sprio " + kSite + " --synthetic " + small_profile() + " --at +06:00:00 --format json");
  ASSERT_EQ(r.status, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j["jobs"].is_array());
  for (const auto& job : j["jobs"]) {
    for (const char* k : {"job_id", "partition", "user", "priority"}) EXPECT_TRUE(job.contains(k)) << k;
    for (const char* k : {"age", "assoc", "fairshare", "jobsize", "partition", "qos", "nice", "site", "tres"}) {
      EXPECT_TRUE(job["factors"].contains(k)) << k;
    }
  }
}

TEST(CliEngine, SprioTextFromAQueueSnapshot) {
  const std::string g = std::string(SA_SOURCE_DIR) + "/tests/golden/mini_slurm_engine/backfill_limits/";
  CommandResult r =
      run("sprio " + g + "slurm.conf --assoc " + g + "assoc.cfg --qos " + g + "qos.psv --usage " + g +
          "extra/snap_tick2/sshare_a_l_P.txt --jobs " + g + "sacct.psv --at 1795283788 --calc-at 1795283787");
  ASSERT_EQ(r.status, 0);
  std::ifstream want(g + "extra/snap_tick2/sprio_l.txt");
  std::stringstream s;
  s << want.rdbuf();
  EXPECT_EQ(r.out, s.str());
}

TEST(CliEngine, BadInputsAreDiagnosticsNotCrashes) {
  const std::string bad = write_temp("bad.psv", "JobIDRaw|Submit|ElapsedRaw|ReqCPUS\n1|100|60|4\n2|soon|60|4\n");
  CommandResult r = run("simulate " + kSite + " --workload " + bad, true);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("bad.psv:3:3: error:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[WORK001]"), std::string::npos);
  EXPECT_NE(r.out.find("1 jobs"), std::string::npos);  // the good line still ran
  const std::string junk = write_temp("junk.bin", std::string("\x1f\x8b\x08\x00garbage\0", 12));
  EXPECT_EQ(run("simulate " + kSite + " --workload " + junk).status, 2);
  const std::string noise = write_temp("noise.txt", std::string("\xff\xfe|\x01\n|||\n\x80", 9));
  CommandResult n = run("simulate " + kSite + " --workload " + noise, true);
  EXPECT_EQ(n.status, 1) << n.out;
  EXPECT_EQ(n.out.find("internal error"), std::string::npos);
  const std::string profile = write_temp("bad_profile.txt", "duration = forever\n");
  CommandResult p = run("simulate " + kSite + " --synthetic " + profile, true);
  EXPECT_EQ(p.status, 1);
  EXPECT_NE(p.out.find("bad_profile.txt:1:12: error:"), std::string::npos) << p.out;
}

TEST(CliEngine, SqueueListsTheQueueAsSqueuePrintsIt) {
  // The captured tier scenario at 1795283330: the same lines, in squeue's order, as the
  // real `squeue -o '%i|%T|%r'` poll of that second (tests/golden/.../extra/poll.psv).
  const std::string g = std::string(SA_SOURCE_DIR) + "/tests/golden/mini_slurm_engine/tier_and_blocked_partition/";
  CommandResult r = run("squeue " + g + "slurm.conf --assoc " + g + "assoc.cfg --qos " + g + "qos.psv --workload " + g +
                        "sacct.psv --slurm-version 22.05 --at 1795283330");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out,
            "JOBID|USER|ACCOUNT|PARTITION|QOS|STATE|REASON\n"
            "4|simu4|chem|hi|low|PENDING|Resources\n"
            "3|simu3|exp|lo|high|PENDING|Nodes required for job are DOWN, DRAINED or reserved for jobs in higher "
            "priority partitions\n"
            "1|simu1|theory|lo|normal|RUNNING|None\n"
            "7|simu1|theory|shadow|normal|PENDING|Nodes required for job are DOWN, DRAINED or reserved for jobs in "
            "higher priority partitions\n"
            "8|simu2|theory|side|low|RUNNING|None\n"
            "5|simu5|chem|wide|high|PENDING|Resources\n"
            "6|simu6|bio|wide|normal|PENDING|Priority\n"
            "2|simu2|theory|wide|normal|RUNNING|None\n");
  CommandResult j = run("squeue " + g + "slurm.conf --workload " + g + "sacct.psv --at 1795283330 --format json");
  EXPECT_EQ(j.status, 0);
  EXPECT_NE(j.out.find("\"reason\""), std::string::npos);
}

// A captured engine scenario as the command-line inputs of its replay.
std::string captured_site(const std::string& scenario) {
  const std::string g = std::string(SA_SOURCE_DIR) + "/tests/golden/mini_slurm_engine/" + scenario + "/";
  return g + "slurm.conf --assoc " + g + "assoc.cfg --qos " + g + "qos.psv --workload " + g +
         "sacct.psv --slurm-version 22.05";
}

TEST(CliEngine, ExplainTextJsonAndUnknownJob) {
  const std::string site = captured_site("tier_and_blocked_partition");
  CommandResult t = run("explain 5 " + site);
  EXPECT_EQ(t.status, 0);
  EXPECT_NE(t.out.find("Job 5: user simu5, account chem, QOS high, partition wide"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("Resources"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("top priority in its partition tier"), std::string::npos) << t.out;
  CommandResult j = run("explain 5 " + site + " --format json --no-what-if");
  EXPECT_EQ(j.status, 0);
  EXPECT_NE(j.out.find("\"intervals\""), std::string::npos);
  CommandResult unknown = run("explain 999 " + site, true);
  EXPECT_EQ(unknown.status, 2);
  EXPECT_NE(unknown.out.find("job 999 is not in the workload (its 8 jobs have ids 1 to 8)"), std::string::npos)
      << unknown.out;
  EXPECT_EQ(run("explain x " + site).status, 2);
}

// The job_arrays capture: an array task is named as sacct's JobID shows it (5_3, JobIDRaw 11),
// and so are the jobs its explanation mentions (3_1 ahead of it at submission).
TEST(CliEngine, ExplainNamesAnArrayTaskAsSacctDoes) {
  const std::string g = std::string(SA_SOURCE_DIR) + "/tests/golden/mini_slurm_fidelity/job_arrays/";
  // sacct.psv with the SubmitLines of extra/sacct_text.tsv, which carry --array's %1.
  const std::filesystem::path load =
      sa::test::joined_trace(g + "sacct.psv", g + "extra/sacct_text.tsv", "cli_explain_job_arrays");
  const std::string site = g + "slurm.conf --assoc " + g + "assoc.cfg --qos " + g + "qos.psv --workload " +
                           load.string() + " --slurm-version 22.05 --no-what-if";
  CommandResult t = run("explain 5_3 " + site);
  EXPECT_EQ(t.status, 0);
  EXPECT_NE(t.out.find("Job 5_3 (id 11): user simu5"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("job 3_1 (priority"), std::string::npos) << t.out;
  EXPECT_EQ(run("explain 11 " + site).out.find("Job 5_3 (id 11)") != std::string::npos, true);
  CommandResult j = run("explain 5_3 " + site + " --format json");
  EXPECT_NE(j.out.find("\"id\": \"5_3\""), std::string::npos) << j.out;
  CommandResult missing = run("explain 5_9 " + site, true);
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.out.find("array task 5_9 is not in the workload"), std::string::npos) << missing.out;
  EXPECT_EQ(run("explain 5_ " + site).status, 2);
  std::filesystem::remove(load);
}

// The real backfill_limits run: BIG (job 2) got no reservation, its earliest start lying
// beyond bf_window=2, and explain says so; job 3, backfilled at once, does not carry it.
TEST(CliEngine, ExplainSaysWhenBackfillFoundNoStartWithinTheWindow) {
  const std::string site = captured_site("backfill_limits") + " --no-what-if";
  CommandResult big = run("explain 2 " + site);
  EXPECT_EQ(big.status, 0);
  EXPECT_NE(big.out.find("Backfill found no start for it within bf_window at least once"), std::string::npos)
      << big.out;
  CommandResult w = run("explain 3 " + site + " --format json");
  EXPECT_EQ(w.status, 0);
  EXPECT_NE(w.out.find("\"beyond_bf_window\": false"), std::string::npos) << w.out;
}

TEST(CliEngine, UsageErrorsExitTwo) {
  EXPECT_EQ(run("simulate " + kSite + " --workload /nonexistent/trace.swf").status, 2);
  EXPECT_EQ(run("simulate " + kSite + " --synthetic " + small_profile() + " --until tomorrow").status, 2);
  EXPECT_EQ(run("sprio " + kSite + " --synthetic " + small_profile()).status, 2);  // no --at
  EXPECT_EQ(run("sprio " + kSite + " --synthetic " + small_profile() + " --jobs x.psv --at 5").status, 2);
  EXPECT_EQ(
      run("simulate " + kDir + "slurm.conf --usage " + kDir + "sshare_usage.psv --synthetic " + small_profile()).status,
      2);
}

}  // namespace
