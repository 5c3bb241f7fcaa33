// The engine's association and QOS limits against real Slurm 22.05 (mini-slurm captures in
// tests/golden/mini_slurm_limits/{assoc_limits,qos_limits}; their README.md files describe
// every job). The replay gets every sbatch call the capture made, not only what the workload
// reader keeps of sacct.psv:
//  - the jobs that ran (sacct.psv, read as the CLI reads it);
//  - the jobs cancelled while pending (read_workload() keeps them, pending until their
//    scancel): they carry the per-job limit Reasons, and while queued they count against
//    submit limits like any other job;
//  - the submissions sbatch refused (extra/sbatch_calls.txt, rc=1), rebuilt from their argv:
//    they reached acct_policy_validate, so the engine must refuse them too.
// Timing tolerance is one scheduler tick, as in engine_golden_test.cpp: the engine's main
// loop and backfill cycles are not phase-aligned with slurmctld's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "analyzer/accounting_readers.h"
#include "analyzer/assoc_reader.h"
#include "analyzer/text_util.h"
#include "engine/simulator.h"
#include "report/queue_view.h"
#include "tests/golden_capture.h"
#include "tests/reason_compare.h"
#include "tests/test_util.h"

namespace sa {
namespace {

namespace fs = std::filesystem;
using test::after_first_pass;
using test::captured_reasons;
using test::joined;
using test::lines_of;
using test::same_reasons;
using test::Seen;
using test::simulated_reasons;
const fs::path kLimits = fs::path(SA_SOURCE_DIR) / "tests" / "golden" / "mini_slurm_limits";
const char* const kCaptures[] = {"assoc_limits", "qos_limits"};

/// sbatch's argv as sbatch_calls.txt logs it ("[-A] [grpcpu] [-n] [12] ..."), unbracketed.
std::vector<std::string> argv_words(const std::string& text) {
  std::vector<std::string> out;
  for (std::size_t at = text.find('['); at != std::string::npos; at = text.find('[', at)) {
    const std::size_t end = text.find(']', at);
    if (end == std::string::npos) break;
    out.push_back(text.substr(at + 1, end - at - 1));
    at = end;
  }
  return out;
}

/// A submission sbatch refused, and what it printed.
struct Refused {
  std::uint32_t id = 0;  // 1000 + workload line: real Slurm used up no job id for it
  std::string reason;    // first stderr line, "sbatch: error: <Reason>"
  std::string message;   // second line, "sbatch: error: Batch job submission failed: <message>"
  std::string argv;
};

/// One capture, loaded as engine_golden_test.cpp's Scenario loads one (slurm.conf, the tree
/// that was loaded, the QOS table, sacct), plus the jobs sacct or its reader leave out.
struct Capture : test::GoldenCapture {
  std::map<std::uint32_t, std::int64_t> cancelled;  // job id -> scancel time (sacct End)
  std::map<std::uint32_t, bool> no_time_limit;      // job id -> its sbatch line had no -t
  std::vector<Refused> refused;
  std::size_t sbatch_calls = 0;

  explicit Capture(const std::string& name) : GoldenCapture(kLimits / name) {
    read_job_map();
    add_cancelled_jobs();
    add_refused_submissions();
    engine::normalise_jobs(jobs, sink, kNoFile);  // back into (submit, id) order
  }

  /// extra/jobmap.tsv: line, job id (or REJECTED), submit, user, sleep seconds, sbatch args.
  void read_job_map() {
    for (const std::string& line : lines_of(dir / "extra" / "jobmap.tsv")) {
      const std::vector<std::string> f = split(line, '\t');
      if (line.empty() || line[0] == '#' || f.size() < 6 || f[1] == "REJECTED") continue;
      const auto id = static_cast<std::uint32_t>(std::stoul(f[1]));
      no_time_limit[id] = (" " + f[5] + " ").find(" -t ") == std::string::npos;
    }
  }

