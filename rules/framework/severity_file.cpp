#include "rules/framework/severity_file.h"

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "analyzer/diagnostic_codes.h"
#include "rules/framework/rule.h"

namespace sa::rules {

namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

bool is_check_name(const std::string& name) {
  for (Check c : {Check::kWeightResolution, Check::kTierDominance, Check::kBackfillLimits, Check::kShareImbalance,
                  Check::kGangOversubscription, Check::kConfig, Check::kLoad}) {
    if (name == check_name(c)) return true;
  }
  return false;
}

}  // namespace

std::optional<Severity> SeverityOverrides::apply(const Finding& f) const {
  if (auto it = by_code.find(f.code); it != by_code.end()) return it->second;
  if (auto it = by_check.find(check_name(f.check)); it != by_check.end()) return it->second;
  return f.severity;
}

Result<SeverityOverrides> parse_severity_file(const std::string& path, const std::string& text) {
  SeverityOverrides out;
  std::istringstream in(text);
  std::string raw;
  for (int number = 1; std::getline(in, raw); ++number) {
    const std::string line = trim(raw.substr(0, raw.find('#')));
    if (line.empty()) continue;
    const auto eq = line.find('=');
    auto fail = [&](int column, const std::string& why) {
      return Error{fmt::format("{}:{}:{}: {}", path, number, column, why)};
    };
    if (eq == std::string::npos) return fail(1, fmt::format("expected 'CODE = LEVEL', got '{}'", line));
    const std::string name = trim(line.substr(0, eq));
    const std::string value = trim(line.substr(eq + 1));
    std::optional<Severity> level = parse_level(value);
    if (!level && value != "off") {
      return fail(static_cast<int>(raw.find(value)) + 1,
                  fmt::format("unknown level '{}'; use error, warning, info or off", value));
    }
    if (is_check_name(name)) {
      out.by_check[name] = level;
    } else if (find_rule(name) || find_diagnostic_code(name)) {
      out.by_code[name] = level;
    } else {
      return fail(static_cast<int>(raw.find(name)) + 1,
                  fmt::format("unknown rule code or check family '{}' (see `slurm-advisor rules`)", name));
    }
  }
  return out;
}

Result<SeverityOverrides> read_severity_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{fmt::format("cannot read severity file '{}'", path)};
  std::ostringstream text;
  text << in.rdbuf();
  return parse_severity_file(path, text.str());
}

}  // namespace sa::rules
