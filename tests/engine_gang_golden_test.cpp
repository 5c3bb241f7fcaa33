// Gang scheduling and preemption against real Slurm 22.05.8 (mini-slurm captures in
// tests/golden/mini_slurm_gang; the top README.md summarises what they show, each scenario's
// README.md has its config, workload, ms event table and FINDINGS). Every scenario is replayed
// through the engine and compared job by job with what slurmctld did:
//  - the jobs: extra/jobmap.tsv (sbatch arguments, user, WORK_S) with the Submit second of
//    sacct -D's first record (sacct_D_epoch.psv: one row per run, so requeued jobs keep their
//    first submission). run_time = WORK_S (the `work` loop needs that many running seconds),
//    no time limits (every partition is MaxTime=INFINITE);
//  - the site: slurm.conf as captured, extra/qos.psv (sacctmgr show qos, no header: one is
//    added), extra/ACCOUNTS_CFG.txt as the association tree where the scenario loaded one;
//  - the clock: SimOptions::start = the second the gang timeslicer thread started
//    (ctld_start.txt, 1.2-1.7 s before T0), so the engine's wake-ups (start + k * 10 s) fall
//    in the same seconds as slurmctld's (the real ones drift by a few ms per wake-up, never
//    across a second in these runs); its main and backfill cycles count from there too.
// Times compared are whole epoch seconds (the ms event times of extra/events.tsv truncated,
// as Slurm's time_t stamps are). Tolerances: starts 2 s (scheduler passes: every 5 s plus
// event-triggered runs, not phase-aligned with slurmctld's), suspend/resume times 2 s, ends
// 2 s plus |Elapsed - WORK_S| (the capture's `work` loop of `sleep 1` calls runs WORK_S-2 ..
// WORK_S+2 accounted seconds: a sleep in progress at SIGSTOP completes during the
// suspension; fork overhead adds).
//
// Pinned jobs (-w): replayed as the job's --nodelist. Every p2/p3/p4 job is pinned; p1 and the
// g scenarios have no pins. (Until 2026-11-29 the replay emulated `-w nK` by a clone of the
// job's partition restricted to nK, from before the engine read -w; that took preemption
// candidates from the clone's nodes only, which hid p3a's candidate-order quirk below, and
// gave every pinned job a partition of its own, which hid that a -w job that cannot start
// fails only its own nodes in the main loop, not its partition.)
//
// Boundary races: in two places a job's last running second ended a few ms after a timeslicer
// wake-up, so slurmctld suspended it with ~25 ms of work left and it finished after its next
// resume (g1d job 3 at +78.68, p3d job 2 at +128.69). The engine's jobs run exactly WORK_S
// seconds and a job end runs before a wake-up in the same second, so they end at that
// wake-up. These are artefacts of WORK_S being a multiple of the slice, not engine bugs: the
// checks drop the trailing suspend/resume pair from the capture for the jobs involved and
// expect the engine's end at the dropped suspension.
//
// p2x (the first P2 attempt) is replayed only for its grace expiries (its TIMEOUT states). Divergences from real Slurm
// are asserted in tests named DISABLED_ with the cause (the lead fixes the engine); see each one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analyzer/accounting_readers.h"
#include "analyzer/assoc_reader.h"
#include "analyzer/hostlist.h"
#include "analyzer/text_util.h"
#include "engine/simulator.h"
#include "tests/engine_test_util.h"
#include "tests/golden_capture.h"
#include "tests/reason_compare.h"
#include "tests/test_util.h"

namespace sa {
namespace {

namespace fs = std::filesystem;
using engine::JobEvent;
using test::after_first_pass;
using test::joined;
using test::lines_of;
using test::same_reasons;
using test::Seen;
const fs::path kGang = fs::path(SA_SOURCE_DIR) / "tests" / "golden" / "mini_slurm_gang";

constexpr std::int64_t kStartTol = 2, kTurnTol = 2, kEndTol = 2;

std::int64_t whole_seconds(const std::string& epoch) { return static_cast<std::int64_t>(std::floor(std::stod(epoch))); }

/// One run of a job as sacct -D recorded it (epoch seconds).
struct RealRun {
  std::int64_t submit = 0, eligible = 0, start = 0, end = 0, elapsed = 0, suspended = 0;
  std::string state, nodes;
};

/// One line of extra/events.tsv: submit, start, gang_suspend, gang_resume, complete,
/// preempt_requeue, preempt_kill, grace.
struct RealEvent {
  std::int64_t at = 0;
  std::string kind;
  std::uint32_t job = 0;
};

/// A suspend ('S') or resume ('R') of a job.
struct Turn {
  std::int64_t at = 0;
  char kind = 'S';
};

struct Capture {
  std::string name;
  fs::path dir;
  std::unique_ptr<Analysis> conf;
  SourceManager sources;
  DiagnosticSink sink;
  std::optional<AssocTree> tree;
  engine::Site site;
  engine::Workload work;
  std::int64_t t0 = 0;     // the first Submit: README times are relative to it
  std::int64_t clock = 0;  // the timeslicer thread's start second
  std::size_t job_lines = 0;
  std::map<std::uint32_t, std::vector<RealRun>> runs;
  std::map<std::uint32_t, std::int64_t> work_s;
  std::map<std::uint32_t, std::string> pinned;  // job -> node of its -w
  std::vector<RealEvent> events;

  explicit Capture(const std::string& scenario) : name(scenario), dir(kGang / scenario) {
    read_runs();
    read_job_map();
    std::string text;
    for (const std::string& line : lines_of(dir / "slurm.conf")) text += line + "\n";
    for (engine::JobRequest& j : work.jobs) {
      if (auto pin = pinned.find(j.id); pin != pinned.end()) j.extra.edit().nodelist = pin->second;
    }
    conf = analyze_text((dir / "slurm.conf").string(), text, {*SlurmVersion::parse("22.05")});
    site.config = &conf->config;
    const fs::path accounts = dir / "extra" / "ACCOUNTS_CFG.txt";
    if (fs::exists(accounts)) {
      if (auto t = read_assoc_dump(accounts.string(), sources, sink)) {
        tree = std::move(*t);
        site.tree = &*tree;
      }
    }
    // sacctmgr show qos -P -n: Name|Priority|Preempt|PreemptMode|PreemptExemptTime|GraceTime|Flags.
    std::string qos = "Name|Priority|Preempt|PreemptMode|PreemptExemptTime|GraceTime|Flags\n";
    for (const std::string& line : lines_of(dir / "extra" / "qos.psv")) qos += line + "\n";
    site.qos = read_qos_table_text(sources.add((dir / "extra" / "qos.psv").string(), qos), sources, sink);
    read_events();
    read_ctld_start();
  }
  Capture(const Capture&) = delete;  // site points into the object
  Capture& operator=(const Capture&) = delete;

