// The test-only JSON-Schema validator, first on tiny schemas, then against the official
// SARIF 2.1.0 schema (tests/data/sarif/): a hand-written log of the shape our SARIF output
// takes must pass, and the usual mistakes must be reported at the right JSON pointer.
#include "json_schema.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

namespace sa::test {
namespace {

using nlohmann::json;
using Errors = std::vector<std::string>;

// SA_SOURCE_DIR is how every test finds tests/data (see tests/CMakeLists.txt).
constexpr const char* kSarifSchema = SA_SOURCE_DIR "/tests/data/sarif/sarif-schema-2.1.0.json";

// True if one error is reported at exactly `path` and mentions `text`.
bool has_error(const Errors& errors, const std::string& path, const std::string& text) {
  for (const auto& e : errors)
    if (e.rfind(path + ": ", 0) == 0 && e.find(text) != std::string::npos) return true;
  return false;
}

std::string dump(const Errors& errors) {
  std::string out;
  for (const auto& e : errors) out += "  " + e + "\n";
  return out.empty() ? "  (no errors)\n" : out;
}

// Macros rather than helpers so a failure points at the line of the case that failed.
#define EXPECT_VALID(schema, doc)                                      \
  do {                                                                 \
    Errors errs_ = validate_json_schema(schema, doc);                  \
    EXPECT_TRUE(errs_.empty()) << (doc).dump() << "\n" << dump(errs_); \
  } while (0)

#define EXPECT_ERROR(schema, doc, path, text)                                         \
  do {                                                                                \
    Errors errs_ = validate_json_schema(schema, doc);                                 \
    EXPECT_TRUE(has_error(errs_, path, text)) << (doc).dump() << "\n" << dump(errs_); \
  } while (0)

// ---- tiny schemas -------------------------------------------------------------------

TEST(JsonSchemaKeywords, TypeTellsIntegerFromNumber) {
  const json integer = {{"type", "integer"}};
  EXPECT_VALID(integer, json(3));
  EXPECT_VALID(integer, json(3.0));  // draft-06+: an integral float is an integer
  EXPECT_ERROR(integer, json(3.5), "(root)", "expected type integer, got number");
  EXPECT_ERROR(integer, json("3"), "(root)", "expected type integer, got string");

  const json number = {{"type", "number"}};
  EXPECT_VALID(number, json(3));
  EXPECT_VALID(number, json(3.5));
  EXPECT_ERROR(number, json(true), "(root)", "expected type number, got boolean");
}

TEST(JsonSchemaKeywords, TypeArrayAcceptsAnyListedType) {
  const json schema = json::parse(R"({"type": ["array", "null"]})");
  EXPECT_VALID(schema, json::array());
  EXPECT_VALID(schema, json(nullptr));
  EXPECT_ERROR(schema, json::object(), "(root)", "expected type array or null, got object");
}

TEST(JsonSchemaKeywords, EnumAndConst) {
  const json level = json::parse(R"({"enum": ["none", "note", "warning", "error"]})");
  EXPECT_VALID(level, json("note"));
  EXPECT_ERROR(level, json("fatal"), "(root)", R"(value "fatal" is not one of ["none","note","warning","error"])");
  const json one = json::parse(R"({"const": 1})");
  EXPECT_VALID(one, json(1.0));  // numbers compare by value
  EXPECT_ERROR(one, json(2), "(root)", "is not the constant 1");
}

TEST(JsonSchemaKeywords, RequiredNamesTheMissingProperty) {
  const json schema = json::parse(R"({"type": "object", "required": ["a", "b"]})");
  EXPECT_VALID(schema, json::parse(R"({"a": 1, "b": 2})"));
  Errors errors = validate_json_schema(schema, json::parse(R"({"a": 1})"));
  ASSERT_EQ(errors.size(), 1u) << dump(errors);
  EXPECT_EQ(errors[0], R"((root): missing required property "b")");
  EXPECT_VALID(json::parse(R"({"required": ["a"]})"), json(5));  // required only constrains objects
}

TEST(JsonSchemaKeywords, RefFollowsPointerIntoDefinitions) {
  const json schema = json::parse(R"({
    "definitions": {"positive": {"type": "integer", "minimum": 1}},
    "properties": {"line": {"$ref": "#/definitions/positive"},
                   "lines": {"type": "array", "items": {"$ref": "#/definitions/positive"}}}})");
  EXPECT_VALID(schema, json::parse(R"({"line": 4, "lines": [1, 2]})"));
  EXPECT_ERROR(schema, json::parse(R"({"line": 0})"), "/line", "value 0 is below the minimum 1");
  EXPECT_ERROR(schema, json::parse(R"({"lines": [1, "2"]})"), "/lines/1", "expected type integer");
}

TEST(JsonSchemaKeywords, RefThatCannotBeFollowedIsAnError) {
  EXPECT_ERROR(json::parse(R"({"$ref": "#/definitions/nope"})"), json(1), "(root)", "cannot resolve $ref");
  EXPECT_ERROR(json::parse(R"({"$ref": "other.json#/x"})"), json(1), "(root)", "cannot resolve $ref");
  const json cycle = json::parse(R"({"$ref": "#/definitions/a",
                                     "definitions": {"a": {"$ref": "#/definitions/b"},
                                                     "b": {"$ref": "#/definitions/a"}}})");
  EXPECT_ERROR(cycle, json(1), "(root)", "a $ref cycle?");
}

TEST(JsonSchemaKeywords, OneOfNeedsExactlyOneMatch) {
  const json schema =
      json::parse(R"({"oneOf": [{"required": ["runGraphIndex"]}, {"required": ["resultGraphIndex"]}]})");
  EXPECT_VALID(schema, json::parse(R"({"runGraphIndex": 0})"));
  EXPECT_ERROR(schema, json::object(), "(root)", "matches none of the oneOf alternatives");
  EXPECT_ERROR(schema, json::object(), "(root)", R"(#1: (root): missing required property "resultGraphIndex")");
  EXPECT_ERROR(schema, json::parse(R"({"runGraphIndex": 0, "resultGraphIndex": 1})"), "(root)",
               "matches 2 oneOf alternatives (#0, #1), not exactly one");
}

TEST(JsonSchemaKeywords, AnyOfAllOfNot) {
  const json any = json::parse(R"({"anyOf": [{"type": "string"}, {"type": "integer", "minimum": 0}]})");
  EXPECT_VALID(any, json("x"));
  EXPECT_VALID(any, json(0));
  EXPECT_ERROR(any, json(-1), "(root)", "matches none of the anyOf alternatives");

  const json all = json::parse(R"({"allOf": [{"minimum": 0}, {"maximum": 10}]})");
  EXPECT_VALID(all, json(5));
  EXPECT_ERROR(all, json(11), "(root)", "value 11 is above the maximum 10");

  const json neg = json::parse(R"({"not": {"type": "null"}})");
  EXPECT_VALID(neg, json(1));
  EXPECT_ERROR(neg, json(nullptr), "(root)", "matches the \"not\" schema");
}

TEST(JsonSchemaKeywords, AdditionalPropertiesFalseNamesTheStray) {
  const json schema = json::parse(R"({"type": "object", "additionalProperties": false,
                                      "properties": {"text": {"type": "string"}}})");
  EXPECT_VALID(schema, json::parse(R"({"text": "hi"})"));
  Errors errors = validate_json_schema(schema, json::parse(R"({"text": "hi", "txet": "oops"})"));
  ASSERT_EQ(errors.size(), 1u) << dump(errors);
  EXPECT_EQ(errors[0], R"((root): property "txet" is not allowed (additionalProperties is false))");
}

TEST(JsonSchemaKeywords, AdditionalAndPatternPropertiesAsSchemas) {
  const json schema = json::parse(R"({"patternProperties": {"^x-": {"type": "integer"}},
                                      "additionalProperties": {"type": "string"}})");
  EXPECT_VALID(schema, json::parse(R"({"x-count": 3, "name": "n"})"));
  EXPECT_ERROR(schema, json::parse(R"({"x-count": "3"})"), "/x-count", "expected type integer");
  EXPECT_ERROR(schema, json::parse(R"({"name": 3})"), "/name", "expected type string");
}

TEST(JsonSchemaKeywords, PathsEscapeSlashAndTilde) {
  const json schema = json::parse(R"({"additionalProperties": {"type": "string"}})");
  EXPECT_ERROR(schema, json::parse(R"({"a/b~c": 1})"), "/a~1b~0c", "expected type string");
}

TEST(JsonSchemaKeywords, ArrayKeywords) {
  const json schema = json::parse(R"({"type": "array", "minItems": 1, "maxItems": 3, "uniqueItems": true,
                                      "items": {"type": "string"}})");
  EXPECT_VALID(schema, json::parse(R"(["a", "b"])"));
  EXPECT_ERROR(schema, json::array(), "(root)", "fewer than minItems 1");
  EXPECT_ERROR(schema, json::parse(R"(["a", "b", "c", "d"])"), "(root)", "more than maxItems 3");
  EXPECT_ERROR(schema, json::parse(R"(["a", "b", "a"])"), "(root)", "items 0 and 2 are equal");
  EXPECT_ERROR(schema, json::parse(R"(["a", 2])"), "/1", "expected type string");

  const json tuple = json::parse(R"({"items": [{"type": "integer"}], "additionalItems": false})");
  EXPECT_VALID(tuple, json::parse("[1]"));
  EXPECT_ERROR(tuple, json::parse("[1, 2]"), "/1", "no value is allowed here");
}

TEST(JsonSchemaKeywords, StringKeywords) {
  const json schema = json::parse(R"({"type": "string", "minLength": 2, "maxLength": 3, "pattern": "[0-9]"})");
  EXPECT_VALID(schema, json("a1"));
  EXPECT_VALID(schema, json("\xc3\xa9\xc3\xa9"
                            "1"));  // "éé1": 3 code points, 5 bytes
  EXPECT_ERROR(schema, json("1"), "(root)", "shorter than minLength 2");
  EXPECT_ERROR(schema, json("a123"), "(root)", "longer than maxLength 3");
  EXPECT_ERROR(schema, json("ab"), "(root)", R"("ab" does not match pattern "[0-9]")");
  EXPECT_ERROR(json::parse(R"({"pattern": "("})"), json("x"), "(root)", "not a valid ECMAScript regex");
}

TEST(JsonSchemaKeywords, NumberBoundsInBothDraftSpellings) {
  const json draft4 = json::parse(R"({"minimum": 0, "exclusiveMinimum": true, "maximum": 100.0})");
  EXPECT_VALID(draft4, json(100));
  EXPECT_ERROR(draft4, json(0), "(root)", "below the exclusive minimum 0");
  EXPECT_ERROR(draft4, json(100.5), "(root)", "above the maximum 100.0");
  const json draft7 = json::parse(R"({"exclusiveMinimum": 0})");
  EXPECT_VALID(draft7, json(0.5));
  EXPECT_ERROR(draft7, json(0), "(root)", "not above the exclusive minimum 0");
}

TEST(JsonSchemaKeywords, Formats) {
  const json uri = json::parse(R"({"format": "uri"})");
  EXPECT_VALID(uri, json("https://example.org/a%20b"));
  EXPECT_VALID(uri, json("file:///etc/slurm/slurm.conf"));
  EXPECT_ERROR(uri, json("etc/slurm.conf"), "(root)", "is not a valid uri");  // relative
  EXPECT_ERROR(uri, json("https://example.org/a b"), "(root)", "is not a valid uri");

  const json ref = json::parse(R"({"format": "uri-reference"})");
  EXPECT_VALID(ref, json("etc/slurm.conf"));
  EXPECT_ERROR(ref, json("etc\\slurm.conf"), "(root)", "is not a valid uri-reference");
  EXPECT_ERROR(ref, json("100%"), "(root)", "is not a valid uri-reference");

  const json when = json::parse(R"({"format": "date-time"})");
  EXPECT_VALID(when, json("2024-05-02T19:43:04Z"));
  EXPECT_VALID(when, json("2024-05-02T19:43:04.123+02:00"));
  EXPECT_ERROR(when, json("2024-05-02 19:43:04"), "(root)", "is not a valid date-time");
  EXPECT_ERROR(when, json("2024-13-02T19:43:04Z"), "(root)", "is not a valid date-time");

  EXPECT_VALID(json::parse(R"({"format": "hostname"})"), json("not checked"));  // unknown: annotation only
}

TEST(JsonSchemaKeywords, DependenciesAndBooleanSchemas) {
  const json schema = json::parse(R"({"dependencies": {"endLine": ["startLine"],
                                                        "charLength": {"required": ["charOffset"]}}})");
  EXPECT_VALID(schema, json::parse(R"({"startLine": 1, "endLine": 2})"));
  EXPECT_ERROR(schema, json::parse(R"({"endLine": 2})"), "(root)",
               R"(property "endLine" requires property "startLine")");
  EXPECT_ERROR(schema, json::parse(R"({"charLength": 2})"), "(root)", R"(missing required property "charOffset")");
  EXPECT_VALID(json(true), json::parse(R"({"anything": [1]})"));
  EXPECT_ERROR(json(false), json(1), "(root)", "no value is allowed here");
}

