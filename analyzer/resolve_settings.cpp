// Cluster-wide settings: identity, accounting, priority, select and preemption, with the
// defaults of the Slurm version being checked and the fatal combinations Slurm rejects.
#include <fmt/format.h>
#include <algorithm>
#include <cmath>

#include "analyzer/key_table.h"
#include "analyzer/option_words.h"
#include "analyzer/resolve.h"
#include "analyzer/text_util.h"
#include "analyzer/value_reader.h"

namespace sa {

namespace {

std::vector<std::string> words_of(const std::string& text) {
  std::vector<std::string> out;
  for (const std::string& w : split(text, ',')) {
    std::string t(trim(w));
    if (!t.empty()) out.push_back(t);
  }
  return out;
}

// Lints a comma list whose words Slurm matches by substring and silently ignores when
// unknown (PriorityFlags, ...): each unknown word is a warning with a suggestion.
void lint_substring_words(const ValueRef& ref, const std::string& family, const SlurmVersion& version,
                          DiagnosticSink& sink, const std::string& code) {
  const OptionWords& words = OptionWords::builtin();
  std::vector<std::string> valid;
  for (const OptionWord* w : words.family(family, version)) valid.push_back(w->word);
  if (valid.empty()) return;  // no word list for this family
  for (const std::string& word : words_of(ref.value)) {
    const OptionWord* known = words.find(family, word);
    if (known && known->covers(version)) continue;
    const std::string hint = known ? "" : words.elsewhere_hint(word, family, version);
    std::string guess = hint.empty() ? closest_match(word, valid) : "";
    std::string why = known ? fmt::format(" in Slurm {} ({})", version.to_string(), known->text()) : "";
    sink.warning(
        code, ref.loc,
        fmt::format("unknown {} word '{}'{}: Slurm matches these words by substring and "
                    "silently ignores the rest{}",
                    family, printable(word), why, guess.empty() ? "" : fmt::format("; did you mean '{}'?", guess)),
        hint);
  }
}

}  // namespace

Result<std::vector<TresWeight>> parse_tres_weights(std::string_view text) {
  std::vector<TresWeight> out;
  for (const std::string& item : words_of(std::string(text))) {
    std::size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) return Error{fmt::format("'{}' is not TYPE=weight", item)};
    std::string value = item.substr(eq + 1);
    double divisor = 1;
    // A unit suffix DIVIDES the weight, relative to the TRES's base unit (MB for memory,
    // the unit the engine counts in): Mem=0.25G means 0.25 per GiB, 0.25/1024 per MB
    // (slurm_protocol_api.c _tres_weight_item, get_convert_unit_val).
    static const std::string kUnits = "KMGTP";
    if (!value.empty()) {
      auto unit = kUnits.find(static_cast<char>(std::toupper(static_cast<unsigned char>(value.back()))));
      if (unit != std::string::npos) {
        value.pop_back();
        divisor = std::pow(1024.0, static_cast<double>(unit) - 1.0);
      }
    }
    auto weight = parse_double(value);
    if (!weight) return Error{fmt::format("invalid weight in '{}'", item)};
    out.push_back({to_lower(item.substr(0, eq)), *weight / divisor});
  }
  return out;
}

Result<PreemptMode> parse_preempt_mode(std::string_view text, const SlurmVersion& version) {
  PreemptMode mode;
  int bases = 0;
  for (const std::string& word : words_of(std::string(text))) {
    if (iequals(word, "OFF") || iequals(word, "CLUSTER")) {
      mode.base = PreemptMode::Base::kOff;
      ++bases;
    } else if (iequals(word, "CANCEL")) {
      mode.base = PreemptMode::Base::kCancel;
      ++bases;
    } else if (iequals(word, "REQUEUE")) {
      mode.base = PreemptMode::Base::kRequeue;
      ++bases;
    } else if (iequals(word, "SUSPEND") || iequals(word, "ON")) {
      mode.base = PreemptMode::Base::kSuspend;
      ++bases;
    } else if (iequals(word, "GANG")) {
      mode.gang = true;
    } else if (iequals(word, "WITHIN") && version.at_least(22, 5)) {
      mode.within = true;
    } else if (iequals(word, "PRIORITY") && version.at_least(25, 5)) {
      mode.priority = true;
    } else {
      return Error{fmt::format("unknown word '{}'", printable(word))};
    }
  }
  if (bases > 1) return Error{"more than one of OFF, CANCEL, REQUEUE, SUSPEND"};
  if (mode.gang && mode.within) return Error{"GANG and WITHIN cannot be combined"};
  if (mode.gang && mode.priority) return Error{"GANG and PRIORITY cannot be combined"};
  return mode;
}

