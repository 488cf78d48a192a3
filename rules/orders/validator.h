// Checks a parsed order file against a game: the one validator behind the command line, the web
// form and email. Pure: state in, acknowledgement out.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "rules/game/state.h"
#include "rules/orders/parser.h"

namespace adj {

class CombatEngine;

// What a player is told about an order file.
struct OrderAck {
  bool refused = false;           // the whole file is refused: nothing from it is stored as orders
  std::string refusal;            // why, in words a player understands; never contains the secret
  std::string game;               // as named by the file (when present)
  std::string player;             // upper-case code (when present)
  int turn = 0;                   // the turn the orders are for (the open turn)
  std::vector<LineResult> lines;  // every order line with its result, in file order
  std::vector<Order> orders;      // the accepted orders, in action order
  // The file proposes a draw: a DRAW line, accepted (the game allows draws and the file is not
  // refused). The DRAW line is among `lines` with its result, without an action.
  bool draw = false;
  int accepted_count() const;
  int rejected_count() const;
};

// Decides whether `secret` (as written on the PLAYER line) is the secret of `player` (an upper-case
// code of a player in the state). The validator calls it at most once per file, and only when the
// file is otherwise well-formed and names a player of the game. The acknowledgement depends on its
// answer only (refused or not), never on the real secret, which the rules library never sees:
// the server hashes secrets (server/app/secrets.h).
using SecretCheck = std::function<bool(const std::string& player, std::string_view secret)>;

// Parses and checks `text` for `state` (whose turn is the open one). `engine` adds its own checks
// and may be null (engine-independent checks only). Never throws (unless `check` does).
//
// What it reads of `state` (so a caller may pass part of a state, see references_of): the head
// (game_id, turn, rules, engine, scenario_extra), the players and areas references_of(the file)
// names, the players owning those areas, and the borders between those areas; and, only to
// suggest codes for an area that does not exist, every area's code and name: from `suggest_from`
// when it is not null, else from state.areas. The acknowledgement is the same for any such part
// as for the whole state.
OrderAck check_order_file(std::string_view text, const GameState& state, const CombatEngine* engine,
                          const SecretCheck& check,
                          const std::vector<Area>* suggest_from = nullptr);
// As above, comparing (in constant time) with Player::secret of `state`: for states built from a
// scenario in memory (tests, tools). A player without a secret is always refused.
OrderAck check_order_file(std::string_view text, const GameState& state,
                          const CombatEngine* engine);

// What an order file refers to by code: the PLAYER line's player and GIFT recipients (`players`),
// and every order's areas (`areas`); sorted, without duplicates. `parsed` is the file as parsed
// with the game's actions_per_turn (what check_order_file checks).
struct FileReferences {
  std::vector<std::string> players;
  std::vector<std::string> areas;
};
FileReferences references_of(const ParsedOrderFile& parsed);

// Per-line checks against the map, engine-independent: known areas, adjacency, city and sea
// restrictions. Returns "" when the order is acceptable, else the player's reason. Suggestions
// for an unknown area come from `suggest_from` when not null, else from state.areas.
std::string check_order_against_map(const Order& order, const GameState& state,
                                    const std::vector<Area>* suggest_from = nullptr);

// Why `player` may not give the order `o` in `state` under `engine` (may be null), or "" when
// they may: every check check_order_file makes of one line on its own (the map, GIFT to oneself,
// the Dark Age actions, SUPPORT, the engine's check_order). What depends on the other lines (an
// engine that does not combine attacks) is not checked. The order builder asks it of every
// choice it offers, so that the builder and the validator cannot disagree.
std::string order_legality(const Order& o, const Player& player, const GameState& state,
                           const CombatEngine* engine,
                           const std::vector<Area>* suggest_from = nullptr);

// JSON form of an acknowledgement (stored with the submission, printed by --json).
nlohmann::json to_json(const OrderAck& ack);
Result<OrderAck> ack_from_json(const nlohmann::json& j);
// Plain-text acknowledgement, as a player reads it: the header lines (the PLAYER line's secret
// masked), each order line echoed as sent with its result, then "N accepted, M rejected".
std::string render_ack_text(const OrderAck& ack);

}  // namespace adj
