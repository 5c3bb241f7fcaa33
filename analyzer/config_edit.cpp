#include "analyzer/config_edit.h"

#include <exception>

#include "analyzer/key_table.h"
#include "analyzer/raw_config.h"
#include "analyzer/resolve.h"
#include "analyzer/text_util.h"
#include "analyzer/topology.h"

namespace sa {

namespace {

// The key table's spelling of `key` in `table` (the resolvers' messages use it), else `key`.
std::string canonical(const std::string& table, const std::string& key, const SlurmVersion& version) {
  KeyLookup found = KeyTable::builtin().find(table, key, version);
  return found.info ? found.info->key : key;
}

void set_scalar(RawConfig& raw, const std::string& key, const std::string& value, const SlurmVersion& version) {
  const std::string spelled = canonical("slurm.conf", key, version);
  Setting& s = raw.scalars[to_lower(spelled)];  // a key not written yet has no location
  s.key = spelled;
  s.value = value;
}

// Slurm uses the first PartitionName line of a name (a later one is CONF015): edit that one.
void set_partition_key(RawConfig& raw, const ConfigEdit& edit, const SlurmVersion& version) {
  const std::string spelled = canonical("PartitionName", edit.key, version);
  for (RawRecord& rec : raw.records) {
    if (rec.kind != "PartitionName" || rec.head.value != edit.partition) continue;
    Pair& pair = rec.own[to_lower(spelled)];  // over any DEFAULT line's value, as on the line itself
    pair.key = spelled;
    pair.value = edit.value;
    pair.raw_value = edit.value;
    pair.quoted = false;
    return;
  }
}

void apply(RawConfig& raw, const ConfigEdit& edit, const SlurmVersion& version) {
  switch (edit.kind) {
    case ConfigEdit::Kind::kSetting:
      set_scalar(raw, edit.key, edit.value, version);
      return;
    case ConfigEdit::Kind::kSchedulerParameter: {
      auto it = raw.scalars.find("schedulerparameters");
      const std::string params = it == raw.scalars.end() ? std::string() : it->second.value;
      set_scalar(raw, "SchedulerParameters", with_scheduler_parameter(params, edit.key, edit.value), version);
      return;
    }
    case ConfigEdit::Kind::kPartitionKey:
      set_partition_key(raw, edit, version);
      return;
  }
}

}  // namespace

ConfigEdit ConfigEdit::setting(std::string key, std::string value) {
  return {Kind::kSetting, std::move(key), std::move(value), {}};
}

ConfigEdit ConfigEdit::scheduler_parameter(std::string name, std::string value) {
  return {Kind::kSchedulerParameter, std::move(name), std::move(value), {}};
}

ConfigEdit ConfigEdit::partition_key(std::string partition, std::string key, std::string value) {
  return {Kind::kPartitionKey, std::move(key), std::move(value), std::move(partition)};
}

std::string with_scheduler_parameter(const std::string& params, const std::string& name, const std::string& value) {
  // Slurm finds "name=" (a flag: "name") anywhere in the string, so an item holding it is the option.
  const std::string needle = value.empty() ? name : name + "=";
  std::string out;
  std::size_t start = 0;
  while (start <= params.size()) {
    std::size_t end = params.find(',', start);
    if (end == std::string::npos) end = params.size();
    const std::string item = params.substr(start, end - start);
    if (!item.empty() && ifind(item, needle) == std::string::npos) out += item + ",";
    start = end + 1;
  }
  return out + (value.empty() ? name : needle + value);
}

std::unique_ptr<Config> resolve_edited(const Analysis& analysis, const std::vector<ConfigEdit>& edits) {
  if (!analysis.raw) return std::make_unique<Config>(analysis.config);
  RawConfig raw = *analysis.raw;
  for (const ConfigEdit& edit : edits) apply(raw, edit, analysis.options.version);
  auto config = std::make_unique<Config>();
  DiagnosticSink dropped;
  try {
    resolve_model(raw, analysis.options, *config, dropped);
    // topology.conf is its own file, read once; an edit of slurm.conf keeps it while the
    // plugin that reads it stays and the nodes it names are the same.
    if (uses_topology_tree(*config) && config->nodes.size() == analysis.config.nodes.size()) {
      config->topology = analysis.config.topology;
    }
  } catch (const std::exception&) {
    // The same settings resolved once already; only memory can fail here. Keep the model read.
    return std::make_unique<Config>(analysis.config);
  }
  return config;
}

}  // namespace sa
