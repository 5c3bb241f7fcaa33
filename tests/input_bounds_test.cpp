// Bounded work on hostile input (issue 19): deep association chains, numbers at the edge of
// every integer and float type, node counts far beyond any cluster. Each test asserts the
// diagnostic; time and memory are bounded by the caps (and, for the CLI runs, by the CPU-time
// and address-space rlimits in run_bounded), never measured with a clock.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include "analyzer/assoc_model.h"
#include "analyzer/assoc_reader.h"
#include "analyzer/node_events_reader.h"
#include "analyzer/reservation_reader.h"
#include "engine/reservations.h"
#include "engine/site_loader.h"
#include "engine/workload/synthetic.h"
#include "engine/workload/trace_fields.h"
#include "engine/workload/workload.h"
#include "report/diff_report.h"
#include "rules/analysis/diff.h"
#include "tests/cli_util.h"
#include "tests/test_util.h"

namespace sa {
namespace {

// The CLI under `ulimit -t 60 -v 4 GB`: a runaway is killed and the exit status says so.
test::CommandResult run_bounded(const std::string& args, bool merge_stderr = true) {
  return test::run("--version >/dev/null; ulimit -t 60; ulimit -v 4194304; " + std::string(SA_BINARY) + " " + args,
                   merge_stderr);
}

std::string deep_chain(int depth) {
  std::string dump = "Cluster - 'c'\nParent - 'root'\nAccount - 'a0'\n";
  for (int i = 1; i < depth; ++i) {
    dump += "Parent - 'a" + std::to_string(i - 1) + "'\nAccount - 'a" + std::to_string(i) + "'\n";
  }
  return dump + "Parent - 'a" + std::to_string(depth - 1) + "'\nUser - 'u':DefaultAccount='a0'\n";
}

TEST(InputBounds, DeepAccountChainIsCutWithOneDiagnostic) {
  SourceManager sources;
  DiagnosticSink sink;
  AssocTree tree = read_assoc_dump_text(sources.add("deep.cfg", deep_chain(50'000)), sources, sink);
  int deep = 0, undefined = 0;
  for (const Diagnostic& d : sink.all()) {
    deep += d.code == "ACCT015";
    undefined += d.code == "ACCT002";
  }
  EXPECT_EQ(deep, 1);
  EXPECT_EQ(undefined, 0);               // the lines under the cut account are not reported one by one
  EXPECT_EQ(tree.assocs.size(), 1001u);  // root and a0 .. a999
}

TEST(InputBounds, DeepAccountChainThroughTheCli) {
  const std::string dump = test::write_temp("deep.cfg", deep_chain(50'000));
  for (const char* cmd : {"tree", "sshare"}) {
    auto r = run_bounded(std::string(cmd) + " --assoc " + dump);
    EXPECT_EQ(r.status, 1) << cmd;  // the ACCT015 error; a crash or a kill has no exit status 1
    EXPECT_NE(r.out.find("ACCT015"), std::string::npos) << cmd;
  }
}

TEST(InputBounds, SwfNumbersBeyondEveryRangeAreLineErrors) {
  SourceManager sources;
  DiagnosticSink sink;
  const std::string swf =
      "1 0 0 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n"
      "2 9223372036854775807 0 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n"
      "3 1e300 0 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n"
      "4 10 0 1e15 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n"
      "5 5000000000 0 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n"
      "6 10 0 100 4 -1 -1 4 200 1e300 1 1e300 1 -1 1 -1 -1 -1\n";
  engine::Workload w = engine::read_swf(sources.add("huge.swf", swf), sources, sink, {});
  ASSERT_EQ(w.jobs.size(), 1u);
  EXPECT_EQ(w.jobs[0].id, 1u);
  EXPECT_EQ(test::where(sink),
            (std::vector<std::string>{"WORK001 2:1", "WORK001 3:1", "WORK001 4:1", "WORK006 5:1", "WORK001 6:1"}));
}

TEST(InputBounds, TraceFieldsRejectOverflowingValues) {
  EXPECT_FALSE(engine::parse_trace_int("9223372036854775807"));
  EXPECT_FALSE(engine::parse_trace_int("99999999999999999999999"));
  EXPECT_FALSE(engine::parse_trace_duration("999999999999-00:00:00"));
  EXPECT_FALSE(engine::parse_trace_duration("99999999999999:00:00"));
  EXPECT_FALSE(engine::parse_trace_memory("1e300G"));
  EXPECT_FALSE(engine::parse_trace_memory("nan"));
  EXPECT_EQ(engine::parse_trace_int("1795280679"), 1795280679);
}

TEST(InputBounds, ProfileDurationsAreRangeChecked) {
  SourceManager sources;
  DiagnosticSink sink;
  engine::read_profile(sources.add("profile.txt", "duration = 1e300\nruntime_max = 9223372036854775807\n"), sources,
                       sink);
  EXPECT_EQ(test::where(sink), (std::vector<std::string>{"WORK005 1:12", "WORK005 2:15"}));
}

TEST(InputBounds, JobCountCapIsADiagnostic) {
  SourceManager sources;
  InputLimits limits;
  limits.sim_jobs = 2;
  sources.set_limits(limits);
  DiagnosticSink sink;
  std::string swf;
  for (int i = 1; i <= 5; ++i)
    swf += std::to_string(i) + " " + std::to_string(i) + " 0 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n";
  engine::Workload w = engine::read_swf(sources.add("many.swf", swf), sources, sink, {});
  EXPECT_EQ(w.jobs.size(), 2u);
  EXPECT_EQ(test::where(sink), std::vector<std::string>{"WORK006 3:1"});
}

TEST(InputBounds, NodeCountCapAndModelOutput) {
  const std::string big = "NodeName=n[000-999][000-999] CPUs=4 RealMemory=1000\n";
  auto a = test::analyze(std::string(test::kPreamble) + big + big + "PartitionName=p Nodes=ALL\n");
  EXPECT_EQ(test::count(*a, "CONF049"), 2);
  EXPECT_EQ(test::count(*a, "CONF014"), 0);
  const std::string conf = test::write_temp("model_big.conf",
                                            "ClusterName=c\nSlurmctldHost=h\n"
                                            "NodeName=n[000-199][000-199] CPUs=4 RealMemory=1000\n"
                                            "PartitionName=p Nodes=ALL Default=YES\n");
  auto r = run_bounded("model " + conf + " --limit model-node-names=100 2>/dev/null");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("\"NodesOmitted\": 39900"), std::string::npos);
  EXPECT_LT(r.out.size(), 200'000u);
}

TEST(InputBounds, RepeatedNodeNamesAreOneDiagnosticPerLine) {
  const std::string line = "NodeName=n[1-5000] CPUs=4 RealMemory=1000\n";
  auto a = test::analyze(std::string(test::kPreamble) + line + line);
  ASSERT_EQ(test::count(*a, "CONF014"), 1);
  EXPECT_NE(test::first(*a, "CONF014")->message.find("and 4999 more"), std::string::npos);
}

// Hostlists that name unknown hosts: each line is one diagnostic however many names it lists,
// and the names every hostlist of a config expands to are counted against one budget, so a few
// KB of DownNodes or partition lists cannot name billions of hosts.
TEST(InputBounds, UnknownHostlistNamesAreOneDiagnosticPerLineAndBudgeted) {
  auto a = test::analyze(std::string(test::kPreamble) +
                         "NodeName=n1 CPUs=1\nDownNodes=x[1-60000]\n"
                         "NodeSet=s Nodes=y[1-3],y7\nPartitionName=p Nodes=n1,z[1-2]\n");
  ASSERT_EQ(test::count(*a, "CONF017"), 3);
  bool down = false, set = false;
  for (const Diagnostic& d : a->diagnostics.all()) {
    down = down || d.message.find("DownNodes names 60000 undefined nodes: x[1-60000]") != std::string::npos;
    set = set || d.message.find("NodeSet 's' lists 4 undefined nodes: y[1-3,7]") != std::string::npos;
  }
  EXPECT_TRUE(down);
  EXPECT_TRUE(set);

  std::string hostile = std::string(test::kPreamble) + "NodeName=n1 CPUs=1\n";
  for (int i = 0; i < 40; ++i) hostile += "DownNodes=a" + std::to_string(i) + "[1-65536],b[1-65536],c[1-65536]\n";
  AnalyzeOptions options{*SlurmVersion::parse("24.05")};
  options.limits.hostlist_names = 1'000'000;
  auto b = analyze_text("slurm.conf", hostile, options);
  EXPECT_EQ(test::count(*b, "CONF017"), 5);  // 5 lines of 196,608 names fit in 1,000,000
  ASSERT_EQ(test::count(*b, "CONF049"), 35);
  EXPECT_NE(test::first(*b, "CONF049")->message.find("past their limit of names"), std::string::npos);
  EXPECT_NE(test::first(*b, "CONF049")->hint.find("--limit hostlist-names=N"), std::string::npos);
}

// A recurring reservation that began long before the load repeats into more windows than the
// limit allows: the simulation opens only the first ones and the load says so, where the
// reservation is defined.
TEST(InputBounds, RecurringReservationWindowsAreCappedWithADiagnostic) {
  engine::SitePaths paths;
  paths.conf = test::write_temp("resv_cap.conf",
                                "ClusterName=c\nSlurmctldHost=h\nNodeName=n[1-2] CPUs=4 "
                                "RealMemory=1000\nPartitionName=p Nodes=ALL Default=YES\n");
  paths.reservations = test::write_temp(
      "resv_cap.txt",
      "ReservationName=hourly StartTime=2020-01-01T00:00:00 EndTime=2020-01-01T00:10:00 Duration=00:10:00\n"
      "   Nodes=n1 NodeCnt=1 CoreCnt=4 Features=(null) PartitionName=(null) Flags=HOURLY,SPEC_NODES\n");
  paths.synthetic = test::write_temp("resv_cap_profile.txt",
                                     "seed = 1\nstart = 2020-01-02T00:00:00\nduration = 01:00:00\n"
                                     "jobs_per_hour = 10\ncpus = 1:1\nruntime = lognormal 600 0.5\npartition = p:1\n");
  paths.limits.reservation_windows = 10;
  auto in = engine::load_site(paths);
  ASSERT_TRUE(in) << in.error();
  const Diagnostic* d = nullptr;
  for (const Diagnostic& any : (*in)->diagnostics.all()) {
    if (any.code == "WORK006") d = &any;
  }
  ASSERT_TRUE(d);
  EXPECT_NE(d->message.find("reservation 'hourly' repeats"), std::string::npos) << d->message;
  EXPECT_NE(d->message.find("only its first 10 windows"), std::string::npos) << d->message;
  EXPECT_NE(d->hint.find("--limit reservation-windows=N"), std::string::npos);
  EXPECT_EQ((*in)->site.max_reservation_windows, 10);
  Reservation once;
  once.start = 0;
  once.end = 60;
  EXPECT_EQ(engine::ReservationBook::windows_until(once, 1'000'000), 1);
}

// A queue 200 jobs deep on two nodes, walked every second (sched_interval=1): about 200
// scheduling steps a simulated second at first, fewer as it drains over 100 hours.
std::string deep_queue_conf() {
  return test::write_temp("steps.conf",
                          "ClusterName=c\nSlurmctldHost=h\nSchedulerType=sched/backfill\n"
                          "SchedulerParameters=sched_interval=1\nNodeName=n[1-2] CPUs=4 RealMemory=1000\n"
                          "PartitionName=p Nodes=ALL Default=YES MaxTime=1-00:00:00\n");
}
std::string deep_queue_swf() {
  std::string swf;
  for (int i = 1; i <= 200; ++i) swf += fmt::format("{} {} 0 3600 4 -1 -1 4 3600 -1 1 1 1 -1 1 -1 -1 -1\n", i, i);
  return test::write_temp("steps.swf", swf);
}

// A clock that stands still (an engine loop: a34cc65 fixed one that restarted a requeued job
// in the same second for ever) stops the run however many steps remain, and is reported as
// a bug, not as a limit to raise. Forced here with a bound of 50 events in one second on a load
// whose first second holds more: 200 submissions at 0.
TEST(InputBounds, ARunWhoseClockStandsStillStopsAndSaysSo) {
  engine::SitePaths paths;
  paths.conf = deep_queue_conf();
  std::string swf;
  for (int i = 1; i <= 200; ++i) swf += fmt::format("{} 0 0 3600 4 -1 -1 4 3600 -1 1 1 1 -1 1 -1 -1 -1\n", i);
  paths.workload = test::write_temp("still.swf", swf);
  auto in = engine::load_site(paths);
  ASSERT_TRUE(in) << in.error();
  engine::SimOptions still;
  still.still_events = 50;
  const engine::SimResult r = engine::Simulator((*in)->site, still).run((*in)->workload);
  ASSERT_TRUE(r.step_limit);
  EXPECT_TRUE(r.stalled);
  EXPECT_EQ(r.end, r.start);
  EXPECT_LT(r.steps, 200u);
  const auto stop = r.step_limit_stop();
  ASSERT_TRUE(stop);
  EXPECT_TRUE(stop->stalled);
  const auto d = engine::step_limit_diagnostic(stop, **in);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->code, "WORK008");
  EXPECT_NE(d->message.find("the simulation stopped 00:00:00 into the load: its clock stood still"), std::string::npos)
      << d->message;
  EXPECT_NE(d->hint.find("slurm-advisor bug"), std::string::npos) << d->hint;
  // diff names such a run as stalled and says to report it, not to raise --limit sim-steps.
  rules::LintDiff diff;
  diff.cut_runs.push_back(engine::step_limit_text(*stop, 1000, "the new config's simulation") + " (WORK008)");
  diff.stalled_run = true;
  std::ostringstream text;
  report::print_diff_text(text, diff, "old.conf", "new.conf");
  EXPECT_NE(text.str().find("! the new config's simulation stopped 00:00:00 into the load: its clock stood still"),
            std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find("(this is a slurm-advisor bug, not a limit to raise"), std::string::npos) << text.str();
  EXPECT_EQ(text.str().find("sim-steps"), std::string::npos) << text.str();
  const std::string html = report::diff_html(diff, {}, {}, {"old.conf", "new.conf"}, Severity::kError);
  EXPECT_NE(html.find("This is a slurm-advisor bug, not a limit to raise: please report it with these input files."),
            std::string::npos);
  EXPECT_EQ(html.find("sim-steps"), std::string::npos);
  // The default bound is far above any real second: the whole load runs.
  const engine::SimResult whole = engine::Simulator((*in)->site, {}).run((*in)->workload);
  EXPECT_FALSE(whole.stalled);
}

// The engine stops a run at Site::max_sim_steps and says where; the same limit stops it at
// the same step every time, and a run within it is not marked.
TEST(InputBounds, ASimulationStopsAtItsStepLimit) {
  engine::SitePaths paths;
  paths.conf = deep_queue_conf();
  paths.workload = deep_queue_swf();
  paths.limits.sim_steps = 2'000'000;
  auto in = engine::load_site(paths);
  ASSERT_TRUE(in) << in.error();
  EXPECT_EQ((*in)->site.max_sim_steps, 2'000'000);
  const engine::SimResult cut = engine::Simulator((*in)->site, {}).run((*in)->workload);
  const engine::SimResult again = engine::Simulator((*in)->site, {}).run((*in)->workload);
  ASSERT_TRUE(cut.step_limit);
  EXPECT_GE(cut.steps, 2'000'000u);
  EXPECT_LT(cut.steps, 2'010'000u);  // it stops after the event that crossed the limit
  EXPECT_EQ(again.steps, cut.steps);
  EXPECT_EQ(again.end, cut.end);
  const auto stop = cut.step_limit_stop();
  ASSERT_TRUE(stop);
  EXPECT_EQ(stop->running, 2u);
  EXPECT_EQ(stop->pending + stop->running + stop->unsubmitted + 4, 200u) << "4 jobs ended before the stop";
  const auto d = engine::step_limit_diagnostic(stop, **in);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->code, "WORK008");
  EXPECT_EQ(d->loc.line, 1);
  EXPECT_NE(d->message.find("the simulation stopped at its limit of 2000000 scheduling steps, 02:46:24 into the load"),
            std::string::npos)
      << d->message;
  EXPECT_NE(d->hint.find("--limit sim-steps=8000000"), std::string::npos) << d->hint;

  (*in)->site.max_sim_steps = InputLimits{}.sim_steps;
  const engine::SimResult whole = engine::Simulator((*in)->site, {}).run((*in)->workload);
  EXPECT_FALSE(whole.step_limit);
  EXPECT_FALSE(whole.step_limit_stop());
  EXPECT_GT(whole.steps, 30'000'000u);  // 100 hours of a queue walked every second
  EXPECT_EQ(whole.end, 360'002);        // every job ran: 100 hours of 4-CPU jobs on two nodes
}

// Through the binary: `simulate` warns (exit 0) and its JSON says where it stopped; `lint`
// reports WORK008 and withholds every finding that would rest on the cut run, LOAD001 too.
TEST(InputBounds, StepLimitThroughSimulateAndLint) {
  const std::string files = deep_queue_conf() + " --workload " + deep_queue_swf() + " --progress never";
  auto sim = run_bounded("simulate " + files + " --format text --limit sim-steps=2000000");
  EXPECT_EQ(sim.status, 0);
  EXPECT_NE(sim.out.find("steps.conf:1:1: warning: the simulation stopped at its limit of 2000000 scheduling steps"),
            std::string::npos)
      << sim.out;
  auto json = run_bounded("simulate " + files + " --format json --limit sim-steps=2000000 2>/dev/null", false);
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["step_limit"]["stopped_at"], 9985);
  EXPECT_EQ(j["end"], 9985);

  auto lint = run_bounded("lint " + files + " --format json --limit sim-steps=2000000", false);
  EXPECT_EQ(lint.status, 0);
  const auto l = nlohmann::json::parse(lint.out);
  std::vector<std::string> codes;
  for (const auto& f : l["findings"]) codes.push_back(f["code"].get<std::string>());
  EXPECT_EQ(codes, (std::vector<std::string>{"CONF106", "WORK008"}));
  EXPECT_EQ(l["findings"][1]["line"], 1);
  const std::string skipped = l["summary"]["skipped"].dump();
  EXPECT_NE(
      skipped.find("LOAD001 (simulated evidence withheld: the simulation stopped at its step limit; see WORK008)"),
      std::string::npos)
      << skipped;
  // Without the limit the same lint has no WORK008.
  auto whole = run_bounded("lint " + files + " --format json", false);
  EXPECT_EQ(whole.out.find("WORK008"), std::string::npos);
}

// Node lists in reservation, node-event and profile files name nodes of one config: a bracket
// product of a few bytes (profile_fuzz and resv_fuzz found inputs that expanded a million long
// names per line, a gigabyte and six seconds under ASan) stops at InputLimits::nodes names per
// list and hostlist_names per file, as an error on that record.
TEST(InputBounds, NodeListsInReservationEventAndProfileFilesAreBounded) {
  InputLimits limits;
  limits.nodes = 1000;
  limits.hostlist_names = 1500;
  const std::string product = "n[1-16]x[1-12]y[1-12]";  // 2,304 names
  auto errors_with = [](const DiagnosticSink& sink, const char* code) {
    int n = 0;
    for (const Diagnostic& d : sink.all())
      n += d.code == code && d.message.find("not a valid hostlist") != std::string::npos;
    return n;
  };
  SourceManager sources;
  DiagnosticSink resv_sink;
  const FileId resv = sources.add(
      "resv.txt",
      "ReservationName=big StartTime=2020-01-01T00:00:00 EndTime=2020-01-01T00:10:00 Nodes=" + product +
          "\nReservationName=small StartTime=2020-01-01T00:00:00 EndTime=2020-01-01T00:10:00 Nodes=n[1-900]\n"
          "ReservationName=over StartTime=2020-01-01T00:00:00 EndTime=2020-01-01T00:10:00 Nodes=m[1-900]\n");
  const std::vector<Reservation> rs = read_reservations_text(resv, sources, resv_sink, limits);
  ASSERT_EQ(rs.size(), 1u);  // the 900-name list fits; the next 900 pass the file's 1,500
  EXPECT_EQ(rs[0].name, "small");
  EXPECT_EQ(errors_with(resv_sink, "RESV005"), 2);

  DiagnosticSink event_sink;
  const FileId events = sources.add("events.txt",
                                    "Cluster|NodeName|TimeStart|TimeEnd|State|Reason|User\n"
                                    "tux|" +
                                        product + "|2026-11-21T10:00:00|Unknown|DRAIN|x|root(0)\n");
  EXPECT_TRUE(read_node_events_text(events, sources, event_sink, limits).empty());
  EXPECT_EQ(errors_with(event_sink, "EVNT004"), 1);

  DiagnosticSink profile_sink;
  const FileId profile =
      sources.add("profile.txt", "reservation = r start=+0-01:00:00 duration=01:00:00 nodes=" + product + "\n");
  EXPECT_TRUE(engine::read_profile(profile, sources, profile_sink, limits).reservations.empty());
  EXPECT_TRUE(profile_sink.has_errors());
}

// KillWait and MessageTimeout at the edge of int64 (lint_fuzz's UBSan found the engine reading
// them with atoll and adding them, both undefined there; that shows only under UBSan): the
// analyzer's error, and the run goes on with Slurm's default, so it equals the run with
// KillWait=30.
TEST(InputBounds, KillWaitBeyondItsTypeRunsWithTheDefault) {
  const std::string site = std::string(SA_SOURCE_DIR) + "/corpora/overlap-suspend/";
  std::ifstream in(site + "slurm.conf");
  std::string conf((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t at = conf.find("KillWait=30\n");
  ASSERT_NE(at, std::string::npos);
  const std::string huge =
      test::write_temp("killwait.conf", conf.substr(0, at) + "KillWait=9223372036854775807\n" + conf.substr(at + 12));
  const std::string rest = " --assoc " + site + "sacctmgr_dump.cfg --qos " + site + "qos.psv --days 1 --format json";
  auto big = test::run("simulate " + huge + rest);
  auto plain = test::run("simulate " + site + "slurm.conf" + rest);
  EXPECT_EQ(plain.status, 0);
  EXPECT_EQ(big.status, 1);  // the CONF006 error, after the run
  EXPECT_NE(plain.out.find("\"suspends\""), std::string::npos);
  EXPECT_TRUE(big.out == plain.out);  // (not EXPECT_EQ: a mismatch would print 100 KB of JSON)
  // Exactly once: the validation pass and the resolver both read KillWait.
  const std::string checked = run_bounded("check " + huge).out;
  const std::string message = "out of range (largest allowed is 65535) [CONF006]";
  const std::size_t first = checked.find(message);
  EXPECT_NE(first, std::string::npos);
  EXPECT_EQ(checked.find(message, first + 1), std::string::npos);
}

}  // namespace
}  // namespace sa
