#include "analyzer/node_events_reader.h"

#include <fmt/format.h>

#include <cctype>
#include <optional>
#include <string_view>
#include <unordered_set>

#include "analyzer/date_time.h"
#include "analyzer/hostlist.h"
#include "analyzer/psv_table.h"
#include "analyzer/text_util.h"

namespace sa {

namespace {

constexpr const char* kTimeHint = "write YYYY-MM-DDTHH:MM:SS or epoch seconds";

struct Word {
  std::string_view text;
  int column = 0;
};

std::vector<Word> words_of(std::string_view line) {
  std::vector<Word> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    std::size_t j = i;
    while (j < line.size() && !std::isspace(static_cast<unsigned char>(line[j]))) ++j;
    if (j > i) words.push_back({line.substr(i, j - i), static_cast<int>(i) + 1});
    i = j;
  }
  return words;
}

std::optional<std::int64_t> event_time(std::string_view text, const char* what, SourceLoc loc, DiagnosticSink& sink) {
  auto t = parse_datetime(text);
  if (!t) {
    sink.error("EVNT002", loc, fmt::format("{} '{}' is not a time", what, printable(text)), kTimeHint);
  }
  return t;
}

// The distinct names of `expr`, or nullopt after reporting why there are none.
std::optional<std::vector<std::string>> event_nodes(std::string_view expr, SourceLoc loc, DiagnosticSink& sink,
                                                    NodeListBudget& budget) {
  auto names = expand_hostlist(expr, budget.options());
  if (!names) {
    sink.error("EVNT004", loc,
               fmt::format("'{}' is not a valid hostlist: {}", printable(expr), printable(names.error(), 160)));
    return std::nullopt;
  }
  std::vector<std::string> nodes;
  std::unordered_set<std::string> seen;
  seen.reserve(names->size());
  for (std::string& name : *names) {
    if (seen.insert(name).second) nodes.push_back(std::move(name));
  }
  if (nodes.empty()) {
    sink.error("EVNT004", loc, fmt::format("'{}' names no nodes", printable(expr)));
    return std::nullopt;
  }
  return nodes;
}

bool in_order(const NodeEvent& e, std::string_view start, std::string_view end, SourceLoc end_loc,
              DiagnosticSink& sink) {
  if (e.end == kOpenEnd || e.end >= e.start) return true;
  sink.error("EVNT003", end_loc,
             fmt::format("the event ends before it starts: end '{}' is earlier than start '{}'", printable(end),
                         printable(start)),
             "check the start and end times");
  return false;
}

// START END HOSTLIST STATE [REASON...]
std::optional<NodeEvent> read_event_line(std::string_view line, FileId file, int line_no, DiagnosticSink& sink,
                                         NodeListBudget& budget) {
  const std::vector<Word> w = words_of(line);
  auto loc = [&](std::size_t i) { return SourceLoc{file, line_no, w[i].column}; };
  if (w.size() < 4) {
    const bool table = line.find('|') != std::string_view::npos;
    sink.error(
        "EVNT001", loc(0),
        fmt::format("expected START END HOSTLIST STATE [REASON], found {} field{}", w.size(), w.size() == 1 ? "" : "s"),
        table ? "a '|' table needs the header line of `sacctmgr show event -P` first" : "");
    return std::nullopt;
  }
  NodeEvent e;
  e.loc = loc(0);
  auto start = event_time(w[0].text, "start", loc(0), sink);
  auto end = w[1].text == "-" ? std::optional<std::int64_t>(kOpenEnd) : event_time(w[1].text, "end", loc(1), sink);
  auto nodes = event_nodes(w[2].text, loc(2), sink, budget);
  e.state = normalize_node_state(std::string(w[3].text));
  if (e.state.empty()) {
    sink.error("EVNT005", loc(3), fmt::format("state '{}' is neither DOWN nor DRAIN", printable(w[3].text)),
               "write DOWN (the node is unusable) or DRAIN (no new jobs)");
  }
  if (!start || !end || !nodes || e.state.empty()) return std::nullopt;
  e.start = *start;
  e.end = *end;
  e.nodes = std::move(*nodes);
  if (w.size() > 4) {
    e.reason = std::string(trim(line.substr(static_cast<std::size_t>(w[4].column - 1))));
  }
  if (!in_order(e, w[0].text, w[1].text, loc(1), sink)) return std::nullopt;
  return e;
}

std::vector<NodeEvent> read_event_lines(FileId file, const std::string& content, DiagnosticSink& sink,
                                        NodeListBudget& budget) {
  std::vector<NodeEvent> events;
  int line_no = 0;
  for (const std::string& line : split(content, '\n')) {
    ++line_no;
    const std::string_view body = trim(line);
    if (body.empty() || body.front() == '#') continue;
    if (auto e = read_event_line(line, file, line_no, sink, budget)) events.push_back(std::move(*e));
  }
  return events;
}

struct EventColumns {
  std::optional<std::size_t> node, start, end, state, reason, event;
};

std::optional<NodeEvent> read_event_row(const PsvTable& t, const PsvTable::Row& row, const EventColumns& c,
                                        DiagnosticSink& sink, NodeListBudget& budget) {
  const std::string_view node = trim(t.field(row, *c.node));
  if (node.empty()) return std::nullopt;  // a cluster event
  if (c.event && iequals(trim(t.field(row, *c.event)), "Cluster")) return std::nullopt;
  NodeEvent e;
  e.loc = t.loc(row, *c.node);
  const std::string_view start_text = trim(t.field(row, *c.start));
  auto start = event_time(start_text, "TimeStart", t.loc(row, *c.start), sink);
  const std::string_view end_text = trim(t.field(row, *c.end));
  const bool open = end_text.empty() || iequals(end_text, "Unknown") || iequals(end_text, "None");
  auto end = open ? std::optional<std::int64_t>(kOpenEnd) : event_time(end_text, "TimeEnd", t.loc(row, *c.end), sink);
  auto nodes = event_nodes(node, e.loc, sink, budget);
  const std::string state(trim(t.field(row, *c.state)));
  e.state = normalize_node_state(state);
  if (e.state.empty()) {
    sink.warning("EVNT005", t.loc(row, *c.state),
                 fmt::format("State '{}' is neither down nor drained; the event is ignored", printable(state)));
  }
  if (!start || !end || !nodes || e.state.empty()) return std::nullopt;
  e.start = *start;
  e.end = *end;
  e.nodes = std::move(*nodes);
  if (c.reason) e.reason = std::string(trim(t.field(row, *c.reason)));
  if (!in_order(e, start_text, end_text, t.loc(row, *c.end), sink)) return std::nullopt;
  return e;
}

std::vector<NodeEvent> read_event_table(FileId file, const SourceManager& sources, DiagnosticSink& sink,
                                        int header_line, NodeListBudget& budget) {
  const PsvTable table = read_psv(sources, file, sink, "EVNT001");
  auto column = [&](const char* name, const char* alias) {
    auto c = table.column(name);
    return c ? c : table.column(alias);
  };
  const EventColumns c{column("NodeName", "Nodes"), column("TimeStart", "Start"), column("TimeEnd", "End"),
                       table.column("State"),       table.column("Reason"),       table.column("Event")};
  if (!c.node || !c.start || !c.end || !c.state) {
    sink.error("EVNT006", {file, header_line, 1},
               "the event table needs the NodeName, TimeStart, TimeEnd and State columns",
               "use `sacctmgr show event -P` with its default format, or add them with Format=");
    return {};
  }
  std::vector<NodeEvent> events;
  for (const PsvTable::Row& row : table.rows) {
    if (auto e = read_event_row(table, row, c, sink, budget)) events.push_back(std::move(*e));
  }
  return events;
}

}  // namespace

