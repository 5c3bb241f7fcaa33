#pragma once
// Typed reads of settings and record keys that turn a bad value into a diagnostic at the
// value's location (and return nothing), so each resolver stays a list of reads.
#include <cstdint>
#include <optional>
#include <string>

#include "analyzer/diagnostics.h"
#include "analyzer/raw_config.h"
#include "analyzer/values.h"

namespace sa {

struct ValueRef {
  std::string key;  // canonical spelling for messages
  std::string value;
  SourceLoc loc;  // the value
};

std::optional<ValueRef> ref_of(const Pair* pair, const std::string& canonical_key);

std::optional<std::uint64_t> read_uint(const ValueRef& ref, IntWidth width, DiagnosticSink& sink);
std::optional<bool> read_bool(const ValueRef& ref, DiagnosticSink& sink);
std::optional<double> read_double(const ValueRef& ref, DiagnosticSink& sink);
/// Minute-based time keys (MaxTime, PriorityMaxAge, ...): seconds, rounded up to minutes.
std::optional<std::int64_t> read_time_minutes(const ValueRef& ref, DiagnosticSink& sink);
std::optional<std::int64_t> read_time_secs(const ValueRef& ref, DiagnosticSink& sink);

/// Reads a record key (line first, then DEFAULT) by its lower-cased name.
class RecordReader {
 public:
  RecordReader(const RawRecord& record, DiagnosticSink& sink) : record_(record), sink_(sink) {}
  std::optional<ValueRef> get(const std::string& canonical_key) const;
  std::optional<std::uint64_t> uint(const std::string& canonical_key, IntWidth width) const;
  std::optional<bool> boolean(const std::string& canonical_key) const;
  std::optional<std::int64_t> time_minutes(const std::string& canonical_key) const;
  std::optional<std::string> string(const std::string& canonical_key) const;
  const RawRecord& record() const { return record_; }

 private:
  const RawRecord& record_;
  DiagnosticSink& sink_;
};

/// Reads a top-level scalar setting by canonical key.
class SettingReader {
 public:
  SettingReader(const RawConfig& raw, DiagnosticSink& sink) : raw_(raw), sink_(sink) {}
  std::optional<ValueRef> get(const std::string& canonical_key) const;
  std::optional<std::uint64_t> uint(const std::string& canonical_key, IntWidth width) const;
  std::optional<bool> boolean(const std::string& canonical_key) const;
  std::optional<double> real(const std::string& canonical_key) const;
  std::optional<std::int64_t> time_minutes(const std::string& canonical_key) const;
  std::optional<std::string> string(const std::string& canonical_key) const;
  DiagnosticSink& sink() const { return sink_; }

 private:
  const RawConfig& raw_;
  DiagnosticSink& sink_;
};

/// DefMemPerCPU/Node and MaxMemPerCPU/Node as Slurm reads them, for the cluster
/// (SettingReader) or a partition (RecordReader): the per-node value wins and the per-CPU
/// one is ignored with a warning.
struct MemoryDefaults {
  std::uint64_t def_per_cpu = 0, def_per_node = 0, max_per_cpu = 0, max_per_node = 0;
  // DefMemPerCPU=0 written (and no DefMemPerNode): read_config.c keeps it as 0 MB a CPU
  // (MEM_PER_CPU set), which is not the absent default of "the node's whole memory".
  bool def_per_cpu_zero = false;
  // DefMemPerGPU and DefCPUPerGPU (JobDefaults entries in read_config.c): written, even as 0,
  // a partition's replace the cluster's for its jobs (cons_common _set_gpu_defaults).
  std::optional<std::uint64_t> def_per_gpu, def_cpus_per_gpu;
};

template <typename Reader>
MemoryDefaults read_memory_defaults(const Reader& r, DiagnosticSink& sink) {
  MemoryDefaults m;
  // Returns whether the per-CPU key was read, as 0.
  auto pick = [&](const char* node_key, const char* cpu_key, std::uint64_t& node, std::uint64_t& cpu) {
    if (auto per_node = r.uint(node_key, IntWidth::k64)) {
      node = *per_node;
      if (auto ignored = r.get(cpu_key)) {
        sink.warning("CONF037", ignored->loc, std::string(cpu_key) + " is ignored because " + node_key + " is also set",
                     std::string("keep one: remove ") + cpu_key + ", or " + node_key + " if per-CPU was meant");
      }
      return false;
    }
    const std::optional<std::uint64_t> per_cpu = r.uint(cpu_key, IntWidth::k64);
    cpu = per_cpu.value_or(0);
    return per_cpu == std::uint64_t{0};
  };
  m.def_per_cpu_zero = pick("DefMemPerNode", "DefMemPerCPU", m.def_per_node, m.def_per_cpu);
  pick("MaxMemPerNode", "MaxMemPerCPU", m.max_per_node, m.max_per_cpu);
  m.def_per_gpu = r.uint("DefMemPerGPU", IntWidth::k64);
  m.def_cpus_per_gpu = r.uint("DefCPUPerGPU", IntWidth::k64);
  return m;
}

}  // namespace sa
