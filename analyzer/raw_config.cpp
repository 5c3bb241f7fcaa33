#include "analyzer/raw_config.h"

#include <fmt/format.h>
#include <algorithm>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "analyzer/text_util.h"

namespace sa {

namespace {

// What an admin should write instead of a key Slurm no longer accepts (our own summary of
// the release notes).
const std::map<std::string, std::string>& replacement_hints() {
  static const std::map<std::string, std::string> hints = {
      {"controlmachine", "use SlurmctldHost"},
      {"controladdr", "use SlurmctldHost=name(address)"},
      {"backupcontroller", "add a second SlurmctldHost line"},
      {"backupaddr", "add a second SlurmctldHost=name(address) line"},
      {"fastschedule", "remove it: Slurm always schedules on the configured node sizes now"},
      {"cachegroups", "remove it"},
      {"schedulerport", "remove it"},
      {"schedulerrootfilter", "remove it"},
      {"checkpointtype", "remove it: checkpoint plugins were removed"},
      {"jobcheckpointdir", "remove it: checkpoint plugins were removed"},
      {"memlimitenforce", "use JobAcctGatherParams=OverMemoryKill"},
      {"defaultstoragehost", "use AccountingStorageHost"},
      {"defaultstorageloc", "use AccountingStorageLoc or JobCompLoc"},
      {"defaultstoragepass", "use AccountingStoragePass"},
      {"defaultstorageport", "use AccountingStoragePort"},
      {"defaultstoragetype", "use AccountingStorageType"},
      {"defaultstorageuser", "use AccountingStorageUser"},
      {"slurmctldplugstack", "remove it"},
      {"accountingstorejobcomment", "use AccountingStoreFlags=job_comment"},
      {"sbcastparameters", "use BcastParameters"},
      {"keepalivetime", "use CommunicationParameters=keepalivetime=<seconds>"},
  };
  return hints;
}

std::string hint_for(const std::string& key) {
  auto it = replacement_hints().find(to_lower(key));
  return it == replacement_hints().end() ? std::string{} : it->second;
}

bool is_record_key(const KeyTable& keys, const std::string& table, const std::string& key,
                   const SlurmVersion& version) {
  KeyLookup found = keys.find(table, key, version);
  return found.info && keys.known_anywhere(found.info->key, found.info->key);
}

// Two quiet parser traps (formats.md §1.1-1.2) that produce a value nobody meant.
void lint_value(const Pair& pair, const std::string& table, const SlurmVersion& version, DiagnosticSink& sink) {
  if (!pair.quoted && !pair.raw_value.empty() && pair.raw_value[0] == '"') {
    bool closed = pair.raw_value.find('"', 1) != std::string::npos;
    sink.warning(
        "CONF023", pair.value_loc,
        closed ? fmt::format("the value of '{}' has text after its closing quote, so Slurm does not "
                             "treat it as quoted and keeps the quote characters: '{}'",
                             printable(pair.key), printable(pair.value))
               : fmt::format("the value of '{}' opens a quote that is not closed on this line; Slurm "
                             "keeps '{}' literally (a '#' inside quotes still starts a comment)",
                             printable(pair.key), printable(pair.value)),
        closed ? "quote the whole value, or drop the quotes" : "close the quote, and write \\# for a literal '#'");
  }
  std::size_t eq = pair.value.find('=');
  if (pair.quoted || eq == std::string::npos || eq == 0) return;
  std::string inner = pair.value.substr(0, eq);
  const KeyTable& keys = KeyTable::builtin();
  if (keys.find(table, inner, version).info || keys.find("slurm.conf", inner, version).info) {
    sink.warning("CONF024", pair.value_loc,
                 fmt::format("'{}' has the value '{}': an empty value takes the next key=value pair as its "
                             "value, so '{}' is not set",
                             printable(pair.key), printable(pair.value), printable(inner)),
                 fmt::format("write {}=\"\" for an empty value", printable(pair.key)));
  }
}

class Collector {
 public:
  Collector(const SlurmVersion& version, DiagnosticSink& sink, const std::string& table)
      : version_(version), sink_(sink), table_(table), keys_(KeyTable::builtin()) {}

  RawConfig run(const LoadedConf& conf) {
    raw_.root = conf.root;
    for (const ConfLine& line : conf.lines) {
      if (line.has_syntax_error || line.pairs.empty()) continue;
      const Pair& first = line.pairs[0];
      if (table_ == "gres.conf") {
        gres_line(line);  // every gres.conf line is one record of gres.conf keys
      } else if (is_record_key(keys_, table_, first.key, version_)) {
        record(line);
      } else {
        scalars(line);
      }
    }
    return std::move(raw_);
  }

