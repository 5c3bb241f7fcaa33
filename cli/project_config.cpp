#include "cli/project_config.h"

#include <algorithm>
#include <system_error>
#include <tuple>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "analyzer/safe_file.h"
#include "analyzer/text_util.h"

namespace sa::cli {

namespace fs = std::filesystem;

namespace {

using Kind = ConfigValueKind;

// A config file is a few lines; anything near this is not one.
constexpr std::int64_t kMaxConfigBytes = 1 << 20;

// Where a key or value sits: toml++ counts lines and columns from 1, as our diagnostics do.
struct Place {
  int line = 0, column = 0;
};

Place place_of(const toml::source_region& r) {
  return {static_cast<int>(r.begin.line), static_cast<int>(r.begin.column)};
}

class ConfigParser {
 public:
  explicit ConfigParser(ProjectConfig& out) : out_(out), dir_(out.file.parent_path()) {}

  void walk(const toml::table& table, const std::string& prefix) {
    for (auto&& [k, node] : table) {
      const std::string full = prefix + std::string(k.str());
      const Place at = place_of(k.source());
      if (const ConfigKey* key = find_key(full)) {
        add_setting(*key, node, at);
      } else if (node.is_table() && is_section(full)) {
        walk(*node.as_table(), full + ".");
      } else {
        fail(at, unknown_key_message(full, node.is_table()));
      }
    }
  }

 private:
  static const ConfigKey* find_key(const std::string& full) {
    for (const ConfigKey& k : config_keys()) {
      if (full == k.key) return &k;
    }
    return nullptr;
  }

  static bool is_section(const std::string& full) {
    for (const ConfigKey& k : config_keys()) {
      if (std::string(k.key).starts_with(full + ".")) return true;
    }
    return false;
  }

  // A typo of the whole dotted key first, else the key's last part written in the wrong table
  // (`assoc` at the top for `accounting.assoc`).
  static std::string unknown_key_message(const std::string& full, bool is_table) {
    std::vector<std::string> keys, leaves;
    for (const ConfigKey& k : config_keys()) {
      keys.push_back(k.key);
      const std::string key = k.key;
      leaves.push_back(key.substr(key.rfind('.') + 1));
    }
    std::string suggestion = closest_match(full, keys);
    const std::string leaf = full.substr(full.rfind('.') + 1);
    for (std::size_t i = 0; suggestion.empty() && i < leaves.size(); ++i) {
      if (leaves[i] == leaf || closest_match(leaf, {leaves[i]}) == leaves[i]) suggestion = keys[i];
    }
    std::string message =
        fmt::format("unknown {} '{}' in {}", is_table ? "table" : "key", printable(full), kProjectConfigName);
    if (!suggestion.empty()) return message + fmt::format("; did you mean '{}'?", suggestion);
    return message + "; `slurm-advisor config --show` lists the keys";
  }

  void fail(Place at, std::string message) {
    out_.diagnostics.push_back({out_.file.string(), at.line, at.column, std::move(message)});
  }

  void add_setting(const ConfigKey& key, const toml::node& node, Place at) {
    ConfigSetting s{&key, {}, at.line, at.column};
    bool ok = true;
    switch (key.kind) {
      case Kind::kScalar:
        ok = scalar(key, node, s.values);
        break;
      case Kind::kPath:
        ok = path(key, node, s.values);
        break;
      case Kind::kPathList:
      case Kind::kWordList:
        ok = list(key, node, s.values);
        break;
      case Kind::kPairTable:
      case Kind::kPathTable:
        ok = pairs(key, node, s.values);
        break;
    }
    if (ok) out_.settings.push_back(std::move(s));
  }

  bool type_error(const ConfigKey& key, const toml::node& node, const std::string& expected) {
    fail(place_of(node.source()), fmt::format("'{}' must be {}", key.key, expected));
    return false;
  }