bool AccountingSettings::enforces(const std::string& word) const {
  for (const std::string& w : enforce) {
    if (w == word || w == "all") return true;
    // read_config.c _validate_accounting_storage_enforce (22.05 to 25.05): every word but
    // nojobs/nosteps sets ACCOUNTING_ENFORCE_ASSOCS too; safe and the old numeric 2 set
    // LIMITS as well, and 1 is associations alone.
    if ((w == "safe" || w == "2") && word == "limits") return true;
    if (word == "associations" && (w == "safe" || w == "limits" || w == "qos" || w == "wckeys" || w == "1" || w == "2"))
      return true;
  }
  return false;
}

namespace {

// Reads a value of one of the key table's integer or boolean types for its diagnostics;
// false when the type is another one.
bool check_uint_or_bool(const ValueRef& ref, const std::string& type, DiagnosticSink& sink) {
  if (type == "uint16")
    read_uint(ref, IntWidth::k16, sink);
  else if (type == "uint32")
    read_uint(ref, IntWidth::k32, sink);
  else if (type == "uint64")
    read_uint(ref, IntWidth::k64, sink);
  else if (type == "boolean")
    read_bool(ref, sink);
  else
    return false;
  return true;
}

}  // namespace

void validate_scalar_types(const RawConfig& raw, const SlurmVersion& version, DiagnosticSink& sink) {
  const KeyTable& keys = KeyTable::builtin();
  for (const auto& [lower, setting] : raw.scalars) {
    KeyLookup found = keys.find("slurm.conf", lower, version);
    if (!found.info) continue;
    ValueRef ref{setting.key, setting.value, setting.value_loc};
    const std::string& type = found.info->type;
    if (check_uint_or_bool(ref, type, sink)) continue;
    if (type == "long") {
      if (auto v = parse_long(setting.value); !v) {
        sink.error("CONF006", ref.loc,
                   fmt::format("invalid value '{}' for {}: {}", printable(ref.value), ref.key, v.error()));
      }
    } else if (type == "float" || type == "double") {
      read_double(ref, sink);
    }
  }
}

void validate_record_types(const RawConfig& raw, const SlurmVersion& version, DiagnosticSink& sink) {
  const KeyTable& keys = KeyTable::builtin();
  for (const RawRecord& rec : raw.records) {
    for (const auto& [lower, pair] : rec.own) {
      KeyLookup found = keys.find(rec.kind, lower, version);
      if (!found.info) continue;
      ValueRef ref{found.info->key, pair.value, pair.value_loc};
      check_uint_or_bool(ref, found.info->type, sink);
    }
  }
}

namespace {

// Licenses= goes through licenses.c _build_license_list(); slurmctld stops with "Invalid
// configured licenses" when it fails (license_init).
void resolve_licenses(const SettingReader& s, Config& config) {
  auto ref = s.get("Licenses");
  if (!ref) return;
  auto parsed = parse_licenses(ref->value);
  if (parsed && !parsed->any_of) {
    config.licenses = parsed->items;
    return;
  }
  s.sink().error("CONF009", ref->loc,
                 fmt::format("invalid Licenses '{}': {}; slurmctld refuses to start", printable(ref->value),
                             parsed ? "'|' (any one of) is for job requests only" : parsed.error()),
                 "write NAME:COUNT items separated by commas, e.g. Licenses=matlab:10,ansys:4");
}

}  // namespace

