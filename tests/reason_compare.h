#pragma once
// Comparing the Reasons a job showed in a simulation with those a 1 Hz `squeue` poll of a
// real Slurm recorded (extra/poll.psv of the mini-slurm captures), with the timing
// tolerance both golden suites use.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "analyzer/text_util.h"
#include "engine/simulator.h"

namespace sa::test {

/// A Reason and for how long it was seen (samples for the capture, seconds for the engine).
struct Seen {
  std::string reason;
  std::int64_t length = 0;
};

/// Each pending job's Reasons as squeue showed them second by second (extra/poll.psv:
/// epoch|tick|id|state|reason|...), consecutive repeats collapsed; only samples at or after
/// `from` (a requeued job's second wait).
inline std::map<std::uint32_t, std::vector<Seen>> captured_reasons_in(const std::filesystem::path& poll,
                                                                      std::int64_t from = 0) {
  std::map<std::uint32_t, std::vector<Seen>> seq;
  std::ifstream in(poll);
  for (std::string line; std::getline(in, line);) {
    const std::vector<std::string> f = split(line, '|');
    if (f.size() < 5 || f[3] != "PENDING" || std::stoll(f[0]) < from) continue;
    std::vector<Seen>& v = seq[static_cast<std::uint32_t>(std::stoul(f[2]))];
    if (v.empty() || v.back().reason != f[4]) v.push_back({f[4], 0});
    ++v.back().length;
  }
  return seq;
}

/// captured_reasons_in of a capture folder's extra/poll.psv.
inline std::map<std::uint32_t, std::vector<Seen>> captured_reasons(const std::filesystem::path& dir,
                                                                   std::int64_t from = 0) {
  return captured_reasons_in(dir / "extra" / "poll.psv", from);
}

/// The engine's Reasons of one job over [from, until), merged where the same Reason repeats.
inline std::vector<Seen> job_reasons(const engine::SimResult& r, const engine::SimJob& j, std::int64_t from,
                                     std::int64_t until) {
  std::vector<Seen> v;
  for (std::size_t i = 0; i < j.reasons.size(); ++i) {
    const engine::ReasonSpan& span = j.reasons[i];
    const std::int64_t end = i + 1 < j.reasons.size() ? std::min(j.reasons[i + 1].from, until) : until;
    const std::int64_t begin = std::max(span.from, from);
    if (begin >= end) continue;
    const std::string& name = r.reason_name(span.reason);
    if (v.empty() || v.back().reason != name) v.push_back({name, 0});
    v.back().length += end - begin;
  }
  return v;
}

/// The engine's Reasons while a job pended (up to its last start, or the end of the run).
inline std::vector<Seen> pending_reasons(const engine::SimResult& r, const engine::SimJob& j, std::int64_t from = 0) {
  return job_reasons(r, j, from, j.start != engine::kNoTime ? j.start : r.end);
}

/// The engine's Reasons while each job pended, cut at `stop_at` (e.g. a real scancel: the
/// engine has no cancel and keeps such jobs pending to the end of the run).
inline std::map<std::uint32_t, std::vector<Seen>> simulated_reasons(
    const engine::SimResult& r, const std::map<std::uint32_t, std::int64_t>& stop_at = {}) {
  std::map<std::uint32_t, std::vector<Seen>> seq;
  for (const engine::SimJob& j : r.jobs) {
    std::int64_t stop = j.start != engine::kNoTime ? j.start : r.end;
    if (auto it = stop_at.find(j.req.id); it != stop_at.end()) stop = std::min(stop, it->second);
    seq[j.req.id] = job_reasons(r, j, 0, stop);
  }
  return seq;
}

/// The sequences agree when they are equal after dropping Reasons that lasted at most one
/// second on either side (a 1 Hz poll sees or misses them by chance of phase).
inline bool same_reasons(const std::vector<Seen>& sim, const std::vector<Seen>& real) {
  std::vector<std::vector<char>> ok(sim.size() + 1, std::vector<char>(real.size() + 1, 0));
  ok[sim.size()][real.size()] = 1;
  for (std::size_t i = sim.size() + 1; i-- > 0;) {
    for (std::size_t k = real.size() + 1; k-- > 0;) {
      if (i == sim.size() && k == real.size()) continue;
      bool v = false;
      if (i < sim.size() && k < real.size() && sim[i].reason == real[k].reason) v = ok[i + 1][k + 1];
      if (!v && i < sim.size() && sim[i].length <= 1) v = ok[i + 1][k];
      if (!v && k < real.size() && real[k].length <= 1) v = ok[i][k + 1];
      // Repeats left adjacent by a dropped Reason merge.
      if (!v && i < sim.size() && k > 0 && sim[i].reason == real[k - 1].reason) v = ok[i + 1][k];
      ok[i][k] = v;
    }
  }
  return ok[0][0];
}

/// A new job shows None (or Priority, when _top_priority finds an eligible job ahead of it)
/// until the first main-loop or backfill pass looks at it. When that pass comes depends on
/// the schedulers' phase, which differs between the engine and slurmctld by up to a tick
/// (the start tolerance), so these leading Reasons are dropped when they lasted at most a
/// tick. Nothing after the first pass is dropped.
inline std::vector<Seen> after_first_pass(std::vector<Seen> v, std::int64_t tick) {
  std::size_t n = 0;
  std::int64_t length = 0;
  while (n < v.size() && (v[n].reason == "None" || v[n].reason == "Priority") && length + v[n].length <= tick) {
    length += v[n++].length;
  }
  v.erase(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n));
  return v;
}

inline std::string joined(const std::vector<Seen>& v) {
  std::string out;
  for (const Seen& s : v) out += (out.empty() ? "" : " > ") + s.reason + "(" + std::to_string(s.length) + ")";
  return out;
}

}  // namespace sa::test
