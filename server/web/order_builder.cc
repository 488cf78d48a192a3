#include "server/web/order_builder.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "rules/combat/engine_registry.h"
#include "rules/game/state.h"
#include "rules/orders/parser.h"
#include "rules/orders/validator.h"

namespace adj::web {

namespace {

using Json = nlohmann::json;

std::string member_text(const Json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

Json action(const char* verb, const char* area, const char* target, const char* count) {
  return {{"verb", verb}, {"area", area}, {"target", target}, {"count", count}};
}

// What the builder may offer of `a` (an entry of "actions"): {area ("" for none): [targets ("" for
// none)]}, each choice's line (the count blank, or 1 where one is required) accepted by
// order_legality, the validator's own per-line check. Empty when nothing may be given.
Json legal_choices(const Json& a, const GameState& st, const Player& me, const CombatEngine* engine,
                   const std::vector<std::string>& own,
                   const std::map<std::string, std::set<std::string>>& adj,
                   const std::vector<std::string>& kingdoms) {
  const std::string verb = a["verb"], area_kind = a["area"], target_kind = a["target"];
  std::vector<std::string> froms = area_kind == "own" ? own : std::vector<std::string>{""};
  Json out = Json::object();
  for (const std::string& from : froms) {
    std::vector<std::string> targets;
    const auto near = adj.find(from);
    if (target_kind == "none" || target_kind == "adjacent-optional") targets.push_back("");
    if (target_kind.rfind("adjacent", 0) == 0 && near != adj.end())
      for (const std::string& t : near->second)
        if (target_kind != "adjacent-own" || std::find(own.begin(), own.end(), t) != own.end())
          targets.push_back(t);
    if (target_kind == "kingdom") targets.insert(targets.end(), kingdoms.begin(), kingdoms.end());
    Json ok = Json::array();
    for (const std::string& t : targets) {
      std::string line = verb;
      for (const std::string* w : {&from, &t})
        if (!w->empty()) line += " " + *w;
      if (a["count"] == "required") line += " 1";
      const ParsedOrderFile parsed = parse_order_file(line, st.rules.actions_per_turn);
      if (parsed.orders.size() == 1 && order_legality(parsed.orders[0], me, st, engine).empty())
        ok.push_back(t);
    }
    if (!ok.empty()) out[from] = std::move(ok);
  }
  return out;
}

// The position of `me` in `st` as the orders page shows it (order_builder.h), with the costs of
// the actions offered.
Json position_of(const GameState& st, const Player& me, const Json& offered) {
  Json areas = Json::array();
  for (const Area& a : st.areas)
    if (a.owner == me.code)
      areas.push_back({{"code", a.code}, {"name", a.name}, {"armies", a.armies}});
  Json costs = Json::array();
  for (const Json& a : offered) {
    const std::string verb = a["verb"];
    const int bp = st.rules.cost(verb);
    std::string words = bp == 0 ? "free" : bp == 1 ? "1 BP" : std::to_string(bp) + " BPs";
    if (verb == "LEVY") words += " per army";
    if (verb == "ORDER" || verb == "GIFT") words = "the BPs given";
    costs.push_back({{"verb", verb}, {"cost", words}});
  }
  return {{"bp", me.bp}, {"areas", std::move(areas)}, {"costs", std::move(costs)}};
}

}  // namespace

Json order_builder_model(const Json& state, const std::string& player, const CombatEngine* engine,
                         Json* position, const GameState* typed) {
  std::map<std::string, const Json*> by_code;
  std::vector<std::string> own;
  if (auto it = state.find("areas"); it != state.end() && it->is_array())
    for (const auto& a : *it) {
      const std::string code = member_text(a, "code");
      if (code.empty() || !by_code.emplace(code, &a).second) continue;
      if (member_text(a, "owner") == player) own.push_back(code);
    }
  // Only the borders of the player's areas: nothing reads another area's neighbours.
  const std::set<std::string> own_set(own.begin(), own.end());
  std::map<std::string, std::set<std::string>> adj;
  if (auto it = state.find("adjacency"); it != state.end() && it->is_array())
    for (const auto& e : *it) {
      if (!e.is_array() || e.size() < 2 || !e[0].is_string() || !e[1].is_string()) continue;
      const std::string a = e[0].get<std::string>(), b = e[1].get<std::string>();
      if (a == b || (!own_set.count(a) && !own_set.count(b))) continue;
      if (!by_code.count(a) || !by_code.count(b)) continue;
      adj[a].insert(b);
      adj[b].insert(a);
    }
  Json areas = Json::object();
  const auto put = [&](const std::string& code, bool with_neighbours) {
    const Json& a = *by_code.at(code);
    Json& out = areas[code];
    out["name"] = member_text(a, "name");
    out["kind"] = member_text(a, "kind").empty() ? "land" : member_text(a, "kind");
    out["owner"] = member_text(a, "owner");
    if (with_neighbours) out["adj"] = adj[code];
  };
  for (const auto& code : own) {
    put(code, true);
    for (const auto& n : adj[code])
      if (!areas.contains(n)) put(n, false);
  }
  // The other kingdoms GIFT may name: all of them, or in a game of more than
  // kBuilderKingdomsListed others, the owners of the areas above (the player's neighbours).
  std::set<std::string> near_owners;
  for (const auto& [code, a] : areas.items())
    if (const std::string o = member_text(a, "owner"); !o.empty()) near_owners.insert(o);
  std::vector<std::string> kingdom_codes;
  Json kingdoms = Json::array();
  if (auto it = state.find("players"); it != state.end() && it->is_array()) {
    const bool all = it->size() <= kBuilderKingdomsListed + 1;
    for (const auto& p : *it)
      if (const std::string code = member_text(p, "code");
          !code.empty() && code != player && (all || near_owners.count(code))) {
        kingdoms.push_back({{"code", code}, {"name", member_text(p, "name")}});
        kingdom_codes.push_back(code);
      }
  }

  const auto eng = state.is_object() ? state.find("engine") : state.end();
  if (!engine) engine = find_engine(eng != state.end() ? member_text(*eng, "name") : "");
  const bool dark_age = engine && engine->dark_age_actions();
  Json actions = Json::array({
      action("MOVE", "own", "adjacent", "armies"),
      action("ASSAULT", "own", "adjacent", "armies"),
      action("PROBE", "own", "adjacent", "armies"),
      action("OVERRUN", "own", "adjacent", "armies"),
  });
  if (dark_age) actions.push_back(action("RAID", "own", "adjacent", "armies"));
  actions.push_back(action("AMBUSH", "own", "adjacent", "none"));
  actions.push_back(action("RETREAT", "own", "adjacent-optional", "none"));
  actions.push_back(action("DEFEND", "own", "none", "none"));
  actions.push_back(action("LEVY", "own", "none", "optional"));
  actions.push_back(action("ORDER", "none", "none", "optional"));
  actions.push_back(action("GIFT", "none", "kingdom", "required"));
  actions.push_back(action("MIGRATE", "own", "adjacent-own", "required"));
  if (engine && engine->accepts_support())
    actions.push_back(action("SUPPORT", "own", "adjacent", "none"));
  if (dark_age) actions.push_back(action("INVADE", "own", "adjacent", "none"));
  // Only what the validator accepts of this player: a state that does not read as a game offers
  // nothing.
  Json legal = Json::object();
  Json offered = Json::array();
  std::optional<Result<GameState>> read;
  if (!typed)
    read = state.is_object() ? state_from_json(state)
                             : Result<GameState>(Status::InvalidArgument("no state"));
  const GameState* st = typed ? typed : read->ok() ? &read->value() : nullptr;
  const Player* me = st ? st->find_player(player) : nullptr;
  if (me)
    for (Json& a : actions) {
      Json choices = legal_choices(a, *st, *me, engine, own, adj, kingdom_codes);
      if (choices.empty()) continue;
      legal[a["verb"].get<std::string>()] = std::move(choices);
      offered.push_back(std::move(a));
    }
  if (position) *position = me ? position_of(*st, *me, offered) : Json();
  return {{"player", player},
          {"areas", std::move(areas)},
          {"own", own},
          {"kingdoms", std::move(kingdoms)},
          {"actions", std::move(offered)},
          {"legal", std::move(legal)}};
}

std::string script_json(const Json& model) {
  const std::string text = model.dump(-1, ' ', false, Json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size() + 16);
  for (char c : text) {
    if (c == '<')
      out += "\\u003c";
    else if (c == '>')
      out += "\\u003e";
    else if (c == '&')
      out += "\\u0026";
    else
      out += c;
  }
  return out;
}

}  // namespace adj::web
