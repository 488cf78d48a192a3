// TurnRun: the mutable working state of one turn run (rules/turn/turn_resolver.h). Internal to
// rules/turn: only its .cc files include this header. Members are defined by concern in
// turn_resolver.cc (the loop, the end of turn), turn_battles.cc (attack orders and battles) and
// turn_actions.cc (standing orders, levies, bids, gifts, migration).
// Not thread-safe; one instance per resolve_turn() call.
#pragma once

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "rules/combat/battle_input_text.h"
#include "rules/combat/local_world.h"
#include "rules/combat/script_engine.h"
#include "rules/turn/economy.h"
#include "rules/turn/turn_resolver.h"

namespace adj::turn_detail {

// "1 army", "3 armies".
inline std::string armies(int n) { return std::to_string(n) + (n == 1 ? " army" : " armies"); }
inline std::string bps(int n) { return std::to_string(n) + (n == 1 ? " BP" : " BPs"); }

// Mutable working state of one turn run.
class TurnRun {
 public:
  // Takes the orders: they become result_.orders at once (run() copies none).
  TurnRun(const GameState& start, OrderBook&& orders, const CombatEngine& engine,
          BattleSink* sink = nullptr)
      : sink_(sink),
        s_(start),
        orders_(result_.orders),
        engine_(engine),
        phase_(engine.phase_rules(start.engine.options)),
        input_writer_(s_, &engine) {
    result_.orders = std::move(orders);
    init(start);
  }

  // Closes the sink when run() did not (it threw): its logs go with this object, unmoved.
  ~TurnRun() {
    if (sink_) sink_->close();
  }
  TurnRun(const TurnRun&) = delete;
  TurnRun& operator=(const TurnRun&) = delete;

  Result<TurnResult> run();

 private:
  // The turn run's total budget for a script engine's calls (ScriptLimits::turn_*): the calls
  // this thread makes while the run lives. Not moved; declared first, so it outlives the rest.
  ScriptRunBudget script_budget_{ScriptRun::kTurnRun};
  // Every battle's log goes through here, in execution order: to result_.battles, or, with a
  // sink, to sunk_ (where it does not move) and the sink.
  void keep_battle(BattleLog&& log) {
    if (!sink_) {
      result_.battles.push_back(std::move(log));
      return;
    }
    sunk_.push_back(std::move(log));
    sink_->battle(sunk_.back());
  }
  // After the last battle: closes the sink, then moves its logs into result_.battles.
  void close_sink() {
    if (!sink_) return;
    BattleSink* sink = std::exchange(sink_, nullptr);
    sink->close();
    result_.battles.reserve(result_.battles.size() + sunk_.size());
    for (BattleLog& b : sunk_) result_.battles.push_back(std::move(b));
    sunk_.clear();
  }

  void init(const GameState& start) {
    result_.turn = start.turn;
    result_.seed = turn_seed(start.seed, start.turn);
    for (const auto& p : start.players) {
      owned_at_start_[p.code];
      auto e = result_.economy.try_emplace(p.code).first;
      e->second.bp_start = p.bp;
      economy_by_index_.push_back(&*e);  // s_.players starts as start.players, in its order
    }
    for (const auto& a : start.areas)
      if (a.owner) owned_at_start_[*a.owner].insert(a.code);
  }

  void draw_order_of_play();