void resolve_cluster(const RawConfig& raw, Config& config, DiagnosticSink& sink) {
  SettingReader s(raw, sink);
  config.cluster_name = to_lower(s.string("ClusterName").value_or(""));
  for (const RawRecord* rec : raw.of_kind("SlurmctldHost")) config.slurmctld_hosts.push_back(rec->head.value);
  if (config.slurmctld_hosts.empty()) {
    if (auto legacy = s.string("ControlMachine")) config.slurmctld_hosts.push_back(*legacy);
  }
  config.gres_types = words_of(s.string("GresTypes").value_or(""));
  resolve_licenses(s, config);
  config.accounting.storage_type = s.string("AccountingStorageType").value_or("");
  if (config.accounting.storage_type.empty() && !config.version.at_least(21, 8)) {
    // Up to 20.11 DefaultStorageType supplied the accounting storage type when it was unset.
    if (auto fallback = s.string("DefaultStorageType")) {
      config.accounting.storage_type =
          fallback->find('/') == std::string::npos ? "accounting_storage/" + *fallback : *fallback;
    }
  }
  if (config.accounting.storage_type == "accounting_storage/mysql") {
    sink.error("CONF020", s.get("AccountingStorageType")->loc,
               "AccountingStorageType=accounting_storage/mysql is only allowed in slurmdbd.conf; slurmctld "
               "refuses to start",
               "use accounting_storage/slurmdbd here");
  }
  for (const std::string& w : words_of(to_lower(s.string("AccountingStorageEnforce").value_or("")))) {
    config.accounting.enforce.push_back(w);
  }
  config.accounting.tres = s.string("AccountingStorageTRES").value_or("");
  if (auto enforce = s.get("EnforcePartLimits")) {
    std::string v = to_upper(enforce->value);
    if (v == "YES" || v == "TRUE" || v == "UP" || v == "1" || v == "ANY")
      config.enforce_part_limits = "ANY";
    else if (v == "NO" || v == "FALSE" || v == "DOWN" || v == "0")
      config.enforce_part_limits = "NO";
    else if (v == "ALL")
      config.enforce_part_limits = "ALL";
    else
      sink.error("CONF009", enforce->loc,
                 fmt::format("invalid EnforcePartLimits '{}'; use NO, ANY or ALL", printable(enforce->value)));
  }
  if (auto otl = s.get("OverTimeLimit")) {
    if (iequals(otl->value, "UNLIMITED") || iequals(otl->value, "INFINITE"))
      config.over_time_limit = 0xFFFF;
    else
      config.over_time_limit = static_cast<std::uint32_t>(read_uint(*otl, IntWidth::k16, sink).value_or(0));
  }
  for (const auto& [lower, setting] : raw.scalars) config.settings[lower] = setting;
}

