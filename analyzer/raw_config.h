#pragma once
// The second reading stage: classifies each logical line as a scalar setting or a record
// (NodeName, PartitionName, ...), checks every key against the version's key table, applies
// the one-scalar-per-line rule, and snapshots DEFAULT records so that they cascade only
// forward, as Slurm's parser does (formats.md §1.3, §1.6, §1.7).
#include <map>
#include <string>
#include <vector>

#include "analyzer/conf_loader.h"
#include "analyzer/key_table.h"
#include "analyzer/model.h"

namespace sa {

struct RawRecord {
  std::string kind;                      // the record table: "NodeName", "PartitionName", "SwitchName", ...
  Pair head;                             // the record's own key, e.g. NodeName=n[1-4]
  std::map<std::string, Pair> own;       // lower-cased canonical key -> pair on this line
  std::map<std::string, Pair> defaults;  // the DEFAULT record in force at this line
  /// The pair for a key: the line's own first, then the DEFAULT snapshot.
  const Pair* get(const std::string& lower_key) const;
  const Pair* get_own(const std::string& lower_key) const;
};

struct RawConfig {
  FileId root = kNoFile;                                 // the file that was read first (slurm.conf itself)
  std::map<std::string, Setting> scalars;                // lower-cased key -> the value that wins
  std::map<std::string, std::vector<Setting>> repeated;  // repeatable keys, in order
  std::vector<RawRecord> records;                        // every record line in reading order
  std::vector<const RawRecord*> of_kind(const std::string& kind) const;
};

/// `table` is the top-level table of the file kind: "slurm.conf" or "topology.conf".
RawConfig collect_raw_config(const LoadedConf& conf, const SlurmVersion& version, DiagnosticSink& sink,
                             const std::string& table = "slurm.conf");

/// Reports an unknown, removed, not-yet-available, defunct or fatal key. Returns false when
/// the key must be ignored (unknown, removed, not yet available, defunct).
bool check_key(const KeyLookup& lookup, const Pair& pair, const std::string& table, const SlurmVersion& version,
               DiagnosticSink& sink);

}  // namespace sa
