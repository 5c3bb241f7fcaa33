#include "cli/engine_options.h"

#include <unistd.h>
#include <chrono>
#include <iostream>

namespace sa::cli {

void add_engine_options(CLI::App& cmd, EngineOptions& e) {
  cmd.add_option("--format", e.format, "Output: text or json")->check(CLI::IsMember({"text", "json"}));
  cmd.add_option("--start", e.start,
                 "When slurmctld started (the clock origin: priority passes run every PriorityCalcPeriod "
                 "from here; default the first submit)");
  cmd.add_option("--bf-test-cost-us", e.bf_test_cost_us,
                 "Modelled slurmctld time of one backfill will-run test, in microseconds (bf_max_time, yields)")
      ->check(CLI::Range(0.0, 1e9));
  cmd.add_option("--main-decision-cost-us", e.main_decision_cost_us,
                 "Modelled slurmctld time of one main-loop decision, in microseconds (max_sched_time)")
      ->check(CLI::Range(0.0, 1e9));
}

std::function<void(double)> progress_bar(const std::string& mode) {
  const bool on = mode == "always" || (mode == "auto" && isatty(STDERR_FILENO));
  if (!on) return {};
  // Shown once a run has taken a second: quick runs print nothing.
  const auto started = std::chrono::steady_clock::now();
  const bool wait = mode == "auto";
  return [last = -1, started, wait](double f) mutable {
    const int pct = static_cast<int>(f * 100);
    if (pct == last) return;
    if (wait && last < 0 && std::chrono::steady_clock::now() - started < std::chrono::seconds(1)) return;
    last = pct;
    const int cells = pct * 30 / 100;
    std::cerr << '\r' << '[' << std::string(static_cast<std::size_t>(cells), '#')
              << std::string(static_cast<std::size_t>(30 - cells), '.') << "] " << pct << "%";
    if (pct >= 100) std::cerr << '\n';
    std::cerr.flush();
  };
}

std::int64_t first_submit(const engine::Workload& w) { return w.jobs.empty() ? 0 : w.jobs.front().submit; }

bool apply_start(const EngineOptions& e, const engine::Workload& w, engine::SimOptions& opt) {
  if (e.start.empty()) return true;
  auto t = parse_time_option(e.start, first_submit(w));
  if (!t) {
    std::cerr << "slurm-advisor: --start '" << e.start << "' is not a time (epoch, ISO or +DURATION)\n";
    return false;
  }
  opt.start = *t;
  return true;
}

bool engine_sim_options(const EngineOptions& e, const SiteInputs& in, engine::SimOptions& opt) {
  opt.bf_test_cost_us = e.bf_test_cost_us;
  opt.main_decision_cost_us = e.main_decision_cost_us;
  opt.partition_map = in.partition_map;
  opt.progress = progress_bar(e.progress);
  if (in.workload.until != engine::kNoTime) opt.until = in.workload.until;  // a generated load's span
  return apply_start(e, in.workload, opt);
}

std::optional<std::int64_t> time_option(const std::string& flag, const std::string& text, const engine::Workload& w) {
  auto t = parse_time_option(text, first_submit(w));
  if (!t) std::cerr << "slurm-advisor: " << flag << " '" << text << "' is not a time (epoch, ISO or +DURATION)\n";
  return t;
}

}  // namespace sa::cli