  ActionResult& begin(const std::string& player, const Order& o) {
    ActionResult r;
    r.player = player;
    r.action = o.action;
    r.line = o.line;
    r.text = o.text;
    r.verb = o.verb;
    result_.actions.push_back(std::move(r));
    return result_.actions.back();
  }
  static void fail(ActionResult& r, std::string why) {
    r.ok = false;
    r.message = std::move(why);
  }
  bool pay(ActionResult& r, Player& p, int cost) {
    if (p.bp < cost) {
      fail(r, "not enough BPs (you have " + std::to_string(p.bp) + ", it costs " +
                  std::to_string(cost) + ")");
      return false;
    }
    p.bp -= cost;
    r.bp_spent += cost;
    economy_of(p).bp_spent += cost;
    return true;
  }
  // result_.economy[p.code], without the map lookup when p is the player of s_ it was made for.
  Economy& economy_of(const Player& p) {
    const Player* first = s_.players.data();
    if (std::less_equal<const Player*>()(first, &p) &&
        std::less<const Player*>()(&p, first + s_.players.size())) {
      const auto i = static_cast<std::size_t>(&p - first);
      if (i < economy_by_index_.size() && economy_by_index_[i]->first == p.code)
        return economy_by_index_[i]->second;
    }
    return result_.economy[p.code];
  }
  bool owns(const std::string& player, const Area& a) const { return a.owner == player; }
  int movable(const Area& a) const {
    auto it = stuck_.find(a.code);
    const int stuck = it == stuck_.end() ? 0 : it->second;
    return std::max(0, std::min(engine_.movable_armies(a), a.armies - stuck));
  }
  void add_stuck(const std::string& area, int n) { stuck_[area] += n; }
  bool sticky(const Area& a) const {
    return a.kind == AreaKind::kLand && s_.rules.sticky_terrain.count(a.terrain) > 0;
  }

  void execute(const std::string& code, const Order& o);

  // Resolves the armies an attack verb moves; 0 and a reason when it cannot go ahead. With
  // `attacking`, armies that already attacked in this combat phase do not count (phase_ rules).
  int armies_for(const Order& o, const Area& from, std::string& why, bool attacking) const;

  // One attack: a single MOVE/ASSAULT/PROBE/OVERRUN line, or the lines of a combined attack (same
  // action, verb and target, different origins; parser-checked). One ActionResult per line.
  void attack(Player& p, const std::vector<const Order*>& lines);
  // Checks, pays for and takes out the armies of one player's attack lines: appends their result
  // indices and groups. False when the attack does not fight (it failed, with every line's
  // reason, or it was a plain move into the player's own area, carried out).
  bool muster(Player& p, const std::vector<const Order*>& lines, std::vector<std::size_t>& idx,
              std::vector<AttackGroup>& groups);
  // Under CombatEngine::simultaneous_fire(): the attacks of later players in the order of play on
  // the same area in the same action join this battle (they fire together); their lines are
  // marked done so the loop does not run them again.
  void join_simultaneous(const Player& p, const Area& to, Verb verb, std::vector<std::size_t>& idx,
                         std::vector<AttackGroup>& groups);
  // Why an engine's outcome cannot be applied to a battle of `groups` against `defenders` armies
  // (losses out of range, per-force vectors of the wrong size or not adding up); "" when it can.
  static std::string inconsistency(const BattleOutcome& out, const std::vector<AttackGroup>& groups,
                                   int defenders);
  // A battle log for `p`'s action `o` from `from` against `to`: its id ("turn.action.player"), its
  // seed (derived from the turn's), the engine, the sides and the areas.
  BattleLog new_log(const Player& p, const Order& o, const Area& from, const Area& to) const;
  // RETREAT defence mode (rule 3.11): when it fires for the attack `in`, the defenders of `to`
  // (those the engine lets go) withdraw to its retreat location first, with §1.6's Gaelic
  // conversion; recorded in `log`.
  void withdraw_defenders(const BattleInput& in, Area& to, const Player& p, BattleLog& log);
  // Armies in `a` that were the object of an attack in this combat phase (0 unless
  // one_attack_per_target).
  int attacked(const Area& a) const;
  // n armies of `from` moved to `to` as a whole force (a withdrawal or a defender's retreat): their
  // stuck, spent and attacked marks go with them.
  void move_marks(const Area& from, const Area& to, int n);
  // Keeps the marks of `a` within its armies (after losses).
  void clamp_marks(const Area& a);
  // Takes n armies (and their engine state) out of `from`; the ones that attacked this phase stay.
  Json leave(Area& from, int n, int* carried = nullptr);
  // Armies in `a` that attacked in this combat phase (0 unless one_attack_per_unit).
  int spent(const Area& a) const;