  void read_runs() {
    const std::vector<std::string> rows = lines_of(dir / "sacct_D_epoch.psv");
    const std::vector<std::string> head = split(rows.at(0), '|');
    std::map<std::string, std::size_t> col;
    for (std::size_t i = 0; i < head.size(); ++i) col[head[i]] = i;
    for (std::size_t r = 1; r < rows.size(); ++r) {
      const std::vector<std::string> f = split(rows[r], '|');
      if (f.size() < head.size()) continue;
      RealRun run;
      run.submit = std::stoll(f[col["Submit"]]);
      run.eligible = std::stoll(f[col["Eligible"]]);
      run.start = std::stoll(f[col["Start"]]);
      run.end = std::stoll(f[col["End"]]);
      run.elapsed = std::stoll(f[col["ElapsedRaw"]]);
      const std::string sus = f[col["Suspended"]];  // HH:MM:SS
      run.suspended =
          std::stoll(sus.substr(0, 2)) * 3600 + std::stoll(sus.substr(3, 2)) * 60 + std::stoll(sus.substr(6, 2));
      run.state = f[col["State"]];
      run.nodes = f[col["NodeList"]];
      runs[static_cast<std::uint32_t>(std::stoul(f[col["JobID"]]))].push_back(run);
    }
  }

  /// extra/jobmap.tsv: line, job id, submit, user, WORK_S, sbatch arguments.
  void read_job_map() {
    for (const std::string& line : lines_of(dir / "extra" / "jobmap.tsv")) {
      const std::vector<std::string> f = split(line, '\t');
      if (line.empty() || line[0] == '#' || f.size() < 6) continue;
      ++job_lines;
      engine::JobRequest j;
      j.id = static_cast<std::uint32_t>(std::stoul(f[1]));
      j.line = std::stoi(f[0]);
      j.user = f[3];
      j.run_time = std::stoll(f[4]);
      work_s[j.id] = j.run_time;
      auto known = runs.find(j.id);
      if (known == runs.end()) continue;  // caught by EveryCaptureLoads
      j.submit = known->second.front().submit;
      j.extra.edit().recorded_start = known->second.front().start;
      std::uint32_t tasks = 0, per_node = 0;
      const std::vector<std::string> w = split(f[5], ' ');
      for (std::size_t i = 0; i < w.size(); ++i) {
        std::string o = w[i];
        std::string v = i + 1 < w.size() ? w[i + 1] : "";
        if (o.size() > 2 && o[0] == '-' && o[1] != '-') {  // -N5, -n10: the attached form
          v = o.substr(2);
          o = o.substr(0, 2);
        }
        if (o == "-N")
          j.nodes = static_cast<std::uint32_t>(std::stoul(v));
        else if (o == "-n")
          tasks = static_cast<std::uint32_t>(std::stoul(v));
        else if (o == "-p")
          j.partitions = {v};
        else if (o == "-q")
          j.qos = v;
        else if (o == "-t")
          j.time_limit = std::stoll(v) * 60;  // minutes (only p4 gives limits)
        else if (o.starts_with("--nice="))
          j.nice = std::stoi(o.substr(7));
        else if (o == "-w")
          pinned[j.id] = v;
        else if (o == "--oversubscribe")
          j.oversubscribe = true;
        else if (o.starts_with("--ntasks-per-node="))
          per_node = static_cast<std::uint32_t>(std::stoul(o.substr(18)));
        else if (o.starts_with("--mem=")) {
          j.mem_mb = std::stoull(o.substr(6));
          j.mem_set = true;
        }
      }
      if (per_node) {
        j.cpus_per_node = per_node;
        tasks = per_node * std::max<std::uint32_t>(1, j.nodes);
      }
      j.cpus = tasks ? tasks : std::max<std::uint32_t>(1, j.nodes);  // -N alone: one task per node
      work.jobs.push_back(j);
    }
    std::sort(work.jobs.begin(), work.jobs.end(), [](const engine::JobRequest& a, const engine::JobRequest& b) {
      return a.submit != b.submit ? a.submit < b.submit : a.id < b.id;
    });
    t0 = work.jobs.empty() ? 0 : work.jobs.front().submit;
  }

  void read_events() {
    for (const std::string& line : lines_of(dir / "extra" / "events.tsv")) {
      const std::vector<std::string> f = split(line, '\t');
      if (f.size() < 4 || f[0] == "epoch" || f[3].empty()) continue;  // ticks and cycles name no job
      events.push_back({whole_seconds(f[0]), f[2], static_cast<std::uint32_t>(std::stoul(f[3]))});
    }
  }

  /// "gang: starting timeslicer loop" (or slurmctld's start where gang is off: p2).
  void read_ctld_start() {
    for (const std::string& line : lines_of(dir / "ctld_start.txt")) {
      if (line.find("started on cluster") != std::string::npos) clock = whole_seconds(split(line, '\t')[0]);
      if (line.find("starting timeslicer loop") != std::string::npos) {
        clock = whole_seconds(split(line, '\t')[0]);
        break;
      }
    }
  }

  engine::SimResult run() const {
    engine::SimOptions o;
    o.start = clock;
    // A job the engine never resumes (DISABLED_ tests below) would keep it running to its
    // 60-day horizon: stop five minutes after the capture's last end.
    std::int64_t last = 0;
    for (const auto& [id, rs] : runs) last = std::max(last, rs.back().end);
    o.until = last + 300;
    return engine::Simulator(site, o).run(work);
  }

  const RealRun& last_run(std::uint32_t id) const { return runs.at(id).back(); }

  /// The capture's suspends and resumes of a job, in order.
  std::vector<Turn> real_turns(std::uint32_t id) const {
    std::vector<Turn> out;
    for (const RealEvent& e : events) {
      if (e.job != id) continue;
      if (e.kind == "gang_suspend") out.push_back({e.at, 'S'});
      if (e.kind == "gang_resume") out.push_back({e.at, 'R'});
    }
    return out;
  }

  std::int64_t real_event(std::uint32_t id, const std::string& kind) const {
    for (const RealEvent& e : events) {
      if (e.job == id && e.kind == kind) return e.at;
    }
    return engine::kNoTime;
  }

  /// "+3": a time relative to T0, as the READMEs print them.
  std::string rel(std::int64_t t) const { return t == engine::kNoTime ? "never" : "+" + std::to_string(t - t0); }

  std::string show(const std::vector<Turn>& v) const {
    std::string out;
    for (const Turn& t : v) out += (out.empty() ? "" : " ") + std::string(1, t.kind) + rel(t.at);
    return out.empty() ? "(none)" : out;
  }

  /// The node list of a job's allocation, as sacct prints it.
  std::string nodes_of(const engine::SimResult& r, const engine::SimJob& j) const {
    return test::alloc_node_list(conf->config, r, j);
  }
};

const engine::SimJob& find(const engine::SimResult& r, std::uint32_t id) {
  for (const engine::SimJob& j : r.jobs) {
    if (j.req.id == id) return j;
  }
  static const engine::SimJob none;
  return none;
}

std::vector<Turn> sim_turns(const engine::SimJob& j) {
  std::vector<Turn> out;
  for (const JobEvent& e : j.rare.get().events) {
    if (e.kind == JobEvent::Kind::kSuspend) out.push_back({e.at, 'S'});
    if (e.kind == JobEvent::Kind::kResume) out.push_back({e.at, 'R'});
  }
  return out;
}

bool same_turns(const std::vector<Turn>& a, const std::vector<Turn>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].kind != b[i].kind || std::llabs(a[i].at - b[i].at) > kTurnTol) return false;
  }
  return true;
}

std::int64_t event_at(const engine::SimJob& j, JobEvent::Kind kind) {
  for (const JobEvent& e : j.rare.get().events) {
    if (e.kind == kind) return e.at;
  }
  return engine::kNoTime;
}

