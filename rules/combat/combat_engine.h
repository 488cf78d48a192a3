// The combat-engine interface: one implementation per rule system, chosen by the scenario's
// "engine" object and looked up in the explicit list of engine_registry.h.
//
// The turn loop (rules/turn) owns movement, BPs, defence modes and capture; an engine only decides
// what happens when an attacking force meets a defended area. It receives a read-only view of the
// world at that moment and its own random stream, and returns an outcome as data (numbers and
// structured log entries, never prose). Engines are stateless and const: one instance is shared by
// every game and thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rules/core/status.h"
#include "rules/game/state.h"
#include "rules/orders/order.h"
#include "rules/rng/rng.h"

namespace adj {

enum class AttackKind { kMove, kAssault, kProbe, kOverrun };
const char* to_string(AttackKind kind);  // "move", "assault", "probe", "overrun"
std::optional<AttackKind> attack_kind_from_string(std::string_view s);  // case-insensitive
AttackKind attack_kind_of(Verb verb);  // REQUIRES: is_attack_verb(verb)

// One attacking force of a battle: the armies one order line sends from one area. A battle has one
// group, or several when forces from several areas attack one area together (a combined attack,
// seed 003: "More than one unit may participate in a given attack").
struct AttackGroup {
  std::string player;           // the attacking player's code
  std::string from;             // the area the group attacks from
  int armies = 0;               // >= 1
  Json units = Json::object();  // engine per-army state of the group
  int action = 0, line = 0;     // the order line that sent it
};

// What one combat phase allows. The turn loop enforces it; an engine declares it from its options.
// A combat phase is one action round (action N of every player, in the order of play) or, with
// Scope::kTurn, the whole turn.
struct CombatPhaseRules {
  enum class Scope { kActionRound, kTurn };
  Scope scope = Scope::kActionRound;
  // Seed 003: "No unit may participate in more than one attack per combat phase." Armies that
  // attacked (and their survivors, wherever they end up) may not attack again in the phase.
  bool one_attack_per_unit = false;
  // Seed 003: "No unit may be the object of more than one attack per combat phase." An area that
  // was attacked may not be attacked again in the phase.
  bool one_attack_per_target = false;
};

// One battle as the turn loop hands it to an engine.
// Ownership: `world` is borrowed for the duration of resolve(); it is the state just before the
// battle (after any RETREAT-mode withdrawal), with the attacking armies already taken out of
// `from` (they are counted in attacker_armies, with their per-army state in attacker_units).
struct BattleInput {
  std::string id;  // stable battle id within the turn, e.g. "3.5.WSX" (turn.action.player)
  AttackKind kind = AttackKind::kMove;
  const GameState* world = nullptr;
  std::string attacker;  // player code
  std::string from, to;  // area codes; `to` is the defended area
  int attacker_armies = 0;
  Json attacker_units = Json::object();  // engine per-army state of the attacking force
  bool ambush = false;  // the defender has an ambush set against `from` (AMBUSH defence mode)
  std::map<std::string, int> extras;  // engine keyword arguments from the order (CARD, AIR)
  const Json* options = nullptr;      // the game's engine options (validated by the engine)
  // Every attacking force, in order (the first is the primary: `attacker`, `from`). For a battle
  // of one group, groups[0] repeats attacker/from/attacker_armies/attacker_units. The totals
  // above always hold the sums (attacker_units merged with CombatEngine::merge_units).
  std::vector<AttackGroup> groups;

