#include "rules/combat/virtuti_militari_engine.h"

#include <algorithm>
#include <climits>
#include <optional>

#include "rules/combat/vm_numbers.h"

namespace adj {

const EngineTraits& VirtutiMilitariEngine::traits() const {
  static constexpr EngineTraits kTraits{
      .name = "virtuti-militari",
      .summary =
          "Virtuti Militari: the higher strength wins, dice only decide losses. Strength = unit "
          "attack (defender: defence) + order bonus (MOVE/OVERRUN +1, ASSAULT +2, DEFEND +1, "
          "AMBUSH +2) + forts (defender) + a card from the hand + air tokens (not in mud or at "
          "sea; they return to the pool) + SUPPORT from adjacent areas (strength, no dice; Fleets "
          "there give Shore Bombardment); units across an unfrozen river count half, each attack "
          "group by its own border. Fleets do not fight on land and are destroyed when their port "
          "is captured. A tie goes to the side higher on the initiative track (else the order of "
          "play). Both sides roll their units', card's and tokens' dice for damage; forts and card "
          "HP symbols absorb first. The loser retreats and is exhausted to the end of the turn; a "
          "winning attacker takes the area and razes its forts. A winning OVERRUN takes half the "
          "damage; a failed one is destroyed. PROBE is a raid: losses only, nobody moves. "
          "Strengths are shown in points (x.5 across rivers). Unit and dice tables are data "
          "(placeholder defaults).",
      .order_help =
          "Virtuti Militari options on orders:\n"
          "  MOVE|ASSAULT|PROBE|OVERRUN <from> <to> [n] CARD <k> AIR <m>\n"
          "      play card k of your hand (1 = the first card listed in your report) and commit m "
          "air support tokens (they return to your pool after the battle); both are optional.\n"
          "  DEFEND|AMBUSH|RETREAT <area> [...] CARD <k> AIR <m>\n"
          "      standing choice for battles in that area: the card (kept by name, spent when "
          "played) and air tokens the defender commits.\n"
          "MOVE = Move order (+1), ASSAULT = Move order +2 (survivors stop), PROBE = raid "
          "(losses only), OVERRUN = Move order +1: if it wins the attackers take half the damage, "
          "if it fails they fight to the finish and are destroyed. DEFEND = Defense order (+1); "
          "AMBUSH against the attacker's origin +2. Lines of one action number against one area "
          "are one battle; each group's units count half across its own unfrozen river, and a "
          "losing group goes home to its own area.\n"
          "  SUPPORT <where> <to>\n"
          "      for the rest of the turn the units in <where> add their strength (attack or "
          "defence, half across an unfrozen river, +1 for the order; no dice) to your side in "
          "battles in the adjacent area <to>; Fleets there do not fight on land but give Shore "
          "Bombardment (+1 per Fleet). An area that attacks does not also support.\n"
          "Fleets never fight in a land battle; a port's Fleets are destroyed when it is captured.",
      .accepts_support = true,
  };
  return kTraits;
}

Status VirtutiMilitariEngine::check_game(const GameState& state) const {
  return vm_check_game(state);
}

Status VirtutiMilitariEngine::check_order(const Order& order, const GameState& state) const {
  if (order.extras.empty()) return Status::Ok();
  for (const auto& [k, v] : order.extras)
    if (k != "CARD" && k != "AIR")
      return Status::InvalidArgument(k +
                                     " is not part of the orders of this game's rules "
                                     "(virtuti-militari takes CARD n and AIR n)");
  if (!is_attack_verb(order.verb) && order.verb != Verb::kDefend && order.verb != Verb::kAmbush &&
      order.verb != Verb::kRetreat)
    return Status::InvalidArgument(std::string("CARD and AIR go with MOVE, ASSAULT, PROBE, "
                                               "OVERRUN, DEFEND, AMBUSH or RETREAT, not ") +
                                   verb_name(order.verb));
  const Area* a = state.find_area(order.from);
  const Player* p = a && a->owner ? state.find_player(*a->owner) : nullptr;
  if (auto it = order.extras.find("CARD"); it != order.extras.end()) {
    const int n = static_cast<int>(vm_hand_of(p).size());
    if (it->second < 1 || it->second > n)
      return Status::InvalidArgument(n == 0 ? std::string("you have no cards in your hand")
                                            : "CARD must be 1.." + std::to_string(n) +
                                                  " (the cards in your hand)");
  }
  if (auto it = order.extras.find("AIR"); it != order.extras.end()) {
    const int n = vm_air_of(p);
    if (it->second < 0 || it->second > n)
      return Status::InvalidArgument("you have " + std::to_string(n) +
                                     " air support tokens (AIR 0.." + std::to_string(n) + ")");
  }
  return Status::Ok();
}

bool VirtutiMilitariEngine::retreat_triggers(const BattleInput& in) const {
  Result<VmData> data = vm_data_of(*in.options);
  if (!data.ok()) return false;
  const VmOptions o = vm_options_of(in.options);
  const std::vector<AttackGroup> groups = attack_groups(in);
  const auto att = vm_attacking_units(groups, *data);
  const auto def = vm_units_of(in.target().engine_state, in.target().armies, *data);
  const VmStrength s = vm_step1(in, groups, att, def, *data, o);
  return s.attacker_units + s.attacker_bonus + s.attacker_support_total() >
         s.defender_units + s.defender_bonus + s.fort + s.defender_support_total();
}

namespace {

// Fills the attacker's survivors (total and per group) and per-group losses. `att` are the
// fighting survivors, `idle` the attacking units that did not fight; `before[g]` the armies of
// group g.
void set_attacker_units(BattleOutcome& out, const std::vector<VmUnit>& att,
                        const std::vector<VmUnit>& idle, const std::vector<AttackGroup>& groups) {
  std::vector<VmUnit> all;
  out.group_losses.clear();
  out.group_units.clear();
  for (std::size_t g = 0; g < groups.size(); ++g) {
    std::vector<VmUnit> mine;
    for (const auto* list : {&att, &idle})
      for (const auto& u : *list)
        if (u.group == static_cast<int>(g)) mine.push_back(u);
    out.group_losses.push_back(groups[g].armies - static_cast<int>(mine.size()));
    out.group_units.push_back(vm_units_json(mine));
    all.insert(all.end(), mine.begin(), mine.end());
  }
  out.attacker_units = vm_units_json(all);
}

// One battle, step by step (the seven steps of virtuti_militari_engine.h). Each step reads what
// the earlier ones left in the members; the dice are rolled in one fixed order (step 5).
struct VmBattle {
  VmBattle(const BattleInput& battle, const VmData& d, const VmOptions& opt)
      : in(battle),
        data(d),
        o(opt),
        w(*battle.world),
        to(battle.target()),
        groups(attack_groups(battle)),
        probe(battle.kind == AttackKind::kProbe),
        overrun(battle.kind == AttackKind::kOverrun) {}

