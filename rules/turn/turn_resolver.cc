#include "rules/turn/turn_resolver.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "rules/combat/local_world.h"
#include "rules/turn/economy.h"

namespace adj {

Seed turn_seed(Seed game_seed, int turn) {
  return derive_seed(game_seed, "turn:" + std::to_string(turn));
}

namespace {

// "1 army", "3 armies".
std::string armies(int n) { return std::to_string(n) + (n == 1 ? " army" : " armies"); }
std::string bps(int n) { return std::to_string(n) + (n == 1 ? " BP" : " BPs"); }

// Mutable working state of one turn run. Internal to this file.
class TurnRun {
 public:
  TurnRun(const GameState& start, const OrderBook& orders, const CombatEngine& engine)
      : s_(start), orders_(orders), engine_(engine) {
    result_.turn = start.turn;
    result_.seed = turn_seed(start.seed, start.turn);
    for (const auto& p : start.players) {
      owned_at_start_[p.code];
      result_.economy[p.code].bp_start = p.bp;
    }
    for (const auto& a : start.areas)
      if (a.owner) owned_at_start_[*a.owner].insert(a.code);
  }

  Result<TurnResult> run() {
    draw_order_of_play();
    result_.orders = orders_;
    const int n = s_.rules.actions_per_turn;
    for (int slot = 1; slot <= n; ++slot) {
      for (const auto& code : result_.order_of_play) {
        auto it = orders_.find(code);
        if (it == orders_.end()) continue;
        for (const Order& o : it->second)
          if (o.action == slot) execute(code, o);
      }
    }
    engine_.end_turn(s_);
    end_of_turn();
    s_.turn += 1;
    s_.order_of_play = result_.next_order_of_play;
    s_.normalise();
    result_.next_state = std::move(s_);
    result_.digest = digest();
    return std::move(result_);
  }

 private:
  void draw_order_of_play() {
    std::vector<std::string> order = s_.order_of_play;
    // Keep only current players; add any missing ones in code order.
    std::erase_if(order, [&](const std::string& c) { return !s_.find_player(c); });
    for (const auto& p : s_.players)
      if (std::find(order.begin(), order.end(), p.code) == order.end()) order.push_back(p.code);
    if (s_.order_of_play.empty()) {
      // Turn 1 (or a game without one): a seeded random permutation (Fisher-Yates).
      Xoshiro256 rng(derive_seed(result_.seed, "order-of-play"));
      for (std::size_t i = order.size(); i > 1; --i)
        std::swap(order[i - 1], order[rng.uniform(static_cast<std::uint32_t>(i))]);
    }
    result_.order_of_play = order;
  }

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
    result_.economy[p.code].bp_spent += cost;
    return true;
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

  void execute(const std::string& code, const Order& o) {
    ActionResult& r = begin(code, o);
    Player& p = *s_.find_player(code);
    switch (o.verb) {
      case Verb::kMove:
      case Verb::kAssault:
      case Verb::kProbe:
      case Verb::kOverrun:
        attack(r, p, o);
        break;
      case Verb::kAmbush:
        set_ambush(r, p, o);
        break;
      case Verb::kRetreat:
        set_retreat(r, p, o);
        break;
      case Verb::kDefend:
        set_defend(r, p, o);
        break;
      case Verb::kLevy:
        levy(r, p, o);
        break;
      case Verb::kOrder:
        bid(r, p, o);
        break;
      case Verb::kGift:
        gift(r, p, o);
        break;
      case Verb::kMigrate:
        migrate(r, p, o);
        break;
      case Verb::kSupport:
        set_support(r, p, o);
        break;
    }
  }