namespace {

void read_priority_weights(const SettingReader& s, PrioritySettings& p) {
  auto weight = [&](const char* key) { return static_cast<std::uint32_t>(s.uint(key, IntWidth::k32).value_or(0)); };
  p.weight_age = weight("PriorityWeightAge");
  p.weight_assoc = weight("PriorityWeightAssoc");
  p.weight_fairshare = weight("PriorityWeightFairshare");
  p.weight_job_size = weight("PriorityWeightJobSize");
  p.weight_partition = weight("PriorityWeightPartition");
  p.weight_qos = weight("PriorityWeightQOS");
  if (auto tres = s.get("PriorityWeightTRES")) {
    auto parsed = parse_tres_weights(tres->value);
    if (parsed)
      p.weight_tres = *parsed;
    else
      s.sink().error("CONF009", tres->loc, fmt::format("invalid PriorityWeightTRES: {}", parsed.error()));
  }
}

// PriorityMaxAge, PriorityDecayHalfLife and PriorityCalcPeriod.
void read_priority_periods(const SettingReader& s, PrioritySettings& p) {
  for (const char* key : {"PriorityMaxAge", "PriorityDecayHalfLife"}) {
    auto ref = s.get(key);
    if (ref && parse_time_secs(ref->value).value_or(0) == kInfiniteTime) {
      s.sink().warning("CONF031", ref->loc,
                       fmt::format("{}={} is accepted but stored as a wrapped, meaningless number of minutes", key,
                                   printable(ref->value)),
                       "give a finite time such as 14-0");
    }
  }
  p.max_age = s.time_minutes("PriorityMaxAge").value_or(7 * 86400);
  p.decay_half_life = s.time_minutes("PriorityDecayHalfLife").value_or(7 * 86400);
  p.calc_period = s.time_minutes("PriorityCalcPeriod").value_or(300);
  if (p.calc_period == 0) {
    s.sink().error("CONF009", s.get("PriorityCalcPeriod")->loc, "PriorityCalcPeriod must be at least one minute");
    p.calc_period = 60;
  }
}

void read_usage_reset_period(const ValueRef& reset, PrioritySettings& p, DiagnosticSink& sink) {
  static const std::pair<const char*, UsageReset> kResets[] = {
      {"NONE", UsageReset::kNone},     {"NOW", UsageReset::kNow},         {"DAILY", UsageReset::kDaily},
      {"WEEKLY", UsageReset::kWeekly}, {"MONTHLY", UsageReset::kMonthly}, {"QUARTERLY", UsageReset::kQuarterly},
      {"YEARLY", UsageReset::kYearly}};
  bool found = false;
  for (auto [name, value] : kResets) {
    if (iequals(reset.value, name)) {
      p.usage_reset_period = value;
      found = true;
    }
  }
  if (!found) {
    sink.error("CONF009", reset.loc,
               fmt::format("invalid PriorityUsageResetPeriod '{}'; use NONE, NOW, "
                           "DAILY, WEEKLY, MONTHLY, QUARTERLY or YEARLY",
                           printable(reset.value)));
  }
}

// Slurm matches the words by substring, so has() does too.
void read_priority_flags(const ValueRef& flags, const SlurmVersion& version, PriorityFlags& f, DiagnosticSink& sink) {
  lint_substring_words(flags, "PriorityFlags", version, sink, "CONF019");
  auto has = [&](const char* word) { return ifind(flags.value, word) != std::string::npos; };
  f.accrue_always = has("ACCRUE_ALWAYS");
  f.small_relative_to_time = has("SMALL_RELATIVE_TO_TIME");
  f.calculate_running = has("CALCULATE_RUNNING");
  f.depth_oblivious = has("DEPTH_OBLIVIOUS");
  f.fair_tree = !has("NO_FAIR_TREE") && !f.depth_oblivious;
  f.incr_only = has("INCR_ONLY");
  f.max_tres_gres = has("MAX_TRES_GRES") && version.at_least(25, 5);
  f.max_tres = has("MAX_TRES") && !f.max_tres_gres;
  bool all = has("NO_NORMAL_ALL");
  f.no_normal_assoc = all || has("NO_NORMAL_ASSOC");
  f.no_normal_part = all || has("NO_NORMAL_PART");
  f.no_normal_qos = all || has("NO_NORMAL_QOS");
  f.no_normal_tres = all || has("NO_NORMAL_TRES");
}

// The weights' sum against the 32 bits a priority has, and the weights slurmctld zeroes
// without slurmdbd.
void check_priority_weights(const SettingReader& s, const Config& config, PrioritySettings& p) {
  std::uint64_t sum = std::uint64_t{p.weight_age} + p.weight_assoc + p.weight_fairshare + p.weight_job_size +
                      p.weight_partition + p.weight_qos;
  if (sum > 0xFFFFFFFFULL && p.multifactor()) {
    s.sink().warning("CONF033", s.get("PriorityWeightAge") ? s.get("PriorityWeightAge")->loc : SourceLoc{},
                     fmt::format("the PriorityWeight* values add up to {}, above 4294967295: priorities can be "
                                 "clamped and stop separating jobs",
                                 sum));
  }
  if (p.multifactor() && !config.accounting.uses_slurmdbd()) {
    for (const char* key : {"PriorityWeightAge", "PriorityWeightFairshare"}) {
      auto ref = s.get(key);
      if (!ref || parse_uint(ref->value, IntWidth::k32).value_or(0) == 0) continue;
      s.sink().warning("CONF043", ref->loc,
                       fmt::format("{} has no effect without AccountingStorageType=accounting_storage/slurmdbd: "
                                   "slurmctld sets it to 0",
                                   key),
                       fmt::format("set AccountingStorageType=accounting_storage/slurmdbd if it is meant to count, "
                                   "else {}=0 so the config says what runs",
                                   key));
    }
    p.weight_age = 0;
    p.weight_fairshare = 0;
  }
}

}  // namespace

