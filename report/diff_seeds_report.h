#pragma once
// `slurm-advisor diff --seeds K`: each compared outcome over K seeds as a mean with its 95 %
// interval, old and new, and the change with its interval (significant when that excludes 0),
// as text, JSON and an HTML section for the diff page.
#include <iosfwd>
#include <string>

#include <nlohmann/json.hpp>

#include "tune/seed_compare.h"

namespace sa::report {

void print_seeds_text(std::ostream& out, const tune::SeedComparison& seeds);
nlohmann::json seeds_json(const tune::SeedComparison& seeds);
std::string seeds_html(const tune::SeedComparison& seeds);

}  // namespace sa::report
