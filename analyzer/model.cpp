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

std::uint64_t Node::gpus() const {
  std::uint64_t g = 0;
  for (const GresSpec& s : gres) {
    if (s.name == "gpu" && !s.no_consume) g += s.count;
  }
  return g;
}

std::uint64_t Node::tres_count(std::string_view tres) const {
  if (tres == "cpu" || tres == "billing") return cpus;
  if (tres == "mem") return real_memory_mb;
  if (tres == "node") return 1;
  if (!tres.starts_with("gres/")) return 0;
  const std::string_view gres_name = tres.substr(5);
  std::uint64_t total = 0;
  for (const GresSpec& g : gres) {
    if (g.name == gres_name || g.name + ":" + g.type == gres_name) total += g.count;
  }
  return total;
}

bool Config::partition_select_allowed() const {
  return select.type != "select/linear" &&
         (select.resource == SelectSettings::Resource::kCore || select.resource == SelectSettings::Resource::kSocket);
}

bool Config::time_limit_required() const {
  const Setting* submit = setting("JobSubmitPlugins");
  return submit && ifind(submit->value, "require_timelimit") != std::string::npos;
}

bool Config::memory_counted(const Partition& p) const {
  if (p.select_own && partition_select_allowed()) return p.select_memory;
  return select.memory && select.type != "select/linear";
}

bool Config::no_default_memory(const Partition& p) const {
  return !p.def_mem_per_cpu && !p.def_mem_per_node && !select.def_mem_per_cpu && !select.def_mem_per_node &&
         !select.def_mem_per_cpu_zero;
}

Config::MemoryDefault Config::memory_default(const Partition& p) const {
  if (p.def_mem_per_cpu) return {true, true, p.def_mem_per_cpu};
  if (p.def_mem_per_node) return {true, false, p.def_mem_per_node};
  if (select.def_mem_per_cpu) return {false, true, select.def_mem_per_cpu};
  return {false, false, select.def_mem_per_node};
}

std::uint32_t Config::cpu_unit(const Partition& p, const Node& n) const {
  SelectSettings::Resource r = select.resource;
  if (p.select_own && partition_select_allowed())
    r = p.select_socket ? SelectSettings::Resource::kSocket : SelectSettings::Resource::kCore;
  const std::uint32_t unit = r == SelectSettings::Resource::kCore     ? n.schedulable_threads()
                             : r == SelectSettings::Resource::kSocket ? n.cores_per_socket * n.schedulable_threads()
                                                                      : 1;
  return std::max<std::uint32_t>(1, std::min(unit, std::max<std::uint32_t>(1, n.cpus)));
}

std::uint64_t Config::mem_per_gpu_default(const Partition& p) const {
  if (select.type != "select/cons_tres") return 0;
  return p.def_mem_per_gpu.value_or(select.def_mem_per_gpu);
}

std::uint64_t Config::cpus_per_gpu_default(const Partition& p) const {
  if (select.type != "select/cons_tres") return 0;
  return p.def_cpus_per_gpu.value_or(select.def_cpus_per_gpu);
}

const Setting* Config::setting(const std::string& key) const {
  auto it = settings.find(to_lower(key));
  return it == settings.end() ? nullptr : &it->second;
}

}  // namespace sa