  // Armies arrive in an area their owner holds (a plain move or a won battle's survivors).
  void arrive(Area& to, const Area& from, int n, const Json& units, bool stop);

  void disperse(const std::string& player, int lost);

  // Fights the battle of an attack whose armies have left their areas (`groups`, primary first);
  // `results` are the ActionResult indices of its lines, in group order.
  void fight(Player& p, const Order& first, const std::vector<std::size_t>& results,
             std::vector<AttackGroup> groups, Area& to);
  // fight()'s steps, in the order it calls them. The attacking side of one fought battle after
  // the engine's outcome; each step fills what the next ones read.
  struct FightTally {
    std::vector<int> lost, left;           // per group: armies lost, survivors (share_losses)
    std::vector<Json> units;               // per group: the survivors' engine state (share_losses)
    int attackers_left = 0;                // survivors of every group (share_losses)
    std::optional<std::string> old_owner;  // the area's owner before the battle (apply_defence)
    bool won = false;                      // no defender left and attackers left (advance_winners)
    std::string winner;      // the player whose armies may enter; "" unless won (advance_winners)
    std::vector<int> enter;  // per group: armies entering the area (advance_winners)
    int entered = 0;         // their sum (advance_winners)
  };
  // The battle's input from in.groups (already set), the attacker `p`, its first line and the
  // area `to`: id and kind from `log`, the merged attacking units and the ambush. Records the
  // attacking armies and the ambush in `log`.
  void fill_battle_input(BattleInput& in, const Player& p, const Order& first, const Area& to,
                         BattleLog& log) const;
  // The engine's outcome of `in` against `defenders` armies, or why it cannot be applied: the
  // run's fatal_ status once set, an inconsistent outcome, the engine's error. The first failure
  // of a script engine becomes fatal_.
  Result<BattleOutcome> resolve_battle(const BattleInput& in, const Player& p, int defenders,
                                       Rng& rng);
  // A battle that could not be fought: every group's armies go home and its line (results[k])
  // fails with `why`.
  void send_home(const std::vector<AttackGroup>& groups, const std::vector<std::size_t>& results,
                 const std::string& why);
  // Each group's losses, survivors and their units: the outcome's per-group vectors, or its
  // totals shared out (take_losses, detach_units from the attackers' units). `n`: the attacking
  // armies.
  FightTally share_losses(const BattleOutcome& out, const std::vector<AttackGroup>& groups,
                          int n) const;
  // Dispersal of both sides' losses, the players' engine states, and the defenders of `to`: they
  // stay with the outcome's units, or the engine pushes them out; the fort after the battle.
  void apply_defence(Player& p, const BattleOutcome& out, const std::vector<AttackGroup>& groups,
                     FightTally& t, Area& to);
  // On a win, who enters `to` and how many of each group (the first player with survivors, up to
  // out.advancing); captures the area when some do.
  void advance_winners(const BattleOutcome& out, const std::vector<AttackGroup>& groups,
                       FightTally& t, Area& to, BattleLog& log);
  // Each group's survivors: the entering ones into `to`, the others home or where the engine
  // retreats them; one BattleGroupLog per group in `log`.
  void place_survivors(const BattleOutcome& out, const std::vector<AttackGroup>& groups,
                       FightTally& t, Area& to, BattleLog& log);
  // Each line's result (results[k] for groups[k]): the battle's outcome and what became of its
  // own armies.
  void line_results(const std::vector<AttackGroup>& groups, const std::vector<std::size_t>& results,
                    const FightTally& t, const Area& to, const BattleLog& log);

  void capture(Area& to, const Area& from, const Player& p, const std::optional<std::string>& old);

  Area* own_area(ActionResult& r, const Player& p, const std::string& code);

  void set_ambush(ActionResult& r, Player& p, const Order& o);

