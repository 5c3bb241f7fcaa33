#include "tune/batch_script.h"

#include <algorithm>
#include <filesystem>
#include <string_view>

#include <fmt/format.h>

namespace sa::tune {

namespace {

// Characters that mean nothing to a shell nor to sbatch's directive parser.
bool plain(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("_-./=,+@%:").find(c) != std::string_view::npos;
}

bool all_plain(const std::string& word) { return !word.empty() && std::all_of(word.begin(), word.end(), plain); }

}  // namespace

std::string shell_quote(const std::string& word) {
  if (all_plain(word)) return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::optional<std::string> sbatch_quote(const std::string& word) {
  std::string out;
  for (char c : word) {
    if (c == '\n' || c == '\r' || c == '\0') return std::nullopt;
    // ':' is plain inside a word, but sbatch refuses a word that starts with one.
    if (!plain(c) || (c == ':' && out.empty())) out += '\\';
    out += c;
  }
  return out;
}

Result<std::vector<std::string>> split_words(const std::string& text) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote) {
      if (c == quote) {
        quote = 0;
      } else if (quote == '"' && c == '\\' && i + 1 < text.size() &&
                 std::string_view("\"\\$`").find(text[i + 1]) != std::string_view::npos) {
        word += text[++i];
      } else {
        word += c;
      }
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else {
      in_word = true;
      if (c == '\'' || c == '"') {
        quote = c;
      } else if (c == '\\' && i + 1 < text.size()) {
        word += text[++i];
      } else {
        word += c;
      }
    }
  }
  if (quote) return Error{fmt::format("--sbatch-args: the quote {} is not closed", quote)};
  if (in_word) words.push_back(word);
  return words;
}

std::string shard_command(const Manifest& m, const std::string& dir, const std::string& shard_word) {
  // --no-config: every option the run used, from the command line or .slurm-advisor.toml, is in
  // m.args already; the shard must not read a config file that may have changed since.
  std::string cmd = shell_quote(m.binary) + " tune --no-config";
  for (const std::string& a : m.args) cmd += " " + shell_quote(a);
  if (m.jobs > 1) cmd += fmt::format(" --jobs={}", m.jobs);
  cmd += " " + shard_word + " " + shell_quote("--out=" + dir) + " --";
  for (const std::string& p : m.positionals) cmd += " " + shell_quote(p);
  return cmd;
}

std::string shard_rerun_command(const Manifest& m, const std::string& dir, std::size_t index) {
  return fmt::format("cd {} && {}", shell_quote(m.cwd),
                     shard_command(m, dir, shell_quote(fmt::format("--shard={}/{}", index, m.shards))));
}

std::string batch_script_path(const std::string& dir) {
  return (std::filesystem::path(dir) / "tune-array.sh").string();
}

Result<std::string> batch_script(const Manifest& m, const std::string& dir,
                                 const std::vector<std::string>& sbatch_args) {
  std::string extra;
  for (const std::string& a : sbatch_args) {
    auto quoted = sbatch_quote(a);
    if (!quoted) return Error{"--sbatch-args: a word with a line break cannot go into an #SBATCH line"};
    extra += " " + *quoted;
  }
  std::string s = "#!/bin/sh\n";
  s += fmt::format("#SBATCH --job-name=slurm-advisor-tune\n#SBATCH --array=0-{}\n", m.shards - 1);
  // Each task's output goes to DIR/logs below, where the shell's quoting (not sbatch's
  // filename patterns, which give '%' and '\' a meaning) decides the path.
  s += "#SBATCH --output=/dev/null\n";
  if (m.jobs > 1) s += fmt::format("#SBATCH --cpus-per-task={}\n", m.jobs);
  if (!extra.empty()) s += "#SBATCH" + extra + "\n";
  s += fmt::format(
      "# slurm-advisor tune: {} runs (the baseline and {} grid points) in {} shards; task i runs\n"
      "# runs i, i+{}, ... and writes shard-i.json. When all are done:\n#   {} tune --merge {}\n",
      m.runs, m.runs - 1, m.shards, m.shards, shell_quote(m.binary), shell_quote(dir));
  s += fmt::format("exec >{}/logs/shard-\"${{SLURM_ARRAY_TASK_ID}}\".log 2>&1\n", shell_quote(dir));
  // Relative paths in the options are relative to where tune was run.
  s += fmt::format("cd {} || exit 2\n", shell_quote(m.cwd));
  s += "exec " + shard_command(m, dir, fmt::format("--shard=\"${{SLURM_ARRAY_TASK_ID}}\"/{}", m.shards)) + "\n";
  return s;
}

}  // namespace sa::tune
