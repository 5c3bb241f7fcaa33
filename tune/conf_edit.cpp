// The text edits behind a candidate: a value replaced where it is written, everything else in
// the file (comments, order, Include lines) left as the admin wrote it, so the recommended
// change is a small unified diff.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "analyzer/text_util.h"

#include "tune/space.h"

namespace sa::tune {

namespace {

struct Span {
  std::size_t begin = std::string::npos, end = 0;  // the value's bytes
  bool found() const { return begin != std::string::npos; }
};

std::size_t value_end(const std::string& text, std::size_t from) {
  std::size_t e = from;
  while (e < text.size() && text[e] != '\n' && text[e] != '#' && !std::isspace(static_cast<unsigned char>(text[e])))
    ++e;
  return e;
}

// The last line whose first word is `key=` (and whose value is `value`, when given): the
// line's bytes and its value's. Slurm keeps the last of repeated keys, so that is the one to edit.
struct KeyLine {
  std::size_t begin = std::string::npos, end = 0;
  Span value;
};

KeyLine last_key_line(const std::string& text, const std::string& key, const std::string* value = nullptr) {
  KeyLine last;
  std::size_t line = 0;
  while (line < text.size()) {
    std::size_t eol = text.find('\n', line);
    if (eol == std::string::npos) eol = text.size();
    std::size_t k = line;
    while (k < eol && (text[k] == ' ' || text[k] == '\t')) ++k;
    if (k + key.size() < eol && text[k + key.size()] == '=' &&
        iequals(std::string_view(text).substr(k, key.size()), key)) {
      const std::size_t v = k + key.size() + 1;
      const Span span{v, value_end(text, v)};
      if (!value || text.compare(v, span.end - v, *value) == 0) last = {line, eol, span};
    }
    line = eol + 1;
  }
  return last;
}

Span find_key(const std::string& text, const std::string& key) { return last_key_line(text, key).value; }

std::string append_line(const std::string& text, const std::string& line) {
  std::string out = text;
  if (!out.empty() && out.back() != '\n') out += '\n';
  return out + line + "\n";
}

// Replaces or adds `option` in a comma list; "off" removes a flag, "on" writes it bare.
std::string edit_list(const std::string& list, const std::string& option, const std::string& value) {
  std::vector<std::string> items;
  bool done = false;
  std::size_t at = 0;
  const std::string item = value == "on" ? option : option + "=" + value;
  while (at <= list.size() && !list.empty()) {
    std::size_t comma = list.find(',', at);
    if (comma == std::string::npos) comma = list.size();
    std::string cur = list.substr(at, comma - at);
    const std::string name = cur.substr(0, cur.find('='));
    if (iequals(name, option)) {
      if (!done && value != "off") items.push_back(item);
      done = true;
    } else if (!cur.empty()) {
      items.push_back(std::move(cur));
    }
    at = comma + 1;
  }
  if (!done && value != "off") items.push_back(item);
  std::string out;
  for (const std::string& i : items) out += (out.empty() ? "" : ",") + i;
  return out;
}

std::string list_value(const std::string& list, const std::string& option) {
  std::size_t at = 0;
  while (at <= list.size() && !list.empty()) {
    std::size_t comma = list.find(',', at);
    if (comma == std::string::npos) comma = list.size();
    const std::string cur = list.substr(at, comma - at);
    const std::size_t eq = cur.find('=');
    if (iequals(cur.substr(0, eq), option)) return eq == std::string::npos ? "on" : cur.substr(eq + 1);
    at = comma + 1;
  }
  return {};
}

// The bytes of the PartitionName=`name` line (the last one), or npos.
std::pair<std::size_t, std::size_t> partition_line(const std::string& text, const std::string& name) {
  const KeyLine l = last_key_line(text, "PartitionName", &name);
  return {l.begin, l.end};
}

// The value of `field=` on a line [begin, end), as a span.
Span field_span(const std::string& text, std::size_t begin, std::size_t end, const std::string& field) {
  for (std::size_t at = begin; at < end; ++at) {
    if (text[at] == '#') break;
    const bool boundary = at == begin || std::isspace(static_cast<unsigned char>(text[at - 1]));
    if (boundary && at + field.size() < end && text[at + field.size()] == '=' &&
        iequals(std::string_view(text).substr(at, field.size()), field)) {
      const std::size_t v = at + field.size() + 1;
      return {v, value_end(text, v)};
    }
  }
  return {};
}

std::optional<std::int64_t> integer(const std::string& v) {
  if (v.empty() || v.size() > 18 || v.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return std::stoll(v);
}

}  // namespace

std::string set_conf_key(const std::string& text, const std::string& key, const std::string& value) {
  const Span s = find_key(text, key);
  if (!s.found()) return append_line(text, key + "=" + value);
  return text.substr(0, s.begin) + value + text.substr(s.end);
}

std::string set_sched_param(const std::string& text, const std::string& resolved, const std::string& option,
                            const std::string& value) {
  const Span s = find_key(text, "SchedulerParameters");
  if (!s.found()) {
    const std::string list = edit_list(resolved, option, value);
    return append_line(text, "SchedulerParameters=" + list);
  }
  const std::string list = edit_list(text.substr(s.begin, s.end - s.begin), option, value);
  return text.substr(0, s.begin) + list + text.substr(s.end);
}

bool set_partition_field(std::string& text, const std::string& partition, const std::string& field,
                         const std::string& value) {
  auto [begin, end] = partition_line(text, partition);
  if (begin == std::string::npos) return false;
  const Span s = field_span(text, begin, end, field);
  if (s.found()) {
    text = text.substr(0, s.begin) + value + text.substr(s.end);
    return true;
  }
  // Append the field before a trailing comment, if any.
  std::size_t at = text.find('#', begin);
  if (at == std::string::npos || at > end) at = end;
  while (at > begin && std::isspace(static_cast<unsigned char>(text[at - 1]))) --at;
  text.insert(at, " " + field + "=" + value);
  return true;
}

std::string set_qos_field(QosTable& table, const std::string& qos, const std::string& field, const std::string& value) {
  auto it = std::find_if(table.records.begin(), table.records.end(), [&](const QosRecord& r) { return r.name == qos; });
  if (it == table.records.end()) return fmt::format("QOS '{}' is not in the QOS table (--qos)", qos);
  if (iequals(field, "UsageFactor")) {
    char* end = nullptr;
    const double f = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0' || f < 0) return fmt::format("UsageFactor '{}' is not a number >= 0", value);
    it->usage_factor = f;
    return {};
  }
  auto n = integer(value);
  if (!n) return fmt::format("QOS {} '{}' is not a whole number", field, value);
  if (iequals(field, "Priority")) {
    if (*n > 0xFFFFFFFFLL) return fmt::format("QOS Priority '{}' is above 4294967295", value);
    it->priority = static_cast<std::uint32_t>(*n);
  } else if (iequals(field, "MaxJobsPerUser")) {
    it->max_jobs_per_user = *n;
  } else if (iequals(field, "MaxSubmitJobsPerUser")) {
    it->max_submit_per_user = *n;
  } else if (iequals(field, "GrpJobs")) {
    it->grp_jobs = *n;
  } else if (iequals(field, "MaxWall")) {
    it->max_wall = *n * 60;  // minutes, as sacctmgr takes a bare number
  } else {
    return fmt::format(
        "QOS field '{}' cannot be varied; use Priority, UsageFactor, MaxJobsPerUser, "
        "MaxSubmitJobsPerUser, GrpJobs or MaxWall",
        field);
  }
  return {};
}

std::string current_value(const std::string& text, const std::string& resolved_sched, const QosTable& qos,
                          const Dimension& d) {
  switch (d.kind) {
    case KeyKind::kSetting: {
      const Span s = find_key(text, d.key);
      return s.found() ? text.substr(s.begin, s.end - s.begin) : "";
    }
    case KeyKind::kSchedParam: {
      const Span s = find_key(text, "SchedulerParameters");
      return list_value(s.found() ? text.substr(s.begin, s.end - s.begin) : resolved_sched, d.key);
    }
    case KeyKind::kPartition: {
      auto [begin, end] = partition_line(text, d.scope);
      if (begin == std::string::npos) return "";
      const Span s = field_span(text, begin, end, d.key);
      return s.found() ? text.substr(s.begin, s.end - s.begin) : "";
    }
    case KeyKind::kQos: {
      const QosRecord* r = qos.find(d.scope);
      if (!r) return "";
      if (iequals(d.key, "Priority")) return std::to_string(r->priority);
      if (iequals(d.key, "UsageFactor")) return fmt::format("{:g}", r->usage_factor);
      return "";
    }
  }
  return {};
}

}  // namespace sa::tune