std::string normalize_node_state(const std::string& state) {
  bool down = false, drain = false;
  for (const std::string& part : split(to_upper(trim(state)), '+')) {
    std::string_view word = part;
    // Compact states carry a flag symbol: DOWN* (not responding), DRAIN~ (powered off)...
    while (!word.empty() && std::string_view("*~#!%$@^-").find(word.back()) != std::string_view::npos) {
      word.remove_suffix(1);
    }
    down = down || word == "DOWN";
    drain = drain || word == "DRAIN" || word == "DRNG" || word == "DRAINED" || word == "DRAINING" || word == "FAIL" ||
            word == "FAILG" || word == "FAILING";
  }
  if (down) return "DOWN";
  return drain ? "DRAIN" : "";
}

std::vector<NodeEvent> read_node_events_text(FileId file, const SourceManager& sources, DiagnosticSink& sink,
                                             const InputLimits& limits) {
  NodeListBudget budget(limits);
  const std::string& content = sources.file(file).content;
  int line_no = 0;
  for (const std::string& line : split(content, '\n')) {
    ++line_no;
    const std::string_view body = trim(line);
    if (body.empty()) continue;
    // sacctmgr output starts with its header; a hand-written file with a time or a comment.
    const bool header = body.front() != '#' && !std::isdigit(static_cast<unsigned char>(body.front()));
    if (header && body.find('|') != std::string_view::npos) {
      return read_event_table(file, sources, sink, line_no, budget);
    }
    if (header && ifind(body, "TimeStart") != std::string_view::npos) {
      sink.error("EVNT006", {file, line_no, 1},
                 "this is `sacctmgr show event` printed as a table; its columns cannot be split "
                 "reliably",
                 "run `sacctmgr show event -P` (parsable output)");
      return {};
    }
    break;
  }
  return read_event_lines(file, content, sink, budget);
}

Result<std::vector<NodeEvent>> read_node_events(const std::string& path, SourceManager& sources, DiagnosticSink& sink,
                                                const InputLimits& limits) {
  auto file = sources.load(path);
  if (!file) return Error{file.error()};
  return read_node_events_text(*file, sources, sink, limits);
}

}  // namespace sa