const char* state_name(engine::EndState s) {
  switch (s) {
    case engine::EndState::kCompleted:
      return "COMPLETED";
    case engine::EndState::kTimeout:
      return "TIMEOUT";
    case engine::EndState::kPreempted:
      return "PREEMPTED";
    case engine::EndState::kCancelled:
      return "CANCELLED";
  }
  return "?";
}

/// A job's last run against sacct and events.tsv: start, suspend/resume sequence, end, the
/// suspended total and the state. `race` drops that many trailing turns of the capture (the
/// boundary races of the header), and the end is then expected at the first dropped one.
void expect_job(const Capture& c, const engine::SimResult& r, std::uint32_t id, std::size_t race = 0) {
  SCOPED_TRACE(c.name + " job " + std::to_string(id));
  const engine::SimJob& j = find(r, id);
  const RealRun& run = c.last_run(id);
  ASSERT_NE(j.start, engine::kNoTime) << "never started (real " << c.rel(run.start) << ")";
  EXPECT_LE(std::llabs(j.start - run.start), kStartTol)
      << "start: engine " << c.rel(j.start) << ", real " << c.rel(run.start);
  std::vector<Turn> real = c.real_turns(id);
  std::int64_t real_end = run.end;
  std::int64_t tol = kEndTol + std::llabs(run.elapsed - c.work_s.at(id));
  if (race > 0) {
    ASSERT_GE(real.size(), race);
    real_end = real[real.size() - race].at;
    tol = kTurnTol;
    real.resize(real.size() - race);
  }
  // Both lists hold every run's turns (no job checked here is suspended in two runs).
  EXPECT_TRUE(same_turns(sim_turns(j), real))
      << "suspends/resumes\n  engine: " << c.show(sim_turns(j)) << "\n  real:   " << c.show(real);
  ASSERT_NE(j.end, engine::kNoTime) << "never ended (real " << c.rel(run.end) << ")";
  EXPECT_LE(std::llabs(j.end - real_end), tol) << "end: engine " << c.rel(j.end) << ", real " << c.rel(real_end);
  if (race == 0) {
    EXPECT_LE(std::llabs(j.rare.get().tot_sus_time - run.suspended), 2 + std::llabs(run.elapsed - c.work_s.at(id)))
        << "suspended: engine " << j.rare.get().tot_sus_time << " s, real " << run.suspended << " s";
  }
  EXPECT_EQ(state_name(j.end_state), run.state);
}

void expect_jobs(const Capture& c, const engine::SimResult& r, const std::vector<std::uint32_t>& ids) {
  for (std::uint32_t id : ids) expect_job(c, r, id);
}

/// Allocation units (cores, or CPUs with CR_CPU) of a job on each of its nodes, as the
/// capture's CPU_IDs ranges print them ("0-1", "0,4"); select/linear has none.
std::map<std::string, std::string> sim_cpu_ids(const Capture& c, const engine::SimResult& r, const engine::SimJob& j) {
  std::map<std::string, std::string> out;
  for (const engine::AllocPiece& p : j.alloc.expanded()) {
    if (p.unit_word >= j.alloc.units.size()) continue;
    const std::uint64_t mask = j.alloc.units[p.unit_word];  // 8-unit nodes: one word each
    std::string ids;
    for (int b = 0; b < 64;) {
      if (!(mask >> b & 1)) {
        ++b;
        continue;
      }
      int e = b;
      while (e + 1 < 64 && (mask >> (e + 1) & 1)) ++e;
      ids += (ids.empty() ? "" : ",") + std::to_string(b) + (e > b ? "-" + std::to_string(e) : "");
      b = e + 1;
    }
    out[c.conf->config.nodes[r.config_node(p.node)].name] = ids;
  }
  return out;
}

/// extra/alloc.psv: epoch|job|Nodes=<hostlist>:CPU_IDs=<ranges>:Mem=<MB>, per node.
std::map<std::uint32_t, std::map<std::string, std::string>> real_cpu_ids(const Capture& c) {
  std::map<std::uint32_t, std::map<std::string, std::string>> out;
  for (const std::string& line : lines_of(c.dir / "extra" / "alloc.psv")) {
    const std::vector<std::string> f = split(line, '|');
    if (f.size() < 3) continue;
    const std::size_t nodes_at = f[2].find("Nodes="), ids_at = f[2].find(":CPU_IDs="), mem_at = f[2].find(":Mem=");
    if (nodes_at == std::string::npos || ids_at == std::string::npos) continue;
    const std::string ids = f[2].substr(ids_at + 9, mem_at - ids_at - 9);
    if (auto names = expand_hostlist(f[2].substr(nodes_at + 6, ids_at - nodes_at - 6))) {
      for (const std::string& n : *names) out[static_cast<std::uint32_t>(std::stoul(f[1]))][n] = ids;
    }
  }
  return out;
}

std::string show_ids(const std::map<std::string, std::string>& m) {
  std::string out;
  for (const auto& [node, ids] : m) out += (out.empty() ? "" : " ") + node + ":" + ids;
  return out;
}

const char* const kScenarios[] = {"g1a_linear_two_full",
                                  "g1b_linear_3_2_3",
                                  "g1c_linear_same_pass",
                                  "g1d_linear_local_backfill",
                                  "g2_core_memory",
                                  "g2b_core_memory_2pernode",
                                  "g3_cpu_memory",
                                  "g3b_cpu_memory_affinity",
                                  "g3c_cpu_memory_2pernode",
                                  "g4_force2_and_memory",
                                  "p1_partition_suspend",
                                  "p2_partition_requeue_cancel",
                                  "p3a_qos_suspend_requeue",
                                  "p3b_qos_exempt_time",
                                  "p3c_qos_other_partition_tier2",
                                  "p3d_qos_exempt_suspend",
                                  "p4_stale_end_backfill"};

// ------------------------------------------------------------------------------- loading

TEST(EngineGangGolden, EveryCaptureLoadsAndEverySbatchCallIsReplayed) {
  // Guards the loader: a job lost or misread here would make the tests below vacuous for it.
  std::vector<const char*> all(std::begin(kScenarios), std::end(kScenarios));
  all.push_back("p2x_grace_vs_completion");  // only for its grace expiries (P2GraceExpiry...)
  for (const char* name : all) {
    Capture c(name);
    SCOPED_TRACE(name);
    EXPECT_FALSE(c.sink.has_errors());
    EXPECT_FALSE(c.conf->diagnostics.has_errors());
    EXPECT_EQ(c.work.jobs.size(), c.job_lines);
    EXPECT_EQ(c.work.jobs.size(), c.runs.size());
    EXPECT_GT(c.clock, 0);
    EXPECT_LE(c.clock, c.t0);  // jobs submitted before the clock starts would not be replayed
    EXPECT_GE(c.site.qos.records.size(), 1u);
    EXPECT_TRUE(c.conf->config.preempt.mode.gang || std::string(name).starts_with("p2"));
    const engine::SimResult r = c.run();
    for (const engine::SimJob& j : r.jobs) {
      EXPECT_NE(j.state, engine::JobState::kRejected) << "job " << j.req.id << ": " << j.rare.get().reject_reason;
    }
  }
}

