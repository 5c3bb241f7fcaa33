#include "tune/spec_file.h"

#include <algorithm>
#include <tuple>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "analyzer/safe_file.h"
#include "analyzer/text_util.h"

namespace sa::tune {

namespace {

constexpr std::int64_t kMaxSpecBytes = 1 << 20;
const std::vector<std::string> kKeys = {"goals", "vary", "seeds", "search", "sample"};
const std::vector<std::string> kSearches = {"grid", "halving", "auto"};

std::string line_of(const std::string& text, int line) {
  std::size_t at = 0;
  for (int l = 1; l < line && at != std::string::npos; ++l) {
    at = text.find('\n', at);
    if (at != std::string::npos) ++at;
  }
  if (at == std::string::npos || at > text.size()) return {};
  return text.substr(at, text.find('\n', at) - at);
}

class SpecParser {
 public:
  SpecParser(const std::string& path, const std::string& text, SpecFile& out) : path_(path), text_(text), out_(out) {}

  void walk(const toml::table& root) {
    for (auto&& [k, node] : root) {
      const std::string key(k.str());
      if (key == "goals") {
        strings(key, node, [&](const std::string& s, const toml::node& n) { add_goal(s, n); });
      } else if (key == "vary") {
        strings(key, node, [&](const std::string& s, const toml::node& n) { add_vary(s, n); });
      } else if (key == "seeds" || key == "sample") {
        count(key, node, key == "seeds" ? 100 : 1000000, key == "seeds" ? out_.seeds : out_.sample);
      } else if (key == "search") {
        search(node);
      } else {
        const std::string near = closest_match(key, kKeys);
        fail(k.source().begin, fmt::format("unknown key '{}'{}", printable(key),
                                           near.empty() ? "; the keys are goals, vary, seeds, search and sample"
                                                        : fmt::format("; did you mean '{}'?", near)));
      }
    }
  }

  void fail(const toml::source_position& at, std::string message) {
    const int line = static_cast<int>(at.line), column = static_cast<int>(at.column);
    out_.errors.push_back({path_, line, column, std::move(message), line_of(text_, line)});
  }

 private:
  template <typename F>
  void strings(const std::string& key, const toml::node& node, F each) {
    const toml::array* items = node.as_array();
    if (!items) return fail(node.source().begin, fmt::format("'{}' must be an array of strings", key));
    for (const toml::node& item : *items) {
      if (auto s = item.value_exact<std::string>()) {
        each(*s, item);
      } else {
        fail(item.source().begin, fmt::format("'{}' must be an array of strings; quote each item", key));
      }
    }
  }

  void count(const std::string& key, const toml::node& node, std::int64_t max, std::optional<std::size_t>& out) {
    auto v = node.value_exact<std::int64_t>();
    if (!v || *v < 1 || *v > max) {
      return fail(node.source().begin, fmt::format("'{}' must be an integer from 1 to {}", key, max));
    }
    out = static_cast<std::size_t>(*v);
  }

  void search(const toml::node& node) {
    auto v = node.value_exact<std::string>();
    if (!v || std::find(kSearches.begin(), kSearches.end(), *v) == kSearches.end()) {
      return fail(node.source().begin, "'search' must be \"grid\", \"halving\" or \"auto\"");
    }
    out_.search = *v;
  }

  // The column of character `column` (1-based) of the string whose node starts at `at`: one
  // past the opening quote when the file writes the text as is (no escapes), else the quote.
  toml::source_position inside(const toml::node& node, const std::string& value, int column) {
    toml::source_position at = node.source().begin;
    const std::string line = line_of(text_, static_cast<int>(at.line));
    const std::size_t quote = at.column - 1;
    if (quote < line.size() && (line[quote] == '"' || line[quote] == '\'') &&
        line.compare(quote + 1, value.size(), value) == 0) {
      at.column += static_cast<toml::source_index>(column);
    }
    return at;
  }

  void add_goal(const std::string& text, const toml::node& node) {
    auto parsed = parse_goal(text);
    if (auto* e = std::get_if<SpecError>(&parsed)) {
      return fail(inside(node, text, e->column), fmt::format("goal '{}': {}", printable(text), e->message));
    }
    out_.goals.push_back(std::get<Goal>(std::move(parsed)));
  }

  void add_vary(const std::string& text, const toml::node& node) {
    auto parsed = parse_vary(text);
    if (auto* e = std::get_if<SpecError>(&parsed)) {
      return fail(inside(node, text, e->column), fmt::format("vary '{}': {}", printable(text), e->message));
    }
    out_.dims.push_back(std::get<Dimension>(std::move(parsed)));
  }

  const std::string& path_;
  const std::string& text_;
  SpecFile& out_;
};

}  // namespace

std::string SpecFileError::render() const {
  std::string out = fmt::format("{}:{}:{}: error: {}", file, line, column, message);
  if (source_line.empty() || column < 1) return out;
  return out + fmt::format("\n  {}\n  {}^", printable(source_line, 200),
                           std::string(static_cast<std::size_t>(column - 1), ' '));
}

SpecFile parse_spec_file(const std::string& path, const std::string& text) {
  SpecFile out;
  SpecParser parser(path, text, out);
  try {
    parser.walk(toml::parse(text, path));
  } catch (const toml::parse_error& e) {
    parser.fail(e.source().begin, std::string(e.description()));
  }
  // toml++ keeps a table's keys sorted by name; the user reads the file top to bottom.
  std::stable_sort(out.errors.begin(), out.errors.end(), [](const auto& a, const auto& b) {
    return std::tie(a.line, a.column) < std::tie(b.line, b.column);
  });
  return out;
}

SpecFile read_spec_file(const std::string& path) {
  auto text = read_regular_file(path, kMaxSpecBytes);
  if (!text) {
    SpecFile out;
    out.errors.push_back({path, 1, 1, text.error(), {}});
    return out;
  }
  SpecFile out = parse_spec_file(path, *text);
  out.text = std::move(*text);
  return out;
}

}  // namespace sa::tune
