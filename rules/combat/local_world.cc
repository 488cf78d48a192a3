#include "rules/combat/local_world.h"

#include <algorithm>
#include <set>

#include "rules/combat/battle_input_text.h"
#include "rules/combat/engine_registry.h"
#include "rules/game/json_schema.h"
#include "rules/turn/turn_result.h"

namespace adj {

Json battle_input_json(const BattleInput& in,
                       const std::map<std::string, std::size_t>* order_position,
                       const CombatEngine* engine) {
  BattleInputWriter writer(*in.world, engine);  // the one writer of the form
  return Json::parse(writer.write(in, order_position));
}

namespace {

Json area_from_compact(const Json& side, const char* code, const char* owner) {
  Json a = {{"code", code}, {"name", code}, {"owner", owner}};
  for (const char* k : {"population", "fort", "trade", "terrain", "kind", "mode", "features",
                        "engine_state", "armies"})
    if (side.contains(k)) a[k] = side[k];
  if (!a.contains("armies")) a["armies"] = 0;
  return a;
}

// The engine a battle document asks for: "engine" (a name or {name, options, script}), then a
// top-level "options", the override and the caller's engine.
struct ChosenEngine {
  std::string name = "dark-age";
  Json options = Json::object();
  Json script;  // the engine's script id, kept in the world's EngineSpec
};

// Fills `chosen` from `doc` and sets b.engine (the caller's `engine`, held in b.owned_engine, or
// the one found by name); an error when the engine object is malformed or the name unknown.
Status choose_engine(const Json& doc, std::string_view engine_override,
                     std::shared_ptr<const CombatEngine> engine, PreparedBattle& b,
                     ChosenEngine& chosen) {
  if (doc.contains("engine")) {
    const Json& e = doc["engine"];
    if (e.is_string())
      chosen.name = e.get<std::string>();
    else if (e.is_object()) {
      chosen.name = e.value("name", chosen.name);
      chosen.options = e.value("options", Json::object());
      if (e.contains("script") && e["script"].is_object()) chosen.script = e["script"];
    } else
      return Status::InvalidArgument("/engine: must be a name or {name, options}");
  }
  if (doc.contains("options")) chosen.options = doc["options"];
  if (!engine_override.empty()) chosen.name = std::string(engine_override);
  if (engine) {
    b.owned_engine = std::move(engine);
    b.engine = b.owned_engine.get();
    chosen.name = std::string(b.engine->name());
  } else {
    b.engine = find_engine(chosen.name);
  }
  if (!b.engine) return Status::InvalidArgument("/engine: unknown engine \"" + chosen.name + "\"");
  return Status::Ok();
}

// Where a battle is fought: the attacker's origin, the target and the attacking player.
struct BattlePlace {
  std::string from, to, attacker;
};

// The full form: the document's areas, adjacency and players make the world.
void full_world(const Json& doc, const Json& att, Json& world, BattlePlace& at) {
  world["areas"] = doc["areas"];
  world["adjacency"] = doc.value("adjacency", Json::array());
  world["players"] = doc.value("players", Json::array());
  at.from = att.value("from", "");
  at.to = doc.value("to", "");
  at.attacker = att.value("player", "");
}

// Retreat paths of the compact form: the empty areas side["retreat"] lists, owned by `owner` and
// chained from `start` (one edge each, touching nothing else), so that each step is legal for
// engines that retreat forces on the map. `codes` are the codes taken; `path` names the list in
// the error when a code is taken twice.
Status chain_retreat(const Json& side, const char* start, const char* owner, const char* path,
                     std::set<std::string>& codes, Json& areas, Json& adjacency) {
  std::string prev = start;
  for (const Json& c : side.value("retreat", Json::array())) {
    const std::string code = c.get<std::string>();
    if (!codes.insert(code).second)
      return Status::InvalidArgument(std::string(path) + ": area \"" + code +
                                     "\" is used twice (ATT and TGT are taken)");
    areas.push_back({{"code", code}, {"name", code}, {"owner", owner}, {"armies", 0}});
    adjacency.push_back(Json::array({prev, code}));
    prev = code;
  }
  return Status::Ok();
}

// The compact form: the two-area world ATT-TGT with the sides' retreat chains; what it leaves
// out of the map goes to `assumptions`.
Status compact_world(const Json& doc, const Json& att, Json& world, BattlePlace& at,
                     Json& assumptions) {
  if (!doc.contains("defender") || !doc["defender"].is_object())
    return Status::InvalidArgument("/defender: required object missing (or give /areas)");
  at.from = "ATT";
  at.to = "TGT";
  at.attacker = "ATT";
  const Json& def = doc["defender"];
  Json origin = area_from_compact(att, "ATT", "ATT");
  origin["armies"] = 0;
  Json areas = Json::array({origin, area_from_compact(def, "TGT", "DEF")});
  const bool river = att.value("river", false);
  Json adjacency = Json::array(
      {river ? Json::array({"ATT", "TGT", {{"river", true}}}) : Json::array({"ATT", "TGT"})});
  std::set<std::string> codes = {"ATT", "TGT"};
  ADJ_RETURN_IF_ERROR(
      chain_retreat(def, "TGT", "DEF", "/defender/retreat", codes, areas, adjacency));
  ADJ_RETURN_IF_ERROR(
      chain_retreat(att, "ATT", "ATT", "/attacker/retreat", codes, areas, adjacency));
  if (!river)
    assumptions.push_back("no river between ATT and TGT (attacker.river: true puts one there)");
  if (!def.contains("retreat") || def["retreat"].empty())
    assumptions.push_back(
        "TGT has no other neighbour: a defender that must retreat (e.g. a CRT DR) is "
        "eliminated (defender.retreat: [\"R1\", ...] gives it a path)");
  if (!att.contains("retreat") || att["retreat"].empty())
    assumptions.push_back(
        "ATT has no other neighbour: an attacker that must retreat beyond its origin (e.g. a "
        "CRT AR) is eliminated (attacker.retreat: [\"H1\", ...] gives it a path)");
  world["areas"] = std::move(areas);
  world["adjacency"] = std::move(adjacency);
  world["players"] = Json::array({{{"code", "ATT"}}, {{"code", "DEF"}}});
  return Status::Ok();
}

// Parses `world` into b.world and checks it for the battle `at` (known adjacent areas) and for
// b.engine; an attacking player the world does not list is added.
Status load_world(const Json& world, const BattlePlace& at, PreparedBattle& b) {
  Result<GameState> st = state_from_json(world);
  if (!st.ok()) return Status::InvalidArgument("battle world: " + st.status().message());
  b.world = std::make_unique<GameState>(std::move(st).value());
  if (!b.world->find_area(at.from))
    return Status::InvalidArgument("/attacker/from: unknown area \"" + at.from + "\"");
  if (!b.world->find_area(at.to))
    return Status::InvalidArgument("/to: unknown area \"" + at.to + "\"");
  if (!b.world->adjacent(at.from, at.to))
    return Status::InvalidArgument("/to: " + at.from + " and " + at.to + " are not adjacent");
  if (!b.world->find_player(at.attacker)) {
    Player p;
    p.code = at.attacker;
    p.nation = at.attacker;
    b.world->players.push_back(p);
    b.world->normalise();
  }
  return b.engine->check_game(*b.world);
}

// The input's attack groups: the document's "groups" (the first the attacker's, their armies
// adding up to the attacker's), or the attacker alone.
Status read_groups(const Json& doc, const BattlePlace& at, const GameState& w, BattleInput& in) {
  if (!doc.contains("groups") || doc["groups"].size() == 0) {
    in.groups.push_back({at.attacker, at.from, in.attacker_armies, in.attacker_units, 0, 0});
    return Status::Ok();
  }
  int total = 0;
  for (const Json& g : doc["groups"]) {
    AttackGroup x;
    x.player = g.value("player", at.attacker);
    x.from = g.at("from").get<std::string>();
    x.armies = g.at("armies").get<int>();
    x.units = g.value("units", Json::object());
    x.action = g.value("action", 0);
    x.line = g.value("line", 0);
    if (!w.find_area(x.from))
      return Status::InvalidArgument("/groups: unknown area \"" + x.from + "\"");
    if (!w.adjacent(x.from, at.to))
      return Status::InvalidArgument("/groups: " + x.from + " and " + at.to + " are not adjacent");
    total += x.armies;
    in.groups.push_back(std::move(x));
  }
  if (in.groups.front().from != at.from || total != in.attacker_armies)
    return Status::InvalidArgument(
        "/groups: the first group must be the attacker's (attacker.from) and attacker.armies the "
        "sum of the groups' armies");
  return Status::Ok();
}

// b.input for the battle `at` in b.world: the document's id, attacker and groups.
Status fill_input(const Json& doc, const Json& att, AttackKind kind, const BattlePlace& at,
                  PreparedBattle& b) {
  BattleInput& in = b.input;
  in.id = doc.value("id", "calculator");
  in.kind = kind;
  in.world = b.world.get();
  in.attacker = at.attacker;
  in.from = at.from;
  in.to = at.to;
  in.attacker_armies = att["armies"].get<int>();
  in.attacker_units = att.value("units", Json::object());
  in.extras = att.value("extras", std::map<std::string, int>{});
  in.ambush = doc.value("ambush", false);
  in.options = &b.world->engine.options;
  return read_groups(doc, at, *b.world, in);
}

Result<std::unique_ptr<PreparedBattle>> prepare(const Json& doc, std::string_view engine_override,
                                                std::shared_ptr<const CombatEngine> engine) {
  if (!doc.is_object()) return Status::InvalidArgument("/: a battle must be a JSON object");
  auto b = std::make_unique<PreparedBattle>();
  ChosenEngine chosen;
  ADJ_RETURN_IF_ERROR(choose_engine(doc, engine_override, std::move(engine), *b, chosen));

  const auto kind = attack_kind_from_string(doc.value("kind", ""));
  if (!kind) return Status::InvalidArgument("/kind: must be one of move, assault, probe, overrun");
  if (!doc.contains("attacker") || !doc["attacker"].is_object())
    return Status::InvalidArgument("/attacker: required object missing");
  const Json& att = doc["attacker"];
  if (!att.contains("armies") || !att["armies"].is_number_integer() || att["armies"].get<int>() < 1)
    return Status::InvalidArgument("/attacker/armies: must be an integer >= 1");

  Json world = {{"game", "battle"},
                {"name", "battle calculator"},
                {"turn", doc.value("turn", 1)},
                {"seed", "0"},
                {"engine", {{"name", chosen.name}, {"options", chosen.options}}},
                {"rules", doc.value("rules", Json::object())},
                {"order_of_play", doc.value("order_of_play", Json::array())}};
  if (chosen.script.is_object()) world["engine"]["script"] = chosen.script;
  BattlePlace at;
  if (doc.contains("areas"))
    full_world(doc, att, world, at);
  else
    ADJ_RETURN_IF_ERROR(compact_world(doc, att, world, at, b->assumptions));
  ADJ_RETURN_IF_ERROR(load_world(world, at, *b));
  ADJ_RETURN_IF_ERROR(fill_input(doc, att, *kind, at, *b));
  const Json seed = doc.value("seed", Json(1));
  b->seed = seed.is_string() ? std::stoull(seed.get<std::string>()) : seed.get<std::uint64_t>();
  return b;
}

}  // namespace

Result<std::unique_ptr<PreparedBattle>> prepare_battle(const Json& doc,
                                                       std::string_view engine_override,
                                                       std::shared_ptr<const CombatEngine> engine) {
  const auto errors = validate_against_schema(doc, "schemas/battle.schema.json");
  if (!errors.empty()) return Status::InvalidArgument(format_errors(errors));
  try {
    return prepare(doc, engine_override, std::move(engine));
  } catch (const std::exception& e) {
    return Status::InvalidArgument(std::string("battle: ") + e.what());
  }
}

Json outcome_json(const PreparedBattle& b, const BattleOutcome& out,
                  const std::vector<Draw>& draws) {
  Json j = to_json(out);
  j["engine"] = std::string(b.engine->name());
  j["seed"] = std::to_string(b.seed);
  j["kind"] = to_string(b.input.kind);
  j["attacker_armies"] = b.input.attacker_armies;
  j["defender_armies"] = b.input.target().armies;
  Json d = Json::array();
  for (const auto& x : draws) d.push_back({x.bound, x.value + 1});
  j["draws"] = d;  // [faces, result] pairs, result 1-based
  if (!b.assumptions.empty()) j["assumptions"] = b.assumptions;
  return j;
}

Result<Json> battle_trials(const PreparedBattle& b, int trials) {
  if (trials < 1) return Status::InvalidArgument("--trials must be at least 1");
  std::vector<int> a_losses, d_losses;
  int wins = 0;
  for (int i = 0; i < trials; ++i) {
    Xoshiro256 rng(derive_seed(b.seed, "trial:" + std::to_string(i)));
    auto out = b.engine->resolve(b.input, rng);
    if (!out.ok()) return out.status();
    wins += out->attacker_wins ? 1 : 0;
    a_losses.push_back(out->attacker_losses);
    d_losses.push_back(out->defender_losses);
  }
  auto summary = [&](std::vector<int> v) {
    std::sort(v.begin(), v.end());
    double sum = 0;
    for (int x : v) sum += x;
    auto pct = [&](double p) { return v[static_cast<std::size_t>(p * (v.size() - 1) + 0.5)]; };
    return Json{{"mean", sum / v.size()}, {"min", v.front()}, {"p10", pct(0.10)},
                {"p50", pct(0.50)},       {"p90", pct(0.90)}, {"max", v.back()}};
  };
  Json j = {{"engine", std::string(b.engine->name())},
            {"trials", trials},
            {"seed", std::to_string(b.seed)},
            {"attacker_win_probability", static_cast<double>(wins) / trials},
            {"attacker_losses", summary(a_losses)},
            {"defender_losses", summary(d_losses)}};
  if (!b.assumptions.empty()) j["assumptions"] = b.assumptions;
  return j;
}

}  // namespace adj