  // Resolves the armies an attack verb moves; 0 and a reason when it cannot go ahead.
  int armies_for(const Order& o, const Area& from, std::string& why) const {
    const int avail = movable(from);
    const int stuck = from.armies - avail;
    switch (o.qty.kind) {
      case Quantity::Kind::kExact:
        if (o.qty.n > avail) {
          why = "only " + armies(avail) + " can move from " + from.code + " (you ordered " +
                std::to_string(o.qty.n) + ")";
          if (stuck > 0)
            why += "; " + armies(stuck) + (stuck == 1 ? " has" : " have") + " stopped for the turn";
          return 0;
        }
        if (o.qty.n == 0) why = "no armies ordered";
        return o.qty.n;
      case Quantity::Kind::kAllBut:
        if (avail - o.qty.n <= 0) {
          why = "no armies to send: " + armies(avail) + " can move from " + from.code +
                ", all but " + std::to_string(o.qty.n) + " is none";
          return 0;
        }
        return avail - o.qty.n;
      case Quantity::Kind::kAll:
        if (avail == 0) why = "no armies can move from " + from.code;
        return avail;
    }
    return 0;
  }

  void attack(ActionResult& r, Player& p, const Order& o) {
    Area* from = s_.find_area(o.from);
    Area* to = s_.find_area(o.to);
    if (!from || !to) return fail(r, "unknown area");  // validator prevents this
    if (!owns(p.code, *from)) return fail(r, "you do not own " + from->code);
    std::string why;
    const int n = armies_for(o, *from, why);
    if (n <= 0) return fail(r, why.empty() ? "no armies to move" : why);
    const bool own_target = owns(p.code, *to);
    if (own_target && o.verb == Verb::kAssault)
      return fail(r, "ASSAULT on your own area " + to->code + " fails");
    if (!pay(r, p, s_.rules.cost(verb_name(o.verb)))) return;

    Json moving = engine_.detach_units(from->engine_state, from->armies, n);
    from->armies -= n;
    if (own_target) {
      arrive(*to, *from, n, moving, sticky(*to));
      r.ok = true;
      r.message = "moved " + armies(n) + " to " + to->code;
      if (sticky(*to)) r.message += " (difficult terrain: they stop for the turn)";
      return;
    }
    fight(r, p, o, *from, *to, n, std::move(moving));
  }

  // Armies arrive in an area their owner holds (a plain move or a won battle's survivors).
  void arrive(Area& to, const Area& from, int n, const Json& units, bool stop) {
    engine_.merge_units(to.engine_state, to.armies, units, n);
    to.armies += n;
    to.retreat_to = from.code;  // rule 3.12
    if (stop) add_stuck(to.code, n);
  }

  void disperse(const std::string& player, int lost) {
    if (lost <= 0 || s_.rules.dispersal_fraction <= 0) return;
    if (Player* pl = s_.find_player(player))
      pl->reserve += static_cast<int>(std::floor(lost * s_.rules.dispersal_fraction));
  }

