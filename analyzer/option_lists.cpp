// Option-list keys other than PriorityFlags and SchedulerParameters. Slurm reads some of
// them as exact comma lists where an unknown word is fatal (TaskPluginParam, PrologFlags,
// DebugFlags, AccountingStorageEnforce from 21.08) and the rest by substring search where an
// unknown word is silently ignored; the word lists come from data/option_words.tsv.
#include <fmt/format.h>

#include "analyzer/option_words.h"
#include "analyzer/resolve.h"
#include "analyzer/text_util.h"
#include "analyzer/value_reader.h"

namespace sa {

namespace {

enum class ListRule { kExactFatal, kSubstringIgnored };

struct ListKey {
  const char* key;
  ListRule rule;
};

ListRule accounting_enforce_rule(const SlurmVersion& version) {
  // 20.11 searched substrings (so "limit" silently enforced nothing); 21.08 made it exact.
  return version.at_least(21, 8) ? ListRule::kExactFatal : ListRule::kSubstringIgnored;
}

void lint_list(const ValueRef& ref, ListRule rule, const SlurmVersion& version, DiagnosticSink& sink) {
  const OptionWords& words = OptionWords::builtin();
  std::vector<std::string> valid;
  for (const OptionWord* w : words.family(ref.key, version)) valid.push_back(w->word);
  if (valid.empty()) return;
  for (const std::string& raw : split(ref.value, ',')) {
    std::string item(trim(raw));
    if (item.empty()) continue;
    std::string name = item.substr(0, item.find('='));
    const OptionWord* known = words.find(ref.key, name);
    if (known && known->covers(version)) continue;
    if (rule == ListRule::kSubstringIgnored) {
      // Slurm searches the whole value for each word it knows, so "jobs" still sets "job".
      bool matches = false;
      for (const std::string& word : valid) matches = matches || ifind(item, word) != std::string::npos;
      if (matches) continue;
    }
    std::string guess = closest_match(name, valid);
    std::string why = known ? fmt::format(" in Slurm {} ({})", version.to_string(), known->text()) : "";
    // A word of another key (SlurmctldParameters=bf_continue) gets that key, not a look-alike.
    std::string hint = known ? "" : words.elsewhere_hint(name, ref.key, version);
    std::string suggestion = guess.empty() || !hint.empty() ? "" : fmt::format("; did you mean '{}'?", guess);
    // A word that stops slurmctld always gets a fix: the look-alike, or taking it out.
    if (hint.empty() && rule == ListRule::kExactFatal)
      hint = guess.empty() ? fmt::format("remove '{}' from {}", printable(name), ref.key)
                           : fmt::format("write '{}', or remove '{}' from {}", guess, printable(name), ref.key);
    if (rule == ListRule::kExactFatal) {
      sink.error("CONF019", ref.loc,
                 fmt::format("invalid {} word '{}'{}: slurmctld refuses to start{}", ref.key, printable(name), why,
                             suggestion),
                 hint);
    } else {
      sink.warning("CONF019", ref.loc,
                   fmt::format("unknown {} word '{}'{}: Slurm matches these words by substring "
                               "and silently ignores it{}",
                               ref.key, printable(name), why, suggestion),
                   hint);
    }
  }
}

void check_debug_level(const ValueRef& ref, DiagnosticSink& sink) {
  static const char* kLevels[] = {"quiet", "fatal",  "error",  "info",   "verbose",
                                  "debug", "debug2", "debug3", "debug4", "debug5"};
  for (const char* level : kLevels) {
    if (iequals(ref.value, level)) return;
  }
  // Older releases also took the numeric form 0-9.
  if (ref.value.size() == 1 && ref.value[0] >= '0' && ref.value[0] <= '9') return;
  sink.error("CONF009", ref.loc,
             fmt::format("invalid {} '{}'; use quiet, fatal, error, info, verbose, debug or "
                         "debug2 to debug5",
                         ref.key, printable(ref.value)));
}

}  // namespace

void check_option_lists(const RawConfig& raw, const Config& config, DiagnosticSink& sink) {
  SettingReader s(raw, sink);
  const ListKey keys[] = {
      {"TaskPluginParam", ListRule::kExactFatal},
      {"PrologFlags", ListRule::kExactFatal},
      {"DebugFlags", ListRule::kExactFatal},
      {"AccountingStorageEnforce", accounting_enforce_rule(config.version)},
      {"PrivateData", ListRule::kSubstringIgnored},
      {"CommunicationParameters", ListRule::kSubstringIgnored},
      {"SlurmctldParameters", ListRule::kSubstringIgnored},
      {"AccountingStoreFlags", ListRule::kSubstringIgnored},
      {"PreemptParameters", ListRule::kSubstringIgnored},
      {"JobAcctGatherParams", ListRule::kSubstringIgnored},
  };
  for (const ListKey& k : keys) {
    if (auto ref = s.get(k.key)) lint_list(*ref, k.rule, config.version, sink);
  }
  for (const char* key : {"SlurmctldDebug", "SlurmdDebug", "SlurmctldSyslogDebug", "SlurmdSyslogDebug"}) {
    if (auto ref = s.get(key)) check_debug_level(*ref, sink);
  }
  if (auto licenses = s.get("Licenses")) {
    for (const std::string& item : split(licenses->value, ',')) {
      if (item.find('*') == std::string::npos) continue;
      std::string fixed = item;
      fixed[fixed.find('*')] = ':';
      sink.warning("CONF009", licenses->loc,
                   fmt::format("Licenses item '{}': Slurm splits name and count at ':', so this is one license "
                               "named '{}' with count 1",
                               printable(item), printable(item)),
                   fmt::format("write {}", printable(fixed)));
    }
  }
}

}  // namespace sa
