#include "json_schema.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <regex>

namespace sa::test {
namespace {

using nlohmann::json;
using Errors = std::vector<std::string>;

// A $ref cycle that never descends into the document (a -> b -> a) would recurse forever;
// the cap turns it into an error. Real documents nest far less deeply than this.
constexpr int kMaxDepth = 512;

// How many errors of each failed anyOf/oneOf alternative go into the summary: enough to
// see why an alternative failed without burying the message.
constexpr std::size_t kErrorsPerAlternative = 3;

// JSON pointer escaping (RFC 6901): "~" becomes "~0" and "/" becomes "~1".
std::string escape_token(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

std::string child_path(const std::string& path, const std::string& key) { return path + "/" + escape_token(key); }
std::string child_path(const std::string& path, std::size_t index) { return path + "/" + std::to_string(index); }

// Long values (a whole object that failed "not") are cut so one error stays one line.
std::string short_dump(const json& value) {
  std::string text = value.dump();
  if (text.size() > 80) text = text.substr(0, 77) + "...";
  return text;
}

std::string num(std::uint64_t n) { return std::to_string(n); }

void fail(Errors& errors, const std::string& path, const std::string& message) {
  errors.push_back((path.empty() ? "(root)" : path) + ": " + message);
}

// JSON Schema counts string length in code points, not bytes: skip UTF-8 continuation bytes.
std::size_t utf8_length(const std::string& text) {
  return static_cast<std::size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0u) != 0x80u; }));
}

// A non-negative integer keyword (minItems, maxLength, ...); anything else is ignored.
std::optional<std::uint64_t> count_keyword(const json& schema, const char* key) {
  auto it = schema.find(key);
  if (it == schema.end() || !it->is_number_integer()) return std::nullopt;
  if (it->is_number_unsigned()) return it->get<std::uint64_t>();
  auto value = it->get<std::int64_t>();
  if (value < 0) return std::nullopt;
  return static_cast<std::uint64_t>(value);
}

// Draft-06 and later count 1.0 as an integer; draft-04 left it open. Accepting it keeps a
// float-typed but integral value from failing "type": "integer".
bool is_integer(const json& value) {
  if (value.is_number_integer()) return true;
  if (!value.is_number_float()) return false;
  double d = value.get<double>();
  return std::isfinite(d) && std::trunc(d) == d;
}

bool matches_type(const std::string& name, const json& value) {
  if (name == "integer") return is_integer(value);
  if (name == "number") return value.is_number();
  if (name == "string") return value.is_string();
  if (name == "boolean") return value.is_boolean();
  if (name == "object") return value.is_object();
  if (name == "array") return value.is_array();
  if (name == "null") return value.is_null();
  return false;
}

std::string type_of(const json& value) {
  if (value.is_number_integer()) return "integer";
  return value.type_name();  // "number" for floats, else null/boolean/string/array/object
}

// Characters RFC 3986 never allows unescaped in a URI. Backslashes matter most: a Windows
// path such as "src\main.c" is not a URI, and code scanning rejects it.
bool uri_chars_ok(const std::string& text) {
  static const std::string kForbidden = " \"<>\\^`{|}";
  for (std::size_t i = 0; i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f || kForbidden.find(static_cast<char>(c)) != std::string::npos) return false;
    if (c == '%' && (i + 2 >= text.size() || !std::isxdigit(static_cast<unsigned char>(text[i + 1])) ||
                     !std::isxdigit(static_cast<unsigned char>(text[i + 2]))))
      return false;
  }
  return true;
}

// An absolute URI needs a scheme ("https:", "file:"); a URI reference may be relative.
bool is_uri(const std::string& text) {
  static const std::regex kScheme("^[A-Za-z][A-Za-z0-9+.-]*:");
  return uri_chars_ok(text) && std::regex_search(text, kScheme);
}

// RFC 3339 date-time, with field ranges checked but not days per month.
bool is_date_time(const std::string& text) {
  static const std::regex kDateTime(
      R"(^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$)");
  std::smatch m;
  if (!std::regex_match(text, m, kDateTime)) return false;
  auto field = [&m](std::size_t i) { return m[i].matched ? std::stoi(m[i].str()) : 0; };
  return field(2) >= 1 && field(2) <= 12 && field(3) >= 1 && field(3) <= 31 && field(4) <= 23 && field(5) <= 59 &&
         field(6) <= 60 && field(9) <= 23 && field(10) <= 59;
}

// Unknown formats are annotations only (as the drafts allow), so they always pass.
bool format_ok(const std::string& format, const std::string& text) {
  if (format == "uri") return is_uri(text);
  if (format == "uri-reference") return uri_chars_ok(text);
  if (format == "date-time") return is_date_time(text);
  return true;
}

