// Checking a scenario before a game is made from it: everything validate_scenario refuses, the
// words no part of the game reads (an error: a game is not created with them), and what is
// allowed but probably a mistake (a warning). `adjutant scenario check`, POST
// /api/scenarios/check and the GM desk's "Check and preview" show the findings; creating a game
// refuses the errors (scenario_errors).
#pragma once

#include <string>
#include <vector>

#include "rules/combat/combat_engine.h"
#include "rules/game/scenario.h"

namespace adj {

struct ScenarioFinding {
  enum class Severity { kError, kWarning } severity;
  std::string path;     // JSON pointer into the document, e.g. "/areas/3/terrain"
  std::string message;  // what is wrong there and what to do
};

// "error" or "warning".
const char* to_string(ScenarioFinding::Severity severity);

// Every finding, errors first, each group in document order. When validate_scenario finds
// errors, they are the only findings. Otherwise the errors are the terrain words, feature keys
// and border flags the game does not read (rules/game/vocabulary.h game_vocabulary: the message
// names the word and lists the known ones), and the warnings:
//  - an area with no borders;
//  - a player that holds no area;
//  - a player whose areas no chain of borders (land or sea) links to another player's;
//  - a city that borders a land area or a city other than its hinterland (Dark Age rule 2.3: a
//    city is reached only through its hinterland; a sea may border it);
//  - areas without x and y (the map then places every area itself), and two areas at the same or
//    nearly the same place (closer than a tenth of the typical distance between neighbours, the
//    side of each area's share of the bounding box; a city and its own hinterland may share one:
//    the city is drawn inside it).
// A city without a hinterland is already an error of validate_scenario. Never throws.
std::vector<ScenarioFinding> lint_scenario(const Json& scenario);

// What refuses a game: validate_scenario's errors, or when there are none the unknown words of
// lint_scenario (the same paths and messages). Empty when a game may be created.
std::vector<ScenarioError> scenario_errors(const Json& scenario);

// The words a game made from `scenario` reads (rules/game/vocabulary.h game_vocabulary of its
// engine, engine options and rules; a Lua engine's script is compiled to read its declarations).
// InvalidArgument listing validate_scenario's errors when it has any.
Result<EngineVocabulary> scenario_vocabulary(const Json& scenario);

}  // namespace adj
