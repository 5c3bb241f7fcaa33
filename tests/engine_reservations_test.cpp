// Hand-computed scenarios for advanced reservations and node events in the engine
// (engine/reservations.h, Simulator::on_node_event): jobs kept off reserved nodes when
// their time limit would overlap a window, the maintenance Reason, reservation jobs, and
// a DOWN node requeueing its job. Four nodes of 4 CPUs; sched/builtin runs the main loop
// on submissions and every 60 s from t=0.
#include <gtest/gtest.h>

#include <string>

#include "tests/engine_test_util.h"

namespace sa {
namespace {

using test::find_job;
using test::job;

Reservation resv(const std::string& name, std::int64_t start, std::int64_t end, std::vector<std::string> nodes,
                 std::vector<std::string> flags, std::vector<std::string> users = {}) {
  Reservation r;
  r.name = name;
  r.start = start;
  r.end = end;
  r.nodes = std::move(nodes);
  r.node_count = static_cast<std::uint32_t>(r.nodes.size());
  r.flags = std::move(flags);
  r.users = std::move(users);
  return r;
}

const std::string kSite =
    "NodeName=n[1-4] CPUs=4 RealMemory=4000\nSelectTypeParameters=CR_Core\n"
    "SchedulerType=sched/builtin\n"
    "PartitionName=p Nodes=n[1-4] Default=YES MaxTime=UNLIMITED\n"
    "PartitionName=small Nodes=n[1-2] MaxTime=UNLIMITED\n";

TEST(EngineReservations, JobsWhoseLimitWouldOverlapAWindowStayOffItsNodes) {
  test::SimSite s(kSite);
  s.site.reservations = {resv("maint", 1000, 2000, {"n1", "n2"}, {"MAINT", "IGNORE_JOBS"})};
  // Job 1 (8 CPUs, limit 2000 s) would overlap the window on n1-n2: it gets n3-n4. Job 2
  // (4 CPUs, limit 500 s) ends before the window: it may use n1. Job 3 (8 CPUs, limit
  // 1500 s) finds n1-n2 kept for the window and n3-n4 busy: Resources until the window
  // ends at 2000; the next main-loop run (every 60 s) starts it at 2040, on n1-n2.
  auto r = s.run({job(1, 0, 8, 3000, 3000, "p"), job(2, 0, 4, 100, 500, "p", -1), job(3, 0, 8, 100, 1500, "p", 1)});
  EXPECT_EQ(find_job(r, 1).start, 1);
  EXPECT_EQ(r.config_node(find_job(r, 1).alloc.expanded()[0].node), 2u);  // n3
  EXPECT_EQ(find_job(r, 2).start, 1);
  EXPECT_EQ(r.config_node(find_job(r, 2).alloc.expanded()[0].node), 0u);  // n1
  EXPECT_EQ(find_job(r, 3).start, 2040);
  EXPECT_EQ(r.reason_name(find_job(r, 3).reasons.back().reason), "None");
  EXPECT_EQ(r.reason_name(find_job(r, 3).reasons[find_job(r, 3).reasons.size() - 2].reason), "Resources");
}

TEST(EngineReservations, MaintenanceOverAWholePartitionShowsReservedForMaintenance) {
  test::SimSite s(kSite);
  s.site.reservations = {resv("maint", 1000, 2000, {"n1", "n2"}, {"MAINT"})};
  // Every node of `small` is in the window and the job's hour would overlap it. The clock
  // starts at the first submit (500), so full runs fall on 560, 620, ... 2000.
  auto r = s.run({job(1, 500, 4, 100, 3600, "small")});
  EXPECT_EQ(r.reason_name(find_job(r, 1).reasons.back().reason), "None");
  EXPECT_EQ(r.reason_name(find_job(r, 1).reasons[find_job(r, 1).reasons.size() - 2].reason),
            "ReqNodeNotAvail, Reserved for maintenance");
  EXPECT_EQ(find_job(r, 1).start, 2000);
}

TEST(EngineReservations, ReservationJobsWaitForTheirWindowAndUseOnlyItsNodes) {
  test::SimSite s(kSite);
  s.site.reservations = {resv("proj", 100, 1000, {"n4"}, {}, {"alice"})};
  engine::JobRequest mine = job(1, 0, 4, 50, 100, "p", 0, "alice");
  mine.reservation = "proj";
  engine::JobRequest other = job(2, 0, 4, 50, 100, "p", 0, "bob");
  other.reservation = "proj";
  engine::JobRequest unknown = job(3, 0, 4, 50, 100, "p", 0, "alice");
  unknown.reservation = "nope";
  auto r = s.run({mine, other, unknown});
  // Reason "Reservation" until the window opens at 100; the next run (120) starts it on n4.
  ASSERT_GE(find_job(r, 1).reasons.size(), 2u);
  EXPECT_EQ(r.reason_name(find_job(r, 1).reasons[1].reason), "Reservation");
  EXPECT_EQ(find_job(r, 1).reasons[1].from, 0);
  EXPECT_EQ(find_job(r, 1).start, 120);
  EXPECT_EQ(r.config_node(find_job(r, 1).alloc.expanded()[0].node), 3u);  // n4
  EXPECT_EQ(find_job(r, 2).state, engine::JobState::kRejected);
  EXPECT_NE(find_job(r, 2).rare.get().reject_reason.str().find("Access denied"), std::string::npos);
  EXPECT_EQ(find_job(r, 3).state, engine::JobState::kRejected);
}

TEST(EngineReservations, DailyWindowsRepeat) {
  test::SimSite s(kSite);
  s.site.reservations = {resv("nightly", 3600, 7200, {"n1", "n2", "n3", "n4"}, {"MAINT", "DAILY"})};
  // A 2-hour job submitted at 80000 would overlap the next day's window (90000-93600):
  // it waits for that window to end; full runs fall every 60 s from the first submit
  // (80000), so the first after 93600 is at 93620.
  auto r = s.run({job(1, 80000, 4, 100, 20000, "p")});
  EXPECT_EQ(find_job(r, 1).start, 93620);
}

TEST(EngineNodeEvents, ADownNodeRequeuesItsJobAndADrainKeepsNewJobsOff) {
  test::SimSite s(kSite);
  NodeEvent down;
  down.nodes = {"n1"};
  down.start = 100;
  down.end = 400;
  down.state = "DOWN";
  NodeEvent drain;
  drain.nodes = {"n2", "n3", "n4"};
  drain.start = 0;
  drain.end = 300;
  drain.state = "DRAIN";
  s.site.node_events = {down, drain};
  // Job 1 starts on n1 (the only node not drained) at t=1; n1 goes DOWN at 100: the job
  // is requeued, eligible again at 100 + 121 = 221 (BeginTime meanwhile), but n1 is down
  // and n2-n4 drained until 300, when the full run of that second restarts it on n2.
  // 99 s x 4 CPUs were lost.
  auto r = s.run({job(1, 0, 4, 500, 1000, "p")});
  const engine::SimJob& j = find_job(r, 1);
  EXPECT_EQ(j.rare.get().requeues, 1u);
  EXPECT_DOUBLE_EQ(j.rare.get().lost_cpu_seconds, 396.0);
  EXPECT_EQ(j.start, 300);
  EXPECT_EQ(r.config_node(j.alloc.expanded()[0].node), 1u);  // n2
  bool begin_time = false;
  for (const engine::ReasonSpan& span : j.reasons)
    begin_time = begin_time || (span.from == 100 && r.reason_name(span.reason) == "BeginTime");
  EXPECT_TRUE(begin_time);
}

}  // namespace
}  // namespace sa