TEST(EngineGangGolden, EndMinusStartMinusSuspendedIsTheWork) {
  // sacct's Elapsed excludes suspended time: End - Start = Elapsed + Suspended for every
  // gang- or preempt-suspended run of the captures (finding A.9), and the engine's jobs run
  // exactly WORK_S seconds between their last start and their end, suspended time added.
  for (const char* name : kScenarios) {
    Capture c(name);
    for (const auto& [id, rs] : c.runs) {
      for (const RealRun& run : rs) {
        EXPECT_EQ(run.end - run.start, run.elapsed + run.suspended) << name << " job " << id;
      }
    }
    const engine::SimResult r = c.run();
    for (const engine::SimJob& j : r.jobs) {
      if (j.end == engine::kNoTime || j.end_state != engine::EndState::kCompleted) continue;
      EXPECT_EQ(j.end - j.start - j.rare.get().tot_sus_time, j.req.run_time)
          << name << " job " << j.req.id << ": start " << c.rel(j.start) << " end " << c.rel(j.end) << " suspended "
          << j.rare.get().tot_sus_time;
    }
  }
}

// ----------------------------------------------------------- g1: select/linear, GS_NODE

TEST(EngineGangGolden, G1aTwoWholeClusterJobsSwapFromTheSecondWakeUp) {
  // Job 2 is suspended in the call that starts it (+3); the wake-up at +8.7 changes nothing
  // (job 1 is a filler at the front of the list); the swap comes at the second one (+18.7),
  // then every 10 s; job 1's completion (+70.8) resumes job 2 at once.
  Capture c("g1a_linear_two_full");
  const engine::SimResult r = c.run();
  expect_jobs(c, r, {1, 2});
  const engine::SimJob& j2 = find(r, 2);
  ASSERT_GE(j2.rare.get().events.size(), 2u);
  EXPECT_EQ(j2.rare.get().events[0].at, j2.start);  // suspended at start: squeue PENDING -> SUSPENDED
  EXPECT_EQ(c.rel(j2.rare.get().events[1].at), "+18");
  EXPECT_EQ(c.rel(j2.rare.get().events.back().at), c.rel(find(r, 1).end));  // resumed by the completion
}

TEST(EngineGangGolden, G1bTheTwoNodeJobRunsThroughWhileTheThreeNodeJobsSwap) {
  Capture c("g1b_linear_3_2_3");
  const engine::SimResult r = c.run();
  expect_jobs(c, r, {1, 2, 3});
  EXPECT_TRUE(find(r, 2).rare.get().events.empty());
  // select/linear picks the same nodes for the second -N3 job.
  EXPECT_EQ(c.nodes_of(r, find(r, 1)), "n[1-3]");
  EXPECT_EQ(c.nodes_of(r, find(r, 3)), "n[1-3]");
  EXPECT_EQ(c.nodes_of(r, find(r, 2)), "n[4-5]");
}

TEST(EngineGangGolden, G1cJobsStartedInOnePassJoinTheGangInPriorityOrder) {
  // Jobs 1 (-N3) and 2 (-N5) start in one pass, job 2 first (larger JobSize factor), so job 1
  // is the one suspended at start; job 3 (-N2, backfill) conflicts with job 2 on n[4-5] and is
  // suspended too. Then {1,3} and {2} alternate.
  Capture c("g1c_linear_same_pass");
  const engine::SimResult r = c.run();
  expect_jobs(c, r, {1, 2, 3});
  ASSERT_FALSE(find(r, 1).rare.get().events.empty());
  EXPECT_EQ(find(r, 1).rare.get().events[0].at, find(r, 1).start);
}

TEST(EngineGangGolden, G1dLocalBackfillingRunsTheSmallJobBesideTheSuspendedLargeOne) {
  // Job 2 (-N5) is suspended at start; job 3 (-N2, +8) fits the active row next to job 1 and
  // runs. Job 1's end (+71.7) leaves job 3 running over job 2's nodes: nothing changes until
  // the wake-up at +78.7. Boundary race: job 3 finished its 40th second 25 ms after the +78.68
  // wake-up had suspended it, and ended after its resume at +88.68 (with a zero-length
  // suspension of job 2 at +88 around it); the engine ends job 3 at +78.
  Capture c("g1d_linear_local_backfill");
  const engine::SimResult r = c.run();
  expect_job(c, r, 1);
  expect_job(c, r, 2, 2);
  expect_job(c, r, 3, 2);
  EXPECT_EQ(c.nodes_of(r, find(r, 3)), "n[4-5]");
  ASSERT_FALSE(find(r, 3).rare.get().events.empty());
  EXPECT_EQ(c.rel(find(r, 3).rare.get().events[0].at), "+18");  // ran from its start: a filler
}

// ------------------------------------------------------- g2, g3: cons_tres rows and grain

TEST(EngineGangGolden, G2bCrCoreSuspendsOnlyTheJobsOnSharedCores) {
  // --ntasks-per-node=2 under CR_Core: jobs 1-4 fill row 0, jobs 5 and 6 get exactly the
  // cores of jobs 1 and 2 in row 1. Jobs 3 and 4 never conflict and run straight through;
  // {1,2} and {5,6} alternate (GS_CORE compares core bitmaps).
  Capture c("g2b_core_memory_2pernode");
  const engine::SimResult r = c.run();
  expect_jobs(c, r, {1, 2, 3, 4, 5, 6});
  EXPECT_TRUE(find(r, 3).rare.get().events.empty());
  EXPECT_TRUE(find(r, 4).rare.get().events.empty());
  EXPECT_EQ(find(r, 5).alloc.units, find(r, 1).alloc.units);
  EXPECT_EQ(find(r, 6).alloc.units, find(r, 2).alloc.units);
  for (std::uint32_t id = 1; id <= 6; ++id) {
    for (const engine::AllocPiece& p : find(r, id).alloc.expanded()) EXPECT_EQ(p.cpus, 2u) << "job " << id;
  }
}

TEST(EngineGangGolden, G3cCrCpuWithTaskNoneRotatesAllSixJobs) {
  // Same requests under CR_CPU with task/none (GS_CPU: per-node CPU counts, ids ignored):
  // any four of the six fit, so the suspended pair cycles {3,4} -> {1,2} -> {5,6}.
  Capture c("g3c_cpu_memory_2pernode");
  const engine::SimResult r = c.run();
  expect_jobs(c, r, {1, 2, 3, 4, 5, 6});
  for (std::uint32_t id = 1; id <= 6; ++id) EXPECT_FALSE(find(r, id).rare.get().events.empty()) << "job " << id;
}

TEST(EngineGangGolden, G3bCrCpuWithTaskAffinityComparesCpuBitmaps) {
  // CR_CPU with task/affinity (GS_CPU2: CPU bitmaps): the fixed split of CR_Core again.
  Capture c("g3b_cpu_memory_affinity");
  const engine::SimResult r = c.run();
  expect_jobs(c, r, {1, 2, 3, 4, 5, 6});
  EXPECT_TRUE(find(r, 3).rare.get().events.empty());
  EXPECT_TRUE(find(r, 4).rare.get().events.empty());
}

