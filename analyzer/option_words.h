#pragma once
// Words accepted inside option-list values (PriorityFlags, SchedulerParameters,
// SelectTypeParameters, PreemptMode, ...) and plugin names per plugin key, with the Slurm
// versions that know them; read from data/option_words.tsv.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/version.h"

namespace sa {

struct OptionWord : VersionRange {
  std::string family;  // "PriorityFlags", "SchedulerParameters", "plugin:SelectType", ...
  std::string word;    // as Slurm spells it
  std::string kind;    // flag, value, base, ...
  std::string note;
};

class OptionWords {
 public:
  static const OptionWords& builtin();
  static OptionWords from_tsv(std::string_view tsv);

  /// The entry for `word` in `family` (case-insensitive), whatever its versions; or nullptr.
  const OptionWord* find(std::string_view family, std::string_view word) const;
  /// Words of `family` valid in `version`.
  std::vector<const OptionWord*> family(std::string_view family, const SlurmVersion& version) const;
  /// Words of `family` in any version.
  std::vector<const OptionWord*> family_any(std::string_view family) const;
  /// The entry for `word` in another option-list family than `except` (plugin names not
  /// searched), preferring the keys people confuse with SchedulerParameters; or nullptr.
  const OptionWord* find_elsewhere(std::string_view word, std::string_view except) const;
  /// The hint for a word written under the wrong key: "'rl_enable' is a SlurmctldParameters
  /// option: write it there (SlurmctldParameters=rl_enable)"; empty when no key knows it.
  std::string elsewhere_hint(std::string_view word, std::string_view except, const SlurmVersion& version) const;
  std::size_t size() const { return rows_.size(); }

 private:
  std::vector<OptionWord> rows_;
  std::map<std::string, std::vector<std::size_t>, std::less<>> by_family_;
};

}  // namespace sa
