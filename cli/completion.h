#pragma once
// Shell completion scripts written from the CLI definition (cli_shape.h): commands, options,
// the values an option takes (its choices, rule codes) and file names elsewhere.
#include <string>
#include <vector>

#include "cli/cli_shape.h"

namespace sa::cli {

std::string bash_completion(const std::vector<CommandShape>& commands, const std::vector<OptionShape>& root);
std::string zsh_completion(const std::vector<CommandShape>& commands, const std::vector<OptionShape>& root);

}  // namespace sa::cli
