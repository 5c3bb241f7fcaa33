#pragma once
// The JSON shape of a run's headline numbers, shared by the lint report (its "metrics") and
// the run analysis that builds findings' evidence (rules/analysis/), so both round and name
// them the same way.
#include <nlohmann/json.hpp>

#include "engine/metrics.h"

namespace sa::rules {

/// Three significant decimals, for shares and ratios in evidence.
double rounded3(double v);
/// Count, mean, median, p95 and max of waits, in whole seconds.
nlohmann::json wait_json(const engine::WaitStats& w);
/// Utilisation, waits, backfill share and jobs left pending: the run at a glance.
nlohmann::json headline_metrics(const engine::Metrics& m);

}  // namespace sa::rules