// Where each job's CPUs sit (alloc.psv). CR_CPU hands out consecutive CPUs: job 1 CPUs 0-1,
// job 2 2-3, job 3 4-5, job 4 6-7 (row 0 full), job 5 0-1, job 6 2-3, on every node (g3c,
// g3b). CR_Core deals a job's cores over the sockets in turn: --ntasks-per-node=2 gives cores
// 0,4 / 1,5 / 2,6 / 3,7 (g2b), p1's -n4 job 3 gets 0-1,4-5 and job 4 the rest, 2-3,6-7
// (cons_common dist_tasks.c: the default block:cyclic distribution syncs the core bitmap
// cyclically over sockets; CoreRows::pick_units does the same).
TEST(EngineGangGolden, PlacementPutsJobsOnTheCpusSlurmChose) {
  for (const char* name :
       {"g3c_cpu_memory_2pernode", "g3b_cpu_memory_affinity", "g2b_core_memory_2pernode", "p1_partition_suspend"}) {
    Capture c(name);
    const engine::SimResult r = c.run();
    for (const auto& [id, real] : real_cpu_ids(c)) {
      EXPECT_EQ(show_ids(sim_cpu_ids(c, r, find(r, id))), show_ids(real)) << name << " job " << id;
    }
  }
}

TEST(EngineGangGolden, G2PackedJobsRotateInThreeGroups) {
  // -n10 -N5 is not 2 per node: 6 cores on n1 + 1 on each other node (job 1) and 2 on n1,
  // 5 on n2, 1 elsewhere (job 2, extra/alloc_manual.txt); jobs 3/5 take job 1's cores and 4/6
  // job 2's, so the groups {1,2} {3,4} {5,6} conflict pairwise and run a third of the time
  // each. Job 5 is left to the DISABLED_ test below (it starts 3 s early); from its first
  // resume on it rotates as the capture.
  Capture c("g2_core_memory");
  const engine::SimResult r = c.run();
  expect_jobs(c, r, {1, 2, 3, 4, 6});
  const std::vector<std::uint32_t> packed_1 = {6, 1, 1, 1, 1}, packed_2 = {2, 5, 1, 1, 1};
  for (std::uint32_t id = 1; id <= 6; ++id) {
    std::vector<std::uint32_t> per_node;
    for (const engine::AllocPiece& p : find(r, id).alloc.expanded()) per_node.push_back(p.cpus);
    EXPECT_EQ(per_node, id % 2 ? packed_1 : packed_2) << "job " << id;
  }
  EXPECT_EQ(find(r, 3).alloc.units, find(r, 1).alloc.units);
  EXPECT_EQ(find(r, 5).alloc.units, find(r, 1).alloc.units);
  EXPECT_EQ(find(r, 4).alloc.units, find(r, 2).alloc.units);
  EXPECT_EQ(find(r, 6).alloc.units, find(r, 2).alloc.units);
  std::vector<Turn> sim5 = sim_turns(find(r, 5)), real5 = c.real_turns(5);
  ASSERT_FALSE(sim5.empty());
  ASSERT_FALSE(real5.empty());
  sim5.erase(sim5.begin());  // the suspension at start
  real5.erase(real5.begin());
  EXPECT_TRUE(same_turns(sim5, real5)) << "engine: " << c.show(sim5) << "\nreal:   " << c.show(real5);
  EXPECT_LE(std::llabs(find(r, 5).end - c.last_run(5).end), kEndTol + 1);
}

// Disabled: the engine disagrees with the capture (the lead must fix the engine).
// g2 job 5 was submitted at +4.782, 0.63 s after that second's backfill pass (+4.149, which
// started jobs 3 and 4), and started at the main pass at +7.43 (suspended at once). The
// engine's clock is whole seconds and runs a second's submissions before its scheduler passes
// (phase_of in engine/simulator.cpp: kSubmit phase 1 < kBackfill phase 4), so its backfill at
// +4 starts job 5 too: engine start and suspension +4, real +7 (Suspended 117 s vs 114 s, end
// +181 vs +180). Fixing this needs sub-second submit times (events.tsv has them) or ordering a
// submission after the passes of its second when it came later in that second. (Rounding the
// submit up instead makes g2b/g3/g3b/g3c job 4, submitted at +3.4..3.6 before a pass at +3.8,
// start 3 s late.)
TEST(EngineGangGolden, DISABLED_G2Job5StartsAtTheFirstPassAfterItsSubmission) {
  Capture c("g2_core_memory");
  const engine::SimResult r = c.run();
  expect_job(c, r, 5);
}

TEST(EngineGangGolden, G3CrCpuCountsGiveTheSameThreeGroups) {
  // CR_CPU with task/none and the packed -n10 -N5 layout: per-node counts 6+2 fit on n1, any
  // third job does not, so the same round robin of three pairs as CR_Core (g2).
  Capture c("g3_cpu_memory");
  const engine::SimResult r = c.run();
  expect_jobs(c, r, {1, 2, 3, 4, 5, 6});
}

/// squeue's Reasons of one job while it pended (timeline.tsv PENDING segments; samples are
/// seconds), from `from` on, before `until`.
std::vector<Seen> real_reasons(const Capture& c, std::uint32_t id, std::int64_t from, std::int64_t until) {
  std::vector<Seen> v;
  for (const std::string& line : lines_of(c.dir / "timeline.tsv")) {
    const std::vector<std::string> f = split(line, '\t');
    if (f.size() < 9 || f[0] == "job" || std::stoul(f[0]) != id || f[2] != "PENDING") continue;
    const std::int64_t first = whole_seconds(f[4]);
    if (first < from || first >= until) continue;
    if (v.empty() || v.back().reason != f[3]) v.push_back({f[3], 0});
    v.back().length += std::stoll(f[8]);
  }
  return v;
}

// ------------------------------------------------------------------- g4: max_share, memory

TEST(EngineGangGolden, G4MemoryAndMaxShareHoldJobsPendingOnResources) {
  // tight (FORCE:2, 8000 MB): job 4's 6000 MB do not fit next to job 1's, so it is never
  // started while job 1 runs. fits: jobs 2 and 5 (3000 MB each) timeslice; job 7 (1000 MB)
  // would fit in memory but FORCE:2 allows two jobs per core: it waits for job 2's end, starts
  // suspended under job 5 and is resumed by job 5's completion. yes2: job 3 (no
  // --oversubscribe) holds n3 alone, job 6 waits for it.
  Capture c("g4_force2_and_memory");
  const engine::SimResult r = c.run();
  expect_jobs(c, r, {1, 2, 3, 5, 7});
  EXPECT_GE(find(r, 4).start, find(r, 1).end);
  EXPECT_GE(find(r, 6).start, find(r, 3).end);
  EXPECT_LE(std::llabs(find(r, 4).start - c.last_run(4).start), kStartTol);
  EXPECT_LE(std::llabs(find(r, 6).start - c.last_run(6).start), kStartTol);
  EXPECT_LE(std::llabs(find(r, 8).start - c.last_run(8).start), kStartTol);
  // squeue: jobs 4 and 6 PENDING Resources for 41 samples, job 7 for 68 (after 2 of Priority).
  for (std::uint32_t id : {4u, 6u, 7u}) {
    const engine::SimJob& j = find(r, id);
    std::int64_t sim = 0, real = 0;
    for (const Seen& s : test::job_reasons(r, j, j.req.submit, j.start)) sim += s.reason == "Resources" ? s.length : 0;
    for (const Seen& s : real_reasons(c, id, 0, c.last_run(id).start + 1)) {
      real += s.reason == "Resources" ? s.length : 0;
    }
    EXPECT_GT(real, 30) << "job " << id;
    EXPECT_LE(std::llabs(sim - real), kStartTol + 1)
        << "job " << id << ": Resources for " << sim << " s, squeue " << real;
  }
}