std::string summarize_alternatives(const std::vector<Errors>& failures) {
  std::string out;
  for (std::size_t i = 0; i < failures.size(); ++i) {
    if (i > 0) out += "; ";
    out += "#" + std::to_string(i) + ": ";
    std::size_t shown = std::min(failures[i].size(), kErrorsPerAlternative);
    for (std::size_t k = 0; k < shown; ++k) out += (k > 0 ? ", " : "") + failures[i][k];
  }
  return out;
}

class Validator {
 public:
  explicit Validator(const json& root) : root_(root) {}

  void validate(const json& schema, const json& doc, const std::string& path, Errors& errors) {
    if (schema.is_boolean()) {  // draft-06+: true accepts everything, false nothing
      if (!schema.get<bool>()) fail(errors, path, "no value is allowed here (schema is false)");
      return;
    }
    if (!schema.is_object()) return;  // not a schema; nothing to check
    if (depth_ >= kMaxDepth) {
      fail(errors, path, "schema nesting deeper than " + std::to_string(kMaxDepth) + " (a $ref cycle?)");
      return;
    }
    ++depth_;
    // Up to draft-07, keywords beside "$ref" are ignored (in SARIF they are descriptions).
    if (auto ref = schema.find("$ref"); ref != schema.end())
      check_ref(*ref, doc, path, errors);
    else
      check_keywords(schema, doc, path, errors);
    --depth_;
  }

 private:
  void check_keywords(const json& schema, const json& doc, const std::string& path, Errors& errors) {
    check_type(schema, doc, path, errors);
    check_enum_const(schema, doc, path, errors);
    if (doc.is_number()) check_number(schema, doc, path, errors);
    if (doc.is_string()) check_string(schema, doc.get_ref<const std::string&>(), path, errors);
    if (doc.is_array()) check_array(schema, doc, path, errors);
    if (doc.is_object()) check_object(schema, doc, path, errors);
    check_combinators(schema, doc, path, errors);
  }

  // Only pointers into this schema ("#/definitions/x"): the SARIF schema needs no more.
  void check_ref(const json& ref, const json& doc, const std::string& path, Errors& errors) {
    std::string target = ref.is_string() ? ref.get<std::string>() : ref.dump();
    const json* resolved = resolve(target);
    if (resolved == nullptr) {
      fail(errors, path, "cannot resolve $ref \"" + target + "\" (only \"#/...\" pointers are supported)");
      return;
    }
    validate(*resolved, doc, path, errors);
  }

  const json* resolve(const std::string& ref) const {
    if (ref.empty() || ref[0] != '#') return nullptr;
    try {
      json::json_pointer pointer(ref.substr(1));
      return root_.contains(pointer) ? &root_.at(pointer) : nullptr;
    } catch (const json::exception&) {  // malformed pointer
      return nullptr;
    }
  }

  static void check_type(const json& schema, const json& doc, const std::string& path, Errors& errors) {
    auto it = schema.find("type");
    if (it == schema.end()) return;
    std::vector<std::string> names;
    if (it->is_string()) names.push_back(it->get<std::string>());
    if (it->is_array())
      for (const auto& name : *it)
        if (name.is_string()) names.push_back(name.get<std::string>());
    if (names.empty()) return;
    for (const auto& name : names)
      if (matches_type(name, doc)) return;
    std::string expected;
    for (const auto& name : names) expected += (expected.empty() ? "" : " or ") + name;
    fail(errors, path, "expected type " + expected + ", got " + type_of(doc));
  }

  static void check_enum_const(const json& schema, const json& doc, const std::string& path, Errors& errors) {
    if (auto it = schema.find("enum"); it != schema.end() && it->is_array()) {
      // nlohmann's == compares numbers by value, so 1 and 1.0 are one enum member, as the drafts say.
      if (std::none_of(it->begin(), it->end(), [&doc](const json& v) { return v == doc; }))
        fail(errors, path, "value " + short_dump(doc) + " is not one of " + short_dump(*it));
    }
    if (auto it = schema.find("const"); it != schema.end() && *it != doc)
      fail(errors, path, "value " + short_dump(doc) + " is not the constant " + short_dump(*it));
  }

