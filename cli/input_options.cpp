#include "cli/input_options.h"

#include <charconv>
#include <iostream>

namespace sa::cli {

namespace {

struct LimitField {
  const char* name;
  std::int64_t InputLimits::*wide = nullptr;
  int InputLimits::*narrow = nullptr;
};

// The names docs/limits.md documents; one row per field of InputLimits.
constexpr LimitField kLimitFields[] = {
    {"file-bytes", &InputLimits::file_bytes},
    {"total-bytes", &InputLimits::total_bytes},
    {"include-files", nullptr, &InputLimits::include_files},
    {"include-depth", nullptr, &InputLimits::include_depth},
    {"conf-lines", &InputLimits::conf_lines},
    {"tree-depth", nullptr, &InputLimits::tree_depth},
    {"nodes", &InputLimits::nodes},
    {"hostlist-names", &InputLimits::hostlist_names},
    {"sim-jobs", &InputLimits::sim_jobs},
    {"sim-span", &InputLimits::sim_span},
    {"sim-steps", &InputLimits::sim_steps},
    {"reservation-windows", &InputLimits::reservation_windows},
    {"model-node-names", &InputLimits::model_node_names},
};

bool apply_limit(const std::string& spec, InputLimits& limits) {
  const auto eq = spec.find('=');
  const std::string name = spec.substr(0, eq);
  std::int64_t value = 0;
  const char* begin = spec.data() + (eq == std::string::npos ? spec.size() : eq + 1);
  const char* end = spec.data() + spec.size();
  auto [ptr, ec] = std::from_chars(begin, end, value);
  const bool number = eq != std::string::npos && ec == std::errc() && ptr == end && value > 0;
  for (const LimitField& f : kLimitFields) {
    if (name != f.name) continue;
    if (!number || (f.narrow && value > std::numeric_limits<int>::max())) break;
    if (f.wide) limits.*f.wide = value;
    if (f.narrow) limits.*f.narrow = static_cast<int>(value);
    return true;
  }
  std::string names;
  for (const LimitField& f : kLimitFields) names += std::string(names.empty() ? "" : ", ") + f.name;
  std::cerr << "slurm-advisor: --limit expects NAME=N with N > 0 and NAME one of " << names << "; got '" << spec
            << "'\n";
  return false;
}

}  // namespace

bool InputOptions::resolve(IncludePolicy& policy, InputLimits& limits_out) const {
  policy.roots = include_roots;
  policy.allow_outside = allow_outside_includes;
  for (const std::string& m : include_maps) {
    if (!add_include_map(m, policy)) {
      std::cerr << "slurm-advisor: --include-map expects /FROM=DIR (e.g. /etc/slurm=conf), got '" << m << "'\n";
      return false;
    }
  }
  for (const std::string& l : limits) {
    if (!apply_limit(l, limits_out)) return false;
  }
  return true;
}

void add_input_options(CLI::App& cmd, InputOptions& o) {
  cmd.add_option("--include-root", o.include_roots,
                 "A directory Include files may come from (repeatable; default: the directory of slurm.conf)");
  cmd.add_option("--include-map", o.include_maps,
                 "/FROM=DIR: read an Include of /FROM/x from DIR/x, e.g. /etc/slurm=. (repeatable)");
  cmd.add_flag("--allow-outside-includes", o.allow_outside_includes,
               "Follow Include files anywhere (only for a config you trust, e.g. on your own controller)");
  cmd.add_option("--limit", o.limits, "NAME=N: raise or lower a limit on the input (repeatable; see docs/limits.md)");
}

}  // namespace sa::cli