 private:
  void scalars(const ConfLine& line) {
    for (std::size_t i = 0; i < line.pairs.size(); ++i) {
      const Pair& pair = line.pairs[i];
      if (i == 1) {
        sink_.error("CONF002", pair.key_loc,
                    fmt::format("'{}' shares a line with '{}'; Slurm allows only one setting per "
                                "line outside NodeName/PartitionName records and stops here",
                                printable(pair.key), printable(line.pairs[0].key)),
                    fmt::format("move '{}' to a line of its own", printable(pair.key)));
      }
      KeyLookup found = keys_.find(table_, pair.key, version_);
      if (found.info && keys_.known_anywhere(found.info->key, found.info->key)) {
        sink_.error("CONF002", pair.key_loc, fmt::format("record key '{}' must start its own line", found.info->key));
        continue;
      }
      if (found.status == KeyStatus::kFatal && iequals(found.info->key, "FastSchedule") && pair.value != "1") {
        sink_.error("CONF004", pair.key_loc,
                    fmt::format("FastSchedule={} was removed; Slurm {} refuses to start with it", printable(pair.value),
                                version_.to_string()),
                    pair.value == "2" ? "use SlurmdParameters=config_overrides" : "remove it");
        continue;
      }
      if (found.status == KeyStatus::kFatal && iequals(found.info->key, "FastSchedule") && pair.value == "1") {
        // Slurm only logs an error for FastSchedule=1 (the behaviour it kept) and goes on.
        sink_.warning("CONF005", pair.key_loc,
                      "FastSchedule was removed; Slurm logs an error for "
                      "FastSchedule=1 and ignores it",
                      "remove it: Slurm always uses the configured node sizes");
        continue;
      }
      if (!check_key(found, pair, table_, version_, sink_)) continue;
      lint_value(pair, table_, version_, sink_);
      store_scalar(*found.info, pair);
    }
  }

  void gres_line(const ConfLine& line) {
    RawRecord rec;
    rec.kind = "gres.conf";
    rec.head = line.pairs[0];
    for (const Pair& pair : line.pairs) {
      KeyLookup found = keys_.find(table_, pair.key, version_);
      if (!check_key(found, pair, table_, version_, sink_)) continue;
      lint_value(pair, table_, version_, sink_);
      rec.own[to_lower(found.info->key)] = pair;
    }
    raw_.records.push_back(std::move(rec));
  }

  void store_scalar(const KeyInfo& info, const Pair& pair) {
    Setting setting{info.key, pair.value, pair.key_loc, pair.value_loc};
    std::string lower = to_lower(info.key);
    if (is_repeatable(info, version_)) {
      raw_.repeated[lower].push_back(setting);
      return;
    }
    auto it = raw_.scalars.find(lower);
    if (it != raw_.scalars.end() && it->second.value != pair.value) {
      sink_.warning("CONF010", pair.key_loc,
                    fmt::format("'{}' is set again (first at line {}); the last value, '{}', wins", info.key,
                                it->second.loc.line, printable(pair.value)),
                    "keep a single setting");
    }
    raw_.scalars[lower] = setting;
  }

  void record(const ConfLine& line) {
    const Pair& head = line.pairs[0];
    KeyLookup head_found = keys_.find(table_, head.key, version_);
    if (!check_key(head_found, head, table_, version_, sink_)) return;
    RawRecord rec;
    rec.kind = head_found.info->key;
    rec.head = head;
    for (std::size_t i = 1; i < line.pairs.size(); ++i) add_record_pair(rec, line.pairs[i]);
    bool is_default = iequals(head.value, "DEFAULT") && defaultable(rec.kind);
    if (is_default) {
      merge_default(rec);
      return;
    }
    if (iequals(rec.kind, "NodeName") && iequals(head.value, "ALL") && version_.at_least(22, 5)) {
      sink_.error("CONF034", head.value_loc, "'ALL' is reserved and cannot be a node name");
      return;
    }
    rec.defaults = defaults_[rec.kind];
    raw_.records.push_back(std::move(rec));
  }

  static bool defaultable(const std::string& kind) {
    return kind == "NodeName" || kind == "PartitionName" || kind == "FrontendName";
  }

  void add_record_pair(RawRecord& rec, const Pair& pair) {
    KeyLookup found = keys_.find(rec.kind, pair.key, version_);
    if (found.status == KeyStatus::kUnknown && keys_.find(table_, pair.key, version_).info) {
      sink_.error("CONF003", pair.key_loc,
                  fmt::format("'{}' is not a {} key; it is a top-level setting and needs a line of "
                              "its own",
                              printable(pair.key), rec.kind));
      return;
    }
    if (!check_key(found, pair, rec.kind, version_, sink_)) return;
    lint_value(pair, rec.kind, version_, sink_);
    std::string lower = to_lower(found.info->key);
    if (lower == to_lower(rec.kind)) {
      sink_.error("CONF003", pair.key_loc, fmt::format("'{}' appears twice on one line", rec.kind));
      return;
    }
    auto it = rec.own.find(lower);
    if (it != rec.own.end() && it->second.value != pair.value) {
      sink_.warning("CONF010", pair.key_loc,
                    fmt::format("'{}' is given twice on this {} line; the last value, '{}', wins", found.info->key,
                                rec.kind, printable(pair.value)));
    }
    rec.own[lower] = pair;
  }

