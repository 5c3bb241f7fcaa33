#include "analyzer/reservation_reader.h"

#include <fmt/format.h>

#include <cctype>
#include <initializer_list>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_set>

#include "analyzer/date_time.h"
#include "analyzer/hostlist.h"
#include "analyzer/text_util.h"
#include "analyzer/values.h"

namespace sa {

bool Reservation::has_flag(const std::string& flag) const {
  const std::string wanted = to_upper(flag);
  for (const std::string& f : flags) {
    if (f.substr(0, f.find('=')) == wanted) return true;  // PURGE_COMP=00:05:00 is PURGE_COMP
  }
  return false;
}

namespace {

constexpr std::int64_t kYearSeconds = 365 * 86400;  // slurmctld's end for Duration=UNLIMITED
constexpr const char* kTimeHint = "write YYYY-MM-DDTHH:MM:SS or epoch seconds (run scontrol without SLURM_TIME_FORMAT)";

struct Field {
  std::string key;
  std::string value;
  SourceLoc key_loc;
  SourceLoc value_loc;
};

using Record = std::vector<Field>;  // starts with its ReservationName field

bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

bool is_key(std::string_view word) {
  if (word.empty() || !std::isalpha(static_cast<unsigned char>(word[0]))) return false;
  for (char c : word) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

bool is_null(std::string_view value) { return value.empty() || iequals(value, "(null)"); }

bool is_record_start(const Field& field) {
  return iequals(field.key, "ReservationName") || iequals(field.key, "Reservation");
}

// The Key=Value words of one line. Comment= takes the rest of the line (scontrol prints it
// last and unquoted); a word that is not Key=Value is reported and ends the line.
std::vector<Field> line_fields(std::string_view line, FileId file, int line_no, DiagnosticSink& sink) {
  std::vector<Field> fields;
  std::size_t i = 0;
  while (i < line.size()) {
    if (is_space(line[i])) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < line.size() && !is_space(line[end])) ++end;
    const std::string_view word = line.substr(i, end - i);
    const std::size_t eq = word.find('=');
    const SourceLoc loc{file, line_no, static_cast<int>(i) + 1};
    if (eq == std::string_view::npos || !is_key(word.substr(0, eq))) {
      sink.error("RESV001", loc,
                 fmt::format("expected Key=Value, found '{}'; the rest of the line is ignored", printable(word, 40)));
      break;
    }
    const std::string_view key = word.substr(0, eq);
    if (iequals(key, "Comment")) end = line.size();
    const std::size_t value_at = i + eq + 1;
    fields.push_back({std::string(key),
                      std::string(trim(line.substr(value_at, end - value_at))),
                      loc,
                      {file, line_no, static_cast<int>(value_at) + 1}});
    i = end;
  }
  return fields;
}

struct TimeAt {
  std::int64_t value = 0;
  const Field* field = nullptr;  // EndTime, or Duration when the end comes from it
};

// Turns one record's fields into a Reservation, reporting what is wrong with them.
class RecordReader {
 public:
  RecordReader(const Record& record, DiagnosticSink& sink, NodeListBudget& budget)
      : record_(record), sink_(sink), budget_(budget) {}

  std::optional<Reservation> read() {
    Reservation r;
    r.loc = record_.front().key_loc;
    r.name = record_.front().value;
    name_ = printable(r.name);
    if (is_null(r.name)) {
      error("RESV002", record_.front().value_loc, "ReservationName has no value; every reservation needs a name");
    }
    read_times(r);
    read_nodes(r);
    r.users = read_list({"Users", "User"}, r.users_excluded);
    r.accounts = read_list({"Accounts", "Account"}, r.accounts_excluded);
    if (const Field* p = find({"PartitionName", "Partition"}); p && !is_null(p->value)) {
      r.partition = p->value;
    }
    if (const Field* f = find({"Flags", "Flag"})) {
      for (const std::string& flag : split(f->value, ',')) {
        if (!is_null(trim(flag))) r.flags.push_back(to_upper(trim(flag)));
      }
    }
    if (!keep_) return std::nullopt;
    return r;
  }

 private:
  // The last field with one of these keys: a later setting wins, as in scontrol create.
  const Field* find(std::initializer_list<std::string_view> keys) const {
    const Field* found = nullptr;
    for (const Field& f : record_) {
      for (std::string_view k : keys) {
        if (iequals(f.key, k)) found = &f;
      }
    }
    return found;
  }

