#include "cli/cmd_generate.h"

#include <filesystem>
#include <iostream>
#include <memory>

#include "analyzer/safe_file.h"
#include "cli/common.h"
#include "cli/completion.h"
#include "cli/man_page.h"

namespace sa::cli {

namespace {

struct ManOptions {
  std::string docs, output_dir;
};

// Every page or none: a command without its description file is a build error, so a new
// command cannot ship without a man page.
int write_man_pages(CLI::App& app, const ManOptions& o) {
  const std::vector<CommandShape> commands = command_shapes(app);
  std::vector<std::pair<std::string, std::string>> pages;  // file name, roff
  auto description = [&](const std::string& name) {
    auto text = read_regular_file(o.docs + "/" + name + ".txt", 1 << 20);
    if (!text) std::cerr << "slurm-advisor: man: " << text.error() << " (each command needs its description)\n";
    return text;
  };
  auto root = description("slurm-advisor");
  if (!root) return kExitUsage;
  pages.emplace_back("slurm-advisor.1", root_man_page(commands, root_options(app), *root));
  for (const CommandShape& c : commands) {
    auto text = description(c.name);
    if (!text) return kExitUsage;
    pages.emplace_back("slurm-advisor-" + c.name + ".1", command_man_page(c, *text));
  }
  std::error_code ec;
  std::filesystem::create_directories(o.output_dir, ec);
  for (const auto& [file, roff] : pages) {
    if (!write_text(o.output_dir + "/" + file, roff)) return kExitUsage;
  }
  return kExitOk;
}

}  // namespace

void register_generators(CLI::App& app, std::function<int()>& runner) {
  auto man = std::make_shared<ManOptions>();
  CLI::App* cmd = app.add_subcommand("man", "Write the man pages (used by the build)")->group("");
  cmd->add_option("--docs", man->docs, "Directory of the hand-written descriptions, NAME.txt")->required();
  cmd->add_option("--output-dir", man->output_dir, "Where the pages go")->required();
  cmd->callback([&app, man, &runner] { runner = [&app, man] { return write_man_pages(app, *man); }; });

  auto shell = std::make_shared<std::string>();
  CLI::App* completion =
      app.add_subcommand("completion", "Print a shell completion script (used by the build)")->group("");
  completion->add_option("shell", *shell, "bash or zsh")->required()->check(CLI::IsMember({"bash", "zsh"}));
  completion->callback([&app, shell, &runner] {
    runner = [&app, shell] {
      const std::vector<CommandShape> commands = command_shapes(app);
      std::cout << (*shell == "bash" ? bash_completion(commands, root_options(app))
                                     : zsh_completion(commands, root_options(app)));
      return static_cast<int>(kExitOk);
    };
  });
}

}  // namespace sa::cli