// A partition whose last job ended has no active row: slurmctld's gs_job_fini ->
// _update_all_active_rows calls _update_active_row for EVERY partition, which starts with
// jobs_active = 0 (gang.c), so the next job started there fits and runs. (The engine once
// skipped empty partitions and kept a stale count: g4's job 4 was then suspended at +41 until
// +71 instead of running +43..+83, p3b's job 4 until +91, and p3a's job 3 rerun for good.)
TEST(EngineGangGolden, AJobStartedInAPartitionItsLastJobLeftRunsAtOnce) {
  {
    Capture c("g4_force2_and_memory");
    const engine::SimResult r = c.run();
    expect_jobs(c, r, {4, 6, 8});
  }
  {
    Capture c("p3b_qos_exempt_time");
    const engine::SimResult r = c.run();
    expect_job(c, r, 4);
  }
  {
    Capture c("p3a_qos_suspend_requeue");
    const engine::SimResult r = c.run();
    expect_job(c, r, 6);
    expect_job(c, r, 3);  // the rerun
  }
}

// --------------------------------------------------------- p1, p3c: PriorityTier shadows

TEST(EngineGangGolden, P1AHigherTierJobSuspendsTheLowJobUntilItEnds) {
  // preempt/partition_prio, SUSPEND,GANG, both partitions FORCE:1 over n[1-3]. Job 4 (high,
  // -n4) fits on n3's idle cores and preempts nothing; jobs 5 and 6 (high, -n8) are placed on
  // low jobs 1 and 2 (the first node with an equal candidate first) and their shadows suspend
  // them at once; no timeslicing across partitions: resumed when the high job ends.
  Capture c("p1_partition_suspend");
  const engine::SimResult r = c.run();
  expect_jobs(c, r, {1, 2, 3, 4, 5, 6});
  EXPECT_TRUE(find(r, 3).rare.get().events.empty());
  for (std::uint32_t id = 1; id <= 6; ++id) EXPECT_EQ(c.nodes_of(r, find(r, id)), c.last_run(id).nodes) << "job " << id;
  EXPECT_EQ(find(r, 1).rare.get().events.size(), 2u);  // one suspension, no wake-up touches it
  EXPECT_EQ(find(r, 1).rare.get().events.back().at, find(r, 5).end);
  EXPECT_EQ(find(r, 2).rare.get().events.back().at, find(r, 6).end);
}

TEST(EngineGangGolden, P3cShadowsDependOnTheTierNotOnTheQos) {
  // preempt/qos, p2 at PriorityTier 2: the urgent job 3 and the normal-QOS job 4 (QOS normal
  // preempts nothing) both suspend the tier-1 job under them until they end.
  Capture c("p3c_qos_other_partition_tier2");
  const engine::SimResult r = c.run();
  expect_jobs(c, r, {1, 2, 3, 4});
  EXPECT_EQ(find(r, 2).rare.get().events.size(), 2u);
  EXPECT_EQ(find(r, 2).rare.get().events.front().at, find(r, 4).start);
}

// ---------------------------------------------------------------- p3: preempt/qos suspend

TEST(EngineGangGolden, P3dExemptTimeHoldsTheSamePartitionPreemptorThenItTimeslices) {
  // One partition, PreemptExemptTime=60: the urgent job 2 pends (Resources) until job 1 is
  // 60 s old (+61) and starts at the next main pass (+63) in preempt/qos's extra row,
  // suspended at once (same partition); the wake-up at +68 changes nothing, then the two swap.
  // Job 3 (urgent, idle n2) starts at its first pass. Boundary race: job 2's 30th running
  // second ended just after the +128.69 wake-up; real end +131 after job 1's end resumed it.
  Capture c("p3d_qos_exempt_suspend");
  const engine::SimResult r = c.run();
  expect_job(c, r, 1);
  expect_job(c, r, 2, 2);
  expect_job(c, r, 3);
  EXPECT_GE(find(r, 2).start, find(r, 1).start + 60);
  ASSERT_FALSE(find(r, 2).rare.get().events.empty());
  EXPECT_EQ(find(r, 2).rare.get().events.front().at, find(r, 2).start);
}

TEST(EngineGangGolden, P3bExemptTimeProtectsAYoungRequeueModeJob) {
  // Job 4 (urgent, p1) is aimed at the node of scav job 2 (PreemptMode=requeue), 10 s old:
  // not a candidate before +61, and job 2 ends by itself at +41 (COMPLETED, never requeued);
  // job 4 starts at the next pass. Job 3 (urgent, p2, same tier) is placed over normal job 1
  // in its own partition's row: both run over-committed, nothing suspended. Job 4's run after
  // its start is in AJobStartedInAPartitionItsLastJobLeftRunsAtOnce.
  Capture c("p3b_qos_exempt_time");
  const engine::SimResult r = c.run();
  expect_jobs(c, r, {1, 2, 3});
  EXPECT_EQ(find(r, 2).rare.get().requeues, 0u);
  EXPECT_TRUE(find(r, 1).rare.get().events.empty());
  EXPECT_GE(find(r, 4).start, find(r, 2).end);
  EXPECT_LE(std::llabs(find(r, 4).start - c.last_run(4).start), kStartTol);
}

TEST(EngineGangGolden, P3aQosSuspendTimeslicesAndRequeueModeRequeues) {
  // Job 1 (normal, p1) timeslices with the urgent job 4 placed in p1's extra row on its node
  // from the second wake-up after job 4's start on; job 5 (urgent, p2, same tier) runs
  // over-committed with job 2; scav job 3 (QOS PreemptMode=requeue) is requeued for job 6,
  // PREEMPTED, BeginTime = requeue + 121 s, and reruns from scratch. Job 4's start and job
  // 3's rerun are in AJobStartedInAPartitionItsLastJobLeftRunsAtOnce and a DISABLED_ test.
  Capture c("p3a_qos_suspend_requeue");
  const engine::SimResult r = c.run();
  expect_jobs(c, r, {1, 2, 5});
  EXPECT_TRUE(find(r, 2).rare.get().events.empty());
  EXPECT_TRUE(find(r, 5).rare.get().events.empty());
  const engine::SimJob& j3 = find(r, 3);
  EXPECT_EQ(j3.rare.get().requeues, 1u);
  const std::int64_t requeued = event_at(j3, JobEvent::Kind::kPreemptRequeue);
  EXPECT_LE(std::llabs(requeued - c.real_event(3, "preempt_requeue")), kTurnTol)
      << "requeue: engine " << c.rel(requeued) << ", real " << c.rel(c.real_event(3, "preempt_requeue"));
  EXPECT_EQ(c.runs.at(3).front().state, "PREEMPTED");
  EXPECT_EQ(c.runs.at(3).back().eligible - c.runs.at(3).back().submit, 121);
  EXPECT_EQ(j3.begin, requeued + 121);
  EXPECT_LE(std::llabs(j3.begin - c.runs.at(3).back().eligible), 1);
  EXPECT_LE(std::llabs(j3.start - c.runs.at(3).back().start), kStartTol);
  EXPECT_LE(std::llabs(find(r, 6).start - c.last_run(6).start), kStartTol);
}