void resolve_priority(const RawConfig& raw, Config& config, DiagnosticSink& sink) {
  SettingReader s(raw, sink);
  PrioritySettings& p = config.priority;
  p.type = config.version.at_least(23, 11) ? "priority/multifactor" : "priority/basic";
  p.type = s.string("PriorityType").value_or(p.type);
  read_priority_weights(s, p);
  read_priority_periods(s, p);
  if (auto reset = s.get("PriorityUsageResetPeriod")) read_usage_reset_period(*reset, p, sink);
  if (p.decay_half_life == 0 && p.usage_reset_period == UsageReset::kNone && p.multifactor()) {
    sink.error("CONF032", s.get("PriorityDecayHalfLife")->loc,
               "PriorityDecayHalfLife=0 (no decay) needs a PriorityUsageResetPeriod; slurmctld refuses to start");
  }
  p.favor_small = s.boolean("PriorityFavorSmall").value_or(false);
  p.fairshare_dampening_factor =
      static_cast<std::uint32_t>(s.uint("FairShareDampeningFactor", IntWidth::k16).value_or(1));
  p.site_factor_plugin = s.string("PrioritySiteFactorPlugin").value_or("");
  if (auto flags = s.get("PriorityFlags")) read_priority_flags(*flags, config.version, p.flags, sink);
  check_priority_weights(s, config, p);
}

void resolve_select(const RawConfig& raw, Config& config, DiagnosticSink& sink) {
  SettingReader s(raw, sink);
  SelectSettings& sel = config.select;
  sel.type = s.string("SelectType").value_or(config.version.at_least(23, 11) ? "select/cons_tres" : "select/linear");
  bool consumable = sel.type == "select/cons_tres" || sel.type == "select/cons_res";
  auto params = s.get("SelectTypeParameters");
  std::string text = params ? params->value : (consumable ? "CR_Core_Memory" : "");
  sel.parameters = text;
  int bases = 0;
  sel.resource = consumable ? SelectSettings::Resource::kCore : SelectSettings::Resource::kNone;
  sel.memory = false;
  static const std::pair<const char*, SelectSettings::Resource> kBases[] = {
      {"CR_CPU", SelectSettings::Resource::kCpu},       {"CR_CPU_MEMORY", SelectSettings::Resource::kCpu},
      {"CR_CORE", SelectSettings::Resource::kCore},     {"CR_CORE_MEMORY", SelectSettings::Resource::kCore},
      {"CR_SOCKET", SelectSettings::Resource::kSocket}, {"CR_SOCKET_MEMORY", SelectSettings::Resource::kSocket},
      {"CR_MEMORY", SelectSettings::Resource::kMemory}};
  const OptionWords& words = OptionWords::builtin();
  for (const std::string& word : words_of(text)) {
    bool base = false;
    for (auto [name, resource] : kBases) {
      if (iequals(word, name)) {
        sel.resource = resource;
        sel.memory = ifind(word, "MEMORY") != std::string::npos;
        base = true;
        ++bases;
      }
    }
    if (base) continue;
    const OptionWord* known = words.find("SelectTypeParameters", word);
    if (known && known->covers(config.version)) {
      sel.flags.push_back(known->word);
    } else if (params) {
      sink.error(
          "CONF022", params->loc,
          known ? fmt::format("invalid SelectTypeParameters word '{}' in Slurm {} ({}); slurmctld refuses "
                              "to start",
                              printable(word), config.version.to_string(), known->text())
                : fmt::format("unknown SelectTypeParameters word '{}'; slurmctld refuses to start", printable(word)),
          known ? "" : words.elsewhere_hint(word, "SelectTypeParameters", config.version));
    }
  }
  if (params && bases > 1) {
    sink.error("CONF022", params->loc,
               "SelectTypeParameters has more than one of CR_CPU, CR_Core, CR_Socket, "
               "CR_Memory (with or without _Memory); slurmctld refuses to start");
  }
  if (params && bases == 0 && consumable && !config.version.at_least(21, 8, 1)) {
    sink.error("CONF022", params->loc, "SelectTypeParameters needs one of CR_CPU, CR_Core or CR_Socket");
  }
  for (const std::string& flag : sel.flags) {
    if (iequals(flag, "CR_ONE_TASK_PER_CORE") && sel.resource == SelectSettings::Resource::kCpu) {
      sink.error("CONF022", params->loc, "CR_ONE_TASK_PER_CORE cannot be combined with CR_CPU");
    }
  }
  MemoryDefaults m = read_memory_defaults(s, sink);
  sel.def_mem_per_cpu = m.def_per_cpu;
  sel.def_mem_per_node = m.def_per_node;
  sel.def_mem_per_cpu_zero = m.def_per_cpu_zero;
  sel.max_mem_per_cpu = m.max_per_cpu;
  sel.max_mem_per_node = m.max_per_node;
  sel.def_mem_per_gpu = m.def_per_gpu.value_or(0);
  sel.def_cpus_per_gpu = m.def_cpus_per_gpu.value_or(0);
}

