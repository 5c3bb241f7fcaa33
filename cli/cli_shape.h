#pragma once
// The command line as data, read from the CLI11 definition itself: the commands, their
// positionals and options, and what each option's value is. The man pages and the shell
// completions are written from this, so they cannot drift from what the binary accepts.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace sa::cli {

/// What an option's value is, for completion and for the man page's placeholder.
enum class ValueShape { kNone, kChoices, kNumber, kRuleCode, kFile };

struct OptionShape {
  std::vector<std::string> names;        // "-o", "--output"; a positional's single name
  std::string description, placeholder;  // placeholder: FILE, N, {text|json}, CODE
  std::vector<std::string> choices;
  ValueShape value = ValueShape::kNone;
  bool positional = false, required = false, repeatable = false;
};

struct CommandShape {
  std::string name, description, footer;
  std::vector<OptionShape> positionals, options;
};

/// The visible subcommands (not the hidden generators), in registration order.
std::vector<CommandShape> command_shapes(CLI::App& app);
/// The root's own options (--help, --version).
std::vector<OptionShape> root_options(CLI::App& app);
/// The codes `rules`, --disable and --severity-override take.
std::vector<std::string> rule_codes();

}  // namespace sa::cli
