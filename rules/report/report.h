// Player reports: built once as a JSON model from a turn's result (the single source), then
// rendered to text (email body, `adjutant report`) and later HTML. Pure functions.
#pragma once

#include <string>

#include <vector>

#include "rules/orders/order.h"
#include "rules/turn/turn_result.h"

namespace adj {

// The report of `player` for the turn `result` resolved. `start` is that turn's starting state.
// What a player sees: their own actions and battles, attacks on their areas, their economy,
// their areas with defence settings, the areas bordering them (as at the end of the turn), the
// roundup of all kingdoms and the order of play, and a blank order template for the next turn.
// REQUIRES: player is a player of the game.
// The shared public part (the roundup) is not in it: see build_roundup.
Json build_report(const GameState& start, const TurnResult& result, const std::string& player);

// Who did what in a turn, indexed once so that building every player's report is linear in the
// size of the turn rather than players x turn. Borrows nothing; build it from the same result.
struct ReportIndex {
  struct Entry {
    std::vector<std::size_t> actions;  // indices into result.actions
    std::vector<std::size_t> battles;  // indices into result.battles (as attacker or defender)
    std::vector<std::size_t> areas;    // indices into result.next_state.areas owned at the end
    std::vector<std::size_t> gifts_received;  // indices into result.gifts with this player as `to`
    int gifts_out = 0;                        // BPs of result.gifts with this player as `from`
  };
  explicit ReportIndex(const TurnResult& result);
  std::map<std::string, Entry> by_player;
  std::map<std::string, std::size_t> battle_by_id;
  // 1-based positions in result.order_of_play and result.next_order_of_play (absent: 0).
  std::map<std::string, int> position_this, position_next;
};
// The same report, using an index built once for the turn.
Json build_report(const GameState& start, const TurnResult& result, const std::string& player,
                  const ReportIndex& index);

// The roundup of a resolved turn, one document shared by every player (Dark Age 1.10): the order
// of play this turn and next, and every kingdom's areas, armies, population and VPs. Stored once
// per turn rather than copied into each of a thousand reports.
Json build_roundup(const TurnResult& result);

// The plain-text rendering of a report built by build_report, with the roundup (when given)
// placed before the order template. Deterministic.
std::string render_report_text(const Json& report, const Json* roundup = nullptr);

// The lines of a player's order file that were not carried out because they were rejected when
// the file was checked: [{line, text, reason}], in file order. Stored in the report under
// "not_carried_out" (add_rejected_lines) and shown by render_report_text.
Json rejected_lines_json(const std::vector<LineResult>& lines);
// Puts rejected_lines_json(lines) into `report` under "not_carried_out" when there is any.
void add_rejected_lines(Json& report, const std::vector<LineResult>& lines);

// The report's BP gifts in one sentence ("received 7 BPs: 5 from MRC at action 3, 2 from NUM at
// action 9; gave 4 BPs"); "" when the player neither gave nor received any. Used by the text and
// the web report.
std::string gifts_text(const Json& report);

// One battle as shown to a player: the numbers before and after, the losses in every round, the
// dice drawn, the result, and the areas' names from `world` ("from_name", "to_name", and per
// force) for headlines a player can read ("Battle at Middlesex (Oxford → Middlesex)").
Json battle_for_report(const BattleLog& battle, const GameState& world);

}  // namespace adj
