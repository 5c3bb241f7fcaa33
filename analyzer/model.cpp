#include "analyzer/model.h"

#include "analyzer/text_util.h"

namespace sa {

const Partition* Config::find_partition(const std::string& name) const {
  for (const Partition& p : partitions) {
    if (p.name == name) return &p;  // partition names are case-sensitive in Slurm
  }
  return nullptr;
}

const Partition* Config::default_partition() const {
  for (const Partition& p : partitions) {
    if (p.is_default) return &p;
  }
  return nullptr;
}

const Setting* Config::setting(const std::string& key) const {
  auto it = settings.find(to_lower(key));
  return it == settings.end() ? nullptr : &it->second;
}

}  // namespace sa
