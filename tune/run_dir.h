#pragma once
// The directory of `tune --out DIR`: a manifest naming the run it belongs to (the options that
// decide its numbers, every input file with its hash, and one hash over all of it), then the
// per-seed values of finished candidates (tune/resume.h) and of whole shards (tune/shard.h).
// Every file is written to a temporary name and renamed, so a reader, or a run killed half way,
// never leaves or sees half a file; every file read is checked, and a bad one is a message.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyzer/result.h"
#include "tune/search.h"

namespace sa::tune {

struct InputFile {
  std::string path, sha256;
};

struct Manifest {
  std::string spec_hash;                 // over version, args, positionals and files (compute_spec_hash)
  std::string version;                   // of the slurm-advisor that wrote it
  std::string binary;                    // its absolute path, for the batch script and re-run commands
  std::string cwd;                       // where it ran: relative paths in args are relative to this
  std::vector<std::string> args;         // the options that decide the values, as --name=value
  std::vector<std::string> positionals;  // slurm.conf
  std::vector<std::string> goals, dims;  // as written, for people reading the file
  std::vector<std::uint64_t> seeds;      // of the default load; empty for a given load (run once)
  std::string load;                      // the load's description
  std::vector<InputFile> files;          // every file the site was read from, in reading order
  std::size_t slots = 0;                 // the baseline and the grid points
  std::size_t runs = 0;                  // the slots simulated: the baseline and the accepted points
  std::size_t shards = 0;                // 0: a local run; M: written for a job array of M tasks
  unsigned jobs = 1;                     // --jobs of each shard (threads per array task)
};

/// Lower-case hex SHA-256.
std::string sha256_hex(const std::string& data);
/// The hash a manifest carries: two runs with the same hash simulate the same candidates on
/// the same loads with the same binary version, so their per-seed values are interchangeable.
std::string compute_spec_hash(const Manifest& m);

nlohmann::json manifest_json(const Manifest& m);
Result<Manifest> read_manifest(const std::string& dir);
std::string manifest_path(const std::string& dir);

/// Creates `dir` if needed and writes the manifest there, or, when one is there, checks that it
/// is for the same spec: an error names both hashes and what to do.
std::optional<std::string> open_run_dir(const std::string& dir, const Manifest& m);

/// Writes `text` to `path` through a temporary file in the same directory and a rename.
std::optional<std::string> write_atomically(const std::string& path, const std::string& text);
/// A JSON file of ours, read and parsed; the error names the path and what is wrong.
Result<nlohmann::json> read_json_file(const std::string& path);

/// j[key] when it is there and of the right type (nlohmann's value() throws on a wrong type).
std::optional<std::string> string_field(const nlohmann::json& j, const char* key);
std::optional<std::size_t> count_field(const nlohmann::json& j, const char* key);

/// A candidate's values as JSON: a list per seed, null for a run cut at the step limit.
nlohmann::json seed_values_json(const SeedValues& values);
/// The values of one candidate, checked for shape: `seeds` lists of `goals` finite numbers,
/// or null for a seed whose run stopped at the step limit (SeedValues' empty list).
std::optional<SeedValues> seed_values_from_json(const nlohmann::json& j, std::size_t seeds, std::size_t goals);

}  // namespace sa::tune
