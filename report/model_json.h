#pragma once
// The resolved model as JSON for `slurm-advisor model`: keys spelled as in slurm.conf,
// every default applied, times in integer seconds and memory in MB; null means UNLIMITED.
#include <nlohmann/json.hpp>

#include "analyzer/model.h"

namespace sa::report {

nlohmann::json model_json(const Config& config);

std::string oversubscribe_string(const OverSubscribe& os);
std::string preempt_mode_string(const PreemptMode& mode);
std::string node_state_string(NodeState state);
std::string partition_state_string(PartitionState state);

}  // namespace sa::report
