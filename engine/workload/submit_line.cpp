#include "engine/workload/submit_line.h"

#include <fmt/format.h>
#include <algorithm>
#include <iterator>

#include "analyzer/text_util.h"

namespace sa::engine {

namespace {

// sbatch's long options (src/common/slurm_opt.c, 22.05) by how they take a value: required
// (so `--job-name x` does not end the options at `x`), optional (only `--opt=value`), none.
constexpr std::string_view kLongWithValue[] = {"account",
                                               "acctg-freq",
                                               "array",
                                               "batch",
                                               "bb",
                                               "bbf",
                                               "begin",
                                               "chdir",
                                               "cluster",
                                               "cluster-constraint",
                                               "clusters",
                                               "comment",
                                               "constraint",
                                               "container",
                                               "context",
                                               "core-spec",
                                               "cores-per-socket",
                                               "cpu-freq",
                                               "cpus-per-gpu",
                                               "cpus-per-task",
                                               "deadline",
                                               "delay-boot",
                                               "dependency",
                                               "distribution",
                                               "error",
                                               "exclude",
                                               "export",
                                               "export-file",
                                               "extra-node-info",
                                               "gid",
                                               "gpu-bind",
                                               "gpu-freq",
                                               "gpus",
                                               "gpus-per-node",
                                               "gpus-per-socket",
                                               "gpus-per-task",
                                               "gres",
                                               "gres-flags",
                                               "hint",
                                               "input",
                                               "job-name",
                                               "kill-on-invalid-dep",
                                               "licenses",
                                               "mail-type",
                                               "mail-user",
                                               "mcs-label",
                                               "mem",
                                               "mem-bind",
                                               "mem-per-cpu",
                                               "mem-per-gpu",
                                               "mincpus",
                                               "network",
                                               "nodefile",
                                               "nodelist",
                                               "nodes",
                                               "ntasks",
                                               "ntasks-per-core",
                                               "ntasks-per-gpu",
                                               "ntasks-per-node",
                                               "ntasks-per-socket",
                                               "ntasks-per-tres",
                                               "open-mode",
                                               "output",
                                               "partition",
                                               "power",
                                               "prefer",
                                               "priority",
                                               "profile",
                                               "qos",
                                               "reservation",
                                               "signal",
                                               "sockets-per-node",
                                               "switches",
                                               "tasks-per-node",
                                               "thread-spec",
                                               "threads-per-core",
                                               "time",
                                               "time-min",
                                               "tmp",
                                               "uid",
                                               "wait-all-nodes",
                                               "wckey",
                                               "wrap"};
constexpr std::string_view kLongOptionalValue[] = {"exclusive", "get-user-env", "nice", "no-kill", "propagate"};
constexpr std::string_view kLongFlags[] = {"contiguous", "help",          "hold",      "ignore-pbs", "no-requeue",
                                           "overcommit", "oversubscribe", "parsable",  "quiet",      "reboot",
                                           "requeue",    "spread-job",    "test-only", "usage",      "use-min-nodes",
                                           "verbose",    "version",       "wait"};
constexpr std::string_view kShortWithValue = "ABCDFGJLMNSabcdeimnopqtwx";

// The short letters this reader keeps, and their long names.
std::string_view long_name_of(char c) {
  switch (c) {
    case 'N':
      return "nodes";
    case 'n':
      return "ntasks";
    case 'c':
      return "cpus-per-task";
    case 'C':
      return "constraint";
    case 'd':
      return "dependency";
    case 'L':
      return "licenses";
    case 'w':
      return "nodelist";
    case 'x':
      return "exclude";
    case 'G':
      return "gpus";
    case 'b':
      return "begin";
    case 'H':
      return "hold";
    case 'J':
      return "job-name";
    case 'a':
      return "array";
    case 't':
      return "time";
    default:
      return "";
  }
}

void keep(SubmitOptions& out, std::string_view name, std::string value) {
  const std::pair<std::string_view, std::optional<std::string> SubmitOptions::*> slots[] = {
      {"nodes", &SubmitOptions::nodes},
      {"ntasks", &SubmitOptions::ntasks},
      {"ntasks-per-node", &SubmitOptions::ntasks_per_node},
      {"cpus-per-task", &SubmitOptions::cpus_per_task},
      {"mem", &SubmitOptions::mem},
      {"mem-per-cpu", &SubmitOptions::mem_per_cpu},
      {"mem-per-gpu", &SubmitOptions::mem_per_gpu},
      {"gres", &SubmitOptions::gres},
      {"gpus", &SubmitOptions::gpus},
      {"gpus-per-node", &SubmitOptions::gpus_per_node},
      {"cpus-per-gpu", &SubmitOptions::cpus_per_gpu},
      {"constraint", &SubmitOptions::constraint},
      {"dependency", &SubmitOptions::dependency},
      {"licenses", &SubmitOptions::licenses},
      {"nodelist", &SubmitOptions::nodelist},
      {"exclude", &SubmitOptions::exclude},
      {"begin", &SubmitOptions::begin},
      {"exclusive", &SubmitOptions::exclusive},
      {"job-name", &SubmitOptions::job_name},
      {"switches", &SubmitOptions::switches},
      {"array", &SubmitOptions::array},
      {"time", &SubmitOptions::time},
      {"time-min", &SubmitOptions::time_min}};
  for (const auto& [slot_name, member] : slots) {
    if (slot_name == name) {
      out.*member = std::move(value);  // the last one given wins
      break;                           // names are unique: the value is used once
    }
  }
  if (name == "hold") out.hold = true;
}

// getopt_long: an exact name, else a prefix shared by exactly one name.
std::string_view resolve_long(std::string_view name) {
  std::string_view found;
  int matches = 0;
  auto look = [&](const auto& table) {
    for (std::string_view candidate : table) {
      if (candidate == name) return true;
      if (candidate.starts_with(name) && candidate != found) found = candidate, ++matches;
    }
    return false;
  };
  if (look(kLongWithValue) || look(kLongOptionalValue) || look(kLongFlags)) return name;
  return matches == 1 ? found : std::string_view();
}

template <std::size_t N>
bool in(const std::string_view (&table)[N], std::string_view name) {
  return std::find(std::begin(table), std::end(table), name) != std::end(table);
}

}  // namespace

Result<std::vector<std::string>> shell_words(std::string_view line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (in_word) words.push_back(std::move(word)), word.clear(), in_word = false;
      continue;
    }
    in_word = true;
    if (c == '\\') {
      if (i + 1 < line.size()) word.push_back(line[++i]);
    } else if (c == '\'') {
      const std::size_t close = line.find('\'', i + 1);
      if (close == std::string_view::npos) return Error{fmt::format("character {}: unterminated '", i + 1)};
      word.append(line.substr(i + 1, close - i - 1));
      i = close;
    } else if (c == '"') {
      std::size_t j = i + 1;
      for (; j < line.size() && line[j] != '"'; ++j) {
        if (line[j] == '\\' && j + 1 < line.size() &&
            std::string_view("\\\"$`").find(line[j + 1]) != std::string_view::npos)
          ++j;
        word.push_back(line[j]);
      }
      if (j >= line.size()) return Error{fmt::format("character {}: unterminated \"", i + 1)};
      i = j;
    } else {
      word.push_back(c);
    }
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

Result<SubmitOptions> parse_submit_line(std::string_view line) {
  auto words = shell_words(line);
  if (!words) return Error{words.error()};
  SubmitOptions out;
  if (words->empty()) return out;
  out.program = (*words)[0];
  const std::vector<std::string>& w = *words;
  for (std::size_t i = 1; i < w.size(); ++i) {
    const std::string& word = w[i];
    if (word == "--") break;
    if (word.size() < 2 || word[0] != '-') break;  // the script (or srun's program)
    if (word[1] == '-') {
      const std::size_t eq = word.find('=');
      const std::string_view written = std::string_view(word).substr(2, eq == std::string::npos ? eq : eq - 2);
      const std::string_view name = resolve_long(written);
      if (name.empty()) {
        out.unknown.push_back(word);
        continue;
      }
      std::optional<std::string> value;
      if (eq != std::string::npos) {
        value = word.substr(eq + 1);
      } else if (in(kLongWithValue, name)) {
        if (i + 1 >= w.size()) return Error{fmt::format("--{} needs a value", name)};
        value = w[++i];
      }
      keep(out, name, value.value_or(""));
      continue;
    }
    for (std::size_t k = 1; k < word.size(); ++k) {  // -Nvalue, -N value, -Hv
      const char c = word[k];
      if (kShortWithValue.find(c) == std::string_view::npos) {
        if (long_name_of(c).empty() && std::string_view("HOQVWhksvIl").find(c) == std::string_view::npos)
          out.unknown.push_back(std::string("-") + c);
        keep(out, long_name_of(c), "");
        continue;
      }
      std::string value = word.substr(k + 1);
      if (value.empty()) {
        if (i + 1 >= w.size()) return Error{fmt::format("-{} needs a value", c)};
        value = w[++i];
      }
      if (!long_name_of(c).empty()) keep(out, long_name_of(c), std::move(value));
      break;
    }
  }
  return out;
}

}  // namespace sa::engine