  void set_retreat(ActionResult& r, Player& p, const Order& o);

  void set_defend(ActionResult& r, Player& p, const Order& o);

  void levy(ActionResult& r, Player& p, const Order& o);

  void bid(ActionResult& r, Player& p, const Order& o);

  // SUPPORT: the engine records that the units in `where` support battles in `to` for the rest of
  // the turn (validated against the engine's rules; here only ownership is checked).
  void set_support(ActionResult& r, Player& p, const Order& o);

  // GIFT (seed 9.2): BPs from this kingdom's balance to another's, at once (the receiver may
  // spend them in its later actions this turn); cut to what the giver has.
  void gift(ActionResult& r, Player& p, const Order& o);

  // MIGRATE (seed 5.14): n people move to an adjacent area of the same kingdom and one more is
  // lost on the way: destination +n, source -(n+1). Not from a blockaded city.
  void migrate(ActionResult& r, Player& p, const Order& o);

  // RAID (Dark Age 5.10, docs/rules/dark-age.md §1.8; rules/turn/turn_raids.cc): 1 BP; the RETREAT
  // defence mode may withdraw the defenders first; the raiders lose 1 army if the defence level is
  // above 0, the defenders 1 army unless an ambush faces the raiders' area or the terrain shelters
  // them; the survivors go home and pillage the area when no defending army is left. Not vs cities.
  void raid(ActionResult& r, Player& p, const Order& o);

  // INVADE (Dark Age 5.15, docs/rules/dark-age.md §1.8): Gaelic kingdoms only, 0 BP; the origin
  // loses 1 population; the target loses 1 army, else 1 fort, else 1 population. Nothing moves.
  void invade(ActionResult& r, Player& p, const Order& o);

  // Gaelic conversion (docs/rules/dark-age.md §1.6), called when a RETREAT-mode withdrawal from
  // `to` to `dest` has triggered: if `to` is owned by a Gaelic kingdom and `attacker` is not Gaelic
  // (and the engine plays the Dark Age rules), its whole population turns into armies that join the
  // withdrawal into `dest`. Returns how many (0 when the rule does not apply).
  int gaelic_conversion(Area& to, Area& dest, const Player& attacker);

  void end_of_turn();

  std::string digest();  // also sets result_.next_state_text

  BattleSink* sink_;            // null when there is none, or once closed
  std::deque<BattleLog> sunk_;  // the logs shown to sink_ (a deque: they must not move)
  TurnResult result_;           // orders_ refers to result_.orders
  GameState s_;
  const OrderBook& orders_;
  const CombatEngine& engine_;
  std::map<std::string, int> stuck_;  // armies per area that may not move again this turn
  // The combat phase (CombatEngine::phase_rules), per area: armies that were the object of an
  // attack in it (with the first such attack, "action 3, by WSX") and armies that attacked in it.
  // The marks follow the armies when they retreat; they are cleared when a phase begins.
  struct Attacked {
    int armies = 0;
    std::string by;
  };
  CombatPhaseRules phase_;
  std::map<std::string, Attacked> attacked_;
  std::map<std::string, int> spent_;
  std::set<std::pair<std::string, int>> done_;  // (player, line) already run by another's battle
  // Index of each code in s_.order_of_play (first occurrence), for battle_input_json.
  std::map<std::string, std::size_t> order_position_;
  // Each battle's replay input as text (s_'s engine and rules do not change during the battles).
  BattleInputWriter input_writer_;
  std::map<std::string, std::set<std::string>> owned_at_start_;
  // The result_.economy entry of start.players[i] (map nodes do not move), for economy_of().
  std::vector<std::pair<const std::string, Economy>*> economy_by_index_;
  // Set by the first battle a script engine failed (an error, or a broken instruction or
  // memory limit): later battles are not fought and run() returns it, so the turn is not used.
  Status fatal_ = Status::Ok();
};

}  // namespace adj::turn_detail