  void fight(ActionResult& r, Player& p, const Order& o, Area& from, Area& to, int n, Json moving) {
    BattleLog log;
    log.id = std::to_string(s_.turn) + "." + std::to_string(o.action) + "." + p.code;
    log.seed = derive_seed(result_.seed, "battle:" + log.id);
    log.engine = std::string(engine_.name());
    log.kind = attack_kind_of(o.verb);
    log.attacker = p.code;
    log.defender = to.owner;
    log.from = from.code;
    log.to = to.code;
    log.attacker_armies = n;

    BattleInput in;
    in.id = log.id;
    in.kind = log.kind;
    in.world = &s_;
    in.attacker = p.code;
    in.from = from.code;
    in.to = to.code;
    in.attacker_armies = n;
    in.attacker_units = moving;
    in.extras = o.extras;
    in.options = &s_.engine.options;
    in.ambush =
        to.mode == DefenceMode::kAmbush && to.ambush_against == from.code && o.verb != Verb::kProbe;
    log.ambush = in.ambush;

    // RETREAT defence mode: the defenders withdraw before the battle (rule 3.11).
    if (to.mode == DefenceMode::kRetreat && to.retreat_to && to.armies > 0 && to.owner) {
      Area* dest = s_.find_area(*to.retreat_to);
      if (dest && dest->owner == to.owner && s_.adjacent(to.code, dest->code) &&
          engine_.retreat_triggers(in)) {
        log.defender_withdrew_to = dest->code;
        log.withdrawn_armies = to.armies;
        Json units = engine_.detach_units(to.engine_state, to.armies, to.armies);
        engine_.merge_units(dest->engine_state, dest->armies, units, to.armies);
        dest->armies += to.armies;
        dest->retreat_to = to.code;
        to.armies = 0;
      }
    }
    log.defender_armies = to.armies;
    log.input = battle_input_json(in);

    Xoshiro256 rng(log.seed);
    Result<BattleOutcome> res = engine_.resolve(in, rng);
    if (!res.ok()) {
      // Bad engine data: the armies go home, the action fails, the turn goes on.
      engine_.merge_units(from.engine_state, from.armies, moving, n);
      from.armies += n;
      return fail(r, "the battle could not be fought: " + res.status().message());
    }
    BattleOutcome out = std::move(res).value();
    assert(out.attacker_losses >= 0 && out.attacker_losses <= n);
    assert(out.defender_losses >= 0 && out.defender_losses <= to.armies);
    log.draws = rng.draws();

    const std::optional<std::string> old_owner = to.owner;
    const int attackers_left = n - out.attacker_losses;
    const int defenders_left = to.armies - out.defender_losses;
    if (old_owner) disperse(*old_owner, out.defender_losses);
    disperse(p.code, out.attacker_losses);
    if (out.attacker_player_state) p.engine_state = *out.attacker_player_state;
    if (out.defender_player_state && old_owner)
      if (Player* d = s_.find_player(*old_owner)) d->engine_state = *out.defender_player_state;

    // The defender's survivors stay, or are pushed out by the engine.
    to.armies = defenders_left;
    to.engine_state = out.defender_units;
    if (out.defender_retreats_to && defenders_left > 0) {
      if (Area* dest = s_.find_area(*out.defender_retreats_to)) {
        Json units = engine_.detach_units(to.engine_state, to.armies, defenders_left);
        engine_.merge_units(dest->engine_state, dest->armies, units, defenders_left);
        dest->armies += defenders_left;
        if (!dest->owner && dest->armies == defenders_left) dest->owner = to.owner;
        to.armies = 0;
      }
    }
    if (out.fort_after) to.fort = *out.fort_after;

    if (out.attacker_wins && to.armies == 0 && attackers_left > 0) {
      capture(to, from, p, old_owner);
      to.engine_state = Json::object();
      stuck_[to.code] = 0;
      arrive(to, from, attackers_left, out.attacker_units, out.attacker_stops || sticky(to));
      log.captured = true;
      r.ok = true;
      r.message = "won: " + armies(attackers_left) + " took " + to.code;
    } else {
      // Survivors go home, or where the engine retreats them (an area of theirs or an empty one).
      Area* back = &from;
      if (out.attacker_retreats_to)
        if (Area* d = s_.find_area(*out.attacker_retreats_to); d && d != &to) back = d;
      if (attackers_left > 0) {
        engine_.merge_units(back->engine_state, back->armies, out.attacker_units, attackers_left);
        back->armies += attackers_left;
        if (!back->owner && back->armies == attackers_left) back->owner = p.code;
        if (out.attacker_stops || back != &from) add_stuck(back->code, attackers_left);
      }
      r.ok = false;
      r.message =
          attackers_left == 0 ? "the attack failed: all attacking armies were lost"
          : back == &from
              ? "the attack failed: " + armies(attackers_left) + " went back to " + from.code
              : "the attack failed: " + armies(attackers_left) + " retreated to " + back->code;
    }
    log.outcome = std::move(out);
    r.battle = log.id;
    result_.battles.push_back(std::move(log));
  }

  void capture(Area& to, const Area& from, const Player& p, const std::optional<std::string>& old) {
    if (old && *old != p.code) {
      Player* loser = s_.find_player(*old);
      if (loser && loser->nation != p.nation) {
        // Rule 5.9: a foreign conqueror costs the defender a VP and the area a level of each.
        loser->vp -= 1;
        to.population = std::max(0, to.population - 1);
        to.fort = std::max(0, to.fort - 1);
        to.trade = std::max(0, to.trade - 1);
      }
    }
    to.owner = p.code;
    to.mode = DefenceMode::kRetreat;  // OQ-7
    to.retreat_to = from.code;
    to.ambush_against.reset();
  }

