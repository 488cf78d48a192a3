// How a game ends: the scenario's victory conditions and the pure check run after every turn.
// No I/O, no clock: the state after a turn and the draw proposals in, the ending (if any) out.
//
// Conditions (scenario "victory", all optional; a scenario without it never ends by itself):
//   vp            victory points to reach. A kingdom's victory points are its VP plus the "vp"
//                 feature of every area it holds (features: {"vp": n}; 0 when absent).
//   last_turn     after this turn has run the game ends and the leader wins.
//   last_standing the game ends when one kingdom alone holds areas; it wins.
//   draw          whether DRAW is allowed: the game ends in a draw when every surviving kingdom
//                 (one that holds at least one area) has DRAW in its orders of the same turn.
// When several hold after one turn, the first in this order decides: vp, last_standing, draw,
// last_turn.
//
// Standings: by victory points, then areas held, then armies in them (more is better); kingdoms
// equal on all three share a rank and are listed by code. Ties for the win: when several
// kingdoms are first (equal on points, areas and armies) they share the result "drawn" instead
// of "won"; every other kingdom has "lost" (for a draw by DRAW: survivors "drawn", the rest
// "lost").
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "rules/game/state.h"

namespace adj {

struct VictoryConditions {
  std::optional<int> vp;
  std::optional<int> last_turn;
  bool last_standing = false;
  bool draw = false;
  bool any() const { return vp || last_turn || last_standing || draw; }
};

// The conditions of a state (its scenario_extra "victory"); none when absent. Tolerant: fields
// of the wrong type are ignored (the scenario was validated when the game was created).
VictoryConditions victory_of(const GameState& state);
Json to_json(const VictoryConditions& v);

struct Standing {
  int rank = 0;
  std::string code, name;
  int vp = 0;          // victory points (see above)
  int areas = 0;       // areas held
  int armies = 0;      // armies in them
  std::string result;  // "won", "drawn", "lost" (empty while the game goes on)
};

// Every player of `state`, best first, with ranks (results left empty).
std::vector<Standing> rank_players(const GameState& state);

// An area's victory points: its "vp" feature, 0 when absent or not a whole number.
int area_vp(const Area& a);
// A kingdom's victory points, as the standings count them: its own plus those of every area it
// owns. Every page and mail that shows a kingdom's VP shows this figure.
int kingdom_vp(const GameState& state, const Player& p);

struct Ending {
  std::string kind;    // "vp", "last_standing", "draw", "last_turn"
  int turn = 0;        // the last turn that ran
  std::string reason;  // one sentence for players, e.g. "Wessex reached 30 victory points."
  std::vector<std::string> winners;  // codes with result "won" or, for a draw, "drawn"
  std::vector<Standing> standings;   // with results
};

// The ending after `turn` ran and produced `after`, or nullopt when the game goes on.
// `draw_proposed`: codes whose orders for `turn` said DRAW.
std::optional<Ending> check_ending(const GameState& after, int turn,
                                   const std::set<std::string>& draw_proposed);

Json to_json(const Standing& s);
Json to_json(const Ending& e);
// Tolerant reader of to_json(Ending); nullopt when `j` is not an ending document.
std::optional<Ending> ending_from_json(const Json& j);

}  // namespace adj
