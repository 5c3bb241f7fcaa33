#include "analyzer/key_table.h"

#include "analyzer/embedded_data.h"
#include "analyzer/text_util.h"

namespace sa {

KeyTable KeyTable::from_tsv(std::string_view tsv) {
  KeyTable table;
  for (const std::vector<std::string>& f : tsv_rows(tsv)) {
    // "directive" rows (Include) document the reader, they are not keys.
    if (f.size() < 6 || f[1].empty() || f[2] == "directive") continue;
    KeyInfo info;
    static_cast<VersionRange&>(info) = VersionRange::from_table(f[3], f[4]);
    info.table = f[0];
    info.key = f[1];
    info.type = f[2];
    info.status = f[5];
    if (auto at = info.status.find('@'); at != std::string::npos) {
      info.status_since = SlurmVersion::parse(info.status.substr(at + 1)).value_or(SlurmVersion{0, 0, 0});
      info.status.resize(at);
    }
    if (f.size() > 6) info.note = f[6];
    table.index_[to_lower(info.table + "\t" + info.key)].push_back(table.rows_.size());
    table.rows_.push_back(std::move(info));
  }
  return table;
}

const KeyTable& KeyTable::builtin() {
  static const KeyTable table = from_tsv(embedded::kSlurmConfKeysTsv);
  return table;
}

KeyLookup KeyTable::find(std::string_view table, std::string_view key, const SlurmVersion& version) const {
  KeyLookup best;
  auto found = index_.find(to_lower(std::string(table) + "\t" + std::string(key)));
  if (found == index_.end()) return best;
  for (std::size_t row : found->second) {
    const KeyInfo& info = rows_[row];
    if (info.covers(version)) {
      bool status_applies = !(version < info.status_since);
      KeyStatus status = KeyStatus::kOk;
      if (status_applies && info.status == "defunct") status = KeyStatus::kDefunct;
      if (status_applies && info.status == "fatal") status = KeyStatus::kFatal;
      return {status, &info};
    }
    best = {version < info.since ? KeyStatus::kNotYet : KeyStatus::kRemoved, &info};
  }
  return best;
}

std::vector<std::string> KeyTable::valid_keys(std::string_view table, const SlurmVersion& version) const {
  std::vector<std::string> keys;
  for (const KeyInfo& info : rows_) {
    if (info.table == table && info.covers(version)) keys.push_back(info.key);
  }
  return keys;
}

bool KeyTable::known_anywhere(std::string_view table, std::string_view key) const {
  return index_.count(to_lower(std::string(table) + "\t" + std::string(key))) > 0;
}

bool is_repeatable(const KeyInfo& info, const SlurmVersion& version) {
  return info.status == "repeatable" && !(version < info.status_since);
}

}  // namespace sa