  const Area& target() const { return *world->find_area(to); }
  const Area& origin() const { return *world->find_area(from); }
};

// in.groups, or (when a caller left it empty) one group made of attacker/from/attacker_armies/
// attacker_units. Engines read the groups through this.
std::vector<AttackGroup> attack_groups(const BattleInput& in);

// Takes `n` armies from `left` (armies per attack group), one at a time from the group with the
// most left (the earlier group on a tie), adding them to `lost` (same size). Returns how many it
// took (fewer when all are gone). The turn loop's default spread of attacker losses.
int take_losses(std::vector<int>& left, std::vector<int>& lost, int n);

// One round or phase of a battle, for the log and the reports.
struct BattleRound {
  std::string phase;          // "round 1", "overrun", "fire", "crt", ...
  int attacker_before = 0;    // attacking armies at the start of the round
  int defender_before = 0;    // defending armies at the start of the round
  int attacker_strength = 0;  // strength used by the engine (Dark Age: armies)
  int defender_strength = 0;  // Dark Age: the defence level
  int attacker_losses = 0;
  int defender_losses = 0;
  std::vector<int> attacker_dice;  // dice the attacker rolled this round, in order
  std::vector<int> defender_dice;
  Json detail = Json::object();  // engine-specific numbers (modifiers, table column, ...)
};

struct BattleOutcome {
  // The attacker takes the area: no defending armies remain and attackers survive.
  bool attacker_wins = false;
  int attacker_losses = 0;  // 0 <= losses <= attacker_armies
  int defender_losses = 0;  // 0 <= losses <= defending armies in `to`
  // Survivors may not move again this turn (ASSAULT, PROBE, an overrun that became an assault).
  bool attacker_stops = false;
  // Engines that push a surviving defender out of the area (CRT retreats, Virtuti Militari) name
  // where it goes; empty means survivors stay. A defender that must retreat but cannot is counted
  // in defender_losses instead.
  std::optional<std::string> defender_retreats_to;
  // Engines that retreat a failed attacker on the map (CRT's AR) name where its survivors go
  // instead of back to their origin; empty means home. An attacker that must retreat but cannot
  // is counted in attacker_losses instead.
  std::optional<std::string> attacker_retreats_to;
  // The fortification level of `to` after the battle, when the engine changes it.
  std::optional<int> fort_after;
  std::vector<BattleRound> rounds;
  // Engine per-army state of the survivors (e.g. tank hit points), when the engine keeps any.
  Json attacker_units = Json::object();
  Json defender_units = Json::object();
  // New engine_state for the players, when the battle changed it (cards or tokens spent).
  std::optional<Json> attacker_player_state;
  std::optional<Json> defender_player_state;
  // How many surviving attackers enter the area when the attacker wins; nullopt means all of them.
  // The others return to the areas they attacked from (seed 003: "one of the attacking units may
  // enter the hexagon").
  std::optional<int> advancing;
  // Per group (same order as BattleInput::groups), when the engine decides them: the losses of each
  // group (summing to attacker_losses) and the survivors' per-army state. Empty: the turn loop
  // takes attacker_losses one army at a time from the group with the most armies left (the
  // earlier group on ties) and splits attacker_units in group order (CombatEngine::detach_units).
  std::vector<int> group_losses;
  std::vector<Json> group_units;
  // Per group, when the attack fails and the engine retreats groups on the map: where each group's
  // survivors go (nullopt: home). Empty: every group goes where attacker_retreats_to says (home
  // when that is empty too).
  std::vector<std::optional<std::string>> group_retreats_to;
  Json detail = Json::object();  // engine-specific summary for the log
};

// Why `out` cannot be applied to a battle of `groups` against `defenders` armies (losses out of
// range, per-force vectors of the wrong size or not adding up, negative advancing); "" when it
// can. The turn loop's check of every engine's outcome (TurnRun::inconsistency).
std::string outcome_inconsistency(const BattleOutcome& out, const std::vector<AttackGroup>& groups,
                                  int defenders);

// What an engine is, and which of the turn loop's rules apply under it: fixed for the engine's
// life (a Lua engine's come from its declarations). The strings are static text or owned by the
// engine.
struct EngineTraits {
  std::string_view name = {};
  // A one-paragraph description of the rule system for HELP text and `adjutant engines`.
  std::string_view summary = {};
  // Order syntax this engine adds to the common grammar (for HELP); empty when none.
  std::string_view order_help = {};
  // True when resolve() never draws from the Rng (a conformance test checks it).
  bool deterministic = false;
  // Whether the attacks of one action round on one area fire together (seed 000: "combat is
  // actually simultaneous ... casualties are removed after combat"): the turn loop then hands the
  // attacks of every player in that round on that area to one resolve() call, one group each,
  // in the order of play.
  bool simultaneous_fire = false;
  // Whether several origins may attack one area together as one battle (lines of the same action
  // number against the same area).
  bool combined_attacks = true;
  // Whether SUPPORT <where> <to> orders exist under these rules (standing_order then receives
  // them; the validator refuses SUPPORT otherwise).
  bool accepts_support = false;
  // Whether the Dark Age rulebook's own actions and rules apply (docs/rules/dark-age.md §1.6,
  // §1.8): RAID, INVADE and the Gaelic conversion of population to armies on retreat. The validator
  // refuses RAID and INVADE otherwise.
  bool dark_age_actions = false;
};

// One word a scenario may write for a game (a terrain, a feature key, a border flag, an
// engine_state key) and what it does there, in one short sentence.
struct VocabularyWord {
  std::string word;
  std::string effect;
  bool operator==(const VocabularyWord&) const = default;
};

// The words of one kind that are read. Words are matched exactly (case-sensitive), as the engines
// compare them.
struct VocabularyList {
  std::vector<VocabularyWord> words;  // sorted by word, each once (add() keeps them so)
  // Every word is read, listed or not (a Lua engine that declares no list): nothing is unknown.
  bool any = false;

