#pragma once
// `slurm-advisor compare`: a run against a reference run (engine/fidelity.h) as a table an
// admin reads, and as JSON with stable keys (documented in docs/man/compare.txt).
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/fidelity.h"

namespace sa::report {

/// The names the report gives the two runs (the paths as given on the command line).
struct CompareSources {
  std::string real, sim;
};

void print_compare_text(std::ostream& out, const engine::Fidelity& fidelity, const CompareSources& sources);
nlohmann::json compare_json(const engine::Fidelity& fidelity, const CompareSources& sources);

}  // namespace sa::report
