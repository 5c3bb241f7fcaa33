// A small JSON-Schema validator for tests: enough of draft-04 and draft-07 to check a
// document against the SARIF 2.1.0 schema (tests/data/sarif/), so a test can prove our
// SARIF output is what GitHub code scanning accepts.
//
// Supported keywords: type (names or arrays of names), enum, const, properties,
// patternProperties, additionalProperties (bool or schema), required, dependencies,
// items (schema or tuple array), additionalItems, minItems, maxItems, uniqueItems,
// minimum, maximum, exclusiveMinimum/exclusiveMaximum (draft-04 boolean and draft-06+
// number forms), minLength, maxLength, pattern (std::regex ECMAScript), format (light
// checks of "uri", "uri-reference" and "date-time"), $ref to a JSON pointer inside the
// same schema ("#/definitions/..."), allOf, anyOf, oneOf, not, and the boolean schemas
// true/false. Every other keyword (default, description, title, ...) is ignored.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace sa::test {

// Checks `doc` against `schema`. Each error reads "<JSON pointer>: <what is wrong>", with
// "(root)" for the document itself, e.g. "/runs/0/results/0/level: value "fatal" is not
// one of ["none","note","warning","error"]". An empty result means the document is valid.
std::vector<std::string> validate_json_schema(const nlohmann::json& schema, const nlohmann::json& doc);

}  // namespace sa::test
