#include "rules/analysis/evidence.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "analyzer/text_util.h"

namespace sa::rules {

engine::WaitStats wait_stats(std::vector<double> w) {
  engine::WaitStats out;
  std::sort(w.begin(), w.end());
  out.jobs = w.size();
  if (w.empty()) return out;
  double sum = 0;
  for (double x : w) sum += x;
  out.mean = sum / static_cast<double>(w.size());
  out.median = w[w.size() / 2];
  out.p95 = w[std::min(w.size() - 1, w.size() * 95 / 100)];
  out.max = w.back();
  return out;
}

std::string join_names(const std::vector<std::string>& names) { return join(names, ","); }

namespace {

// "a", "a, b", "a, b, c and 4 more partitions": a label that stays short however many.
std::string partitions_label(const std::vector<std::string>& changes) {
  constexpr std::size_t kNamed = 3;
  if (changes.size() <= kNamed) return join(changes, ", ");
  const std::vector<std::string> named(changes.begin(), changes.begin() + kNamed);
  return fmt::format("{} and {} more partitions", join(named, ", "), changes.size() - kNamed);
}

}  // namespace

PartitionsFix partitions_fix(const std::string& key, const std::vector<std::pair<std::string, std::string>>& values) {
  PartitionsFix fix;
  std::vector<std::string> names, changes;
  bool same = true;
  for (const auto& [part, value] : values) {
    fix.edits.push_back(ConfigEdit::partition_key(part, key, value));
    names.push_back(part);
    changes.push_back(fmt::format("{}={} on {}", key, value, part));
    same = same && value == values.front().second;
  }
  if (values.empty()) return fix;
  fix.label = same ? fmt::format("{}={} on {}", key, values.front().second, partitions_label(names))
                   : partitions_label(changes);
  return fix;
}

nlohmann::json weighted_factors(const Config& config, const engine::PriorityFactors& f) {
  const PrioritySettings& p = config.priority;
  nlohmann::json j = {{"age", rounded3(f.age * p.weight_age)},
                      {"assoc", rounded3(f.assoc * p.weight_assoc)},
                      {"fairshare", rounded3(f.fairshare * p.weight_fairshare)},
                      {"jobsize", rounded3(f.job_size * p.weight_job_size)},
                      {"partition", rounded3(f.partition * p.weight_partition)},
                      {"qos", rounded3(f.qos * p.weight_qos)}};
  for (std::size_t i = 0; i < f.tres.size() && i < p.weight_tres.size(); ++i) {
    j["tres/" + p.weight_tres[i].tres] = rounded3(f.tres[i] * p.weight_tres[i].weight);
  }
  if (f.nice) j["nice"] = f.nice;
  return j;
}

std::int64_t wait_of(const Simulation& sim, const engine::SimJob& job) {
  const std::int64_t from = job.begin;
  const std::int64_t to = job.waited_until(sim.result.end);
  return std::max<std::int64_t>(0, to - from);
}

const std::string& partition_of(const Simulation& sim, const engine::SimJob& job) {
  static const std::string none;
  if (job.recs.empty()) return none;
  return sim.site.config->partitions[job.run_or_first_rec().part].name;
}

nlohmann::json job_json(const Simulation& sim, const engine::SimJob& job) {
  const bool started = job.start != engine::kNoTime;
  const engine::SimRecord* rec = job.recs.empty() ? nullptr : &job.run_or_first_rec();
  nlohmann::json j = {{"job", job.req.id},
                      {"user", job.req.user},
                      {"account", job.req.account},
                      {"partition", partition_of(sim, job)},
                      {"cpus", job.req.cpus},
                      {"submit", job.req.submit},
                      {"wait_seconds", wait_of(sim, job)}};
  if (job.req.nodes) j["nodes"] = job.req.nodes;
  if (rec) j["time_limit"] = rec->time_limit;
  if (started) {
    j["start"] = job.start;
    j["priority"] = job.start_priority;
    j["factors"] = weighted_factors(*sim.site.config, job.start_factors());
  } else if (rec) {
    j["pending_at_end"] = true;
    j["priority"] = rec->priority;
    j["factors"] = weighted_factors(*sim.site.config, rec->factors);
  }
  return j;
}

std::string slurm_duration(std::int64_t s) {
  if (s < 0) return "UNLIMITED";
  const std::int64_t d = s / 86400, h = s % 86400 / 3600, m = s % 3600 / 60, sec = s % 60;
  if (d) return fmt::format("{}-{:02}:{:02}:{:02}", d, h, m, sec);
  if (h) return fmt::format("{:02}:{:02}:{:02}", h, m, sec);
  return fmt::format("{:02}:{:02}", m, sec);
}

std::string minutes_key_text(const Config& config, const std::string& key, std::int64_t seconds) {
  const Setting* written = config.setting(key);
  if (!written) return fmt::format("{} (default {})", key, slurm_duration(seconds));
  const std::string& v = written->value;
  if (!v.empty() && v.find_first_not_of("0123456789") == std::string::npos) {
    return fmt::format("{}={} is {} minute{} (a bare number is minutes)", key, v, v, v == "1" ? "" : "s");
  }
  // "2:00:00", "7-0": already a duration as Slurm writes one.
  if (v.find_first_of(":-") != std::string::npos) return fmt::format("{}={}", key, v);
  return fmt::format("{}={} ({})", key, v, slurm_duration(seconds));
}

nlohmann::json simulated_evidence(const Simulation& sim) {
  return {{"scenario", scenario_json(sim.scenario)},
          {"metrics", nlohmann::json::object()},
          {"examples", nlohmann::json::array()}};
}

}  // namespace sa::rules
