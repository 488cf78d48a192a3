#include "server/web/order_builder.h"

#include <map>
#include <set>

#include "rules/combat/engine_registry.h"

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

}  // namespace

Json order_builder_model(const Json& state, const std::string& player, const CombatEngine* engine) {
  std::map<std::string, const Json*> by_code;
  std::vector<std::string> own;
  if (auto it = state.find("areas"); it != state.end() && it->is_array())
    for (const auto& a : *it) {
      const std::string code = member_text(a, "code");
      if (code.empty() || !by_code.emplace(code, &a).second) continue;
      if (member_text(a, "owner") == player) own.push_back(code);
    }
  std::map<std::string, std::set<std::string>> adj;
  if (auto it = state.find("adjacency"); it != state.end() && it->is_array())
    for (const auto& e : *it) {
      if (!e.is_array() || e.size() < 2 || !e[0].is_string() || !e[1].is_string()) continue;
      const std::string a = e[0].get<std::string>(), b = e[1].get<std::string>();
      if (a == b || !by_code.count(a) || !by_code.count(b)) continue;
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
  Json kingdoms = Json::array();
  if (auto it = state.find("players"); it != state.end() && it->is_array())
    for (const auto& p : *it)
      if (const std::string code = member_text(p, "code"); !code.empty() && code != player)
        kingdoms.push_back({{"code", code}, {"name", member_text(p, "name")}});

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
  return {{"player", player},
          {"areas", std::move(areas)},
          {"own", own},
          {"kingdoms", std::move(kingdoms)},
          {"actions", std::move(actions)}};
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