  Area* own_area(ActionResult& r, const Player& p, const std::string& code) {
    Area* a = s_.find_area(code);
    if (!a) return fail(r, "unknown area " + code), nullptr;
    if (!owns(p.code, *a)) return fail(r, "you do not own " + code), nullptr;
    return a;
  }

  void set_ambush(ActionResult& r, Player& p, const Order& o) {
    Area* a = own_area(r, p, o.from);
    if (!a || !pay(r, p, s_.rules.cost("AMBUSH"))) return;
    a->mode = DefenceMode::kAmbush;
    a->ambush_against = o.to;
    if (!o.extras.empty()) engine_.standing_order(o, *a, p);
    r.ok = true;
    r.message = "ambush set in " + a->code + " against " + o.to;
  }

  void set_retreat(ActionResult& r, Player& p, const Order& o) {
    Area* a = own_area(r, p, o.from);
    if (!a || !pay(r, p, s_.rules.cost("RETREAT"))) return;
    a->mode = DefenceMode::kRetreat;
    a->ambush_against.reset();
    if (!o.to.empty()) a->retreat_to = o.to;
    if (!o.extras.empty()) engine_.standing_order(o, *a, p);
    r.ok = true;
    r.message = "retreat set in " + a->code +
                (a->retreat_to ? " to " + *a->retreat_to : std::string(" (no retreat location)"));
  }

  void set_defend(ActionResult& r, Player& p, const Order& o) {
    Area* a = own_area(r, p, o.from);
    if (!a || !pay(r, p, s_.rules.cost("DEFEND"))) return;
    a->mode = DefenceMode::kDefend;
    a->ambush_against.reset();
    if (!o.extras.empty()) engine_.standing_order(o, *a, p);
    r.ok = true;
    r.message = a->code + " will defend";
  }

  void levy(ActionResult& r, Player& p, const Order& o) {
    Area* a = s_.find_area(o.from);
    if (!a) return fail(r, "unknown area " + o.from);
    const bool recapture =
        a->owner != p.code && a->armies == 0 && owned_at_start_[p.code].count(a->code) > 0;
    if (a->owner && a->owner != p.code && !recapture) return fail(r, "you do not own " + a->code);
    if (a->kind == AreaKind::kCity && blockaded(s_, *a))
      return fail(r, a->code + " is blockaded and cannot levy");
    if (a->population <= 0) return fail(r, a->code + " has no population to levy from");
    int n = o.qty.kind == Quantity::Kind::kExact ? o.qty.n : 1;
    if (n <= 0) return fail(r, "no armies to levy");
    const bool cut = n > a->population;
    n = std::min(n, a->population);
    if (!pay(r, p, n * s_.rules.cost("LEVY"))) return;
    engine_.merge_units(a->engine_state, a->armies, Json(), n);
    a->armies += n;
    if (recapture) a->owner = p.code;
    r.ok = true;
    r.message = "levied " + armies(n) + " in " + a->code;
    if (cut) r.message += " (cut to its population)";
    if (!a->owner) r.message += " (the area stays unowned)";
  }

  void bid(ActionResult& r, Player& p, const Order& o) {
    int want;
    if (o.qty.kind == Quantity::Kind::kExact) {
      want = o.qty.n;
    } else if (o.action == s_.rules.actions_per_turn) {
      want = p.bp;  // ORDER with no number as the last action spends everything
    } else {
      return fail(r, "ORDER with no number is ignored unless it is your last action");
    }
    const int spent = std::min(want, p.bp);
    p.bp -= spent;
    r.bp_spent = spent;
    result_.economy[p.code].bp_spent += spent;
    result_.economy[p.code].bid += spent;
    result_.economy[p.code].order_bid += spent;
    r.ok = true;
    r.message = "bid " + std::to_string(spent) + " BPs for the order of play";
    if (spent < want) r.message += " (cut to what you had)";
  }

