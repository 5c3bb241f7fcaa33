#pragma once
// The complete key tables of slurm.conf, its record lines, topology.conf and gres.conf for
// Slurm 20.11 to 25.11, read from data/slurm_conf_keys.tsv (extracted from Slurm's own
// s_p_options_t tables; see data/README.md). An unknown or removed key is an error in
// Slurm, so it must be one here, with a did-you-mean.
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analyzer/version.h"

namespace sa {

struct KeyInfo : VersionRange {
  std::string table;                   // "slurm.conf", "NodeName", "PartitionName", ...
  std::string key;                     // canonical spelling
  std::string type;                    // s_p type: string, uint16, uint32, boolean, ... (+handler)
  std::string status;                  // ok, defunct, fatal, repeatable
  SlurmVersion status_since{0, 0, 0};  // status applies from this version (0.0: always)
  std::string note;
};

enum class KeyStatus { kOk, kUnknown, kRemoved, kNotYet, kDefunct, kFatal };

struct KeyLookup {
  KeyStatus status = KeyStatus::kUnknown;
  const KeyInfo* info = nullptr;
};

class KeyTable {
 public:
  static const KeyTable& builtin();
  /// Parses the TSV text; malformed rows are skipped (the tests pin the row count).
  static KeyTable from_tsv(std::string_view tsv);

  KeyLookup find(std::string_view table, std::string_view key, const SlurmVersion& version) const;
  /// Canonical spellings of the keys valid in `table` for `version` (for suggestions), as views
  /// into the table: asked once per unknown key, it copied hundreds of strings each time.
  std::vector<std::string_view> valid_keys(std::string_view table, const SlurmVersion& version) const;
  /// True if `key` is in `table` for some version.
  bool known_anywhere(std::string_view table, std::string_view key) const;
  std::size_t size() const { return rows_.size(); }

 private:
  // "table\tkey" lower-cased, hashed: the lookup runs for every key of every line. Only
  // find() is used on it, so its order never reaches output.
  static const std::string& lookup_key(std::string_view table, std::string_view key);

  std::vector<KeyInfo> rows_;
  std::unordered_map<std::string, std::vector<std::size_t>> index_;
  std::map<std::string, std::vector<std::size_t>, std::less<>> by_table_;  // rows per table, for valid_keys
};

bool is_repeatable(const KeyInfo& info, const SlurmVersion& version);

}  // namespace sa
