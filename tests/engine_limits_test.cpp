// Hand-computed scenarios for QOS and association limits (engine/limits.h; acct_policy.c):
// each pins one limit, its Reason string, what is refused at submission, QOS precedence,
// inheritance down the tree, and that backfill reserves nothing for a limit-blocked job.
// Four nodes of 4 CPUs, sched/builtin unless backfill is the point; every weight is 0, so
// priorities follow nice.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "analyzer/accounting_readers.h"
#include "analyzer/assoc_reader.h"
#include "engine/explain.h"
#include "report/explain_report.h"
#include "tests/engine_test_util.h"

namespace sa {
namespace {

using test::find_job;
using test::job;

/// A site with an association tree (a dump body) and a QOS table (sacctmgr -P text).
struct LimitSite {
  test::SimSite sim;
  SourceManager sources;
  DiagnosticSink sink;
  AssocTree tree;
  LimitSite(const std::string& conf, const std::string& dump, const std::string& qos)
      : sim("NodeName=n[1-4] CPUs=4 RealMemory=4000\nSelectTypeParameters=CR_Core\n"
            "AccountingStorageType=accounting_storage/slurmdbd\n" +
            conf) {
    tree = read_assoc_dump_text(sources.add("dump.cfg", "Cluster - 'c'\nParent - 'root'\n" + dump), sources, sink);
    sim.site.tree = &tree;
    if (!qos.empty()) sim.site.qos = read_qos_table_text(sources.add("qos.psv", qos), sources, sink);
    EXPECT_FALSE(sink.has_errors());
  }
  engine::SimResult run(std::vector<engine::JobRequest> jobs) const { return sim.run(std::move(jobs)); }
};

engine::JobRequest as(engine::JobRequest j, const std::string& account, const std::string& qos = "") {
  j.account = account;
  j.qos = qos;
  return j;
}

std::string reasons_of(const engine::SimResult& r, std::uint32_t id) {
  std::string out;
  for (const engine::ReasonSpan& s : find_job(r, id).reasons) {
    out += (out.empty() ? "" : " ") + std::to_string(s.from) + ":" + r.reason_name(s.reason);
  }
  return out;
}

const char* kBuiltin = "SchedulerType=sched/builtin\nPartitionName=p Nodes=n[1-4] Default=YES MaxTime=UNLIMITED\n";
const char* kLimitsOn = "AccountingStorageEnforce=associations,limits,qos\n";

TEST(EngineLimits, AssocGrpCpuHoldsTheAccountWithoutBlockingThePartition) {
  LimitSite s(std::string(kBuiltin) + kLimitsOn,
              "Account - 'chem':GrpTRES=cpu=8\nAccount - 'bio'\n"
              "Parent - 'chem'\nUser - 'a':DefaultAccount='chem'\n"
              "Parent - 'bio'\nUser - 'b':DefaultAccount='bio'\n",
              "");
  // chem may hold 8 CPUs. Job 3 (the highest priority) and job 1 start at t=1; job 2 (chem)
  // waits on AssocGrpCpuLimit, and job 4 (bio) behind it still starts: a limit does not
  // fail the partition. When jobs 1 and 3 end (101) job 2 starts at once.
  auto r = s.run({as(job(1, 0, 4, 100, 200, "", 0, "a"), "chem"), as(job(2, 0, 4, 200, 300, "", 0, "a"), "chem"),
                  as(job(3, 0, 4, 100, 200, "", -100, "a"), "chem"), as(job(4, 0, 4, 100, 200, "", 0, "b"), "bio")});
  EXPECT_EQ(find_job(r, 1).start, 1);
  EXPECT_EQ(find_job(r, 3).start, 1);
  EXPECT_EQ(find_job(r, 4).start, 1);
  EXPECT_EQ(find_job(r, 2).start, 101);
  EXPECT_EQ(reasons_of(r, 2), "0:None 1:AssocGrpCpuLimit 101:None");
}

TEST(EngineLimits, MaxJobsIsInheritedFromTheAccountAndCountsPerUser) {
  LimitSite s(std::string(kBuiltin) + kLimitsOn,
              "Account - 'chem':MaxJobs=1\nParent - 'chem'\n"
              "User - 'a':DefaultAccount='chem'\nUser - 'b':DefaultAccount='chem'\n",
              "");
  // MaxJobs=1 set on the account applies to each user association below it.
  auto r = s.run({as(job(1, 0, 1, 100, 200, "", 0, "a"), "chem"), as(job(2, 0, 1, 100, 200, "", 0, "a"), "chem"),
                  as(job(3, 0, 1, 100, 200, "", 0, "b"), "chem")});
  EXPECT_EQ(find_job(r, 1).start, 1);
  EXPECT_EQ(find_job(r, 3).start, 1);
  EXPECT_EQ(find_job(r, 2).start, 101);
  EXPECT_EQ(reasons_of(r, 2), "0:None 1:AssocMaxJobsLimit 101:None");
}

TEST(EngineLimits, QosPerUserLimitsAndTheirReasons) {
  // The user may name QOS few: with AccountingStorageEnforce=qos a QOS outside the
  // association's list is refused at submission.
  LimitSite s(std::string(kBuiltin) + kLimitsOn,
              "Account - 'x'\nParent - 'x'\nUser - 'a':DefaultAccount='x':QOS='normal,few'\n",
              "Name|Priority|MaxTRESPU|MaxJobsPU\nnormal|0|cpu=6|\nfew|0||1\n");
  // normal: at most 6 CPUs per user. 4 + 4 > 6, so job 2 waits on QOSMaxCpuPerUserLimit.
  // few: one running job per user: job 4 waits on QOSMaxJobsPerUserLimit.
  auto r = s.run(
      {as(job(1, 0, 4, 100, 200, "", 0, "a"), "x", "normal"), as(job(2, 0, 4, 100, 200, "", 0, "a"), "x", "normal"),
       as(job(3, 0, 1, 50, 200, "", 0, "a"), "x", "few"), as(job(4, 0, 1, 50, 200, "", 0, "a"), "x", "few")});
  EXPECT_EQ(find_job(r, 2).start, 101);
  EXPECT_EQ(reasons_of(r, 2), "0:None 1:QOSMaxCpuPerUserLimit 101:None");
  EXPECT_EQ(find_job(r, 4).start, 51);
  EXPECT_EQ(reasons_of(r, 4), "0:None 1:QOSMaxJobsPerUserLimit 51:None");
}

TEST(EngineLimits, PartitionQosComesFirstUnlessTheJobQosOverridesIt) {
  const std::string qos =
      "Name|Priority|MaxTRESPU|Flags\nnormal|0||\npart|0|cpu=4|\nbig|0|cpu=8|\nover|0|cpu=8|OverPartQOS\n";
  const std::string conf = std::string(
                               "SchedulerType=sched/builtin\nPartitionName=p Nodes=n[1-4] Default=YES "
                               "MaxTime=UNLIMITED QOS=part\n") +
                           kLimitsOn;
  const std::string dump = "Account - 'x'\nParent - 'x'\nUser - 'a':DefaultAccount='x':QOS='normal,big,over'\n";
  // With QOS big the partition QOS's 4 CPUs per user rule: the second job waits. With
  // OverPartQOS the job QOS's 8 CPUs rule and both run.
  {
    LimitSite s(conf, dump, qos);
    auto r =
        s.run({as(job(1, 0, 4, 100, 200, "", 0, "a"), "x", "big"), as(job(2, 0, 4, 100, 200, "", 0, "a"), "x", "big")});
    EXPECT_EQ(find_job(r, 2).start, 101);
    EXPECT_EQ(reasons_of(r, 2), "0:None 1:QOSMaxCpuPerUserLimit 101:None");
  }
  {
    LimitSite s(conf, dump, qos);
    auto r = s.run(
        {as(job(1, 0, 4, 100, 200, "", 0, "a"), "x", "over"), as(job(2, 0, 4, 100, 200, "", 0, "a"), "x", "over")});
    EXPECT_EQ(find_job(r, 2).start, 1);
  }
}

// Flags=Relative (23.11+): GrpTRES=cpu=50 is 50 % of the cluster's 16 CPUs (8), or of its
// partition's when the QOS is a partition's QOS (n[1-2]: 4 CPUs), rounded down
// (assoc_mgr.c); without the flag, or before 23.11, it is 50 CPUs.
TEST(EngineLimits, RelativeQosLimitsArePercentagesOfTheClusterOrThePartition) {
  const std::string qos = "Name|Priority|GrpTRES|Flags\nnormal|0||\nrel|0|cpu=50|Relative\nabs|0|cpu=50|\n";
  const std::string dump = "Account - 'x'\nParent - 'x'\nUser - 'a':DefaultAccount='x':QOS='normal,rel,abs'\n";
  auto three = [](const char* q) {
    return std::vector<engine::JobRequest>{as(job(1, 0, 4, 100, 200, "", 0, "a"), "x", q),
                                           as(job(2, 0, 4, 100, 200, "", 0, "a"), "x", q),
                                           as(job(3, 0, 4, 100, 200, "", 0, "a"), "x", q)};
  };
  {
    LimitSite s(std::string(kBuiltin) + kLimitsOn, dump, qos);
    auto r = s.run(three("rel"));
    EXPECT_EQ(find_job(r, 2).start, 1);
    EXPECT_EQ(find_job(r, 3).start, 101);
    EXPECT_EQ(reasons_of(r, 3), "0:None 1:QOSGrpCpuLimit 101:None");
    EXPECT_EQ(find_job(s.run(three("abs")), 3).start, 1);
  }
  {
    LimitSite s(std::string("SchedulerType=sched/builtin\nPartitionName=p Nodes=n[1-2] Default=YES "
                            "MaxTime=UNLIMITED QOS=rel\n") +
                    kLimitsOn,
                dump, qos);
    auto r = s.run(three("normal"));
    EXPECT_EQ(find_job(r, 2).start, 101);  // 50 % of the partition's 8 CPUs
  }
}

// Under Flags=Relative a billing limit is a percentage of billing as slurmctld counts it: a
// partition QOS's base is the partition's TRESBillingWeights over its summed TRES
// (partition_mgr.c _calc_part_tres), the cluster's the sum of each node's billing, the largest
// any of its partitions' weights give it, else its CPUs (controller.c _set_node_billing_tres).
// With CPU=2.0 on p (n[1-2]) a 2-CPU job bills 4. As p's QOS, GrpTRES=billing=50 is 50 % of
// 16 (8): two jobs run. As a job QOS it is 50 % of the cluster's 8 + 8 + 4 + 4 (12): three.
// Weighing only the jobs and not the base held them to one and two.
TEST(EngineLimits, RelativeBillingLimitsWeighTheBaseAsSlurmDoes) {
  const std::string qos = "Name|Priority|GrpTRES|Flags\nnormal|0||\nrel|0|billing=50|Relative\n";
  const std::string dump = "Account - 'x'\nParent - 'x'\nUser - 'a':DefaultAccount='x':QOS='normal,rel'\n";
  auto four = [](const char* q) {
    std::vector<engine::JobRequest> jobs;
    for (std::uint32_t id = 1; id <= 4; ++id) jobs.push_back(as(job(id, 0, 2, 100, 200, "", 0, "a"), "x", q));
    return jobs;
  };
  const std::string part =
      "SchedulerType=sched/builtin\nPartitionName=p Nodes=n[1-2] Default=YES MaxTime=UNLIMITED "
      "TRESBillingWeights=CPU=2.0";
  {
    LimitSite s(part + " QOS=rel\n" + kLimitsOn, dump, qos);
    auto r = s.run(four("normal"));
    EXPECT_EQ(find_job(r, 2).start, 1);
    EXPECT_EQ(find_job(r, 3).start, 101);
    EXPECT_EQ(reasons_of(r, 3), "0:None 1:QOSGrpBilling 101:None");
  }
  {
    LimitSite s(part + "\n" + kLimitsOn, dump, qos);
    auto r = s.run(four("rel"));
    EXPECT_EQ(find_job(r, 3).start, 1);
    EXPECT_EQ(find_job(r, 4).start, 101);
  }
}

// A QOS with Flags=PartitionTimeLimit (or PartitionMaxNodes, PartitionMinNodes) lets its jobs
// past the partition's limit (_part_access_check): a 2-hour job in a 1-hour partition runs
// under QOS long and waits with Reason PartitionTimeLimit under normal.
TEST(EngineLimits, QosFlagsLiftThePartitionsLimits) {
  const std::string qos = "Name|Priority|Flags\nnormal|0|\nlong|0|PartitionTimeLimit\nwide|0|PartitionMaxNodes\n";
  const std::string conf =
      "SchedulerType=sched/builtin\nPartitionName=p Nodes=n[1-4] Default=YES MaxTime=60 MaxNodes=1\n";
  const std::string dump = "Account - 'x'\nParent - 'x'\nUser - 'a':DefaultAccount='x':QOS='normal,long,wide'\n";
  LimitSite s(conf, dump, qos);
  engine::JobRequest two_nodes = job(3, 0, 8, 100, 600, "", 0, "a");
  two_nodes.nodes = 2;
  auto r = s.run({as(job(1, 0, 1, 100, 7200, "", 0, "a"), "x", "normal"),
                  as(job(2, 0, 1, 100, 7200, "", 0, "a"), "x", "long"), as(two_nodes, "x", "wide")});
  EXPECT_EQ(find_job(r, 1).start, engine::kNoTime);
  EXPECT_EQ(r.reason_name(find_job(r, 1).reason), "PartitionTimeLimit");
  EXPECT_NE(find_job(r, 2).start, engine::kNoTime);
  EXPECT_NE(find_job(r, 3).start, engine::kNoTime);
}

TEST(EngineLimits, SubmitLimitsRefuseAndDenyOnLimitRefusesPerJobLimits) {
  LimitSite s(std::string(kBuiltin) + kLimitsOn,
              "Account - 'x'\nParent - 'x'\nUser - 'a':DefaultAccount='x':MaxSubmitJobs=2:QOS='normal,strict'\n",
              "Name|Priority|MaxWall|Flags\nnormal|0|01:00:00|\nstrict|0|01:00:00|DenyOnLimit\n");
  // MaxSubmitJobs=2: the third job submitted while two are queued or running is refused.
  // A 2-hour limit under normal (no DenyOnLimit) pends on QOSMaxWallDurationPerJobLimit;
  // under strict it is refused at submission.
  auto r = s.run({as(job(1, 0, 1, 100, 600, "", 0, "a"), "x", "normal"),
                  as(job(2, 0, 1, 100, 7200, "", 0, "a"), "x", "normal"),
                  as(job(3, 0, 1, 100, 600, "", 0, "a"), "x", "normal"),
                  as(job(4, 200, 1, 100, 7200, "", 0, "a"), "x", "strict")});
  EXPECT_EQ(find_job(r, 1).start, 1);
  EXPECT_EQ(find_job(r, 2).state, engine::JobState::kPending);
  EXPECT_EQ(r.reason_name(find_job(r, 2).reason), "QOSMaxWallDurationPerJobLimit");
  EXPECT_EQ(find_job(r, 3).state, engine::JobState::kRejected);
  EXPECT_NE(find_job(r, 3).rare.get().reject_reason.str().find("AssocMaxSubmitJobLimit"), std::string::npos);
  EXPECT_EQ(find_job(r, 4).state, engine::JobState::kRejected);
  EXPECT_NE(find_job(r, 4).rare.get().reject_reason.str().find("QOSMaxWallDurationPerJobLimit"), std::string::npos);
}

TEST(EngineLimits, LimitsNeedAccountingStorageEnforceLimits) {
  LimitSite s(std::string(kBuiltin) + "AccountingStorageEnforce=associations\n",
              "Account - 'x':GrpTRES=cpu=4\nParent - 'x'\nUser - 'a':DefaultAccount='x'\n", "");
  auto r = s.run({as(job(1, 0, 4, 100, 200, "", 0, "a"), "x"), as(job(2, 0, 4, 100, 200, "", 0, "a"), "x")});
  EXPECT_EQ(find_job(r, 2).start, 1);  // not enforced
}

TEST(EngineLimits, OldNumericTwoEnforcesLimits) {
  // read_config.c reads the old AccountingStorageEnforce=2 as associations plus limits.
  LimitSite s(std::string(kBuiltin) + "AccountingStorageEnforce=2\n",
              "Account - 'x':GrpTRES=cpu=4\nParent - 'x'\nUser - 'a':DefaultAccount='x'\n", "");
  auto r = s.run({as(job(1, 0, 4, 100, 200, "", 0, "a"), "x"), as(job(2, 0, 4, 100, 200, "", 0, "a"), "x")});
  EXPECT_EQ(find_job(r, 1).start, 1);
  EXPECT_EQ(find_job(r, 2).start, 101);
}

TEST(EngineLimits, GrpTresRunMinsCountsRemainingTimeLimits) {
  LimitSite s(std::string(kBuiltin) + kLimitsOn,
              "Account - 'x':GrpTRESRunMins=cpu=1000\nParent - 'x'\nUser - 'a':DefaultAccount='x'\n", "");
  // Job 1: 4 CPUs x 200 min = 800 CPU-run-minutes. Job 2 would add 4 x 100 = 400 > 200
  // left, so it waits on AssocGrpCPURunMinutesLimit until job 1 ends at 61.
  auto r = s.run({as(job(1, 0, 4, 60, 12000, "", 0, "a"), "x"), as(job(2, 0, 4, 60, 6000, "", 0, "a"), "x")});
  EXPECT_EQ(find_job(r, 1).start, 1);
  EXPECT_EQ(find_job(r, 2).start, 61);
  EXPECT_EQ(reasons_of(r, 2), "0:None 1:AssocGrpCPURunMinutesLimit 61:None");
}

TEST(EngineLimits, BackfillReservesNothingForALimitBlockedJob) {
  LimitSite s(
      "PartitionName=p Nodes=n[1-4] Default=YES MaxTime=UNLIMITED\n"
      "SchedulerParameters=bf_interval=10\n" +
          std::string(kLimitsOn),
      "Account - 'x':GrpTRES=cpu=4\nAccount - 'y'\nParent - 'x'\nUser - 'a':DefaultAccount='x'\n"
      "Parent - 'y'\nUser - 'b':DefaultAccount='y'\n",
      "");
  // R (y) holds 12 CPUs until 1001. Big (x, 16 CPUs) can never fit GrpTRES=cpu=4: it pends
  // on AssocGrpCpuLimit and gets no reservation, so Long (y, 4 CPUs, 5000 s) is backfilled
  // onto the free node at once although it runs past R's end.
  auto r = s.run({as(job(1, 0, 12, 1000, 1000, "", 0, "b"), "y"), as(job(2, 5, 16, 100, 200, "", -1000, "a"), "x"),
                  as(job(3, 5, 4, 5000, 5000, "", 0, "b"), "y")});
  EXPECT_EQ(r.reason_name(find_job(r, 2).reason), "AssocGrpCpuLimit");
  EXPECT_EQ(find_job(r, 2).start, engine::kNoTime);
  EXPECT_LE(find_job(r, 3).start, 15);
}

// QOS Flags=NoReserve without preemption: the job is tested for a start now only and plans
// nothing (backfill.c), so Long backfills past Big's would-be reservation; without the flag
// Big holds every node from R's end and Long waits for Big.
TEST(EngineLimits, ANoReserveQosPlansNothing) {
  const std::string conf =
      "PartitionName=p Nodes=n[1-4] Default=YES MaxTime=UNLIMITED\n"
      "SchedulerParameters=bf_interval=10\n";
  const std::string dump = "Account - 'y'\nParent - 'y'\nUser - 'b':DefaultAccount='y'\n";
  const std::string header = "Name|Priority|Flags\nnormal|0|\n";
  auto run = [&](const std::string& flags) {
    LimitSite s(conf, dump, header + "standby|0|" + flags + "\n");
    return s.run({as(job(1, 0, 12, 1000, 1000, "", 0, "b"), "y"),
                  as(job(2, 5, 16, 100, 200, "", -1000, "b"), "y", "standby"),
                  as(job(3, 5, 4, 5000, 5000, "", 0, "b"), "y")});
  };
  const engine::SimResult flagged = run("NoReserve");
  EXPECT_LE(find_job(flagged, 3).start, 15);
  EXPECT_EQ(find_job(flagged, 3).started_by, engine::StartedBy::kBackfill);
  const engine::SimResult plain = run("");
  EXPECT_GE(find_job(plain, 3).start, find_job(plain, 2).end);
}

TEST(EngineLimits, ExplainNamesTheLimitItsHoldersAndTheStartWithoutIt) {
  LimitSite s(std::string(kBuiltin) + kLimitsOn,
              "Account - 'chem':GrpTRES=cpu=8\nParent - 'chem'\nUser - 'a':DefaultAccount='chem'\n", "");
  // Jobs 1 and 2 fill chem's 8 CPUs from t=1 to 301; job 3 waits on AssocGrpCpuLimit
  // until then. Lifting the limit, it starts at t=1 with the others.
  engine::Workload w;
  w.jobs = {as(job(1, 0, 4, 300, 400, "", 0, "a"), "chem"), as(job(2, 0, 4, 300, 400, "", 0, "a"), "chem"),
            as(job(3, 0, 4, 100, 200, "", 0, "a"), "chem")};
  const engine::Explanation e = engine::explain_job(s.sim.site, {}, w, 3);
  ASSERT_TRUE(e.found);
  EXPECT_EQ(e.job.start, 301);
  ASSERT_EQ(e.spans.size(), 2u);
  EXPECT_EQ(e.spans[0].reason, "None");
  EXPECT_EQ(e.spans[1].reason, "AssocGrpCpuLimit");
  EXPECT_EQ(e.spans[1].from, 1);
  EXPECT_EQ(e.spans[1].until, 301);
  EXPECT_EQ(e.spans[1].detail, "account chem: 8 cpu in use, this job wants 4, limit 8 (running: jobs 1, 2)");
  ASSERT_EQ(e.what_ifs.size(), 1u);
  EXPECT_EQ(e.what_ifs[0].change, "lift AssocGrpCpuLimit on account chem");
  EXPECT_EQ(e.what_ifs[0].start, 1);
  std::ostringstream text;
  report::print_explanation(text, e);
  EXPECT_NE(text.str().find("+00:00:01 .. +00:05:01  AssocGrpCpuLimit: account chem"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("starts +00:00:01 after submission (00:05:00 sooner)"), std::string::npos) << text.str();
  EXPECT_EQ(report::explanation_json(e)["intervals"][1]["reason"], "AssocGrpCpuLimit");
}

}  // namespace
}  // namespace sa
