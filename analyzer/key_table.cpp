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
    table.rows_.push_back(std::move(info));
  }
  for (std::size_t row = 0; row < table.rows_.size(); ++row) {
    const KeyInfo& info = table.rows_[row];
    table.index_[lookup_key(info.table, info.key)].push_back(row);
    table.by_table_[info.table].push_back(row);
  }
  return table;
}

const std::string& KeyTable::lookup_key(std::string_view table, std::string_view key) {
  // One buffer per thread: no allocation per lookup once it has grown.
  thread_local std::string buffer;
  buffer.assign(table);
  buffer += '\t';
  buffer += key;
  for (char& c : buffer) c = ascii_lower(c);
  return buffer;
}

const KeyTable& KeyTable::builtin() {
  static const KeyTable table = from_tsv(embedded::kSlurmConfKeysTsv);
  return table;
}

KeyLookup KeyTable::find(std::string_view table, std::string_view key, const SlurmVersion& version) const {
  KeyLookup best;
  auto found = index_.find(lookup_key(table, key));
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

std::vector<std::string_view> KeyTable::valid_keys(std::string_view table, const SlurmVersion& version) const {
  std::vector<std::string_view> keys;
  auto rows = by_table_.find(table);
  if (rows == by_table_.end()) return keys;
  for (std::size_t row : rows->second) {
    if (rows_[row].covers(version)) keys.push_back(rows_[row].key);
  }
  return keys;
}

bool KeyTable::known_anywhere(std::string_view table, std::string_view key) const {
  return index_.find(lookup_key(table, key)) != index_.end();
}

bool is_repeatable(const KeyInfo& info, const SlurmVersion& version) {
  return info.status == "repeatable" && !(version < info.status_since);
}

}  // namespace sa