  // Bounds are compared as doubles: exact for every integer a SARIF log holds (< 2^53).
  static void check_number(const json& schema, const json& doc, const std::string& path, Errors& errors) {
    double value = doc.get<double>();
    auto bound = [&schema](const char* key) -> const json* {
      auto it = schema.find(key);
      return it != schema.end() && it->is_number() ? &*it : nullptr;
    };
    // Draft-04 spells an exclusive bound as a boolean beside minimum/maximum.
    auto flag = [&schema](const char* key) {
      auto it = schema.find(key);
      return it != schema.end() && *it == json(true);
    };
    if (const json* min = bound("minimum")) {
      bool exclusive = flag("exclusiveMinimum");
      if (exclusive ? value <= min->get<double>() : value < min->get<double>())
        fail(errors, path,
             "value " + doc.dump() + " is below the " + (exclusive ? "exclusive " : "") + "minimum " + min->dump());
    }
    if (const json* max = bound("maximum")) {
      bool exclusive = flag("exclusiveMaximum");
      if (exclusive ? value >= max->get<double>() : value > max->get<double>())
        fail(errors, path,
             "value " + doc.dump() + " is above the " + (exclusive ? "exclusive " : "") + "maximum " + max->dump());
    }
    // Draft-06+ spell them as numbers of their own.
    if (const json* min = bound("exclusiveMinimum"); min && value <= min->get<double>())
      fail(errors, path, "value " + doc.dump() + " is not above the exclusive minimum " + min->dump());
    if (const json* max = bound("exclusiveMaximum"); max && value >= max->get<double>())
      fail(errors, path, "value " + doc.dump() + " is not below the exclusive maximum " + max->dump());
  }

  void check_string(const json& schema, const std::string& text, const std::string& path, Errors& errors) {
    std::size_t length = utf8_length(text);
    if (auto min = count_keyword(schema, "minLength"); min && length < *min)
      fail(errors, path, "string of length " + num(length) + " is shorter than minLength " + num(*min));
    if (auto max = count_keyword(schema, "maxLength"); max && length > *max)
      fail(errors, path, "string of length " + num(length) + " is longer than maxLength " + num(*max));
    if (auto it = schema.find("pattern"); it != schema.end() && it->is_string())
      check_pattern(it->get_ref<const std::string&>(), text, path, errors);
    if (auto it = schema.find("format");
        it != schema.end() && it->is_string() && !format_ok(it->get_ref<const std::string&>(), text))
      fail(errors, path, "\"" + text + "\" is not a valid " + it->get<std::string>());
  }

  // "pattern" is unanchored: the value needs only contain a match.
  void check_pattern(const std::string& pattern, const std::string& text, const std::string& path, Errors& errors) {
    const std::regex* re = regex_for(pattern);
    if (re == nullptr)
      fail(errors, path, "schema pattern \"" + pattern + "\" is not a valid ECMAScript regex");
    else if (!std::regex_search(text, *re))
      fail(errors, path, "\"" + text + "\" does not match pattern \"" + pattern + "\"");
  }

  // The same few patterns are checked against many values; compile each once.
  const std::regex* regex_for(const std::string& pattern) {
    if (auto it = regexes_.find(pattern); it != regexes_.end()) return &it->second;
    try {
      return &regexes_.emplace(pattern, std::regex(pattern, std::regex::ECMAScript)).first->second;
    } catch (const std::regex_error&) {
      return nullptr;
    }
  }

  void check_array(const json& schema, const json& doc, const std::string& path, Errors& errors) {
    check_items(schema, doc, path, errors);
    if (auto min = count_keyword(schema, "minItems"); min && doc.size() < *min)
      fail(errors, path, "array of " + num(doc.size()) + " items has fewer than minItems " + num(*min));
    if (auto max = count_keyword(schema, "maxItems"); max && doc.size() > *max)
      fail(errors, path, "array of " + num(doc.size()) + " items has more than maxItems " + num(*max));
    if (schema.value("uniqueItems", json(false)) == json(true)) check_unique(doc, path, errors);
  }

  // "items" is one schema for every element, or (tuple form) one schema per position with
  // "additionalItems" for the rest.
  void check_items(const json& schema, const json& doc, const std::string& path, Errors& errors) {
    auto items = schema.find("items");
    if (items == schema.end()) return;
    if (!items->is_array()) {
      for (std::size_t i = 0; i < doc.size(); ++i) validate(*items, doc[i], child_path(path, i), errors);
      return;
    }
    auto extra = schema.find("additionalItems");
    for (std::size_t i = 0; i < doc.size(); ++i) {
      if (i < items->size())
        validate((*items)[i], doc[i], child_path(path, i), errors);
      else if (extra != schema.end())
        validate(*extra, doc[i], child_path(path, i), errors);
    }
  }

  // Quadratic, but arrays in test documents are short.
  static void check_unique(const json& doc, const std::string& path, Errors& errors) {
    for (std::size_t i = 0; i < doc.size(); ++i)
      for (std::size_t k = i + 1; k < doc.size(); ++k)
        if (doc[i] == doc[k]) {
          fail(errors, path, "items " + num(i) + " and " + num(k) + " are equal but uniqueItems is set");
          return;
        }
  }