  /// The jobs cancelled before they started: the reader keeps them, pending until the
  /// scancel sacct's End recorded.
  void add_cancelled_jobs() {
    for (const engine::JobRequest& j : jobs.jobs) {
      if (j.extra.get().cancelled_at != engine::kNoTime) cancelled[j.id] = j.extra.get().cancelled_at;
    }
  }

  /// extra/sbatch_calls.txt blocks: "=== sbatch call", epoch_start=, user=, argv=, rc=,
  /// "--- stdout", ..., "--- stderr", ..., "--- end".
  void add_refused_submissions() {
    std::int64_t submit = 0;
    std::string user, argv;
    int rc = 0;
    std::vector<std::string> err;
    bool in_stderr = false;
    for (const std::string& line : lines_of(dir / "extra" / "sbatch_calls.txt")) {
      if (line == "=== sbatch call") {
        ++sbatch_calls;
        err.clear();
      } else if (line.starts_with("epoch_start=")) {
        submit = static_cast<std::int64_t>(std::floor(std::stod(line.substr(12))));
      } else if (line.starts_with("user=")) {
        user = line.substr(5);
      } else if (line.starts_with("argv=")) {
        argv = line.substr(5);
      } else if (line.starts_with("rc=")) {
        rc = std::stoi(line.substr(3));
      } else if (line == "--- stderr") {
        in_stderr = true;
      } else if (line == "--- end") {
        in_stderr = false;
        if (rc != 0) refused.push_back(refused_job(submit, user, argv, err));
      } else if (in_stderr && line.starts_with("sbatch: error: ")) {
        err.push_back(line.substr(15));
      }
    }
  }

  Refused refused_job(std::int64_t submit, const std::string& user, const std::string& argv,
                      const std::vector<std::string>& err) {
    engine::JobRequest j;
    j.submit = submit;
    j.user = user;
    const std::vector<std::string> w = argv_words(argv);
    for (std::size_t i = 0; i + 1 < w.size(); ++i) {
      const std::string& opt = w[i];
      const std::string& val = w[i + 1];
      if (opt == "-J" && val.starts_with("L"))
        j.line = std::stoi(val.substr(1));
      else if (opt == "-A")
        j.account = val;
      else if (opt == "-p")
        j.partitions = {val};
      else if (opt == "-q")
        j.qos = val;
      else if (opt == "-n")
        j.cpus = static_cast<std::uint32_t>(std::stoul(val));
      else if (opt == "-t")
        j.time_limit = std::stoll(val) * 60;
      else if (opt == "--wrap" && val.starts_with("sleep "))
        j.run_time = std::stoll(val.substr(6));
    }
    j.id = 1000 + static_cast<std::uint32_t>(j.line);
    jobs.jobs.push_back(j);
    const std::string failed = "Batch job submission failed: ";
    Refused r{j.id, err.empty() ? "" : err[0], "", argv};
    if (err.size() > 1 && err[1].starts_with(failed)) r.message = err[1].substr(failed.size());
    return r;
  }

