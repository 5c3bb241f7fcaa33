#include "cli/tune_search_options.h"

#include <iostream>
#include <utility>

#include "tune/spec_file.h"

namespace sa::cli {

void add_tune_search_options(CLI::App& cmd, TuneSearchOptions& o, CLI::Option* seeds_option) {
  o.seeds_option = seeds_option;
  cmd.add_option("--spec", o.spec,
                 "A TOML file of goals and space: goals = [...], vary = [...], optional seeds, search, sample; "
                 "--goal and --vary add to it");
  o.search_option = cmd.add_option("--search", o.search,
                                   "grid: every combination; halving: sample --sample candidates and run successive "
                                   "halving; auto (default): grid when it has at most --max-candidates points")
                        ->check(CLI::IsMember({"grid", "halving", "auto"}));
  o.sample_option =
      cmd.add_option("--sample", o.sample,
                     "Candidates successive halving draws (Latin hypercube, seeded by --seed; default 27)")
          ->check(CLI::Range(1, 1000000));
}

bool merge_spec_file(TuneSearchOptions& o, std::size_t& seeds, tune::SearchSpec& spec, std::string& text) {
  if (!o.spec.empty()) {
    tune::SpecFile file = tune::read_spec_file(o.spec);
    for (const tune::SpecFileError& e : file.errors) std::cerr << e.render() << "\n";
    if (!file.errors.empty()) return false;
    text = std::move(file.text);
    // The file first, then what the command line adds.
    file.goals.insert(file.goals.end(), spec.goals.begin(), spec.goals.end());
    file.dims.insert(file.dims.end(), spec.dims.begin(), spec.dims.end());
    spec.goals = std::move(file.goals);
    spec.dims = std::move(file.dims);
    if (file.seeds && !o.seeds_option->count()) seeds = *file.seeds;
    if (file.search && !o.search_option->count()) o.search = *file.search;
    if (file.sample && !o.sample_option->count()) o.sample = *file.sample;
  }
  if (spec.goals.empty() || spec.dims.empty()) {
    std::cerr << "slurm-advisor: tune needs at least one goal and one setting to vary (--goal and --vary, or "
                 "goals and vary in --spec)\n";
    return false;
  }
  return true;
}

tune::Strategy strategy(const TuneSearchOptions& o) {
  if (o.search == "grid") return tune::Strategy::kGrid;
  return o.search == "halving" ? tune::Strategy::kHalving : tune::Strategy::kAuto;
}

tune::HalvingSpec halving(const TuneSearchOptions& o, std::uint64_t seed) {
  tune::HalvingSpec h;
  h.sample = o.sample;
  h.seed = seed;
  return h;
}

}  // namespace sa::cli