  void error(const char* code, SourceLoc loc, std::string message, std::string hint = {}) {
    sink_.error(code, loc, std::move(message), std::move(hint));
    keep_ = false;
  }

  std::optional<std::int64_t> time_value(const Field& f) {
    auto t = parse_datetime(f.value);
    if (!t) {
      error("RESV003", f.value_loc, fmt::format("{}='{}' is not a time", f.key, printable(f.value)), kTimeHint);
    }
    return t;
  }

  void read_times(Reservation& r) {
    const Field* start = find({"StartTime"});
    if (!start) {
      error("RESV002", r.loc, fmt::format("reservation '{}' has no StartTime", name_),
            "add StartTime=YYYY-MM-DDTHH:MM:SS");
      return;
    }
    auto s = time_value(*start);
    if (!s) return;
    r.start = *s;
    auto end = read_end(r.start);
    if (!end) return;
    r.end = end->value;
    if (r.end < r.start) {
      error("RESV004", end->field->value_loc,
            fmt::format("reservation '{}' ends before it starts: {}={} is earlier than StartTime={}", name_,
                        end->field->key, printable(end->field->value), printable(start->value)),
            "check StartTime and EndTime");
    } else if (r.end == r.start) {
      error("RESV004", end->field->value_loc,
            fmt::format("reservation '{}' ends when it starts ({}={}), so it reserves nothing", name_, end->field->key,
                        printable(end->field->value)));
    }
  }

  std::optional<TimeAt> read_end(std::int64_t start) {
    const Field* end = find({"EndTime"});
    const Field* duration = find({"Duration"});
    const bool end_unknown =
        end && (is_null(end->value) || iequals(end->value, "Unknown") || iequals(end->value, "None"));
    if (end && !(duration && end_unknown)) {
      auto e = time_value(*end);
      if (!e) return std::nullopt;
      if (duration) check_duration(*duration, *e - start);
      return TimeAt{*e, end};
    }
    if (!duration) {
      error("RESV002", record_.front().key_loc, fmt::format("reservation '{}' has no EndTime and no Duration", name_),
            "add EndTime=YYYY-MM-DDTHH:MM:SS or Duration=[days-]hours:minutes:seconds");
      return std::nullopt;
    }
    auto secs = parse_time_secs(duration->value);
    if (!secs) {
      error("RESV003", duration->value_loc,
            fmt::format("Duration='{}' is not a Slurm time: {}", printable(duration->value), secs.error()),
            "write [days-]hours:minutes:seconds, minutes, or UNLIMITED");
      return std::nullopt;
    }
    return TimeAt{start + (*secs == kInfiniteTime ? kYearSeconds : *secs), duration};
  }

  // scontrol prints both; a hand-edited record may disagree with itself.
  void check_duration(const Field& duration, std::int64_t span) {
    auto secs = parse_time_secs(duration.value);
    if (!secs || *secs == kInfiniteTime || *secs == span || span < 0) return;
    sink_.warning("RESV008", duration.value_loc,
                  fmt::format("Duration={} but EndTime is {} after StartTime; EndTime is used",
                              printable(duration.value), format_duration(span)));
  }

  void read_nodes(Reservation& r) {
    const Field* nodes = find({"Nodes"});
    const Field* count = find({"NodeCnt", "NodeCount"});
    std::optional<std::uint32_t> n;
    if (count && !is_null(count->value)) {
      auto v = parse_uint(count->value, IntWidth::k32);
      if (!v || *v >= kNoVal32) {
        error("RESV005", count->value_loc,
              fmt::format("{}='{}' is not a node count", count->key, printable(count->value)));
        return;
      }
      n = static_cast<std::uint32_t>(*v);
    }
    if (nodes && !is_null(nodes->value)) {
      auto names = expand_hostlist(nodes->value, budget_.options());
      if (!names) {
        error("RESV005", nodes->value_loc,
              fmt::format("Nodes='{}' is not a valid hostlist: {}", printable(nodes->value),
                          printable(names.error(), 160)));
        return;
      }
      std::unordered_set<std::string> seen;  // Slurm keeps nodes in a bitmap: a repeated name counts once
      seen.reserve(names->size());
      for (std::string& name : *names) {
        if (seen.insert(name).second) r.nodes.push_back(std::move(name));
      }
    }
    r.node_count = r.nodes.empty() ? n.value_or(0) : static_cast<std::uint32_t>(r.nodes.size());
    if (!r.nodes.empty() && n && *n != r.node_count) {
      sink_.warning("RESV008", count->value_loc,
                    fmt::format("{}={} but Nodes lists {} nodes; the node list is used", count->key, *n, r.node_count));
    }
    if (r.node_count == 0) no_nodes(r, nodes);
  }

