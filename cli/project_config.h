#pragma once
// The project config file, `.slurm-advisor.toml`: found like ruff's, from the directory of the
// slurm.conf being checked upward; each key stands for one command-line option (a key's table
// below), so the file can only say what a flag can say. Reading it never throws: bad TOML, an
// unknown key or a path leaving the file's directory is a diagnostic with file:line:col.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace sa::cli {

inline constexpr const char* kProjectConfigName = ".slurm-advisor.toml";

/// How a key's TOML value becomes option values.
enum class ConfigValueKind {
  kScalar,     // a string, integer or float, passed through as text
  kPath,       // a string, resolved against the file's directory
  kPathList,   // an array of such strings
  kWordList,   // an array of strings, passed as they are
  kPairTable,  // a table of NAME = "VALUE", passed as NAME=VALUE
  kPathTable,  // a table of "/FROM" = "DIR", passed as /FROM=DIR with DIR resolved
};

struct ConfigKey {
  const char* key;     // dotted: "accounting.assoc"
  const char* option;  // the command-line option it stands for
  ConfigValueKind kind;
  const char* help;
};

/// Every key the file may hold, in the order `config --show` prints them.
const std::vector<ConfigKey>& config_keys();

/// A problem in the file, at its place.
struct ConfigDiagnostic {
  std::string file;
  int line = 0, column = 0;
  std::string message;
  std::string to_string() const;  // "file:line:col: error: message"
};

/// One key's value from the file, as the option values it stands for.
struct ConfigSetting {
  const ConfigKey* key = nullptr;
  std::vector<std::string> values;
  int line = 0, column = 0;
};

struct ProjectConfig {
  std::filesystem::path file;  // empty: no file
  std::vector<ConfigSetting> settings;
  std::vector<ConfigDiagnostic> diagnostics;
  bool ok() const { return diagnostics.empty(); }
  const ConfigSetting* find(const std::string& key) const;
};

/// The nearest `.slurm-advisor.toml` in `start` (a directory) or its ancestors. The path is
/// relative when `start` is, so messages name it as the user would.
std::optional<std::filesystem::path> find_project_config(const std::filesystem::path& start);

/// Parses the text of a config file named `file` (relative paths resolve against its directory).
ProjectConfig parse_project_config(const std::filesystem::path& file, const std::string& text);
/// Reads and parses the file; an unreadable file is a diagnostic too.
ProjectConfig read_project_config(const std::filesystem::path& file);

}  // namespace sa::cli