  bool scalar(const ConfigKey& key, const toml::node& node, std::vector<std::string>& out) {
    if (auto s = node.value_exact<std::string>()) {
      out.push_back(*s);
    } else if (auto i = node.value_exact<std::int64_t>()) {
      out.push_back(std::to_string(*i));
    } else if (node.is_floating_point()) {
      // A float would lose how it was written: slurm-version = 23.10 reads back as 23.1.
      return type_error(key, node,
                        fmt::format("a string or an integer, not a float; quote it ({} = \"...\")", key.key));
    } else {
      return type_error(key, node, "a string or an integer");
    }
    return true;
  }

  bool path(const ConfigKey& key, const toml::node& node, std::vector<std::string>& out) {
    auto s = node.value_exact<std::string>();
    if (!s) return type_error(key, node, "a path (a string)");
    auto resolved = resolve(key.key, *s, node);
    if (resolved) out.push_back(*resolved);
    return resolved.has_value();
  }

  bool list(const ConfigKey& key, const toml::node& node, std::vector<std::string>& out) {
    const toml::array* items = node.as_array();
    if (!items) return type_error(key, node, "an array of strings");
    for (const toml::node& item : *items) {
      if (key.kind == Kind::kPathList) {
        if (!path(key, item, out)) return false;
      } else if (auto s = item.value_exact<std::string>()) {
        out.push_back(*s);
      } else {
        return type_error(key, item, "an array of strings");
      }
    }
    return true;
  }

  bool pairs(const ConfigKey& key, const toml::node& node, std::vector<std::string>& out) {
    const toml::table* table = node.as_table();
    if (!table) return type_error(key, node, "a table");
    for (auto&& [k, value] : *table) {
      const std::string name(k.str());
      auto text = value.value_exact<std::string>();
      if (!text) return type_error(key, value, "a table of strings");
      if (key.kind == Kind::kPathTable) {
        if (!name.starts_with("/")) {
          fail(place_of(k.source()), fmt::format("'{}' maps absolute paths as Include lines name "
                                                 "them; '{}' does not start with '/'",
                                                 key.key, printable(name)));
          return false;
        }
        auto resolved = resolve(key.key, *text, value);
        if (!resolved) return false;
        *text = *resolved;
      }
      out.push_back(name + "=" + *text);
    }
    return true;
  }

  // Paths in the file resolve against its directory and must stay inside it: a pull request
  // can change the file, and must not point the tool at /etc/shadow through it.
  std::optional<std::string> resolve(const char* key, const std::string& value, const toml::node& node) {
    const fs::path relative(value);
    std::string why;
    if (value.empty()) {
      why = "is empty";
    } else if (relative.is_absolute()) {
      why = "is absolute";
    } else if (const fs::path n = relative.lexically_normal(); !n.empty() && *n.begin() == "..") {
      why = "leaves the file's directory";
    } else if (leaves_through_symlink(relative)) {
      why = "leads outside the file's directory through a symbolic link";
    }
    if (!why.empty()) {
      fail(place_of(node.source()), fmt::format("path '{}' of '{}' {}; paths in {} are relative to "
                                                "its directory and stay inside it (give "
                                                "a file elsewhere on the command line)",
                                                printable(value), key, why, kProjectConfigName));
      return std::nullopt;
    }
    std::string resolved = (dir_ / relative).lexically_normal().string();
    if (resolved.size() > 1 && resolved.back() == '/') resolved.pop_back();  // "site/." is "site/"
    return resolved;
  }

  bool leaves_through_symlink(const fs::path& relative) const {
    std::error_code ec;
    const fs::path base = fs::weakly_canonical(dir_.empty() ? "." : dir_, ec);
    const fs::path target = fs::weakly_canonical((dir_.empty() ? fs::path(".") : dir_) / relative, ec);
    if (ec) return false;  // a path that cannot be resolved fails later, as a missing file
    const fs::path inside = target.lexically_relative(base);
    return inside.empty() || *inside.begin() == "..";
  }

