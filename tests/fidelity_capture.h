#pragma once
// Reading issue 21's mini-slurm fidelity captures (tests/golden/mini_slurm_fidelity): the
// sacct dump joined with the columns kept apart, the controller's start, and the work each job
// was given.
#include <unistd.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "analyzer/text_util.h"
#include "engine/simulator.h"
#include "tests/golden_capture.h"
#include "tests/scratch_dir.h"

namespace sa::test {

/// sacct.psv with extra/sacct_text.tsv's Constraints and SubmitLine added, tab-separated (the
/// form `sacct --delimiter` writes, which the workload reader takes). The captures keep those
/// two columns apart because a '|' in them would break sacct.psv. The file is named after the
/// process: ctest runs two tests of one capture at once, and a shared name let one truncate the
/// file while the other read it (CI saw a run with no jobs).
inline std::filesystem::path joined_trace(const std::filesystem::path& sacct, const std::filesystem::path& text,
                                          const std::string& name) {
  std::map<std::string, std::pair<std::string, std::string>> extra;
  for (const std::string& line : lines_of(text)) {
    const std::vector<std::string> f = split(line, '\t');
    if (f.size() >= 6) extra[f[0]] = {f[4], f[5]};
  }
  const std::filesystem::path out = sa::test::scratch_dir() / ("sa_fidelity_" + name + ".tsv");
  std::ofstream o(out);
  bool header = true;
  for (const std::string& line : lines_of(sacct)) {
    if (line.empty()) continue;
    std::vector<std::string> f = split(line, '|');
    if (header) {
      f.push_back("Constraints");
      f.push_back("SubmitLine");
      header = false;
    } else {
      f.push_back(extra[f[0]].first);
      f.push_back(extra[f[0]].second);
    }
    for (std::size_t i = 0; i < f.size(); ++i) o << (i ? "\t" : "") << f[i];
    o << '\n';
  }
  return out;
}

/// "2026-11-27T03:08:09" as UTC epoch seconds (the capture machine's clock is UTC); kNoTime
/// when it does not read.
inline std::int64_t utc_seconds(const std::string& iso) {
  std::tm tm{};
  if (!strptime(iso.c_str(), "%Y-%m-%dT%H:%M:%S", &tm)) return engine::kNoTime;
  return timegm(&tm);
}

/// slurmctld's start (BOOT_TIME of `scontrol show config`, UTC on the capture machine): its
/// background passes (sched_interval, bf_interval, PriorityCalcPeriod) count from there.
inline std::int64_t boot_time(const std::filesystem::path& scontrol_config) {
  for (const std::string& line : lines_of(scontrol_config)) {
    if (line.starts_with("BOOT_TIME")) return utc_seconds(line.substr(line.find('=') + 2));
  }
  return engine::kNoTime;
}

/// The work each job was given (jobmap.tsv: line, job id, submit epoch, user, seconds,
/// arguments) in place of what sacct recorded: a preempted job's row holds only its last run
/// (requeued) or its run up to the kill (cancelled), and a requeued job's Submit and Eligible
/// are those of the requeue. The engine then preempts them itself.
inline void give_intended_work(engine::Workload& w, const std::filesystem::path& jobmap) {
  std::map<std::uint32_t, std::pair<std::int64_t, std::int64_t>> given;
  for (const std::string& line : lines_of(jobmap)) {
    const std::vector<std::string> f = split(line, '\t');
    if (line.empty() || line[0] == '#' || f.size() < 5) continue;
    given[static_cast<std::uint32_t>(std::stoul(f[1]))] = {std::stoll(f[2]), std::stoll(f[4])};
  }
  for (engine::JobRequest& j : w.jobs) {
    auto it = given.find(j.id);
    if (it == given.end()) continue;
    j.submit = it->second.first - w.epoch_offset;
    j.run_time = it->second.second;
    if (!j.begin_set) j.eligible = engine::kNoTime;
  }
  std::stable_sort(w.jobs.begin(), w.jobs.end(),
                   [](const engine::JobRequest& a, const engine::JobRequest& b) { return a.submit < b.submit; });
}

}  // namespace sa::test