  // SUPPORT: the engine records that the units in `where` support battles in `to` for the rest of
  // the turn (validated against the engine's rules; here only ownership is checked).
  void set_support(ActionResult& r, Player& p, const Order& o) {
    Area* a = s_.find_area(o.from);
    if (!a) return fail(r, "unknown area " + o.from);
    if (!engine_.accepts_support()) return fail(r, "SUPPORT is not part of this game's rules");
    if (!owns(p.code, *a)) return fail(r, "you do not own " + a->code);
    engine_.standing_order(o, *a, p);
    r.ok = true;
    r.message =
        "the units in " + a->code + " support battles in " + o.to + " for the rest of the turn";
  }

  // GIFT (seed 9.2): BPs from this kingdom's balance to another's, at once (the receiver may
  // spend them in its later actions this turn); cut to what the giver has.
  void gift(ActionResult& r, Player& p, const Order& o) {
    Player* to = s_.find_player(o.to);
    if (!to) return fail(r, "there is no kingdom " + o.to);  // validator prevents this
    if (to->code == p.code) return fail(r, "you cannot give BPs to yourself");
    if (p.bp <= 0) return fail(r, "you have no BPs left to give");
    const int given = std::min(o.qty.n, p.bp);
    p.bp -= given;
    to->bp += given;
    r.bp_spent = given;
    result_.economy[p.code].bp_spent += given;
    result_.gifts.push_back({p.code, to->code, given, o.action});
    r.ok = true;
    r.message = "gave " + bps(given) + " to " + to->name + " (" + to->code + ")";
    if (given < o.qty.n) r.message += " (cut to what you had)";
  }

  // MIGRATE (seed 5.14): n people move to an adjacent area of the same kingdom and one more is
  // lost on the way: destination +n, source -(n+1). Not from a blockaded city.
  void migrate(ActionResult& r, Player& p, const Order& o) {
    Area* from = s_.find_area(o.from);
    Area* to = s_.find_area(o.to);
    if (!from || !to) return fail(r, "unknown area");  // validator prevents this
    if (!owns(p.code, *from)) return fail(r, "you do not own " + from->code);
    if (!owns(p.code, *to))
      return fail(r, "people only migrate into your own areas (" + to->code + " is " +
                         (to->owner ? "held by " + *to->owner : std::string("unowned")) + ")");
    if (from->kind == AreaKind::kCity && blockaded(s_, *from))
      return fail(r, from->code + " is blockaded: nobody can leave");
    const int n = o.qty.n;
    if (from->population < n + 1)
      return fail(r, "moving " + std::to_string(n) + " people needs a population of " +
                         std::to_string(n + 1) + " in " + from->code + " (it has " +
                         std::to_string(from->population) + ")");
    from->population -= n + 1;
    to->population += n;
    r.ok = true;
    r.message = "moved " + std::to_string(n) + " population from " + from->code + " to " +
                to->code + " (1 more was lost on the way)";
  }

  void end_of_turn() {
    apply_end_of_turn(s_, result_.economy);
    // Next order of play: by BPs bid, highest first; ties keep the current order.
    std::vector<std::string> next = result_.order_of_play;
    std::stable_sort(next.begin(), next.end(), [&](const std::string& a, const std::string& b) {
      return result_.economy[a].bid > result_.economy[b].bid;
    });
    result_.next_order_of_play = next;
  }

  std::string digest() const {
    std::string canon = to_json(result_.next_state).dump();
    for (const auto& a : result_.actions) canon += to_json(a).dump();
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (unsigned char c : canon) {
      h ^= c;
      h *= 0x100000001b3ULL;
    }
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    return buf;
  }

  GameState s_;
  const OrderBook& orders_;
  const CombatEngine& engine_;
  TurnResult result_;
  std::map<std::string, int> stuck_;  // armies per area that may not move again this turn
  std::map<std::string, std::set<std::string>> owned_at_start_;
};

}  // namespace

Result<TurnResult> resolve_turn(const GameState& state, const OrderBook& orders,
                                const CombatEngine& engine) {
  for (const auto& [code, list] : orders)
    if (!state.find_player(code))
      return Status::InvalidArgument("orders for unknown player " + code);
  return TurnRun(state, orders, engine).run();
}

}  // namespace adj
