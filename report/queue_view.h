#pragma once
// The queue at one moment of a simulation, as `squeue` would list it: pending and running
// jobs with the Reason each showed then, in squeue's default order (partition, state,
// priority descending), printed as `squeue -o '%i|%u|%a|%P|%q|%T|%r'` prints it.
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/simulator.h"

namespace sa::report {

struct QueueRow {
  std::uint32_t job_id = 0;
  std::string id;  // squeue's %i where it is not job_id: an array task (3_1) or meta record (5_[3-4%1])
  std::string user, account, partition, qos, state, reason;
  std::uint32_t priority = 0;
};

/// Jobs submitted by `at` that were pending or running at `at`; an array's tasks that had not
/// started by then are one row, its meta record, as squeue lists them.
std::vector<QueueRow> queue_at(const engine::SimResult& result, const engine::Site& site, std::int64_t at);
/// The Reason a job showed at `at` (its last change at or before then), or "" if none.
std::string reason_at(const engine::SimResult& result, const engine::SimJob& job, std::int64_t at);

void print_squeue(std::ostream& out, const std::vector<QueueRow>& rows);
nlohmann::json squeue_json(const std::vector<QueueRow>& rows, std::int64_t at);

}  // namespace sa::report
