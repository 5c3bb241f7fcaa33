#include "analyzer/option_words.h"

#include <fmt/format.h>

#include "analyzer/embedded_data.h"
#include "analyzer/text_util.h"

namespace sa {

OptionWords OptionWords::from_tsv(std::string_view tsv) {
  OptionWords words;
  for (const std::vector<std::string>& f : tsv_rows(tsv)) {
    if (f.size() < 5 || f[0].empty() || f[1].empty()) continue;
    // A "*" row describes how the family is parsed; it is documentation, not a word.
    if (f[1] == "*") continue;
    OptionWord w;
    static_cast<VersionRange&>(w) = VersionRange::from_table(f[3], f[4]);
    w.family = f[0];
    w.word = f[1];
    if (w.word.size() > 1 && w.word.back() == '=') w.word.pop_back();  // "bf_window=" -> bf_window
    w.kind = f[2];
    if (f.size() > 5) w.note = f[5];
    words.by_family_[to_lower(w.family)].push_back(words.rows_.size());
    words.rows_.push_back(std::move(w));
  }
  return words;
}

const OptionWords& OptionWords::builtin() {
  static const OptionWords words = from_tsv(embedded::kOptionWordsTsv);
  return words;
}

const OptionWord* OptionWords::find(std::string_view family, std::string_view word) const {
  auto it = by_family_.find(to_lower(family));
  if (it == by_family_.end()) return nullptr;
  for (std::size_t i : it->second) {
    if (iequals(rows_[i].word, word)) return &rows_[i];
  }
  return nullptr;
}

std::vector<const OptionWord*> OptionWords::family(std::string_view family, const SlurmVersion& version) const {
  std::vector<const OptionWord*> out;
  for (const OptionWord* w : family_any(family)) {
    if (w->covers(version)) out.push_back(w);
  }
  return out;
}

std::vector<const OptionWord*> OptionWords::family_any(std::string_view family) const {
  std::vector<const OptionWord*> out;
  auto it = by_family_.find(to_lower(family));
  if (it == by_family_.end()) return out;
  for (std::size_t i : it->second) out.push_back(&rows_[i]);
  return out;
}

const OptionWord* OptionWords::find_elsewhere(std::string_view word, std::string_view except) const {
  // The keys whose words end up in each other's lists, most often first; then the rest.
  static const char* kFirst[] = {"SchedulerParameters", "SlurmctldParameters",  "PreemptParameters",
                                 "PriorityFlags",       "SelectTypeParameters", "CommunicationParameters"};
  for (const char* family : kFirst) {
    if (iequals(family, except)) continue;
    if (const OptionWord* w = find(family, word)) return w;
  }
  for (const auto& [family, rows] : by_family_) {
    if (family.rfind("plugin:", 0) == 0 || iequals(family, except)) continue;
    for (std::size_t i : rows) {
      if (iequals(rows_[i].word, word)) return &rows_[i];
    }
  }
  return nullptr;
}

std::string OptionWords::elsewhere_hint(std::string_view word, std::string_view except,
                                        const SlurmVersion& version) const {
  const OptionWord* w = find_elsewhere(word, except);
  if (!w) return {};
  const bool has_value = w->kind == "value";
  std::string when;
  if (!w->covers(version)) {
    when = version < w->since ? fmt::format(" (from Slurm {})", w->since.to_string())
                              : fmt::format(" (until Slurm {})", w->until.to_string());
  }
  return fmt::format("'{}' is a {} option{}: write it there ({}={}{})", w->word, w->family, when, w->family, w->word,
                     has_value ? "=..." : "");
}

}  // namespace sa
