// The data behind the order builder on the player's page (static/orders.js): the player's areas
// with their neighbours, the other kingdoms, and the actions this game's rules accept, each with
// the shape of its order line. The builder only writes text into the order textarea; the server
// parses that text as it parses any order file, so nothing here is trusted on the way back.
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

namespace adj {
class CombatEngine;
struct GameState;
}  // namespace adj

namespace adj::web {

// A game with more other kingdoms than this offers GIFT only to the player's neighbours (the
// owners of the areas next to theirs) in the builder: every kingdom of a 10,000-player game was
// 440 KB of the page and a check each. Any other kingdom can still be written in the text box.
inline constexpr std::size_t kBuilderKingdomsListed = 200;

// The builder's model for `player` in `state` (the `game show --json` document):
//   {"player", "areas": {code: {"name", "kind", "owner", "adj": [codes]}}, "own": [codes],
//    "kingdoms": [{"code", "name"}], "actions": [{"verb", "area", "target", "count"}],
//    "legal": {verb: {area or "": [target or ""]}}}
// where "area" is "own" or "none"; "target" is "adjacent", "adjacent-own", "adjacent-optional",
// "kingdom" or "none"; "count" is "armies" (blank, n or AB-n), "optional" (blank or n),
// "required" (n) or "none". `areas` holds the player's areas and their neighbours only;
// `kingdoms` every other kingdom, or past kBuilderKingdomsListed those owning an area of `areas`.
// "legal" holds only the choices the validator accepts for this player (order_legality:
// rules/orders/validator.h), and "actions" only the actions with at least one; a state that does
// not read as a game (state_from_json) offers no action.
// `engine` is the game's engine (a script engine declares its own traits); when null it is found
// by the state's engine name among the built-in engines.
// `position`, when not null, receives what the orders page shows of the player's position, from
// the same reading of the state:
//   {"bp", "areas": [{"code", "name", "armies"}], "costs": [{"verb", "cost"}]}
// "cost" is each offered action's BPs in words ("3 BPs per army", "the BPs given", "free"); null
// when the state does not read as a game or has no such player.
// `typed`, when not null, is `state` already read (state_from_json), so it is not read again.
nlohmann::json order_builder_model(const nlohmann::json& state, const std::string& player,
                                   const CombatEngine* engine = nullptr,
                                   nlohmann::json* position = nullptr,
                                   const GameState* typed = nullptr);

// `model` as JSON text safe inside <script type="application/json">: '<', '>' and '&' are
// written as \u003c, \u003e and \u0026, so no text from a scenario can end the element.
std::string script_json(const nlohmann::json& model);

}  // namespace adj::web