  engine::SimResult run() const { return engine::Simulator(site, {}).run(jobs); }
};

const engine::SimJob* find(const engine::SimResult& r, std::uint32_t id) {
  for (const engine::SimJob& j : r.jobs) {
    if (j.req.id == id) return &j;
  }
  return nullptr;
}

std::string why_not_started(const engine::SimResult& r, const engine::SimJob& j) {
  return j.state == engine::JobState::kRejected ? "refused: " + j.rare.get().reject_reason
                                                : "pending on " + r.reason_name(j.reason);
}

TEST(MiniSlurmLimitsGolden, EverySbatchCallIsReplayed) {
  // Guards the loader: a job lost here would make every other test vacuous for it.
  for (const char* name : kCaptures) {
    Capture c(name);
    EXPECT_FALSE(c.sink.has_errors()) << name;
    EXPECT_EQ(c.jobs.jobs.size(), c.sbatch_calls) << name;
    EXPECT_FALSE(c.cancelled.empty()) << name;
    EXPECT_FALSE(c.refused.empty()) << name;
  }
}

TEST(MiniSlurmLimitsGolden, ReplayStartsEveryJobWithinOneSchedulerTick) {
  // Held jobs included: each limit must release its job when the real one did (the jobs
  // freed by a job end started within 0.7 s of it, the GrpTRESRunMins one at a decay tick).
  for (const char* name : kCaptures) {
    Capture c(name);
    const engine::SimResult r = c.run();
    for (const engine::SimJob& j : r.jobs) {
      if (j.req.extra.get().recorded_start == engine::kNoTime) continue;
      ASSERT_NE(j.start, engine::kNoTime) << name << " job " << j.req.id << " never started (real "
                                          << j.req.extra.get().recorded_start << "): " << why_not_started(r, j);
      EXPECT_LE(std::llabs(j.start - j.req.extra.get().recorded_start), c.tick)
          << name << " job " << j.req.id << ": engine " << j.start << ", real " << j.req.extra.get().recorded_start
          << " (submitted " << j.req.submit << ")";
    }
  }
}

TEST(MiniSlurmLimitsGolden, JobsOverAPerJobLimitAreAcceptedAndNeverStart) {
  // Without DenyOnLimit, MaxTRESPerJob / MaxWall / MinTRES do not refuse the job: it pends
  // until scancel. The engine keeps it pending; it must not start it before the cancel.
  for (const char* name : kCaptures) {
    Capture c(name);
    const engine::SimResult r = c.run();
    for (const auto& [id, cancelled_at] : c.cancelled) {
      const engine::SimJob* j = find(r, id);
      ASSERT_NE(j, nullptr) << name << " job " << id;
      EXPECT_NE(j->state, engine::JobState::kRejected) << name << " job " << id << ": " << j->rare.get().reject_reason;
      EXPECT_TRUE(j->start == engine::kNoTime || j->start >= cancelled_at)
          << name << " job " << id << " started at " << j->start << "; real: pending until scancel at " << cancelled_at;
    }
  }
}

// Disabled: the engine disagrees with the capture (the lead must fix the engine).
// sbatch without -t under a MaxWall: acct_policy_validate's _set_time_limit (acct_policy.c,
// _qos_policy_validate for QOS MaxWall, _validate_time_limit for the association's) gives a
// NO_VAL time limit the MaxWall, so the job runs with TimeLimit=1 (sacct TimelimitRaw=1) and
// DenyOnLimit does not refuse it (docs/notes/limits_and_reservations.md 1.2 step 4): assoc_limits
// job 13, qos_limits jobs 16 and 27 (QOS deny). Limits::default_wall does this in bind_job.
TEST(MiniSlurmLimitsGolden, JobsWithoutTimeLimitRunUnderTheMaxWall) {
  for (const char* name : kCaptures) {
    Capture c(name);
    std::map<std::uint32_t, std::int64_t> given;  // the limit slurmctld gave (sacct)
    for (engine::JobRequest& j : c.jobs.jobs) {
      auto it = c.no_time_limit.find(j.id);
      if (it == c.no_time_limit.end() || !it->second) continue;
      given[j.id] = j.time_limit;
      j.time_limit = engine::kNoTime;  // as submitted
    }
    ASSERT_FALSE(given.empty()) << name;
    const engine::SimResult r = c.run();
    for (const auto& [id, limit] : given) {
      const engine::SimJob* j = find(r, id);
      ASSERT_NE(j, nullptr) << name << " job " << id;
      if (j->start == engine::kNoTime) {
        ADD_FAILURE() << name << " job " << id << " never started: " << why_not_started(r, *j);
        continue;
      }
      EXPECT_LE(std::llabs(j->start - j->req.extra.get().recorded_start), c.tick) << name << " job " << id;
      EXPECT_EQ(j->recs[static_cast<std::size_t>(j->run_rec)].time_limit, limit) << name << " job " << id;
    }
  }
}

TEST(MiniSlurmLimitsGolden, RefusedSubmissionsAreRefusedWithSbatchsReason) {
  // assoc_limits: MaxSubmitJobs=2 with two jobs queued (always checked at submit).
  // qos_limits: DenyOnLimit makes MaxTRESPerJob and MaxWall refuse instead of hold.
  for (const char* name : kCaptures) {
    Capture c(name);
    const engine::SimResult r = c.run();
    for (const Refused& f : c.refused) {
      const engine::SimJob* j = find(r, f.id);
      ASSERT_NE(j, nullptr) << name << " " << f.argv;
      ASSERT_FALSE(f.reason.empty()) << name << " " << f.argv;
      EXPECT_EQ(j->state, engine::JobState::kRejected) << name << " " << f.argv << ": sbatch said " << f.reason;
      EXPECT_NE(j->rare.get().reject_reason.str().find(f.reason + ":"), std::string::npos)
          << name << " " << f.argv << ": sbatch said " << f.reason << ", engine '" << j->rare.get().reject_reason
          << "'";
      EXPECT_TRUE(j->rare.get().reject_reason.str().starts_with(f.message))
          << name << " " << f.argv << ": sbatch said '" << f.message << "', engine '" << j->rare.get().reject_reason
          << "'";
    }
  }
}

TEST(MiniSlurmLimitsGolden, PendingReasonsFollowSqueue) {
  for (const char* name : kCaptures) {
    Capture c(name);
    const engine::SimResult r = c.run();
    const auto real = captured_reasons(c.dir);
    const auto sim = simulated_reasons(r, c.cancelled);
    for (const auto& [id, seq] : real) {
      ASSERT_EQ(sim.count(id), 1u) << name << " job " << id;
      EXPECT_TRUE(same_reasons(after_first_pass(sim.at(id), c.tick), after_first_pass(seq, c.tick)))
          << name << " job " << id << "\n  engine: " << joined(sim.at(id)) << "\n  squeue: " << joined(seq);
    }
  }
}

TEST(MiniSlurmLimitsGolden, SqueueAtStableMomentsListsTheSameJobsStatesAndReasons) {
  // `squeue -o %i|%T|%r` from the poll at every second whose listing stayed the same for a
  // tick either side (see engine_golden_test.cpp). Compared as sets: squeue's order is its
  // priority sort, and queue_at ranks a pending job by its last computed priority rather
  // than the one at `at`, which differs for jobs held past a priority pass; the order is
  // engine_golden_test.cpp's business. Cancelled jobs leave the engine's listing at scancel.
  for (const char* name : kCaptures) {
    Capture c(name);
    const engine::SimResult r = c.run();
    std::map<std::int64_t, std::vector<std::string>> listing;
    for (const std::string& line : lines_of(c.dir / "extra" / "poll.psv")) {
      const std::vector<std::string> f = split(line, '|');
      if (f.size() >= 5) listing[std::stoll(f[0])].push_back(f[2] + "|" + f[3] + "|" + f[4]);
    }
    for (auto& [at, rows] : listing) std::sort(rows.begin(), rows.end());
    int compared = 0;
    // An empty queue prints no poll line: stop a tick before the last line.
    const std::int64_t last = listing.empty() ? 0 : listing.rbegin()->first;
    for (const auto& [at, rows] : listing) {
      if (at > last - c.tick) break;
      bool stable = true;
      for (std::int64_t d = -c.tick; d <= c.tick && stable; ++d) {
        auto it = listing.find(at + d);  // a second the poll missed says nothing
        stable = it == listing.end() || it->second == rows;
      }
      if (!stable) continue;
      std::vector<std::string> sim;
      for (const report::QueueRow& row : report::queue_at(r, c.site, at)) {
        auto gone = c.cancelled.find(row.job_id);
        if (gone != c.cancelled.end() && gone->second <= at) continue;
        sim.push_back(std::to_string(row.job_id) + "|" + row.state + "|" + row.reason);
      }
      std::sort(sim.begin(), sim.end());
      EXPECT_EQ(sim, rows) << name << " at " << at;
      ++compared;
    }
    EXPECT_GT(compared, 20) << name;
  }
}

}  // namespace
}  // namespace sa