  const BattleInput& in;
  const VmData& data;
  const VmOptions& o;
  const GameState& w;
  const Area& to;
  const std::vector<AttackGroup> groups;
  const bool probe, overrun;

  BattleOutcome out;
  std::vector<VmUnit> att, def, att_idle, def_fleets;
  int fleets_in_port = 0;
  Json def_state;
  const Player* attacker = nullptr;
  const Player* defender = nullptr;
  Json defence;
  VmStrength s;
  Json att_hand, def_hand;
  std::optional<VmCard> att_card, def_card;
  bool no_air = false;
  int att_air = 0, def_air = 0;
  int att_total = 0, def_total = 0;
  bool attacker_won = false;
  std::string tie_break;
  BattleRound r;
  int att_damage = 0, def_damage = 0;
  int att_destroyed = 0, def_losses = 0;
  int fort_absorbed = 0;

  // The units on both sides. Fleets do not fight on land: no strength, no dice, no losses. A
  // defender's Fleets stay in the port, or are destroyed when the area is captured (step 7); an
  // attacker's ride along.
  void muster() {
    att = vm_attacking_units(groups, data);
    def = vm_units_of(to.engine_state, to.armies, data);
    vm_split_fighting(att, att_idle, to, data);
    vm_split_fighting(def, def_fleets, to, data);
    fleets_in_port = static_cast<int>(def_fleets.size());
    out.attacker_stops = probe || in.kind == AttackKind::kAssault;
    def_state = to.engine_state.is_object() ? to.engine_state : Json::object();
  }

  void store_defenders(std::vector<VmUnit> survivors) {
    survivors.insert(survivors.end(), def_fleets.begin(), def_fleets.end());
    def_state["units"] = vm_units_json(survivors)["units"];
    if (survivors.empty()) def_state.erase("units");
    out.defender_units = def_state;
  }

