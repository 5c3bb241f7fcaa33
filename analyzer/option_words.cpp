#include "analyzer/option_words.h"

#include "analyzer/embedded_data.h"
#include "analyzer/text_util.h"

namespace sa {

bool OptionWord::covers(const SlurmVersion& version) const {
  SlurmVersion v{version.major, version.minor, 0};
  return !(v < since) && (open_ended || !(until < v));
}

OptionWords OptionWords::from_tsv(std::string_view tsv) {
  OptionWords words;
  bool header = true;
  for (const std::string& line : split(tsv, '\n')) {
    if (header) {
      header = false;
      continue;
    }
    std::vector<std::string> f = split(line, '\t');
    if (f.size() < 5 || f[0].empty() || f[1].empty()) continue;
    // A "*" row describes how the family is parsed; it is documentation, not a word.
    if (f[1] == "*") continue;
    OptionWord w;
    w.family = f[0];
    w.word = f[1];
    if (w.word.size() > 1 && w.word.back() == '=') w.word.pop_back();  // "bf_window=" -> bf_window
    w.kind = f[2];
    // "master" as a first version means newer than every released table we know.
    w.since = f[3] == "master" ? SlurmVersion{26, 5, 0} : SlurmVersion::parse(f[3]).value_or(kOldestKnownVersion);
    w.open_ended = f[4] == "-" || f[4] == "master";
    w.until = w.open_ended ? kNewestKnownVersion : SlurmVersion::parse(f[4]).value_or(kNewestKnownVersion);
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

std::vector<const OptionWord*> OptionWords::family(std::string_view family,
                                                   const SlurmVersion& version) const {
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

}  // namespace sa