  void check_object(const json& schema, const json& doc, const std::string& path, Errors& errors) {
    if (auto it = schema.find("required"); it != schema.end() && it->is_array())
      for (const auto& name : *it)
        if (name.is_string() && !doc.contains(name.get<std::string>()))
          fail(errors, path, "missing required property \"" + name.get<std::string>() + "\"");
    for (const auto& [key, value] : doc.items()) check_member(schema, key, value, path, errors);
    check_dependencies(schema, doc, path, errors);
  }

  // One member against properties, patternProperties and, if neither named it,
  // additionalProperties.
  void check_member(const json& schema, const std::string& key, const json& value, const std::string& path,
                    Errors& errors) {
    bool named = false;
    if (auto props = schema.find("properties"); props != schema.end() && props->is_object() && props->contains(key)) {
      validate(props->at(key), value, child_path(path, key), errors);
      named = true;
    }
    if (auto patterns = schema.find("patternProperties"); patterns != schema.end() && patterns->is_object())
      for (const auto& [pattern, sub] : patterns->items()) {
        const std::regex* re = regex_for(pattern);
        if (re != nullptr && std::regex_search(key, *re)) {
          validate(sub, value, child_path(path, key), errors);
          named = true;
        }
      }
    auto extra = schema.find("additionalProperties");
    if (named || extra == schema.end()) return;
    if (*extra == json(false))
      fail(errors, path, "property \"" + key + "\" is not allowed (additionalProperties is false)");
    else
      validate(*extra, value, child_path(path, key), errors);
  }

  // Draft-04/07 "dependencies": a present key requires other keys (array form) or makes the
  // whole object match another schema (schema form).
  void check_dependencies(const json& schema, const json& doc, const std::string& path, Errors& errors) {
    auto deps = schema.find("dependencies");
    if (deps == schema.end() || !deps->is_object()) return;
    for (const auto& [key, dep] : deps->items()) {
      if (!doc.contains(key)) continue;
      if (!dep.is_array()) {
        validate(dep, doc, path, errors);
        continue;
      }
      for (const auto& name : dep)
        if (name.is_string() && !doc.contains(name.get<std::string>()))
          fail(errors, path, "property \"" + key + "\" requires property \"" + name.get<std::string>() + "\"");
    }
  }

  void check_combinators(const json& schema, const json& doc, const std::string& path, Errors& errors) {
    if (auto all = schema.find("allOf"); all != schema.end() && all->is_array())
      for (const auto& sub : *all) validate(sub, doc, path, errors);
    if (auto any = schema.find("anyOf"); any != schema.end() && any->is_array())
      check_alternatives(*any, "anyOf", doc, path, errors);
    if (auto one = schema.find("oneOf"); one != schema.end() && one->is_array())
      check_alternatives(*one, "oneOf", doc, path, errors);
    if (auto neg = schema.find("not"); neg != schema.end()) {
      Errors ignored;
      validate(*neg, doc, path, ignored);
      if (ignored.empty()) fail(errors, path, "value " + short_dump(doc) + " matches the \"not\" schema");
    }
  }

  // anyOf needs at least one matching alternative, oneOf exactly one. Each alternative is
  // checked into its own list so a failed one adds nothing unless all of them fail.
  void check_alternatives(const json& subs, const std::string& keyword, const json& doc, const std::string& path,
                          Errors& errors) {
    std::vector<Errors> failures;
    std::vector<std::size_t> matched;
    for (std::size_t i = 0; i < subs.size(); ++i) {
      Errors sub_errors;
      validate(subs[i], doc, path, sub_errors);
      if (sub_errors.empty()) matched.push_back(i);
      failures.push_back(std::move(sub_errors));
    }
    if (matched.empty()) {
      fail(errors, path, "matches none of the " + keyword + " alternatives (" + summarize_alternatives(failures) + ")");
    } else if (keyword == "oneOf" && matched.size() > 1) {
      std::string which;
      for (auto i : matched) which += (which.empty() ? "#" : ", #") + std::to_string(i);
      fail(errors, path, "matches " + num(matched.size()) + " oneOf alternatives (" + which + "), not exactly one");
    }
  }

  const json& root_;
  std::map<std::string, std::regex> regexes_;
  int depth_ = 0;
};

}  // namespace

std::vector<std::string> validate_json_schema(const nlohmann::json& schema, const nlohmann::json& doc) {
  Errors errors;
  Validator(schema).validate(schema, doc, "", errors);
  return errors;
}

}  // namespace sa::test