TEST(JsonSchemaKeywords, UnknownKeywordsAreIgnored) {
  EXPECT_VALID(json::parse(R"({"description": "d", "default": 3, "x-custom": {"type": "string"}})"), json(1));
}

// ---- the SARIF 2.1.0 schema ----------------------------------------------------------

class JsonSchemaSarif : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::ifstream in(kSarifSchema);
    ASSERT_TRUE(in) << "cannot open " << kSarifSchema;
    schema_ = json::parse(in);
  }

  // A minimal log of the shape our SARIF writer emits: one rule, one result at a line.
  static json valid_log() {
    return json::parse(R"({
      "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
      "version": "2.1.0",
      "runs": [{
        "tool": {"driver": {
          "name": "slurm-advisor",
          "version": "0.1.0",
          "informationUri": "https://github.com/example/slurm-advisor",
          "rules": [{
            "id": "CONF001",
            "name": "UnknownKey",
            "shortDescription": {"text": "Unknown slurm.conf key"},
            "fullDescription": {"text": "The key is not a slurm.conf parameter of the selected Slurm version."},
            "help": {"text": "Check the spelling against slurm.conf(5).",
                     "markdown": "Check the spelling against `slurm.conf(5)`."},
            "defaultConfiguration": {"level": "warning"},
            "properties": {"tags": ["slurm", "configuration"], "precision": "high"}
          }]
        }},
        "results": [{
          "ruleId": "CONF001",
          "ruleIndex": 0,
          "level": "warning",
          "message": {"text": "Unknown key 'SchedulerTypo'."},
          "locations": [{"physicalLocation": {
            "artifactLocation": {"uri": "etc/slurm/slurm.conf", "uriBaseId": "%SRCROOT%"},
            "region": {"startLine": 12, "startColumn": 1}}}],
          "partialFingerprints": {"primaryLocationLineHash": "5f2c1a9e:1"},
          "properties": {"slurmVersion": "24.05"}
        }]
      }]
    })");
  }

  static Errors check(const json& log) { return validate_json_schema(schema_, log); }

  static inline json schema_;
};