  // No defending units that fight: no battle; the attacker walks in (a probe turns back), and
  // Fleets in the captured port are destroyed.
  BattleOutcome unopposed() {
    BattleRound u;
    u.phase = "unopposed";
    u.attacker_before = in.attacker_armies;
    u.defender_before = to.armies;
    out.attacker_wins = !probe;
    if (!probe && to.fort > 0) out.fort_after = 0;
    if (!probe && fleets_in_port > 0) {
      out.defender_losses = fleets_in_port;
      u.defender_losses = fleets_in_port;
      out.detail["fleets_destroyed_in_port"] = fleets_in_port;
      def_fleets.clear();
    }
    out.rounds.push_back(u);
    set_attacker_units(out, att, att_idle, groups);
    if (fleets_in_port == 0)
      out.defender_units = to.engine_state;
    else
      store_defenders({});
    return out;
  }

  // Step 2: the attacker's CARD n and the defender's standing choice leave their hands.
  Status play_cards() {
    att_hand = vm_hand_of(attacker);
    def_hand = vm_hand_of(defender);
    if (auto it = in.extras.find("CARD"); it != in.extras.end()) {
      if (it->second >= 1 && it->second <= static_cast<int>(att_hand.size())) {
        att_card = vm_card_of(att_hand[it->second - 1]);
        att_hand.erase(static_cast<std::size_t>(it->second - 1));
      } else {
        out.detail["attacker_card_missing"] = it->second;
      }
    }
    if (defence.contains("card") && defence["card"].is_string()) {
      const std::string id = defence["card"];
      for (std::size_t i = 0; i < def_hand.size(); ++i)
        if (vm_card_of(def_hand[i]).id == id) {
          def_card = vm_card_of(def_hand[i]);
          def_hand.erase(i);
          break;
        }
      if (!def_card) out.detail["defender_card_missing"] = id;
      def_state["defence"].erase("card");  // the choice is used up either way
    }
    for (auto* c : {&att_card, &def_card})
      if (*c)
        for (const auto& d : (*c)->dice)
          if (!data.dice.count(d))
            return Status::InvalidArgument("card " + (*c)->id + ": unknown die \"" + d + "\"");
    return Status::Ok();
  }

  // Step 3: air support ("skipped in naval battles and in Mud areas"), then the totals.
  void commit_air() {
    no_air = to.kind == AreaKind::kSea || vm_weather_of(to, o) == "mud";
    if (!no_air) {
      if (auto it = in.extras.find("AIR"); it != in.extras.end())
        att_air = std::clamp(it->second, 0, vm_air_of(attacker));
      if (defender) def_air = std::clamp(defence.value("air", 0), 0, vm_air_of(defender));
    }
    att_total = s.attacker_units + s.attacker_bonus + s.attacker_support_total() +
                2 * (att_card ? att_card->strength : 0) + 2 * att_air * data.air_strength;
    def_total = s.defender_units + s.defender_bonus + s.fort + s.defender_support_total() +
                2 * (def_card ? def_card->strength : 0) + 2 * def_air * data.air_strength;
  }

  // Step 4: the winner ("In case of a tie, the winner is a Faction higher on the Initiative
  // Track"; with no track configured, the order of play; unranked on both sides: the defender).
  void decide() {
    attacker_won = att_total > def_total;
    if (att_total != def_total) return;
    const int ra = vm_initiative_rank(w, in.attacker, o), rd = vm_initiative_rank(w, to.owner, o);
    attacker_won = ra < rd;
    tie_break = ra == INT_MAX && rd == INT_MAX ? "default (neither side is ranked)"
                : o.initiative.empty()         ? "order of play"
                                               : "initiative track";
  }

