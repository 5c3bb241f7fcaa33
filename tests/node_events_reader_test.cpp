// The node events reader: `sacctmgr show event -P` tables and hand-written events files.
// Epochs were worked out by hand (2026-11-21T10:00:00Z = 20778 days * 86400 + 10 h).
#include "analyzer/node_events_reader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "tests/test_util.h"

namespace sa {
namespace {

using test::where;

constexpr std::int64_t kT10 = 1795255200;  // 2026-11-21T10:00:00Z
constexpr std::int64_t kT11 = kT10 + 3600;
constexpr std::int64_t kT12 = kT10 + 7200;

struct Read {
  SourceManager sources;
  DiagnosticSink sink;
  std::vector<NodeEvent> events;
};

std::unique_ptr<Read> read(const std::string& text) {
  auto r = std::make_unique<Read>();
  FileId id = r->sources.add("events.txt", text);
  r->events = read_node_events_text(id, r->sources, r->sink);
  return r;
}

using Names = std::vector<std::string>;

TEST(NodeEvents, NormalisesSlurmStates) {
  for (const char* down : {"DOWN", "down", "DOWN*", "DOWN+DRAIN", "DOWN$", "IDLE+DOWN", "DRAIN+DOWN*"}) {
    EXPECT_EQ(normalize_node_state(down), "DOWN") << down;
  }
  for (const char* drain : {"DRAIN", "drain", "DRAINED", "DRAINING", "DRNG", "DRAIN*", "IDLE+DRAIN", "MIXED+DRAIN",
                            "ALLOCATED+DRAIN", "FAIL", "FAILG", "FAIL*", "DRAIN~"}) {
    EXPECT_EQ(normalize_node_state(drain), "DRAIN") << drain;
  }
  for (const char* other : {"", "IDLE", "MIXED", "MAINT", "POWERED_DOWN", "DOWNISH", "UNKNOWN", "+", "*"}) {
    EXPECT_EQ(normalize_node_state(other), "") << other;
  }
}

TEST(NodeEvents, ReadsSacctmgrShowEvent) {
  auto r = read(
      "Cluster|NodeName|TimeStart|TimeEnd|State|Reason|User\n"
      "tux||2026-11-01T00:00:00|Unknown||Cluster Registered TRES|\n"
      "tux|n1|2026-11-21T10:00:00|2026-11-21T12:00:00|DOWN*|Not responding|slurm(64030)\n"
      "tux|n2|2026-11-21T10:00:00|Unknown|DRAIN|bad dimm|root(0)\n"
      "tux|n3|2026-11-21T10:00:00||IDLE+DRAIN|x|root(0)\n"
      "tux|n4|2026-11-21T10:00:00|2026-11-21T11:00:00|DOWN+DRAIN|y|root(0)\n"
      "tux|n5|2026-11-21T10:00:00|2026-11-21T11:00:00|MIXED+DRAIN|z|root(0)\n"
      "tux|n6|2026-11-21T10:00:00|2026-11-21T11:00:00|FAIL|z|root(0)\n"
      "tux|n7|2026-11-21T10:00:00|2026-11-21T11:00:00|DRNG|z|root(0)\n");
  EXPECT_TRUE(r->sink.all().empty()) << r->sink.all()[0].message;
  ASSERT_EQ(r->events.size(), 7u);  // the cluster event is skipped
  const NodeEvent& down = r->events[0];
  EXPECT_EQ(down.nodes, Names{"n1"});
  EXPECT_EQ(down.start, kT10);
  EXPECT_EQ(down.end, kT12);
  EXPECT_EQ(down.state, "DOWN");
  EXPECT_EQ(down.reason, "Not responding");
  EXPECT_EQ(down.loc.line, 3);
  EXPECT_EQ(down.loc.column, 5);
  EXPECT_EQ(r->events[1].end, kOpenEnd);
  EXPECT_EQ(r->events[1].state, "DRAIN");
  EXPECT_EQ(r->events[1].reason, "bad dimm");
  EXPECT_EQ(r->events[2].end, kOpenEnd);  // an empty TimeEnd is open too
  EXPECT_EQ(r->events[2].state, "DRAIN");
  EXPECT_EQ(r->events[3].state, "DOWN");  // down wins over drain
  EXPECT_EQ(r->events[3].end, kT11);
  EXPECT_EQ(r->events[4].state, "DRAIN");
  EXPECT_EQ(r->events[5].state, "DRAIN");
  EXPECT_EQ(r->events[6].state, "DRAIN");
  EXPECT_EQ(r->events[6].nodes, Names{"n7"});
}

TEST(NodeEvents, ColumnsInAnyOrderAndTrailingBars) {
  auto r = read(
      "\n"
      "State|TimeEnd|NodeName|TimeStart|Reason|\n"
      "DOWN|1795262400|gpu[01-02]|1795255200|cable|\n"
      "DRAIN|Unknown|n1|2026-11-21T11:00:00||\n");
  EXPECT_TRUE(r->sink.all().empty()) << r->sink.all()[0].message;
  ASSERT_EQ(r->events.size(), 2u);
  EXPECT_EQ(r->events[0].nodes, (Names{"gpu01", "gpu02"}));
  EXPECT_EQ(r->events[0].start, kT10);
  EXPECT_EQ(r->events[0].end, kT12);
  EXPECT_EQ(r->events[0].reason, "cable");
  EXPECT_EQ(r->events[1].start, kT11);
  EXPECT_EQ(r->events[1].end, kOpenEnd);
  EXPECT_EQ(r->events[1].reason, "");
}

TEST(NodeEvents, ReadsHandWrittenEvents) {
  auto r = read(
      "# maintenance plan | with a bar and TimeStart in the comment\n"
      "\n"
      "2026-11-21T10:00:00  2026-11-21T12:00:00  n[1-4]  DOWN   power   work\n"
      "1795255200 - gpu01 drain fan failure\r\n"
      "   # indented comment\n"
      "2026-11-21T10:00:00\t2026-11-21T11:00:00\tn1,n1,n2\tDrain\n");
  EXPECT_TRUE(r->sink.all().empty()) << r->sink.all()[0].message;
  ASSERT_EQ(r->events.size(), 3u);
  EXPECT_EQ(r->events[0].nodes, (Names{"n1", "n2", "n3", "n4"}));
  EXPECT_EQ(r->events[0].start, kT10);
  EXPECT_EQ(r->events[0].end, kT12);
  EXPECT_EQ(r->events[0].state, "DOWN");
  EXPECT_EQ(r->events[0].reason, "power   work");  // the rest of the line, as written
  EXPECT_EQ(r->events[0].loc.line, 3);
  EXPECT_EQ(r->events[0].loc.column, 1);
  EXPECT_EQ(r->events[1].nodes, Names{"gpu01"});
  EXPECT_EQ(r->events[1].start, kT10);
  EXPECT_EQ(r->events[1].end, kOpenEnd);
  EXPECT_EQ(r->events[1].state, "DRAIN");
  EXPECT_EQ(r->events[1].reason, "fan failure");
  EXPECT_EQ(r->events[2].nodes, (Names{"n1", "n2"}));  // a repeated name counts once
  EXPECT_EQ(r->events[2].end, kT11);
  EXPECT_EQ(r->events[2].reason, "");

  // A '|' in a hand-written first line is part of its reason, not a sacctmgr header.
  auto bar = read("1795255200 - n1 DOWN cable|fan TimeStart\n");
  EXPECT_TRUE(bar->sink.all().empty()) << bar->sink.all()[0].message;
  ASSERT_EQ(bar->events.size(), 1u);
  EXPECT_EQ(bar->events[0].reason, "cable|fan TimeStart");
}

TEST(NodeEvents, HandWrittenProblemsAreDiagnosedAtTheirField) {
  auto r = read(
      "2026-11-21T10:00:00 2026-11-21T12:00:00 n1\n"
      "2026-11-21T25:00:00 2026-11-21T12:00:00 n1 DOWN\n"
      "2026-11-21T10:00:00 yesterday n1 DOWN\n"
      "2026-11-21T12:00:00 2026-11-21T10:00:00 n1 DOWN\n"
      "2026-11-21T10:00:00 - n[1- DOWN\n"
      "2026-11-21T10:00:00 - n1 IDLE\n"
      "2026-11-21T10:00:00 - n1 DOWN ok\n"
      "bogus - n[x DOWNISH reason\n");
  EXPECT_EQ(where(r->sink),
            (std::vector<std::string>{"EVNT001 1:1", "EVNT002 2:1", "EVNT002 3:21", "EVNT003 4:21", "EVNT004 5:23",
                                      "EVNT005 6:26", "EVNT002 8:1", "EVNT004 8:9", "EVNT005 8:13"}));
  ASSERT_EQ(r->events.size(), 1u);
  EXPECT_EQ(r->events[0].loc.line, 7);
  EXPECT_EQ(r->events[0].reason, "ok");
  for (const Diagnostic& d : r->sink.all()) EXPECT_EQ(d.severity, Severity::kError) << d.message;
}

TEST(NodeEvents, TableProblemsAreDiagnosedAtTheirColumn) {
  auto r = read(
      "Cluster|NodeName|TimeStart|TimeEnd|State|Reason|User\n"
      "tux|n1|2026-11-21T10:00:00|2026-11-21T12:00:00|IDLE|x|root(0)\n"
      "tux|n1|yesterday|Unknown|DOWN|x|root(0)\n"
      "tux|n1|2026-11-21T12:00:00|2026-11-21T10:00:00|DOWN|x|root(0)\n"
      "tux|n[1-|2026-11-21T10:00:00|Unknown|DOWN|x|root(0)\n"
      "tux|n1|2026-11-21T10:00:00|Unknown|DOWN|a|b|root(0)\n"
      "tux|n1|2026-11-21T10:00:00|Unknown|DOWN|x|root(0)\n");
  EXPECT_EQ(where(r->sink),
            (std::vector<std::string>{"EVNT005 2:48", "EVNT002 3:8", "EVNT003 4:28", "EVNT004 5:5", "EVNT001 6:1"}));
  ASSERT_EQ(r->events.size(), 1u);
  EXPECT_EQ(r->events[0].loc.line, 7);
  EXPECT_EQ(r->sink.count(Severity::kWarning), 1);  // a node back to IDLE is data, not a mistake

  auto missing = read("\nCluster|NodeName|Start|State\ntux|n1|2026-11-21T10:00:00|DOWN\n");
  EXPECT_EQ(where(missing->sink), (std::vector<std::string>{"EVNT006 2:1"}));
  EXPECT_TRUE(missing->events.empty());
}

TEST(NodeEvents, HostileInputGivesDiagnosticsNotCrashes) {
  std::string binary;
  for (int i = 0; i < 4096; ++i) binary.push_back(static_cast<char>((i * 131 + 7) % 256));
  for (const std::string& text : {binary, "a|b\n" + binary, std::string("\0\0\0|\n\0", 6)}) {
    auto r = read(text);
    EXPECT_TRUE(r->events.empty());
    EXPECT_FALSE(r->sink.all().empty());
    for (const Diagnostic& d : r->sink.all()) {
      for (char c : d.message) EXPECT_GE(static_cast<unsigned char>(c), 0x20) << d.code;
    }
  }
  auto huge = read("2026-11-21T10:00:00 - n[1-99999999] DOWN\n2026-11-21T10:00:00 - n[1-5000]x[1-5000] DOWN\n");
  EXPECT_EQ(where(huge->sink), (std::vector<std::string>{"EVNT004 1:23", "EVNT004 2:23"}));
  auto cut = read("2026-11-21T10:00:00 - n1 DOWN\n2026-11-21T10:00:00 2026-11-2");
  EXPECT_EQ(where(cut->sink), (std::vector<std::string>{"EVNT001 2:1"}));
  EXPECT_EQ(cut->events.size(), 1u);
  auto table = read("   Cluster NodeName    TimeStart    TimeEnd  State\n---------- ----\n");
  EXPECT_EQ(where(table->sink), (std::vector<std::string>{"EVNT006 1:1"}));
  auto cut_table = read("Cluster|NodeName|TimeStart|TimeEnd|State|Reason|User\ntux|n1|2026-11-21T1");
  EXPECT_EQ(where(cut_table->sink), (std::vector<std::string>{"EVNT001 2:1"}));
}

// `sacctmgr show event` in every form, captured from Slurm 22.05.8 (mini-slurm) into
// tests/golden/mini_slurm_limits/node_events: n3 drained (the event starts when the node became
// DRAINED, 19:31:58, not at the drain request) and resumed at 19:32:22; n4 DOWN 19:32:27-19:32:47.
TEST(NodeEvents, GoldenSacctmgrCapture) {
  const auto dir = std::filesystem::path(SA_SOURCE_DIR) / "tests/golden/mini_slurm_limits/node_events/extra";
  if (!std::filesystem::exists(dir / "cmd_event_P.out")) GTEST_SKIP() << "no capture in " << dir;
  auto read_capture = [&](const char* name, int expected_errors) {
    SourceManager sources;
    DiagnosticSink sink;
    auto events = read_node_events((dir / name).string(), sources, sink);
    EXPECT_TRUE(events.ok()) << name;
    EXPECT_EQ(sink.count(Severity::kError), expected_errors) << name;
    return events.ok() ? *events : std::vector<NodeEvent>{};
  };
  const std::int64_t drained = 1795289518;  // 2026-11-21T19:31:58Z = 20778 days + 19:31:58
  for (const char* name : {"cmd_event_P.out", "cmd_event_P_all_time.out", "cmd_event_P_fmt.out",
                           "cmd_event_P_fmt_nodes.out", "cmd_event_P_fmt_epoch.out"}) {
    const std::vector<NodeEvent> e = read_capture(name, 0);
    ASSERT_EQ(e.size(), 2u) << name;
    EXPECT_EQ(e[0].nodes, Names{"n3"});
    EXPECT_EQ(e[0].state, "DRAIN");
    EXPECT_EQ(e[0].start, drained);
    EXPECT_EQ(e[0].end, drained + 24);
    EXPECT_EQ(e[0].reason, "test");
    EXPECT_EQ(e[1].nodes, Names{"n4"});
    EXPECT_EQ(e[1].state, "DOWN");
    EXPECT_EQ(e[1].start, drained + 29);
    EXPECT_EQ(e[1].end, drained + 49);
    EXPECT_EQ(e[1].reason, "downtest");
  }
  const std::vector<NodeEvent> open = read_capture("cmd_event_P_while_down.out", 0);
  ASSERT_EQ(open.size(), 2u);
  EXPECT_EQ(open[1].end, kOpenEnd);                                     // TimeEnd=Unknown while n4 was still down
  EXPECT_TRUE(read_capture("cmd_event_default_table.out", 1).empty());  // no -P: refused
}

// Captures from a real Slurm 22.05 (tests/golden/mini_slurm_limits, when present): every
// `sacctmgr show event -P` file there reads without an error.
TEST(NodeEvents, GoldenCapturesRead) {
  const std::filesystem::path root = std::filesystem::path(SA_SOURCE_DIR) / "tests/golden/mini_slurm_limits";
  if (!std::filesystem::exists(root)) GTEST_SKIP() << "no captures in " << root;
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (entry.path().filename() != "sacctmgr_event.psv") continue;
    SourceManager sources;
    DiagnosticSink sink;
    auto events = read_node_events(entry.path().string(), sources, sink);
    ASSERT_TRUE(events.ok());
    for (const NodeEvent& e : *events) {
      EXPECT_FALSE(e.nodes.empty());
      EXPECT_TRUE(e.state == "DOWN" || e.state == "DRAIN") << e.state;
      EXPECT_TRUE(e.end == kOpenEnd || e.end >= e.start);
    }
    ++files;
    EXPECT_FALSE(sink.has_errors()) << entry.path() << ": " << sink.all()[0].message;
  }
  EXPECT_GT(files, 0);
}

}  // namespace
}  // namespace sa