constexpr const char* kResult = "/runs/0/results/0";
constexpr const char* kRegion = "/runs/0/results/0/locations/0/physicalLocation/region";

TEST_F(JsonSchemaSarif, SchemaIsTheOfficialOne) {
  EXPECT_EQ(schema_.value("id", ""),
            "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json");
  EXPECT_TRUE(schema_.contains("definitions"));
}

TEST_F(JsonSchemaSarif, MinimalLogIsValid) {
  Errors errors = check(valid_log());
  EXPECT_TRUE(errors.empty()) << dump(errors);
}

TEST_F(JsonSchemaSarif, MissingVersion) {
  json log = valid_log();
  log.erase("version");
  Errors errors = check(log);
  ASSERT_EQ(errors.size(), 1u) << dump(errors);
  EXPECT_EQ(errors[0], R"((root): missing required property "version")");
}

TEST_F(JsonSchemaSarif, WrongVersion) {
  json log = valid_log();
  log["version"] = "2.0.0";
  EXPECT_TRUE(has_error(check(log), "/version", R"(value "2.0.0" is not one of ["2.1.0"])")) << dump(check(log));
}

TEST_F(JsonSchemaSarif, LevelOutsideTheEnum) {
  json log = valid_log();
  log["runs"][0]["results"][0]["level"] = "fatal";
  Errors errors = check(log);
  ASSERT_EQ(errors.size(), 1u) << dump(errors);
  EXPECT_EQ(errors[0],
            std::string(kResult) + R"(/level: value "fatal" is not one of ["none","note","warning","error"])");
}