// p3a job 4 (urgent, p1, -w n1) pended Resources from +10.6 to +16.0: with preempt/qos the
// extra-row (suspend) path of cons_common job_test.c _run_now is tried only when the FIRST
// candidate of the preemption list has PreemptMode SUSPEND, and the list (every running job
// on the partition's nodes, lowest QOS priority first) was headed by scav job 3 (priority 0,
// requeue) on n3. It started in the pass after job 3 was requeued for job 6 (+16). The engine's
// try_preempt (engine/gang_sim.cpp) implements that quirk; the replay shows it since -w is
// replayed as a node list (a clone partition of n1 alone made job 1 the only candidate, and job
// 4 started at +11). Its last running second ended just after a timeslicer wake-up (+98): the
// real run suspended it with a few ms of work left and ended it at its next resume (+102), the
// boundary race above.
TEST(EngineGangGolden, P3aTheSamePartitionPreemptorWaitsBehindARequeueModeCandidate) {
  Capture c("p3a_qos_suspend_requeue");
  const engine::SimResult r = c.run();
  expect_job(c, r, 4, 2);
}

// ------------------------------------------------------- p2: REQUEUE, CANCEL, GraceTime

TEST(EngineGangGolden, P2RequeueCancelAndGraceTime) {
  // partition_prio, PreemptMode=REQUEUE (no gang). Job 1 (low, REQUEUE) is requeued for job 6
  // and reruns after BeginTime = requeue + 121 s; job 5 (scav0, CANCEL) is killed for job 10,
  // PREEMPTED and gone; jobs 2, 3, 4 (GraceTime=15) are signalled at the first preemption
  // attempt and keep running; job 2's grace expiry requeues it.
  Capture c("p2_partition_requeue_cancel");
  const engine::SimResult r = c.run();
  const engine::SimJob& j1 = find(r, 1);
  EXPECT_EQ(j1.rare.get().requeues, 1u);
  const std::int64_t requeued = event_at(j1, JobEvent::Kind::kPreemptRequeue);
  EXPECT_EQ(c.rel(requeued), c.rel(c.real_event(1, "preempt_requeue")));
  EXPECT_LE(std::llabs(j1.begin - c.runs.at(1).back().eligible), 1)
      << "BeginTime: engine " << c.rel(j1.begin) << ", real " << c.rel(c.runs.at(1).back().eligible);
  EXPECT_LE(std::llabs(j1.start - c.runs.at(1).back().start), kStartTol);
  EXPECT_LE(std::llabs(j1.end - c.runs.at(1).back().end), kEndTol + 1);
  EXPECT_EQ(state_name(j1.end_state), std::string("COMPLETED"));
  EXPECT_EQ(c.runs.at(1).front().state, "PREEMPTED");
  expect_job(c, r, 6);
  // CANCEL without grace.
  const engine::SimJob& j5 = find(r, 5);
  EXPECT_EQ(j5.end_state, engine::EndState::kPreempted);
  EXPECT_EQ(j5.rare.get().requeues, 0u);
  EXPECT_LE(std::llabs(event_at(j5, JobEvent::Kind::kPreemptCancel) - c.real_event(5, "preempt_kill")), kTurnTol);
  EXPECT_LE(std::llabs(j5.end - c.last_run(5).end), kEndTol);
  expect_job(c, r, 10);
  // GraceTime: the signal at the first attempt (real: `setting 15 sec preemption grace time`).
  for (std::uint32_t id : {2u, 3u, 4u}) {
    const std::int64_t signalled = event_at(find(r, id), JobEvent::Kind::kPreemptGrace);
    EXPECT_LE(std::llabs(signalled - c.real_event(id, "grace")), kTurnTol)
        << "job " << id << " grace signal: engine " << c.rel(signalled) << ", real "
        << c.rel(c.real_event(id, "grace"));
  }
  for (std::uint32_t id : {3u, 4u}) EXPECT_EQ(find(r, id).end_state, engine::EndState::kPreempted) << "job " << id;
  // Job 2's grace ended at +29.45 and the periodic time-limit check requeued it 25 ms later.
  const std::int64_t j2_requeued = event_at(find(r, 2), JobEvent::Kind::kPreemptRequeue);
  EXPECT_LE(std::llabs(j2_requeued - c.real_event(2, "preempt_requeue")), kTurnTol)
      << "engine " << c.rel(j2_requeued) << ", real " << c.rel(c.real_event(2, "preempt_requeue"));
  EXPECT_EQ(find(r, 2).rare.get().requeues, 1u);
  EXPECT_EQ(state_name(find(r, 2).end_state), std::string("COMPLETED"));
}

// Grace expiry is acted on late. slurmctld sets the preemptee's end_time to now + GraceTime
// but kills/requeues it only when something looks again: the periodic job time-limit test
// (job_time_limit, "Testing job time limits", every 30 s from about slurmctld start + 31 s:
// here +29.5, +59.5, ...) or a pass in which the preemptor, its KillWait + MessageTimeout hold
// over (25 s here), preempts again (_job_check_grace finds the grace over). Jobs 3 and 4 (scav,
// CANCEL, grace 15 s from +16.1 and +17.5, ends +31 / +32) were killed at +42.49 by the main
// pass after job 6's end, the first pass past their preemptors' holds (+41.1, +42.5); the
// engine used to kill them at the grace end itself (+31), starting job 9 eleven seconds early.
TEST(EngineGangGolden, P2GraceExpiryIsActedOnAtTheNextLimitTestOrPreemptorPass) {
  Capture c("p2_partition_requeue_cancel");
  const engine::SimResult r = c.run();
  for (std::uint32_t id : {3u, 4u}) {
    const std::int64_t killed = event_at(find(r, id), JobEvent::Kind::kPreemptCancel);
    EXPECT_LE(std::llabs(killed - c.real_event(id, "preempt_kill")), kTurnTol)
        << "job " << id << " killed: engine " << c.rel(killed) << ", real " << c.rel(c.real_event(id, "preempt_kill"));
  }
  expect_job(c, r, 9);
  // p2x (the first P2 attempt): jobs 3 and 4 finished their own work after their grace end
  // times and before any limit test or preemptor looked again: TIMEOUT, at their own end.
  Capture x("p2x_grace_vs_completion");
  const engine::SimResult rx = x.run();
  const engine::SimJob& j3 = find(rx, 3);
  EXPECT_EQ(state_name(j3.end_state), x.last_run(3).state);
  EXPECT_LE(std::llabs(j3.end - x.last_run(3).end), kEndTol);
}

// ----------------------------------------- p4: backfill and a suspended job's stale end_time

TEST(EngineGangGolden, P4WillRunWindowsAlignOnASuspendedJobsPastEndTime) {
  // A (-t 2 on n1) is suspended by H from +4 and keeps its end_time, +122, which has passed
  // when backfill plans P (-N2 -n16) from +245. _will_run_test aligns its time windows on the
  // first end in its list, A's: from there the window that reaches B's end (+302) also takes
  // C's (+362), so slurmctld planned P at C's end on n[2-3] ("to start at 07:16:56 ... on nodes
  // n[2-3]" in its log) and backfilled Q (-w n4, 3 min) at +254. Windows aligned on now
  // would release B alone: P planned at +302 on n[2,4], across Q's three minutes, and Q would
  // wait for P (the engine did this before it followed past ends as they are).
  Capture c("p4_stale_end_backfill");
  const engine::SimResult r = c.run();
  expect_jobs(c, r, {1, 2, 3, 4, 6});
  EXPECT_EQ(find(r, 6).started_by, engine::StartedBy::kBackfill);
  EXPECT_EQ(c.nodes_of(r, find(r, 6)), "n4");
  // P then waited for Q's end, on n[2,4]. The main pass after Q's end (+314.4) came at +317.1,
  // batch_sched_delay (3 s) after a full pass at +314.1; the engine runs it at the end's second.
  const engine::SimJob& p = find(r, 5);
  EXPECT_EQ(c.nodes_of(r, p), c.last_run(5).nodes);
  EXPECT_LE(std::llabs(p.start - c.last_run(5).start), 3) << "engine " << c.rel(p.start);
  // A, resumed at +404 with end_time = now + 2 min less what it had run, was killed by the limit test
  // after it (+539 real, +540 engine).
  EXPECT_EQ(state_name(find(r, 1).end_state), std::string("TIMEOUT"));
}

