#pragma once
// The Slurm side of `tune --executor slurm`: a job-array batch script with one task per shard,
// each running the same `slurm-advisor tune` options with --shard ${SLURM_ARRAY_TASK_ID}/M, and
// the command that re-runs one shard alone. Every path and option goes through one quoting
// function per language: POSIX shell single quotes for the script's commands, sbatch's own
// backslash escapes (sbatch/opt.c _get_argument) for the #SBATCH line of --sbatch-args.
#include <optional>
#include <string>
#include <vector>

#include "analyzer/result.h"
#include "tune/run_dir.h"

namespace sa::tune {

/// `word` for a POSIX shell: unchanged when every character is plain, else in single quotes
/// (a quote inside written '\'').
std::string shell_quote(const std::string& word);
/// `word` for an #SBATCH line: plain characters as they are, every other one after a
/// backslash; a newline cannot be written there (nullopt).
std::optional<std::string> sbatch_quote(const std::string& word);
/// Splits --sbatch-args as a shell would split words (blanks; '...', "..." and backslash
/// group), expanding nothing; an error for an unclosed quote.
Result<std::vector<std::string>> split_words(const std::string& text);

/// The command that runs one shard from the run's directory (m.cwd): `shard_word` is inserted as it is (already quoted,
/// or a shell expansion such as --shard="${SLURM_ARRAY_TASK_ID}"/4).
std::string shard_command(const Manifest& m, const std::string& dir, const std::string& shard_word);
/// `cd CWD && ` and the command for shard `index`, ready to paste.
std::string shard_rerun_command(const Manifest& m, const std::string& dir, std::size_t index);
std::string batch_script_path(const std::string& dir);

/// The job-array script for the manifest's M shards; an error when an --sbatch-args word
/// cannot be written into it.
Result<std::string> batch_script(const Manifest& m, const std::string& dir,
                                 const std::vector<std::string>& sbatch_args);

}  // namespace sa::tune