TEST_F(JsonSchemaSarif, DefaultConfigurationLevelOutsideTheEnum) {
  json log = valid_log();
  log["runs"][0]["tool"]["driver"]["rules"][0]["defaultConfiguration"]["level"] = "info";
  Errors errors = check(log);
  EXPECT_TRUE(has_error(errors, "/runs/0/tool/driver/rules/0/defaultConfiguration/level", "is not one of"))
      << dump(errors);
}

TEST_F(JsonSchemaSarif, StartLineZeroIsBelowTheMinimum) {
  json log = valid_log();
  log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0;
  Errors errors = check(log);
  ASSERT_EQ(errors.size(), 1u) << dump(errors);
  EXPECT_EQ(errors[0], std::string(kRegion) + "/startLine: value 0 is below the minimum 1");
}

TEST_F(JsonSchemaSarif, ResultWithoutMessage) {
  json log = valid_log();
  log["runs"][0]["results"][0].erase("message");
  Errors errors = check(log);
  ASSERT_EQ(errors.size(), 1u) << dump(errors);
  EXPECT_EQ(errors[0], std::string(kResult) + R"(: missing required property "message")");
}

TEST_F(JsonSchemaSarif, MessageWithoutTextOrId) {
  json log = valid_log();
  log["runs"][0]["results"][0]["message"] = json::object();
  EXPECT_TRUE(has_error(check(log), std::string(kResult) + "/message", "matches none of the anyOf alternatives"))
      << dump(check(log));
}