void resolve_preempt(const RawConfig& raw, Config& config, DiagnosticSink& sink) {
  SettingReader s(raw, sink);
  PreemptSettings& pre = config.preempt;
  pre.type = s.string("PreemptType").value_or("preempt/none");
  pre.parameters = s.string("PreemptParameters").value_or("");
  // Victims youngest first: 22.05 reads only SchedulerParameters=preempt_youngest_first
  // (preempt.c); 23.02 added PreemptParameters=youngest_first and reads either.
  pre.youngest_first =
      ifind(s.string("SchedulerParameters").value_or(""), "preempt_youngest_first") != std::string::npos ||
      (config.version.at_least(23, 2) && ifind(pre.parameters, "youngest_first") != std::string::npos);
  // _is_job_preempt_exempt_internal (23.02+): min_exempt_priority < the candidate's priority.
  if (const std::size_t at = ifind(pre.parameters, "min_exempt_priority=");
      config.version.at_least(23, 2) && at != std::string::npos) {
    const std::string digits =
        pre.parameters.substr(at + 20, pre.parameters.find_first_not_of("0123456789", at + 20) - (at + 20));
    if (!digits.empty() && digits.size() <= 10)
      pre.min_exempt_priority =
          static_cast<std::uint32_t>(std::min<unsigned long long>(std::stoull(digits), 0xFFFFFFFEULL));
  }
  if (auto exempt = s.get("PreemptExemptTime")) pre.exempt_time = read_time_secs(*exempt, sink).value_or(-1);
  auto mode_ref = s.get("PreemptMode");
  if (mode_ref) {
    auto mode = parse_preempt_mode(mode_ref->value, config.version);
    if (!mode) {
      sink.error("CONF009", mode_ref->loc,
                 fmt::format("invalid PreemptMode '{}': {}; slurmctld refuses to start", printable(mode_ref->value),
                             mode.error()));
      return;
    }
    pre.mode = *mode;
  }
  SourceLoc at = mode_ref ? mode_ref->loc : (s.get("PreemptType") ? s.get("PreemptType")->loc : SourceLoc{});
  // The checks of Slurm's _validate_and_set_defaults(): SUSPEND alone is fatal, and the
  // base mode (ignoring GANG and WITHIN) must be OFF without a PreemptType and not OFF with one.
  using Base = PreemptMode::Base;
  const PreemptMode& m = pre.mode;
  if (m.base == Base::kSuspend && !m.gang && !m.within) {
    sink.error("CONF021", at, "PreemptMode=SUSPEND needs GANG (PreemptMode=SUSPEND,GANG); slurmctld refuses to start");
    return;
  }
  std::string written = mode_ref ? printable(mode_ref->value) : "OFF (the default)";
  if (!pre.enabled() && m.base != Base::kOff) {
    sink.error("CONF021", at,
               fmt::format("PreemptMode={} needs a PreemptType; without one slurmctld rejects "
                           "the combination as incompatible",
                           written),
               "set PreemptType=preempt/partition_prio or preempt/qos, or remove PreemptMode");
  } else if ((pre.type == "preempt/partition_prio" || pre.type == "preempt/qos") && m.base == Base::kOff) {
    sink.error("CONF021", at,
               fmt::format("PreemptType={} with PreemptMode={} is rejected by slurmctld: it "
                           "needs CANCEL, REQUEUE or SUSPEND",
                           pre.type, written),
               "set PreemptMode=SUSPEND,GANG, REQUEUE or CANCEL");
  }
}

}  // namespace sa
