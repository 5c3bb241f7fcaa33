#pragma once
// The shape of a recorded job beyond CPUs and memory: task layout, node range, GPUs per node,
// constraint, dependencies, hold, licences, node lists. Read from sacct columns (NTasks,
// ReqTRES/AllocTRES, Constraints, Dependency, Licenses) and from SubmitLine, which wins where a
// column has lost what the user asked (per-node versus per-CPU memory, -N min-max,
// --ntasks-per-node, holds, --begin). A value that cannot be read is a WORK001 warning at its
// column and leaves that field unset; the job itself is kept.
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "analyzer/diagnostics.h"
#include "analyzer/result.h"
#include "engine/job.h"

namespace sa::engine {

/// -N/--nodes: MIN[-MAX], each with an optional k (x1024) or m (x1048576) suffix, as sbatch's
/// get_resource_arg_range() reads it; MAX = MIN when absent.
std::optional<std::pair<std::uint32_t, std::uint32_t>> parse_node_range(std::string_view text);
/// --mem/--mem-per-cpu: a whole number with an optional K/M/G/T unit, megabytes by default
/// (str_to_mbytes(); K rounds up to a whole MB).
std::optional<std::uint64_t> parse_mem_option(std::string_view text);
/// --gres: the GPUs per node it asks for (the sum of its gpu[:type][:N] items; 0 without any).
std::optional<std::uint32_t> parse_gres_gpus(std::string_view text);
/// --gpus/--gpus-per-node: [TYPE:]COUNT.
std::optional<std::uint32_t> parse_gpu_count(std::string_view text);

struct DependencyList {
  std::vector<Dependency> items;
  bool any = false;  // joined by '?'
};
/// --dependency as job_scheduler.c update_job_dependency() reads it: items joined by ',' (all)
/// or '?' (any); TYPE:ID[_TASK][+MINUTES][:ID...], singleton, or bare ids (afterany); a
/// "(state)" suffix, as squeue prints, is skipped. "" and "0" are no dependency.
Result<DependencyList> parse_dependency(std::string_view text);

/// One sacct field and where it is, for diagnostics.
struct FieldText {
  std::string_view text;
  SourceLoc loc;
};

struct ShapeFields {
  FieldText ntasks, req_tres, alloc_tres, constraints, dependency, licenses, submit_line;
};

/// Fills the shape fields of `job` (read from the columns already: id, cpus, nodes, memory).
void apply_shape(JobRequest& job, const ShapeFields& fields, DiagnosticSink& sink);

}  // namespace sa::engine
