// SchedulerParameters, read the way Slurm reads it: every consumer searches the whole
// string case-insensitively for "name=" and takes the FIRST occurrence with atoi(), so
// typos, duplicates and trailing junk are silently ignored. We compute exactly what Slurm
// would use, and separately lint each comma item so those silent mistakes become warnings.
#include <fmt/format.h>
#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdlib>
#include <map>
#include <set>

#include "analyzer/option_words.h"
#include "analyzer/resolve.h"
#include "analyzer/text_util.h"
#include "analyzer/value_reader.h"

namespace sa {

namespace {

struct NumericOption {
  const char* name;
  std::int64_t SchedulerSettings::*field;
  std::int64_t min;
  std::int64_t max;
  const char* unit;
};

// Valid ranges from Slurm's job_scheduler.c and backfill.c (formats.md §4.2); a value out of
// range makes Slurm log an error and keep the default.
const NumericOption kNumeric[] = {
    {"default_queue_depth", &SchedulerSettings::default_queue_depth, 0, INT_MAX, "jobs"},
    {"partition_job_depth", &SchedulerSettings::partition_job_depth, 0, INT_MAX, "jobs"},
    {"sched_interval", &SchedulerSettings::sched_interval, -1, INT_MAX, "s"},
    {"sched_min_interval", &SchedulerSettings::sched_min_interval_us, 0, INT_MAX, "us"},
    {"max_sched_time", &SchedulerSettings::max_sched_time, 1, INT_MAX, "s"},
    {"sched_max_job_start", &SchedulerSettings::sched_max_job_start, 0, INT_MAX, "jobs"},
    {"batch_sched_delay", &SchedulerSettings::batch_sched_delay, 0, INT_MAX, "s"},
    {"max_rpc_cnt", &SchedulerSettings::max_rpc_cnt, 0, 1000, "threads"},
    {"bf_interval", &SchedulerSettings::bf_interval, -1, 10800, "s"},
    {"bf_max_time", &SchedulerSettings::bf_max_time, 1, 3600, "s"},
    {"bf_window", &SchedulerSettings::bf_window, 1, 43200, "min"},
    {"bf_resolution", &SchedulerSettings::bf_resolution, 1, 3600, "s"},
    {"bf_max_job_test", &SchedulerSettings::bf_max_job_test, 1, 1'000'000, "jobs"},
    {"bf_max_job_part", &SchedulerSettings::bf_max_job_part, 0, INT_MAX, "jobs"},
    {"bf_max_job_user", &SchedulerSettings::bf_max_job_user, 0, INT_MAX, "jobs"},
    {"bf_max_job_user_part", &SchedulerSettings::bf_max_job_user_part, 0, INT_MAX, "jobs"},
    {"bf_max_job_assoc", &SchedulerSettings::bf_max_job_assoc, 0, INT_MAX, "jobs"},
    {"bf_max_job_start", &SchedulerSettings::bf_max_job_start, 0, 10000, "jobs"},
    {"bf_max_job_array_resv", &SchedulerSettings::bf_max_job_array_resv, 0, 1000, "tasks"},
    {"bf_job_part_count_reserve", &SchedulerSettings::bf_job_part_count_reserve, 0, 100000, "jobs"},
    {"bf_min_age_reserve", &SchedulerSettings::bf_min_age_reserve, 0, 2'592'000, "s"},
    {"bf_min_prio_reserve", &SchedulerSettings::bf_min_prio_reserve, 1, 0xFFFFFFFFLL, "priority"},
    {"bf_node_space_size", &SchedulerSettings::bf_node_space_size, 2, 2'000'000, "records"},
    {"bf_yield_interval", &SchedulerSettings::bf_yield_interval_us, 1, 10'000'000, "us"},
    {"bf_yield_sleep", &SchedulerSettings::bf_yield_sleep_us, 1, 10'000'000, "us"},
    {"bf_window_linear", &SchedulerSettings::bf_window_linear, 1, INT_MAX, "s"},
    // job_mgr.c _max_switch_wait: atoi of the first max_switch_wait=, a negative one ignored.
    {"max_switch_wait", &SchedulerSettings::max_switch_wait, 0, INT_MAX, "s"},
};

struct FlagOption {
  const char* name;
  bool SchedulerSettings::*field;
};

const FlagOption kFlags[] = {
    {"defer_batch", &SchedulerSettings::defer_batch},
    {"assoc_limit_stop", &SchedulerSettings::assoc_limit_stop},
    {"bf_continue", &SchedulerSettings::bf_continue},
    {"bf_busy_nodes", &SchedulerSettings::bf_busy_nodes},
    {"bf_one_resv_per_job", &SchedulerSettings::bf_one_resv_per_job},
    {"bf_running_job_reserve", &SchedulerSettings::bf_running_job_reserve},
    {"bf_licenses", &SchedulerSettings::bf_licenses},
    {"pack_serial_at_end", &SchedulerSettings::pack_serial_at_end},
};

// atoi(): optional sign and leading digits; the rest is ignored. Reports whether junk followed.
std::int64_t c_atoi(std::string_view text, bool& junk) {
  std::size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) negative = text[i++] == '-';
  std::int64_t value = 0;
  std::size_t digits_start = i;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) && value < (1LL << 40)) {
    value = value * 10 + (text[i++] - '0');
  }
  std::size_t end = text.find(',', i);
  junk = i == digits_start || (end == std::string_view::npos ? i < text.size() : i < end);
  return negative ? -value : value;
}

