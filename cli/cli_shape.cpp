#include "cli/cli_shape.h"

#include "rules/framework/rule.h"

namespace sa::cli {

namespace {

// CLI11 spells a value's type as "TEXT:{text,json}" or "INT:INT in [1 - 90]"; rule-code
// options say CODE (cmd_lint.cpp).
void read_type(const CLI::Option& opt, OptionShape& s) {
  const std::string type = opt.get_type_name();
  const auto open = type.find('{'), close = type.rfind('}');
  if (open != std::string::npos && close != std::string::npos && close > open) {
    s.value = ValueShape::kChoices;
    std::string list = type.substr(open + 1, close - open - 1);
    for (std::size_t start = 0; start <= list.size();) {
      const auto comma = std::min(list.find(',', start), list.size());
      s.choices.push_back(list.substr(start, comma - start));
      start = comma + 1;
    }
    std::string joined;
    for (const std::string& c : s.choices) joined += (joined.empty() ? "" : "|") + c;
    s.placeholder = "{" + joined + "}";
  } else if (type.find("CODE") != std::string::npos) {
    s.value = ValueShape::kRuleCode;
    s.placeholder = type.find("CODE=LEVEL") != std::string::npos ? "CODE=LEVEL" : "CODE";
  } else if (type.starts_with("INT") || type.starts_with("UINT") || type.starts_with("FLOAT")) {
    s.value = ValueShape::kNumber;
    s.placeholder = "N";
  } else {
    s.value = ValueShape::kFile;  // paths mostly; a time or a name gets file completion too
    s.placeholder = s.positional ? opt.get_name(true) : "VALUE";
  }
}

OptionShape option_shape(const CLI::Option& opt) {
  OptionShape s;
  s.positional = !opt.nonpositional();
  if (s.positional) {
    s.names.push_back(opt.get_name(true));
  } else {
    for (const std::string& n : opt.get_snames()) s.names.push_back("-" + n);
    for (const std::string& n : opt.get_lnames()) s.names.push_back("--" + n);
  }
  s.description = opt.get_description();
  s.required = opt.get_required();
  s.repeatable = opt.get_expected_max() > 1;
  if (opt.get_expected_max() > 0 || s.positional) read_type(opt, s);  // flags expect 0 values
  return s;
}

}  // namespace

std::vector<CommandShape> command_shapes(CLI::App& app) {
  std::vector<CommandShape> out;
  for (CLI::App* cmd : app.get_subcommands([](CLI::App* c) { return !c->get_group().empty(); })) {
    CommandShape c{cmd->get_name(), cmd->get_description(), cmd->get_footer(), {}, {}};
    for (const CLI::Option* opt : cmd->get_options()) {
      OptionShape s = option_shape(*opt);
      (s.positional ? c.positionals : c.options).push_back(std::move(s));
    }
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<OptionShape> root_options(CLI::App& app) {
  std::vector<OptionShape> out;
  for (const CLI::Option* opt : app.get_options()) out.push_back(option_shape(*opt));
  return out;
}

std::vector<std::string> rule_codes() {
  std::vector<std::string> codes;
  for (const rules::Rule& r : rules::registry()) codes.push_back(r.code);
  return codes;
}

}  // namespace sa::cli
