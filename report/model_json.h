#pragma once
// The resolved model as JSON for `slurm-advisor model`: keys spelled as in slurm.conf,
// every default applied, times in integer seconds and memory in MB; null means UNLIMITED.
#include <nlohmann/json.hpp>

#include "analyzer/model.h"

namespace sa::report {

/// Node name lists longer than `max_names` are cut there, with the count left out beside them.
nlohmann::json model_json(const Config& config, std::size_t max_names = 10'000);

std::string oversubscribe_string(const OverSubscribe& os);
std::string preempt_mode_string(const PreemptMode& mode);
std::string node_state_string(NodeState state);
std::string partition_state_string(PartitionState state);

}  // namespace sa::report