  // The entry of `word`, or null.
  const VocabularyWord* find(std::string_view word) const;
  // Adds `word` with `effect`; a word already listed gets "; <effect>" appended to its sentence
  // (unless the sentence already holds it).
  void add(const std::string& word, const std::string& effect);
  // The words joined with ", " ("" when none).
  std::string joined() const;
  bool operator==(const VocabularyList&) const = default;
};

// What a game reads from a scenario beyond the fields every game has (docs/scenarios.md): the
// words an engine gives meaning to. A word not listed in a closed list does nothing.
struct EngineVocabulary {
  VocabularyList terrain;       // Area::terrain words
  VocabularyList features;      // keys of Area::features
  VocabularyList borders;       // keys of an adjacency entry's flags object (Edge::features)
  VocabularyList area_state;    // keys of Area::engine_state
  VocabularyList player_state;  // keys of Player::engine_state
  bool operator==(const EngineVocabulary&) const = default;
};

class CombatEngine {
 public:
  virtual ~CombatEngine() = default;

  // The engine's traits (above); the accessors below read them.
  virtual const EngineTraits& traits() const = 0;
  std::string_view name() const { return traits().name; }
  std::string_view summary() const { return traits().summary; }
  std::string_view order_help() const { return traits().order_help; }
  bool deterministic() const { return traits().deterministic; }
  bool simultaneous_fire() const { return traits().simultaneous_fire; }
  bool combined_attacks() const { return traits().combined_attacks; }
  bool accepts_support() const { return traits().accepts_support; }
  bool dark_age_actions() const { return traits().dark_age_actions; }

  // Checks the scenario's engine options and any engine data in the world. Called when a game is
  // created; an error names the JSON path and what is wrong.
  virtual Status check_game(const GameState& state) const;

  // Extra validation of one order line against the map, beyond the engine-independent checks
  // (e.g. which keyword arguments the engine accepts). A non-ok status is the player's reason.
  virtual Status check_order(const Order& order, const GameState& state) const;

  // The armies of `area` that withdraw when RETREAT mode fires: removes them from
  // area.engine_state and returns their state, with their number in `n` (the caller adjusts
  // area.armies). Default: all of them. Virtuti Militari keeps its Fleets in port (they never
  // retreat overland).
  virtual Json withdraw_units(Area& area, const Json& options, int& n) const;
  // Whether the defenders of `in.to` withdraw before the battle (RETREAT defence mode). Called
  // only when the area is in RETREAT mode with a valid retreat location. Default: the Dark Age
  // rule 3.11 (attackers outnumber both the defending armies and the defence level).
  virtual bool retreat_triggers(const BattleInput& in) const;

  // Resolves the battle. REQUIRES: in.world, in.options non-null; in.attacker_armies >= 1.
  // Draws only from `rng`. Errors are reserved for bad engine data, never for player mistakes.
  virtual Result<BattleOutcome> resolve(const BattleInput& in, Rng& rng) const = 0;

  // How far from the defended area the engine may look (adjacency steps): a battle log keeps the
  // areas within this radius (plus the origin) so that --replay can re-run it on its own.
  // Default 2. Engines that read more or less of the map override it.
  virtual int world_radius(const Json& options) const {
    (void)options;
    return 2;
  }

  // How many of the area's armies may be ordered to move (e.g. not exhausted units). The turn
  // loop also subtracts armies that stopped earlier in the turn. Default: all of them.
  virtual int movable_armies(const Area& area) const { return area.armies; }

  // Per-army state bookkeeping for engines that keep it (default: none, so these do nothing).
  // Detach n of area.armies armies from `area_units` (for a move) and return their state.
  virtual Json detach_units(Json& area_units, int area_armies, int n) const;
  // Merge a force into an area. `incoming` null means n fresh armies (levies).
  virtual void merge_units(Json& area_units, int area_armies, const Json& incoming, int n) const;
  // A standing order with engine keyword arguments (DEFEND/AMBUSH/RETREAT <where> ... KEY n) was
  // carried out for `area` (owned by `player`); the engine may record the choices in
  // area.engine_state or player.engine_state for later battles. Default: nothing.
  virtual void standing_order(const Order& order, Area& area, Player& player) const;
  // Called once at the end of every turn, after all actions (e.g. to lift exhaustion).
  virtual void end_turn(GameState& state) const;
  // What one combat phase allows under these rules (default: an action round, no limits).
  virtual CombatPhaseRules phase_rules(const Json& options) const;
  // The words this engine reads in a scenario under `options` (the game's engine options) and
  // `rules` (its rule numbers: Dark Age reads its terrain bonuses there), each with its effect.
  // Only the engine's own: rules/game/vocabulary.h adds what the turn loop, victory and the map
  // read. Options that fail check_game give the defaults' words. Default: none (closed lists).
  virtual EngineVocabulary vocabulary(const Json& options, const RulesConfig& rules) const;
};

}  // namespace adj