TEST_F(JsonSchemaSarif, WrongTypes) {
  json log = valid_log();
  log["runs"][0]["results"][0]["ruleIndex"] = "0";
  log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startColumn"] = 1.5;
  Errors errors = check(log);
  EXPECT_EQ(errors.size(), 2u) << dump(errors);
  EXPECT_TRUE(has_error(errors, std::string(kResult) + "/ruleIndex", "expected type integer, got string"))
      << dump(errors);
  EXPECT_TRUE(has_error(errors, std::string(kRegion) + "/startColumn", "expected type integer, got number"))
      << dump(errors);

  json runs_object = valid_log();
  runs_object["runs"] = json::object();
  EXPECT_TRUE(has_error(check(runs_object), "/runs", "expected type array or null, got object"))
      << dump(check(runs_object));
}

TEST_F(JsonSchemaSarif, UnknownResultPropertyIsRejected) {
  json log = valid_log();
  log["runs"][0]["results"][0]["severity"] = "high";  // belongs in properties, not on the result
  Errors errors = check(log);
  ASSERT_EQ(errors.size(), 1u) << dump(errors);
  EXPECT_EQ(errors[0],
            std::string(kResult) + R"(: property "severity" is not allowed (additionalProperties is false))");
}

TEST_F(JsonSchemaSarif, WindowsPathIsNotAUriReference) {
  json log = valid_log();
  log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] = "etc\\slurm.conf";
  EXPECT_TRUE(has_error(check(log), "/runs/0/results/0/locations/0/physicalLocation/artifactLocation/uri",
                        "is not a valid uri-reference"))
      << dump(check(log));
}

TEST_F(JsonSchemaSarif, DuplicateTagsBreakUniqueItems) {
  json log = valid_log();
  log["runs"][0]["tool"]["driver"]["rules"][0]["properties"]["tags"] = {"slurm", "slurm"};
  EXPECT_TRUE(has_error(check(log), "/runs/0/tool/driver/rules/0/properties/tags", "items 0 and 1 are equal"))
      << dump(check(log));
}

}  // namespace
}  // namespace sa::test