  // Step 5: dice, attacker's first (units in order, card, air), then the defender's; forts and
  // card HP symbols absorb, the rest falls on units.
  void roll_losses(Rng& rng) {
    r.phase = probe ? "probe" : "battle";
    r.attacker_before = in.attacker_armies;
    r.defender_before = to.armies;
    r.attacker_strength = att_total;
    r.defender_strength = def_total;
    Json att_rolls = Json::array(), def_rolls = Json::array();
    for (const auto& u : att)
      if (!u.exhausted)
        att_damage += vm_roll(data, data.level_of(u).die, rng, r.attacker_dice, att_rolls, u.type);
    if (att_card)
      for (const auto& d : att_card->dice)
        att_damage += vm_roll(data, d, rng, r.attacker_dice, att_rolls, "card");
    for (int i = 0; i < att_air; ++i)
      att_damage += vm_roll(data, data.air_die, rng, r.attacker_dice, att_rolls, "air");
    for (const auto& u : def)
      if (!u.exhausted)
        def_damage += vm_roll(data, data.level_of(u).die, rng, r.defender_dice, def_rolls, u.type);
    if (def_card)
      for (const auto& d : def_card->dice)
        def_damage += vm_roll(data, d, rng, r.defender_dice, def_rolls, "card");
    for (int i = 0; i < def_air; ++i)
      def_damage += vm_roll(data, data.air_die, rng, r.defender_dice, def_rolls, "air");

    // OVERRUN (seed 001 5.5): "If successful the attacker will suffer a minimum of losses": a
    // winning overrun takes half the defender's damage (rounded down).
    int to_att = def_damage;
    if (overrun && attacker_won && o.overrun_halves) to_att /= 2;
    const int overrun_spared = def_damage - to_att;
    // Absorb: the defender first (forts, then card HP symbols), then the attacker.
    int to_def = att_damage;
    fort_absorbed = std::min(to.fort, to_def);
    to_def -= fort_absorbed;
    const int def_hp_absorbed = std::min(def_card ? def_card->hp : 0, to_def);
    to_def -= def_hp_absorbed;
    def_losses = vm_apply_damage(def, to_def, data);
    const int att_hp_absorbed = std::min(att_card ? att_card->hp : 0, to_att);
    to_att -= att_hp_absorbed;
    att_destroyed = vm_apply_damage(att, to_att, data);
    r.detail = {{"strength_unit", "half-points"},
                {"attacker_strength_points", vm_points_text(att_total)},
                {"defender_strength_points", vm_points_text(def_total)},
                {"attacker_units", s.attacker_units},
                {"attacker_bonus", s.attacker_bonus},
                {"river_halved", s.river},
                {"attacker_card", att_card ? Json(att_card->id) : Json()},
                {"attacker_air", att_air},
                {"defender_units", s.defender_units},
                {"defender_bonus", s.defender_bonus},
                {"attacker_support", vm_support_json(s.attacker_support)},
                {"defender_support", vm_support_json(s.defender_support)},
                {"fort", s.fort},
                {"defender_card", def_card ? Json(def_card->id) : Json()},
                {"defender_air", def_air},
                {"air_skipped", no_air},
                {"attacker_total_points", att_total / 2.0},
                {"defender_total_points", def_total / 2.0},
                {"winner", attacker_won ? "attacker" : "defender"},
                {"tie_by_initiative", att_total == def_total},
                {"attacker_rolls", att_rolls},
                {"defender_rolls", def_rolls},
                {"attacker_damage", att_damage},
                {"defender_damage", def_damage},
                {"fort_absorbed", fort_absorbed},
                {"defender_hp_absorbed", def_hp_absorbed},
                {"attacker_hp_absorbed", att_hp_absorbed}};
    if (!tie_break.empty()) r.detail["tie_break"] = tie_break;
    if (groups.size() > 1) {
      Json gs = Json::array();
      for (std::size_t g = 0; g < groups.size(); ++g)
        gs.push_back({{"from", groups[g].from},
                      {"units_points", s.group_units[g] / 2.0},
                      {"river_halved", static_cast<bool>(s.group_river[g])}});
      r.detail["groups"] = gs;
    }
    if (overrun_spared > 0) r.detail["overrun_spared"] = overrun_spared;
    if (!att_idle.empty()) r.detail["attacker_fleets_idle"] = static_cast<int>(att_idle.size());
    if (fleets_in_port > 0) r.detail["defender_fleets_idle"] = fleets_in_port;
  }

  // Step 6 for a defender that lost: to one adjacent area its owner holds (land battle: a land
  // area; naval battle: a sea area or a port), its standing RETREAT location if that qualifies,
  // else the one with the most armies (ties by code); none: every survivor is eliminated.
  void defender_retreats() {
    std::optional<std::string> dest;
    if (to.owner) {
      std::vector<const Area*> cands;
      for (const auto& code : w.neighbours(to.code)) {
        const Area* n = w.find_area(code);
        const bool origin = std::any_of(groups.begin(), groups.end(),
                                        [&](const AttackGroup& g) { return g.from == code; });
        // A land battle's losers retreat overland; a naval battle's Fleets to a friendly sea area
        // or port (area feature "port").
        const bool by_sea = n && (n->kind == AreaKind::kSea || feature_flag(n->features, "port"));
        const bool reachable = to.kind == AreaKind::kSea ? by_sea : n && n->kind != AreaKind::kSea;
        if (n && n->owner == to.owner && reachable && !origin) cands.push_back(n);
      }
      for (const Area* c : cands)
        if (to.retreat_to && c->code == *to.retreat_to) dest = c->code;
      if (!dest && !cands.empty()) {
        const Area* best = cands.front();
        for (const Area* c : cands)
          if (c->armies > best->armies) best = c;  // neighbours are sorted: ties keep the code
        dest = best->code;
      }
    }
    if (dest) {
      for (auto& u : def) u.exhausted = true;
      out.defender_retreats_to = dest;
    } else {
      def_losses += static_cast<int>(def.size());
      def.clear();
      out.detail["defender_eliminated"] = "no adjacent friendly area to retreat to";
    }
  }