// The text after the first "name=" in params, up to the end (as Slurm's atoi would see it).
std::optional<std::string_view> first_value(std::string_view params, std::string_view name) {
  std::string needle = std::string(name) + "=";
  std::size_t at = ifind(params, needle);
  if (at == std::string_view::npos) return std::nullopt;
  return params.substr(at + needle.size());
}

class SchedulerParamsReader {
 public:
  SchedulerParamsReader(const ValueRef& ref, Config& config, DiagnosticSink& sink)
      : ref_(ref), config_(config), sink_(sink), s_(config.scheduler) {}

  void run() {
    lint_items();
    apply_numeric();
    apply_flags();
  }

 private:
  void warn(const std::string& message, const std::string& hint = {}) {
    sink_.warning("CONF018", ref_.loc, message, hint);
  }

  // Where `name` belongs when it is another key's option (rl_enable, enable_configless and
  // idle_on_node_suspend are SlurmctldParameters; ACCRUE_ALWAYS a PriorityFlags word, ...).
  std::string home_hint(const std::string& name) const {
    // DependencyParameters has no word list of its own: its two words left SchedulerParameters in 21.08.
    static const std::map<std::string, std::string> kMoved = {{"kill_invalid_depend", "DependencyParameters"},
                                                              {"max_depend_depth", "DependencyParameters"}};
    if (auto it = kMoved.find(name); it != kMoved.end()) {
      return fmt::format("it moved to {}: write it there ({}={})", it->second, it->second, name);
    }
    return OptionWords::builtin().elsewhere_hint(name, "SchedulerParameters", config_.version);
  }

  void lint_items() {
    const OptionWords& words = OptionWords::builtin();
    std::vector<std::string> names;
    for (const OptionWord* w : words.family("SchedulerParameters", config_.version)) names.push_back(w->word);
    std::map<std::string, int> seen;
    for (const std::string& raw_item : split(ref_.value, ',')) {
      std::string item(trim(raw_item));
      if (item.empty()) continue;
      if (item != raw_item) warn(fmt::format("blank around '{}' in SchedulerParameters", printable(item)));
      std::string name = to_lower(item.substr(0, item.find('=')));
      if (++seen[name] == 2) {
        warn(fmt::format("SchedulerParameters option '{}' is given more than once; Slurm uses the FIRST "
                         "occurrence",
                         printable(name)),
             "keep one");
      }
      const OptionWord* known = words.find("SchedulerParameters", name);
      std::string elsewhere = home_hint(name);
      if (!known) {
        std::string guess = closest_match(name, names);
        // disable_X where Slurm knows only enable_X (disable_user_top, gone since user top
        // became opt-in): X is already off, and the look-alike would switch it on.
        const bool opposite = name.rfind("disable_", 0) == 0 && guess == "enable_" + name.substr(8);
        warn(fmt::format("unknown SchedulerParameters option '{}': Slurm silently ignores it{}", printable(name),
                         opposite ? fmt::format("; what it names is already off unless '{}' is set", guess)
                         : guess.empty() || !elsewhere.empty() ? ""
                                                               : fmt::format("; did you mean '{}'?", guess)),
             opposite ? "remove it" : elsewhere);
        continue;
      }
      if (!known->covers(config_.version)) {
        bool newer = config_.version < known->since;
        warn(fmt::format("SchedulerParameters option '{}' {} Slurm {}; it is ignored", known->word,
                         newer ? "is not known before" : "was removed after",
                         newer ? known->since.to_string() : known->until.to_string()),
             elsewhere);
        continue;
      }
      bool has_value = item.find('=') != std::string::npos;
      if (known->kind == "value" && !has_value) {
        warn(fmt::format("SchedulerParameters option '{}' needs a value ({}=N)", known->word, known->word));
      } else if (known->kind == "flag" && has_value) {
        warn(fmt::format("SchedulerParameters option '{}' takes no value; the '=...' part is ignored", known->word));
      }
    }
  }

