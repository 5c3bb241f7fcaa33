#pragma once
// sacct's SubmitLine (the sbatch/salloc/srun command as typed, 20.11+) split the way a POSIX
// shell splits words and read the way getopt_long reads sbatch's options
// (src/common/slurm_opt.c): `--opt=value`, `--opt value`, a unique prefix of a long name,
// `-Nvalue`, `-N value` and clustered flags (`-Hv`). Reading stops at the first word that is
// not an option (the script; its arguments follow) or at `--`. Only the options that shape a
// job's request are kept; #SBATCH lines inside the script are not part of SubmitLine.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/result.h"

namespace sa::engine {

struct SubmitOptions {
  std::string program;  // the first word: sbatch, salloc or srun (a path is kept as written)
  std::optional<std::string> nodes, ntasks, ntasks_per_node, cpus_per_task, mem, mem_per_cpu, mem_per_gpu, gres, gpus,
      gpus_per_node, cpus_per_gpu, constraint, dependency, licenses, nodelist, exclude, begin, job_name, switches,
      array, time, time_min;
  std::optional<std::string> exclusive;  // "" for a bare --exclusive, else its value (user, mcs, topo)
  bool hold = false;
  std::vector<std::string> unknown;  // options this reader does not know, as written
};

/// Splits a command line into words: blanks separate, '...' is literal, "..." keeps blanks
/// and honours \\ \" \$ \`, a backslash outside quotes escapes the next character. An
/// unterminated quote is an error.
Result<std::vector<std::string>> shell_words(std::string_view line);

/// Reads the request options of a SubmitLine. Errors: the line cannot be split, or an option
/// that needs a value ends the line.
Result<SubmitOptions> parse_submit_line(std::string_view line);

}  // namespace sa::engine
