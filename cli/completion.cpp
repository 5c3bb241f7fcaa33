#include "cli/completion.h"

#include <fmt/format.h>

namespace sa::cli {

namespace {

std::string joined(const std::vector<std::string>& words, const char* separator = " ") {
  return fmt::format("{}", fmt::join(words, separator));
}

std::vector<std::string> all_names(const std::vector<OptionShape>& options) {
  std::vector<std::string> names;
  for (const OptionShape& o : options) names.insert(names.end(), o.names.begin(), o.names.end());
  return names;
}

// The words a value may be, or empty for file names (and nothing at all for numbers).
std::string value_words(const OptionShape& o, const std::string& codes) {
  if (o.value == ValueShape::kChoices) return joined(o.choices);
  if (o.value == ValueShape::kRuleCode) return codes;
  return {};
}

// bash: the `case "$prev"` arms for one command's options that take a value.
std::string bash_value_arms(const CommandShape& c, const std::string& codes) {
  std::string out;
  for (const OptionShape& o : c.options) {
    if (o.value == ValueShape::kNone) continue;
    const std::string pattern = joined(o.names, "|");
    if (o.value == ValueShape::kNumber) {
      out += fmt::format("        {}) return ;;\n", pattern);
    } else if (o.value == ValueShape::kFile) {
      out += fmt::format("        {}) _slurm_advisor_files; return ;;\n", pattern);
    } else {
      out += fmt::format("        {}) _slurm_advisor_words \"{}\"; return ;;\n", pattern, value_words(o, codes));
    }
  }
  return out;
}

std::string bash_command_arm(const CommandShape& c, const std::string& codes) {
  const bool code_positional = !c.positionals.empty() && c.positionals.front().value == ValueShape::kRuleCode;
  return fmt::format(
      "    {})\n      case \"$prev\" in\n{}      esac\n"
      "      if [[ \"$cur\" == -* ]]; then _slurm_advisor_words \"{}\"; else {}; fi ;;\n",
      c.name, bash_value_arms(c, codes), joined(all_names(c.options)),
      code_positional ? "_slurm_advisor_words \"" + codes + "\"" : std::string("_slurm_advisor_files"));
}

// zsh: text inside an _arguments spec's [description] cannot hold ] : ' or backslashes.
std::string zsh_text(const std::string& text) {
  std::string out;
  for (char c : text.substr(0, text.find_first_of(";(\n"))) {
    if (c == '[' || c == ']')
      out += c == '[' ? '(' : ')';
    else if (c != ':' && c != '\'' && c != '\\' && c != '`' && c != '$')
      out += c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::string zsh_option_spec(const OptionShape& o, const std::string& codes) {
  std::string action;
  if (o.value == ValueShape::kFile) action = ":file:_files";
  if (o.value == ValueShape::kNumber) action = ":number: ";
  if (o.value == ValueShape::kChoices || o.value == ValueShape::kRuleCode)
    action = ":value:(" + value_words(o, codes) + ")";
  const std::string text = "[" + zsh_text(o.description) + "]" + action;
  const std::string repeat = o.repeatable ? "*" : "";
  if (o.names.size() == 1) return "'" + repeat + o.names.front() + text + "'";
  const std::string group = repeat.empty() ? "(" + joined(o.names) + ")" : "*";
  return "'" + group + "'{" + joined(o.names, ",") + "}'" + text + "'";
}

std::string zsh_command_arm(const CommandShape& c, const std::string& codes) {
  std::string specs;
  for (const OptionShape& o : c.options) specs += " \\\n        " + zsh_option_spec(o, codes);
  int n = 0;
  for (const OptionShape& p : c.positionals) {
    const std::string action = p.value == ValueShape::kRuleCode ? "(" + codes + ")" : "_files";
    specs += fmt::format(" \\\n        '{}{}{}:{}'", ++n, p.required ? ":" : "::", zsh_text(p.names.front()), action);
  }
  return fmt::format("    {})\n      _arguments -s{} ;;\n", c.name, specs);
}

}  // namespace

std::string bash_completion(const std::vector<CommandShape>& commands, const std::vector<OptionShape>& root) {
  const std::string codes = joined(rule_codes());
  std::vector<std::string> names;
  for (const CommandShape& c : commands) names.push_back(c.name);
  std::string arms;
  for (const CommandShape& c : commands) arms += bash_command_arm(c, codes);
  return fmt::format(
      R"(# bash completion for slurm-advisor, written by `slurm-advisor completion bash` from its
# command-line definition: do not edit.
_slurm_advisor_words() {{ COMPREPLY=($(compgen -W "$1" -- "$cur")); }}
_slurm_advisor_files() {{ compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$cur")); }}
_slurm_advisor() {{
  local cur="${{COMP_WORDS[COMP_CWORD]}}" prev="${{COMP_WORDS[COMP_CWORD-1]}}" command="" i
  for ((i = 1; i < COMP_CWORD; i++)); do
    if [[ "${{COMP_WORDS[i]}}" != -* ]]; then command="${{COMP_WORDS[i]}}"; break; fi
  done
  case "$command" in
    "") _slurm_advisor_words "{} {}" ;;
{}  esac
}}
complete -F _slurm_advisor slurm-advisor
)",
      joined(names), joined(all_names(root)), arms);
}

std::string zsh_completion(const std::vector<CommandShape>& commands, const std::vector<OptionShape>& root) {
  const std::string codes = joined(rule_codes());
  std::string described, arms, root_specs;
  for (const CommandShape& c : commands) {
    described += fmt::format("\n    '{}:{}'", c.name, zsh_text(c.description));
    arms += zsh_command_arm(c, codes);
  }
  for (const OptionShape& o : root) root_specs += " \\\n      " + zsh_option_spec(o, codes);
  return fmt::format(R"(#compdef slurm-advisor
# zsh completion for slurm-advisor, written by `slurm-advisor completion zsh` from its
# command-line definition: do not edit.
_slurm_advisor() {{
  local -a commands
  commands=({}
  )
  if (( CURRENT == 2 )); then
    _describe -t commands 'slurm-advisor command' commands
    _arguments{}
    return
  fi
  local command=$words[2]
  shift words
  (( CURRENT-- ))
  case $command in
{}  esac
}}
_slurm_advisor "$@"
)",
                     described, root_specs, arms);
}

}  // namespace sa::cli
