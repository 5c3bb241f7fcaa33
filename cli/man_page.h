#pragma once
// Man pages in roff (man(7) macros), written from the CLI definition (cli_shape.h) and a
// hand-written description per page, docs/man/NAME.txt: paragraphs separated by blank lines,
// lines indented by two spaces kept as they are (examples).
#include <string>
#include <vector>

#include "cli/cli_shape.h"

namespace sa::cli {

/// Text made safe for a roff text line: backslashes, leading dots and quotes, non-ASCII.
std::string roff_escape(const std::string& text);
/// The description file's text as roff paragraphs.
std::string roff_paragraphs(const std::string& text);

/// slurm-advisor(1): the commands, the root options, the project config file's keys.
std::string root_man_page(const std::vector<CommandShape>& commands, const std::vector<OptionShape>& options,
                          const std::string& description);
/// slurm-advisor-COMMAND(1).
std::string command_man_page(const CommandShape& command, const std::string& description);

}  // namespace sa::cli
