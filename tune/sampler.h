#pragma once
// The sampler behind `tune --search halving`: N points of a space too large for the grid, as
// a Latin hypercube, so every dimension's range is covered evenly even with few points. A
// `lo..hi` range is sampled continuously (on a log scale for :log, rounded for :int or integer
// ends); a list is sampled by its items. The stream is the engine's SplitMix64 (engine::Rng),
// not a standard distribution, whose output differs between standard libraries: the same seed
// gives the same candidates everywhere.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tune/space.h"

namespace sa::tune {

/// Up to `n` distinct points (per dimension, the value as written into the config), in the
/// order drawn; points that round to one already drawn are dropped.
std::vector<std::vector<std::string>> sample_space(const std::vector<Dimension>& dims, std::size_t n,
                                                   std::uint64_t seed);

}  // namespace sa::tune
