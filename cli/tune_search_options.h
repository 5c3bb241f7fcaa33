#pragma once
// The options of `tune` that choose how the space is searched (--search, --sample) and the
// goals/space file (--spec), kept apart from cmd_tune.cpp's site and output options.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "tune/halving.h"
#include "tune/search.h"

namespace sa::cli {

struct TuneSearchOptions {
  std::string spec;  // --spec FILE
  std::string search = "auto";
  std::size_t sample = 27;
  // Set when the command line gave them: they win over the file's.
  CLI::Option* seeds_option = nullptr;
  CLI::Option* search_option = nullptr;
  CLI::Option* sample_option = nullptr;
};

/// Adds --spec, --search and --sample; `seeds_option` is the command's --seeds.
void add_tune_search_options(CLI::App& cmd, TuneSearchOptions& o, CLI::Option* seeds_option);

/// Reads --spec (printing its errors to stderr) and puts its goals and dimensions before the
/// command line's in `spec`; its seeds, search and sample apply unless the command line gave
/// them; `text` is the file's contents. False on any error in the file or when no goal or no
/// dimension is left.
bool merge_spec_file(TuneSearchOptions& o, std::size_t& seeds, tune::SearchSpec& spec, std::string& text);

tune::Strategy strategy(const TuneSearchOptions& o);
tune::HalvingSpec halving(const TuneSearchOptions& o, std::uint64_t seed);

}  // namespace sa::cli
