#pragma once
// Caps on how much work any input may cause. Inputs come from pull requests in CI, so every
// reader and the engine stop at these and say so in a diagnostic instead of running out of
// memory or time. docs/limits.md lists each one and the `--limit NAME=N` that raises it.
#include <cstdint>

namespace sa {

struct InputLimits {
  std::int64_t file_bytes = std::int64_t{256} << 20;  // one input file
  std::int64_t total_bytes = std::int64_t{1} << 30;   // every file one SourceManager reads
  int include_files = 1000;                           // Include files opened for one slurm.conf
  int include_depth = 16;                             // Include nesting
  std::int64_t conf_lines = 1'000'000;                // slurm.conf lines after Includes
  int tree_depth = 1000;                              // association tree depth
  std::int64_t nodes = 100'000;                       // nodes a config may define
  std::int64_t hostlist_names = 10'000'000;           // names all hostlists of one config expand to
  std::int64_t sim_jobs = 2'000'000;                  // jobs in one simulated load
  std::int64_t sim_span = std::int64_t{366} * 86400;  // simulated seconds from first submit
  std::int64_t reservation_windows = 100'000;         // windows one recurring reservation opens
  // Scheduling steps one simulation may take (events, queue records walked by the main loop
  // and backfill, jobs priced; a try on the nodes counts their number or bitmap words): the
  // bound on its time however the config and the load combine (a deep queue walked every
  // second, 100,000 nodes). About 5-19 ns a step on the runs measured (docs/limits.md).
  std::int64_t sim_steps = 10'000'000'000;
  std::int64_t model_node_names = 10'000;  // node names listed per entry in `model`
};

}  // namespace sa
