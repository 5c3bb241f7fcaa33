#pragma once
// Sharding of `tune` for a Slurm job array: the runs (the baseline, then the grid points the
// analyzer accepts, in grid order) are dealt round robin, run k to shard k mod M, so the
// baseline is shard 0's, shards differ by one run at most, and each mixes cheap and costly
// corners of the grid. Shard i writes DIR/shard-i.json with every per-seed value.
// `tune --merge DIR` reads the M files back; each file is checked against the manifest, and a
// missing, failed or corrupted one is reported by its number, never trusted.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/result.h"
#include "tune/run_dir.h"
#include "tune/search.h"

namespace sa::tune {

struct ShardId {
  std::size_t index = 0, count = 1;
};

/// "i/M" with 0 <= i < M; otherwise a message saying what is wrong.
Result<ShardId> parse_shard(const std::string& text);
/// The slots shard `id` simulates, among the plan's runnable ones (SearchPlan::runnable()).
std::vector<std::size_t> shard_slots(ShardId id, const std::vector<std::size_t>& runnable);
std::string shard_path(const std::string& dir, std::size_t index);

/// Writes the shard's file: the values of each of `slots` (all must be simulated).
std::optional<std::string> write_shard(const std::string& dir, ShardId id, const std::string& spec_hash,
                                       const std::vector<std::size_t>& slots, const std::vector<SeedValues>& values);
/// Writes the shard's file as failed, with why, so the merge can say so.
std::optional<std::string> write_failed_shard(const std::string& dir, ShardId id, const std::string& spec_hash,
                                              const std::string& why);

struct ShardProblem {
  std::size_t shard = 0;
  std::string what;  // "missing (...)", "failed: ...", "corrupted: ..."
};

/// Reads all `m.shards` shard files into `values` (indexed by slot): every runnable slot of
/// `plan` must come from its own shard, with `seeds` x goals finite numbers. The problems are
/// per shard, in shard order; nothing is read from a shard with a problem.
std::vector<ShardProblem> read_shards(const std::string& dir, const Manifest& m, const SearchPlan& plan,
                                      std::size_t seeds, std::size_t goals, std::vector<SeedValues>& values);

}  // namespace sa::tune
