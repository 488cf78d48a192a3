// Scenarios: the JSON a game is created from (schemas/scenario.schema.json). Validation is the
// JSON Schema first, then the checks a schema cannot express (codes that must exist, cities and
// their hinterlands, the engine's own data). Every error names the JSON path and what is wrong.
#pragma once

#include <string>
#include <vector>

#include "rules/game/state.h"
#include "rules/rng/rng.h"

namespace adj {

struct ScenarioError {
  std::string path;     // JSON pointer, e.g. "/areas/3/owner"
  std::string message;  // what is wrong there
};

// All problems found, in document order; empty when the scenario is valid.
std::vector<ScenarioError> validate_scenario(const Json& scenario);

// "<path>: <message>" lines joined with newlines.
std::string format_errors(const std::vector<ScenarioError>& errors);

// Builds the starting state of turn 1. `seed` is used unless the scenario fixes one ("seed").
// REQUIRES nothing: validates first and returns InvalidArgument listing every error.
Result<GameState> state_from_scenario(const Json& scenario, Seed seed);

// The bundled scenarios (compiled in from schemas/scenarios/), by name. A bundled scenario's
// "seed" is published with the source, so bundled_scenario() returns the document without it: a
// game made from it rolls with the seed its creator passes (the GM's, or a fresh random one), and
// nobody can foresee its dice. bundled_scenario_published() keeps the file's seed (the demo, the
// golden tests and the worked examples, whose dice are meant to be known).
std::vector<std::string> bundled_scenarios();
Result<Json> bundled_scenario(const std::string& name);
Result<Json> bundled_scenario_published(const std::string& name);

}  // namespace adj
