// JSON Schema validation (valijson, draft 7) of documents against the schemas compiled in from
// schemas/. Thread-safe: schemas are parsed once and then only read.
#pragma once

#include <string>
#include <vector>

#include "rules/game/scenario.h"

namespace adj {

// Validates `doc` against the embedded schema at `schema_path` (e.g.
// "schemas/scenario.schema.json"). Returns every violation with its JSON pointer.
// REQUIRES: the schema exists and is itself valid (a bug otherwise: asserts).
std::vector<ScenarioError> validate_against_schema(const Json& doc, const std::string& schema_path);

}  // namespace adj