  // Steps 6 and 7: who retreats, who is destroyed, who advances; the forts; the outcome.
  void conclude() {
    if (!probe && attacker_won && !def.empty()) defender_retreats();
    // Step 7: "If captured area has a port with enemy Fleets in it, they are destroyed." The
    // defender's Fleets cannot retreat overland: they are destroyed whenever its land units lose
    // the area.
    if (!probe && attacker_won && fleets_in_port > 0) {
      def_losses += fleets_in_port;
      def_fleets.clear();
      out.detail["fleets_destroyed_in_port"] = fleets_in_port;
    }
    if (!probe && !attacker_won) {
      if (overrun && o.overrun_failed_eliminated && !att.empty()) {
        // "If unsuccessful the attacker will be thrown into confusion and forced to fight to the
        // finish": strength does not change, so the finish is the attacker's end.
        att_destroyed += static_cast<int>(att.size());
        att.clear();
        out.detail["overrun_failed"] = "the attackers fought to the finish and were destroyed";
      }
      for (auto& u : att) u.exhausted = true;  // home to the origin, exhausted
      for (auto& u : att_idle) u.exhausted = true;
    }
    r.attacker_losses = att_destroyed;
    r.defender_losses = def_losses;
    out.rounds.push_back(r);
    // The battle in points, for reports and logs.
    out.detail["attacker_strength_points"] = vm_points_text(att_total);
    out.detail["defender_strength_points"] = vm_points_text(def_total);
    out.detail["winner"] = attacker_won ? "attacker" : "defender";
    if (!tie_break.empty()) out.detail["tie_break"] = tie_break;

    out.attacker_losses = att_destroyed;
    out.defender_losses = def_losses;
    out.attacker_wins = !probe && attacker_won && !att.empty();
    store_defenders(def);
    set_attacker_units(out, att, att_idle, groups);
    if (!probe && attacker_won) {
      if (to.fort > 0) out.fort_after = 0;  // step 7: the forts are razed
    } else if (o.forts_used_up && fort_absorbed > 0) {
      out.fort_after = to.fort - fort_absorbed;
    }
  }