// Disabled: the engine disagrees with the capture within a second (integer-second clock).
// p2x job 4's grace was set by a backfill cycle at +25.78, 0.7 s after its preemptor's
// submission; the engine's cycle that second falls at +26, so its grace ends at +41, not +40,
// and its own end at +41 is not after it: COMPLETED where sacct says TIMEOUT. p2x job 2 (lowg,
// REQUEUE, grace from +15.8) was requeued at +41.03 by the pass after job 5's end, 0.9 s
// before its own work would have ended (+41.96); the engine starts it at +1 (real +1.96), so
// its work ends at +41, before that pass, and it is never requeued.
TEST(EngineGangGolden, DISABLED_P2xGraceRacesWithinASecond) {
  Capture x("p2x_grace_vs_completion");
  const engine::SimResult rx = x.run();
  const engine::SimJob& j4 = find(rx, 4);
  EXPECT_EQ(state_name(j4.end_state), x.last_run(4).state);
  EXPECT_LE(std::llabs(j4.end - x.last_run(4).end), kEndTol + 1);
  const std::int64_t requeued = event_at(find(rx, 2), JobEvent::Kind::kPreemptRequeue);
  EXPECT_LE(std::llabs(requeued - x.real_event(2, "preempt_requeue")), kTurnTol)
      << "p2x job 2 requeued: engine " << x.rel(requeued) << ", real " << x.rel(x.real_event(2, "preempt_requeue"));
}

// Disabled: the engine disagrees with the capture (the lead must fix the engine).
// A preemptee that ignores SIGTERM holds its node KillWait (5 s) longer: termination is
// SIGCONT, SIGTERM, KillWait, SIGKILL even for preemption. p2 jobs 2 and 3 were submitted with
// --comment=trapterm (the harness's wrapper traps SIGTERM). Job 2 requeued +29.475 but
// `Requeuing` (epilog complete) only at +34.2: job 7 starts +34 (engine +29), job 2's
// BeginTime is +34 + 121 = +155 (engine +150) and its rerun +159 (engine +151); job 3 killed
// +42.5, job 8 starts +47 (engine +41). The engine frees a
// preemptee's resources in the same second (Simulator::stop_preempted) and cannot represent a
// job that ignores SIGTERM (JobRequest has no such property); a replay would need it (or a
// KillWait-delayed release for all preemptions, which would then be 5 s late for the jobs
// that die on SIGTERM: jobs 1, 4, 5 -> preemptor +0.04..0.06 s).
TEST(EngineGangGolden, DISABLED_P2SigtermIgnoringPreempteesHoldTheirNodeForKillWait) {
  Capture c("p2_partition_requeue_cancel");
  const engine::SimResult r = c.run();
  expect_jobs(c, r, {7, 8});
  const engine::SimJob& j2 = find(r, 2);
  EXPECT_LE(std::llabs(j2.begin - c.runs.at(2).back().eligible), 1)
      << "BeginTime: engine " << c.rel(j2.begin) << ", real " << c.rel(c.runs.at(2).back().eligible);
  EXPECT_LE(std::llabs(j2.start - c.runs.at(2).back().start), kStartTol)
      << "rerun: engine " << c.rel(j2.start) << ", real " << c.rel(c.runs.at(2).back().start);
}

// ------------------------------------------------------------- across scenarios

/// Jobs whose (last) start a DISABLED_ test above holds.
const std::set<std::pair<std::string, std::uint32_t>> kStartDiverges = {
    {"g2_core_memory", 5},
    {"p2_partition_requeue_cancel", 2},  // the rerun (BeginTime after KillWait)
    {"p2_partition_requeue_cancel", 7},
    {"p2_partition_requeue_cancel", 8},
    {"p4_stale_end_backfill", 5}};  // 3 s after Q's end (P4WillRunWindows...)

TEST(EngineGangGolden, EveryJobRunsOnTheNodesSacctListsAndStartsWithinTwoSeconds) {
  // Its last run for a requeued job.
  for (const char* name : kScenarios) {
    Capture c(name);
    const engine::SimResult r = c.run();
    for (const auto& [id, rs] : c.runs) {
      const engine::SimJob& j = find(r, id);
      ASSERT_NE(j.start, engine::kNoTime) << name << " job " << id;
      EXPECT_EQ(c.nodes_of(r, j), rs.back().nodes) << name << " job " << id;
      if (kStartDiverges.count({name, id})) continue;
      EXPECT_LE(std::llabs(j.start - rs.back().start), kStartTol)
          << name << " job " << id << ": engine " << c.rel(j.start) << ", real " << c.rel(rs.back().start);
    }
  }
}

TEST(EngineGangGolden, PendingReasonsFollowSqueue) {
  // While a job pends: Resources for memory (g4 job 4), for max_share (g4 job 7), for a job
  // that may not share (g4 job 6), for a preemptor held by PreemptExemptTime (p3b job 4, p3d
  // job 2); Priority behind a pending job of the same partition (g4 job 8); BeginTime after a
  // requeue (p2 job 1, p3a job 3). Leading None/Priority of at most one scheduler tick is
  // phase luck (reason_compare.h after_first_pass).
  for (const char* name : kScenarios) {
    Capture c(name);
    const SchedulerSettings& sched = c.conf->config.scheduler;
    const std::int64_t tick = std::max(sched.bf_interval, sched.batch_sched_delay + 1);  // as GoldenCapture
    const engine::SimResult r = c.run();
    for (const auto& [id, rs] : c.runs) {
      if (name == std::string("p3a_qos_suspend_requeue") && id == 4) continue;  // DISABLED_P3a...
      const engine::SimJob& j = find(r, id);
      // The first wait (up to the first start), and a requeued job's second one.
      const std::int64_t first_start = j.rare.get().requeues ? engine::kNoTime : j.start;
      std::vector<std::pair<std::vector<Seen>, std::vector<Seen>>> waits;
      if (first_start != engine::kNoTime) {
        waits.push_back(
            {test::job_reasons(r, j, j.req.submit, first_start), real_reasons(c, id, 0, rs.front().start + 1)});
      }
      if (rs.size() > 1) {
        const std::int64_t requeued = event_at(j, JobEvent::Kind::kPreemptRequeue);
        waits.push_back(
            {test::job_reasons(r, j, requeued, j.start), real_reasons(c, id, rs.front().end, rs.back().start + 1)});
      }
      for (const auto& [sim, real] : waits) {
        EXPECT_TRUE(same_reasons(after_first_pass(sim, tick), after_first_pass(real, tick)))
            << name << " job " << id << "\n  engine: " << joined(sim) << "\n  squeue: " << joined(real);
      }
    }
  }
}

}  // namespace
}  // namespace sa
