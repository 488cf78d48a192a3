// Readable text for an engine's own per-area and per-player state: the "engine_state" of the
// report model (units, tanks and their damage, cards, tokens, army profiles). Engine-agnostic,
// so a new engine's state reads well with no code here:
//   * keys become words ("health_track" -> "health track");
//   * an object of plain values is one phrase: "charisma 2, war 3";
//   * a list of objects shows each by its name, type or id, the rest in parentheses:
//     "Last Stand (hp 2, strength 3), Cavalry Charge (dice: green; strength 2)";
//   * empty lists, empty objects and an id beside a name are left out.
// Pure; no allocation beyond the returned text.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace adj {

// The whole value on one line ("-" when there is nothing to show).
std::string state_inline(const nlohmann::json& state);

// One line per top-level key ("key: value"), a nested object with nested objects under its key,
// indented two more spaces. Every line starts with `indent` and ends with "\n"; "" for an empty
// state.
std::string state_lines(const nlohmann::json& state, const std::string& indent);

}  // namespace adj