  void apply_numeric() {
    // max_sched_time's default and upper bound depend on MessageTimeout (default 10 s).
    std::int64_t half_timeout = s_.message_timeout / 2;
    s_.max_sched_time = std::clamp<std::int64_t>(half_timeout, 1, 2);
    s_.bf_max_job_test = config_.version.at_least(21, 8) ? 500 : 100;
    for (const NumericOption& opt : kNumeric) {
      auto text = first_value(ref_.value, opt.name);
      if (!text && std::string_view(opt.name) == "max_rpc_cnt") text = first_value(ref_.value, "max_rpc_count");
      if (!text) continue;
      bool junk = false;
      std::int64_t value = c_atoi(*text, junk);
      std::string shown(text->substr(0, text->find(',')));
      if (junk) {
        warn(fmt::format("{}={}: Slurm reads only the leading digits, giving {} {}", opt.name, printable(shown), value,
                         opt.unit),
             "write a plain number in the option's unit");
      }
      std::int64_t max = opt.max;
      if (std::string_view(opt.name) == "max_sched_time") max = half_timeout;
      bool sched_interval_negative = std::string_view(opt.name) == "sched_interval" && value < -1;
      if (value < opt.min || value > max || sched_interval_negative ||
          (std::string_view(opt.name) == "bf_interval" && value == 0)) {
        warn(fmt::format("{}={} is out of range ({} to {} {}); Slurm logs an error and keeps the default", opt.name,
                         value, opt.min, max, opt.unit));
        continue;
      }
      s_.*opt.field = value;
      set_.insert(opt.name);
    }
    if (!set_.count("bf_max_time")) s_.bf_max_time = s_.bf_interval > 0 ? s_.bf_interval : 30;
    if (!set_.count("bf_node_space_size")) s_.bf_node_space_size = s_.bf_max_job_test;
    // Minutes in slurm.conf, seconds in the model; the default is already in seconds.
    if (set_.count("bf_window")) s_.bf_window *= 60;
    if (set_.count("bf_max_job_assoc") && set_.count("bf_max_job_user")) {
      warn("bf_max_job_assoc and bf_max_job_user are both set; Slurm discards bf_max_job_user");
      s_.bf_max_job_user = 0;
    }
    if (s_.bf_max_job_part > 0 && s_.bf_max_job_part >= s_.bf_max_job_test) {
      warn(fmt::format("bf_max_job_part={} is not below bf_max_job_test={}, so it never limits anything",
                       s_.bf_max_job_part, s_.bf_max_job_test));
    }
    if (first_value(ref_.value, "max_job_bf")) {
      sink_.error("CONF018", ref_.loc, "'max_job_bf' was removed; Slurm refuses to start", "use bf_max_job_test");
    }
  }

  void apply_flags() {
    for (const FlagOption& flag : kFlags) {
      if (ifind(ref_.value, flag.name) != std::string_view::npos) s_.*flag.field = true;
    }
    // "defer" also matches inside "defer_batch"; Slurm tests defer_batch first.
    std::string without_batch = ref_.value;
    for (std::size_t at; (at = ifind(without_batch, "defer_batch")) != std::string::npos;) {
      without_batch.erase(at, 11);
    }
    s_.defer = ifind(without_batch, "defer") != std::string::npos;
  }

  const ValueRef& ref_;
  Config& config_;
  DiagnosticSink& sink_;
  SchedulerSettings& s_;
  std::set<std::string> set_;
};

}  // namespace

void resolve_scheduler(const RawConfig& raw, Config& config, DiagnosticSink& sink) {
  SettingReader settings(raw, sink);
  SchedulerSettings& s = config.scheduler;
  s.type = settings.string("SchedulerType").value_or("sched/backfill");
  if (auto slice = settings.uint("SchedulerTimeSlice", IntWidth::k16)) {
    s.time_slice = static_cast<std::uint32_t>(*slice);
    if (*slice < 5) {
      sink.warning("CONF028", settings.get("SchedulerTimeSlice")->loc,
                   fmt::format("SchedulerTimeSlice={} is below 5 seconds; Slurm resets it to 30", *slice));
      s.time_slice = 30;
    }
  }
  // validate_scalar_types reads these keys too; the sink keeps one copy of a diagnostic that
  // both reads report (same code, place and message), so a bad value is reported once.
  s.kill_wait = static_cast<std::uint16_t>(settings.uint("KillWait", IntWidth::k16).value_or(s.kill_wait));
  s.message_timeout =
      static_cast<std::uint16_t>(settings.uint("MessageTimeout", IntWidth::k16).value_or(s.message_timeout));
  auto params = settings.get("SchedulerParameters");
  ValueRef empty{"SchedulerParameters", "", {}};
  SchedulerParamsReader(params ? *params : empty, config, sink).run();
  if (params) s.parameters = params->value;
}

}  // namespace sa