  void merge_default(const RawRecord& rec) {
    static const std::map<std::string, std::vector<std::string>> never_inherited = {
        {"PartitionName",
         {"exclusiveuser", "exclusivetopo", "disablerootjobs", "powerdownonidle", "suspendtime",
          "selecttypeparameters"}},
    };
    static const std::vector<std::string> forbidden_on_default = {"nodehostname", "nodeaddr", "bcastaddr"};
    auto& defaults = defaults_[rec.kind];
    for (const auto& [lower, pair] : rec.own) {
      if (rec.kind == "NodeName" &&
          std::find(forbidden_on_default.begin(), forbidden_on_default.end(), lower) != forbidden_on_default.end()) {
        sink_.error("CONF035", pair.key_loc,
                    fmt::format("'{}' is not allowed on NodeName=DEFAULT", printable(pair.key)),
                    "set it on each NodeName line");
        continue;
      }
      auto skip = never_inherited.find(rec.kind);
      if (skip != never_inherited.end() &&
          std::find(skip->second.begin(), skip->second.end(), lower) != skip->second.end()) {
        sink_.warning("CONF035", pair.key_loc,
                      fmt::format("'{}' on {}=DEFAULT has no effect: Slurm never inherits it from "
                                  "a DEFAULT line",
                                  printable(pair.key), rec.kind),
                      "set it on each partition line that needs it");
        continue;
      }
      defaults[lower] = pair;
    }
  }

  const SlurmVersion& version_;
  DiagnosticSink& sink_;
  const std::string& table_;
  const KeyTable& keys_;
  RawConfig raw_;
  std::map<std::string, std::map<std::string, Pair>> defaults_;
};

// The keys a table accepts in a version, for did-you-mean. Unknown keys come in runs (a file
// of typos, a fuzzer's input, one table and version per file), so the list is kept for the
// last table and version asked instead of being filtered from the key table per key. The
// views point into KeyTable::builtin(), which lives as long as the program.
const TypoCandidates& valid_keys_of(const std::string& table, const SlurmVersion& version) {
  thread_local std::optional<std::pair<std::string, SlurmVersion>> asked;
  thread_local std::optional<TypoCandidates> keys;
  if (!asked || asked->first != table || !(asked->second == version)) {
    keys.emplace(KeyTable::builtin().valid_keys(table, version));
    asked.emplace(table, version);
  }
  return *keys;
}

}  // namespace

const Pair* RawRecord::get_own(const std::string& lower_key) const {
  auto it = own.find(lower_key);
  return it == own.end() ? nullptr : &it->second;
}

const Pair* RawRecord::get(const std::string& lower_key) const {
  if (const Pair* p = get_own(lower_key)) return p;
  auto it = defaults.find(lower_key);
  return it == defaults.end() ? nullptr : &it->second;
}

std::vector<const RawRecord*> RawConfig::of_kind(const std::string& kind) const {
  std::vector<const RawRecord*> out;
  for (const RawRecord& r : records) {
    if (r.kind == kind) out.push_back(&r);
  }
  return out;
}

bool check_key(const KeyLookup& lookup, const Pair& pair, const std::string& table, const SlurmVersion& version,
               DiagnosticSink& sink) {
  switch (lookup.status) {
    case KeyStatus::kOk:
      return true;
    case KeyStatus::kUnknown: {
      std::string suggestion = valid_keys_of(table, version).closest(pair.key);
      const std::string where = table == "slurm.conf" || table == "topology.conf" ? table : table + " line";
      std::string message = fmt::format("unknown key '{}' in {}", printable(pair.key), where);
      if (!suggestion.empty()) message += fmt::format("; did you mean '{}'?", suggestion);
      sink.error("CONF003", pair.key_loc, message);
      return false;
    }
    case KeyStatus::kRemoved: {
      const KeyInfo& info = *lookup.info;
      sink.error("CONF004", pair.key_loc,
                 fmt::format("'{}' was removed after Slurm {}; Slurm {} rejects it as an unknown key", info.key,
                             info.until.to_string(), version.to_string()),
                 hint_for(info.key));
      return false;
    }
    case KeyStatus::kNotYet:
      sink.error("CONF004", pair.key_loc,
                 fmt::format("'{}' needs Slurm {} or later (checking against {})", lookup.info->key,
                             lookup.info->since.to_string(), version.to_string()),
                 "pass --slurm-version if the cluster runs a newer release");
      return false;
    case KeyStatus::kDefunct:
      sink.warning("CONF005", pair.key_loc,
                   fmt::format("'{}' is defunct in Slurm {}: it is ignored", lookup.info->key, version.to_string()),
                   hint_for(lookup.info->key).empty() ? "remove it" : hint_for(lookup.info->key));
      return false;
    case KeyStatus::kFatal:
      sink.error("CONF004", pair.key_loc,
                 fmt::format("'{}' is no longer accepted by Slurm {}{}", lookup.info->key, version.to_string(),
                             lookup.info->note.empty() ? "" : ": " + lookup.info->note),
                 hint_for(lookup.info->key).empty() ? "remove it" : hint_for(lookup.info->key));
      return false;
  }
  return false;
}

RawConfig collect_raw_config(const LoadedConf& conf, const SlurmVersion& version, DiagnosticSink& sink,
                             const std::string& table) {
  return Collector(version, sink, table).run(conf);
}

}  // namespace sa