  ProjectConfig& out_;
  fs::path dir_;
};

}  // namespace

const std::vector<ConfigKey>& config_keys() {
  static const std::vector<ConfigKey> keys = {
      {"slurm-version", "--slurm-version", Kind::kScalar, "Slurm release the configs are read as"},
      {"fail-on", "--fail-on", Kind::kScalar, "lint and diff exit 1 at or above this severity"},
      {"baseline", "--baseline", Kind::kPath, "lint: findings recorded here do not fail the run"},
      {"disable", "--disable", Kind::kWordList, "lint: rule codes switched off"},
      {"severity", "--severity-override", Kind::kPairTable, "lint: CODE or check family = error|warning|info|off"},
      {"include.roots", "--include-root", Kind::kPathList, "directories Include files may come from"},
      {"include.map", "--include-map", Kind::kPathTable, "\"/FROM\" = \"DIR\": read an Include of /FROM/x from DIR/x"},
      {"accounting.assoc", "--assoc", Kind::kPath, "the `sacctmgr dump` file"},
      {"accounting.qos", "--qos", Kind::kPath, "the `sacctmgr show qos -P` output"},
      {"accounting.usage", "--usage", Kind::kPath, "the `sshare -a -l -P` output"},
      {"load.workload", "--workload", Kind::kPath, "a recorded load: SWF trace or `sacct -P` dump"},
      {"load.synthetic", "--synthetic", Kind::kPath, "a synthetic load profile"},
      {"load.seed", "--seed", Kind::kScalar, "seed of the default load"},
      {"load.days", "--days", Kind::kScalar, "days of arrivals in the default load"},
  };
  return keys;
}

std::string ConfigDiagnostic::to_string() const {
  return fmt::format("{}:{}:{}: error: {}", file, line, column, message);
}

const ConfigSetting* ProjectConfig::find(const std::string& key) const {
  for (const ConfigSetting& s : settings) {
    if (key == s.key->key) return &s;
  }
  return nullptr;
}

std::optional<fs::path> find_project_config(const fs::path& start) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(start.empty() ? "." : start, ec).lexically_normal();
  if (ec) return std::nullopt;
  fs::path shown = start.empty() ? fs::path(".") : start;
  for (fs::path dir = absolute;; dir = dir.parent_path(), shown /= "..") {
    if (fs::exists(dir / kProjectConfigName, ec)) {
      // Named as the user named the start: "../.slurm-advisor.toml" for a relative one.
      return start.is_absolute() ? dir / kProjectConfigName : (shown / kProjectConfigName).lexically_normal();
    }
    if (dir.parent_path() == dir) return std::nullopt;
  }
}

ProjectConfig parse_project_config(const fs::path& file, const std::string& text) {
  ProjectConfig config;
  config.file = file;
  try {
    const toml::table root = toml::parse(text, file.string());
    ConfigParser(config).walk(root, "");
    const ConfigSetting* workload = config.find("load.workload");
    if (workload && config.find("load.synthetic")) {
      config.diagnostics.push_back({file.string(), workload->line, workload->column,
                                    "'load.workload' and 'load.synthetic' exclude each other; keep one"});
    }
  } catch (const toml::parse_error& e) {
    const Place at = place_of(e.source());
    config.diagnostics.push_back({file.string(), at.line, at.column, std::string(e.description())});
  }
  // toml++ keeps a table's keys sorted by name; the user reads the file top to bottom.
  std::stable_sort(config.diagnostics.begin(), config.diagnostics.end(), [](const auto& a, const auto& b) {
    return std::tie(a.line, a.column) < std::tie(b.line, b.column);
  });
  return config;
}

ProjectConfig read_project_config(const fs::path& file) {
  auto text = read_regular_file(file.string(), kMaxConfigBytes);
  if (!text) {
    ProjectConfig config;
    config.file = file;
    config.diagnostics.push_back({file.string(), 1, 1, text.error()});
    return config;
  }
  return parse_project_config(file, *text);
}

}  // namespace sa::cli
