// What resolving one turn produces: the next state plus everything the reports and the audit
// trail need. Pure data.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "rules/combat/combat_engine.h"
#include "rules/game/state.h"
#include "rules/orders/order.h"

namespace adj {

// One executed (or failed) action of one player.
struct ActionResult {
  std::string player;
  int action = 0;  // slot 1..N
  int line = 0;    // line in the order file
  std::string text;
  Verb verb = Verb::kMove;
  bool ok = false;
  std::string message;  // what happened, in the player's words ("moved 3 armies to BDS", ...)
  std::optional<std::string> battle;  // battle id when the action fought one
  int bp_spent = 0;
};

// One attacking force of a battle (a combined attack has several) and what became of it.
struct BattleGroupLog {
  std::string player;
  std::string from;
  int action = 0, line = 0;
  int armies = 0;           // sent into the battle
  int losses = 0;           // lost in it
  int advanced = 0;         // entered the area (the attacker won)
  std::string returned_to;  // where the others went ("" when none survived or all entered)
};
// A Dark Age RAID or INVADE (docs/rules/dark-age.md §1.8): fixed losses the turn loop applies
// itself (rules/turn/turn_raids.cc), logged as a battle whose JSON "kind" is "raid" or "invade"
// (its AttackKind is then unused) and whose `input` only names the kind: no engine ran, so there is
// nothing for --replay to re-run.
enum class DarkAgeAction { kNone, kRaid, kInvade };

// One battle with everything needed to show it and replay it.
struct BattleLog {
  std::string id;
  std::uint64_t seed = 0;
  std::string engine;
  AttackKind kind = AttackKind::kMove;
  std::string attacker;                 // player code
  std::optional<std::string> defender;  // owner of the target before the battle
  std::string from, to;
  int attacker_armies = 0;
  int defender_armies = 0;
  bool ambush = false;
  std::optional<std::string> defender_withdrew_to;  // RETREAT defence mode fired first
  int withdrawn_armies = 0;
  // Gaelic conversion (§1.6): population of a Gaelic area attacked by a non-Gaelic kingdom that
  // turned into armies and withdrew with them (not counted in withdrawn_armies).
  int converted_population = 0;
  DarkAgeAction dark_age_action = DarkAgeAction::kNone;
  bool captured = false;
  std::vector<BattleGroupLog> groups;  // every attacking force, the primary (from) first
  BattleOutcome outcome;
  std::vector<Draw> draws;  // every random draw, in order
  // A self-contained battle input (local world) for --replay, as compact JSON text: kept as text
  // because a big turn logs tens of thousands of battles and a JSON tree costs ~10x the memory.
  std::string input;
};

// BPs one kingdom gave another (GIFT), for the receiver's report.
struct Gift {
  std::string from, to;
  int bps = 0;
  int action = 0;
};

// A player's economy over the turn.
struct Economy {
  int bp_start = 0;
  int bp_spent = 0;   // includes BPs given away (TurnResult::gifts)
  int bid = 0;        // the bid for the next order of play: order_bid (+ leftover, OQ-1)
  int order_bid = 0;  // BPs spent on ORDER actions
  int leftover = 0;
  int income = 0;
  int upkeep = 0;
  int trade = 0;  // added to the treasury this turn
  int bp_next = 0;
  int treasury = 0;
  int vp = 0;
  int reserve = 0;
};

struct TurnResult {
  int turn = 0;
  std::uint64_t seed = 0;
  std::vector<std::string> order_of_play;            // this turn's
  std::vector<std::string> next_order_of_play;       // the next turn's (from ORDER bids)
  std::vector<ActionResult> actions;                 // in execution order
  std::vector<BattleLog> battles;                    // in execution order
  std::vector<Gift> gifts;                           // in execution order
  std::map<std::string, Economy> economy;            // by player
  std::map<std::string, std::vector<Order>> orders;  // the orders that were used
  GameState next_state;
  std::string digest;  // hex hash of the canonical next state and actions
  // to_json(next_state).dump() as the digest hashed it; the store writes it as the state's text
  // instead of serialising the state again. Stale once next_state is changed (then clear it).
  std::string next_state_text;
};

Json to_json(const BattleLog& b);
Json to_json(const BattleOutcome& o);
Json to_json(const ActionResult& a);

}  // namespace adj