  // Spent cards and tokens (air tokens return to the pool unless air_tokens_spent).
  void spend() {
    if (attacker && (att_card || (att_air > 0 && o.air_spent))) {
      Json st = attacker->engine_state.is_object() ? attacker->engine_state : Json::object();
      if (att_card) st["hand"] = att_hand;
      if (o.air_spent && att_air > 0) st["air"] = vm_air_of(attacker) - att_air;
      out.attacker_player_state = st;
    }
    if (defender && (def_card || (def_air > 0 && o.air_spent))) {
      Json st = defender->engine_state.is_object() ? defender->engine_state : Json::object();
      if (def_card) st["hand"] = def_hand;
      if (o.air_spent && def_air > 0) st["air"] = vm_air_of(defender) - def_air;
      out.defender_player_state = st;
    }
    out.detail["placeholder_data"] = data.placeholder;
  }
};

}  // namespace

Result<BattleOutcome> VirtutiMilitariEngine::resolve(const BattleInput& in, Rng& rng) const {
  Result<VmData> data = vm_data_of(*in.options);
  if (!data.ok()) return data.status();
  const VmOptions o = vm_options_of(in.options);
  VmBattle b(in, *data, o);
  b.muster();
  if (b.def.empty()) return b.unopposed();
  b.attacker = b.w.find_player(in.attacker);
  b.defender = b.to.owner ? b.w.find_player(*b.to.owner) : nullptr;
  b.defence = b.def_state.value("defence", Json::object());
  b.s = vm_step1(in, b.groups, b.att, b.def, *data, o);  // step 1
  if (Status st = b.play_cards(); !st.ok()) return st;   // step 2
  b.commit_air();                                        // step 3
  b.decide();                                            // step 4
  b.roll_losses(rng);                                    // step 5
  b.conclude();                                          // steps 6 and 7
  b.spend();
  return b.out;
}

Json VirtutiMilitariEngine::detach_units(Json& area_units, int area_armies, int n) const {
  std::vector<Json> all = vm_entries_of(area_units, area_armies);
  std::vector<Json> moving, staying;
  // Fresh units first (exhausted units may not move; they go only when the order needs them).
  for (int pass = 0; pass < 2; ++pass)
    for (auto& e : all) {
      if (e.is_null()) continue;
      const bool tired = e.value("exhausted", false);
      if (static_cast<int>(moving.size()) < n && tired == (pass == 1)) {
        moving.push_back(e);
        e = Json();
      }
    }
  for (auto& e : all)
    if (!e.is_null()) staying.push_back(e);
  vm_store_entries(area_units, staying);
  Json out = Json::object();
  vm_store_entries(out, moving);
  return out;
}

Json VirtutiMilitariEngine::withdraw_units(Area& area, const Json& options, int& n) const {
  Result<VmData> data = vm_data_of(options);
  if (!data.ok() || area.kind == AreaKind::kSea)
    return CombatEngine::withdraw_units(area, options, n);
  // Split the unit entries only: the area's other state (standing choices, SUPPORT) stays.
  const std::vector<Json> all = vm_entries_of(area.engine_state, area.armies);
  const std::vector<VmUnit> units = vm_units_of(area.engine_state, area.armies, *data);
  std::vector<Json> moving, staying;
  for (std::size_t i = 0; i < all.size() && i < units.size(); ++i)
    (data->is_naval(units[i]) ? staying : moving).push_back(all[i]);
  n = static_cast<int>(moving.size());
  if (n == 0) return Json::object();
  vm_store_entries(area.engine_state, staying);
  Json out = Json::object();
  vm_store_entries(out, moving);
  return out;
}

void VirtutiMilitariEngine::merge_units(Json& area_units, int area_armies, const Json& incoming,
                                        int n) const {
  std::vector<Json> all = vm_entries_of(area_units, area_armies);
  std::vector<Json> in = vm_entries_of(incoming.is_object() ? incoming : Json::object(), n);
  all.insert(all.end(), in.begin(), in.end());
  vm_store_entries(area_units, all);
}

void VirtutiMilitariEngine::standing_order(const Order& order, Area& area, Player& player) const {
  if (!area.engine_state.is_object()) area.engine_state = Json::object();
  if (order.verb == Verb::kSupport) {  // for the rest of this turn, while `player` holds the area
    area.engine_state["support"] = {{"to", order.to}, {"by", player.code}};
    return;
  }
  Json d = Json::object();
  if (auto it = order.extras.find("CARD"); it != order.extras.end()) {
    const Json& hand = vm_hand_of(&player);
    if (it->second >= 1 && it->second <= static_cast<int>(hand.size()))
      d["card"] = vm_card_of(hand[it->second - 1]).id;
  }
  if (auto it = order.extras.find("AIR"); it != order.extras.end())
    d["air"] = std::max(0, it->second);
  area.engine_state["defence"] = d;
}

void VirtutiMilitariEngine::end_turn(GameState& state) const {
  for (Area& a : state.areas)
    if (a.engine_state.is_object()) a.engine_state.erase("support");  // SUPPORT lasts one turn
  for (Area& a : state.areas) {
    if (!a.engine_state.is_object() || !a.engine_state.contains("units")) continue;
    std::vector<Json> all = vm_entries_of(a.engine_state, a.armies);
    for (auto& e : all) e.erase("exhausted");
    vm_store_entries(a.engine_state, all);
  }
  const VmOptions o = vm_options_of(&state.engine.options);
  if (o.air_per_turn > 0)
    for (Player& p : state.players) {
      if (!p.engine_state.is_object()) p.engine_state = Json::object();
      p.engine_state["air"] = vm_air_of(&p) + o.air_per_turn;
    }
}

int VirtutiMilitariEngine::movable_armies(const Area& area) const {
  int exhausted = 0;
  if (area.engine_state.contains("units") && area.engine_state["units"].is_array())
    for (const auto& u : area.engine_state["units"])
      if (u.is_object() && u.value("exhausted", false)) ++exhausted;
  return std::max(0, area.armies - exhausted);
}

}  // namespace adj