  void no_nodes(const Reservation& r, const Field* nodes) {
    const Field* licenses = find({"Licenses"});
    const Field* burst_buffer = find({"BurstBuffer"});
    if ((licenses && !is_null(licenses->value)) || (burst_buffer && !is_null(burst_buffer->value))) {
      sink_.warning("RESV005", r.loc,
                    fmt::format("reservation '{}' holds only licenses or burst buffer, no nodes; "
                                "the simulator leaves it out",
                                name_));
      keep_ = false;
      return;
    }
    error("RESV005", nodes ? nodes->value_loc : r.loc,
          fmt::format("reservation '{}' names no Nodes and no NodeCnt", name_),
          "add Nodes=<hostlist> or NodeCnt=<count>");
  }

  std::vector<std::string> read_list(std::initializer_list<std::string_view> keys, bool& excluded) {
    std::vector<std::string> out;
    const Field* f = find(keys);
    if (!f || is_null(f->value)) return out;
    bool first = true, mixed = false;
    for (const std::string& item : split(f->value, ',')) {
      if (item.empty()) continue;
      const bool minus = item[0] == '-';
      if (first) excluded = minus;
      mixed = mixed || minus != excluded;
      first = false;
      if (item.size() > (minus ? 1u : 0u)) out.push_back(minus ? item.substr(1) : item);
    }
    if (mixed) {
      error("RESV006", f->value_loc,
            fmt::format("{}='{}' mixes excluded ('-name') and included names; Slurm rejects such a "
                        "reservation",
                        f->key, printable(f->value)),
            "list only excluded names (-a,-b) or only included ones (a,b)");
    }
    return out;
  }

  const Record& record_;
  DiagnosticSink& sink_;
  NodeListBudget& budget_;
  std::string name_;
  bool keep_ = true;
};

// Groups the file's fields into records and keeps the readable ones.
class ReservationFile {
 public:
  ReservationFile(FileId file, DiagnosticSink& sink, const InputLimits& limits)
      : file_(file), sink_(sink), budget_(limits) {}

  void add_line(std::string_view line, int line_no) {
    const std::string_view body = trim(line);
    if (body.empty()) {
      finish();
      orphan_reported_ = false;
      return;
    }
    if (body.front() == '#' || iequals(body, "No reservations in the system")) return;
    for (Field& field : line_fields(line, file_, line_no, sink_)) {
      if (is_record_start(field)) {
        finish();
        current_.emplace();
        orphan_reported_ = false;
      } else if (!current_) {
        if (!orphan_reported_) {
          sink_.error("RESV002", field.key_loc,
                      fmt::format("'{}=' comes before any ReservationName=; the line is not part of a reservation",
                                  printable(field.key)),
                      "start each reservation with ReservationName=<name>");
        }
        orphan_reported_ = true;
        continue;
      }
      current_->push_back(std::move(field));
    }
  }

  void finish() {
    if (!current_) return;
    if (auto r = RecordReader(*current_, sink_, budget_).read()) {
      if (names_.insert(r->name).second) {
        reservations_.push_back(std::move(*r));
      } else {
        sink_.error("RESV007", r->loc,
                    fmt::format("reservation '{}' is listed twice; the first one is kept", printable(r->name)));
      }
    }
    current_.reset();
  }

  std::vector<Reservation> take() { return std::move(reservations_); }

 private:
  FileId file_;
  DiagnosticSink& sink_;
  NodeListBudget budget_;
  std::optional<Record> current_;
  bool orphan_reported_ = false;
  std::set<std::string> names_;
  std::vector<Reservation> reservations_;
};

}  // namespace

std::vector<Reservation> read_reservations_text(FileId file, const SourceManager& sources, DiagnosticSink& sink,
                                                const InputLimits& limits) {
  ReservationFile reader(file, sink, limits);
  int line_no = 0;
  for (const std::string& line : split(sources.file(file).content, '\n')) {
    reader.add_line(line, ++line_no);
  }
  reader.finish();
  return reader.take();
}

Result<std::vector<Reservation>> read_reservations(const std::string& path, SourceManager& sources,
                                                   DiagnosticSink& sink, const InputLimits& limits) {
  auto file = sources.load(path);
  if (!file) return Error{file.error()};
  return read_reservations_text(*file, sources, sink, limits);
}

}  // namespace sa
