#include "rules/framework/run_json.h"

#include <cmath>

namespace sa::rules {

double rounded3(double v) { return std::round(v * 1000.0) / 1000.0; }

nlohmann::json wait_json(const engine::WaitStats& w) {
  return {{"jobs", w.jobs},
          {"mean", std::llround(w.mean)},
          {"median", std::llround(w.median)},
          {"p95", std::llround(w.p95)},
          {"max", std::llround(w.max)}};
}

nlohmann::json headline_metrics(const engine::Metrics& m) {
  return {{"jobs", m.jobs},
          {"started", m.started},
          {"pending_at_end", m.pending_at_end},
          {"utilization", rounded3(m.utilization)},
          {"wait_seconds", wait_json(m.overall)},
          {"backfill_share", rounded3(m.backfill_share)},
          {"never_reached_by_backfill", m.never_reached_by_backfill}};
}

}  // namespace sa::rules
