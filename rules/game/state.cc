#include "rules/game/state.h"

#include <algorithm>
#include <utility>

namespace adj {

const char* to_string(AreaKind kind) {
  switch (kind) {
    case AreaKind::kLand:
      return "land";
    case AreaKind::kCity:
      return "city";
    case AreaKind::kSea:
      return "sea";
  }
  return "land";
}

const char* to_string(DefenceMode mode) {
  switch (mode) {
    case DefenceMode::kRetreat:
      return "retreat";
    case DefenceMode::kDefend:
      return "defend";
    case DefenceMode::kAmbush:
      return "ambush";
  }
  return "retreat";
}

namespace {

// a < b as std::string_view compares (bytes as unsigned char, then length), inline: codes are a
// few bytes and share long prefixes in big worlds, where a call to memcmp per step of a binary
// search over 50,000 areas costs more than the comparison.
inline bool code_less(std::string_view a, std::string_view b) {
  const std::size_t n = std::min(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[i]);
  return a.size() < b.size();
}

template <class T>
auto find_by_code(T& items, std::string_view code) -> decltype(&items[0]) {
  auto it = std::lower_bound(
      items.begin(), items.end(), code,
      [](const auto& item, std::string_view c) { return code_less(item.code, c); });
  if (it == items.end() || it->code != code) return nullptr;
  return &*it;
}

Json opt(const std::optional<std::string>& s) { return s ? Json(*s) : Json(nullptr); }

std::optional<std::string> opt_str(const Json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  return it->get<std::string>();
}

}  // namespace

const Area* GameState::find_area(std::string_view code) const {
  const std::size_t at = area_index_.find(areas, code);
  return at != CodeIndex::npos ? &areas[at] : find_by_code(areas, code);
}
Area* GameState::find_area(std::string_view code) {
  return const_cast<Area*>(std::as_const(*this).find_area(code));
}
const Player* GameState::find_player(std::string_view code) const {
  const std::size_t at = player_index_.find(players, code);
  return at != CodeIndex::npos ? &players[at] : find_by_code(players, code);
}
Player* GameState::find_player(std::string_view code) {
  return const_cast<Player*>(std::as_const(*this).find_player(code));
}

bool feature_flag(const Json& features, std::string_view name) {
  if (!features.is_object()) return false;
  auto it = features.find(name);
  return it != features.end() && it->is_boolean() && it->get<bool>();
}

bool GameState::edge_flag(std::string_view a, std::string_view b, std::string_view name) const {
  const Edge* e = find_edge(a, b);
  return e && feature_flag(e->features, name);
}

const Edge* GameState::find_edge(std::string_view a, std::string_view b) const {
  if (b < a) std::swap(a, b);
  auto it =
      std::lower_bound(edges.begin(), edges.end(), std::pair{a, b},
                       [](const Edge& e, const std::pair<std::string_view, std::string_view>& k) {
                         if (e.a != k.first) return code_less(e.a, k.first);
                         return code_less(e.b, k.second);
                       });
  if (it == edges.end() || it->a != a || it->b != b) return nullptr;
  return &*it;
}

bool GameState::adjacent(std::string_view a, std::string_view b) const {
  return find_edge(a, b) != nullptr;
}

const std::vector<std::string>& GameState::neighbours(std::string_view code) const {
  static const std::vector<std::string> kNone;
  auto it = adj_.find(code);
  if (it == adj_.end()) return kNone;
  return it->second;
}

void GameState::normalise() {
  auto by_code = [](const auto& x, const auto& y) { return x.code < y.code; };
  std::sort(players.begin(), players.end(), by_code);
  std::sort(areas.begin(), areas.end(), by_code);
  for (auto& e : edges)
    if (e.b < e.a) std::swap(e.a, e.b);
  std::sort(edges.begin(), edges.end(),
            [](const Edge& x, const Edge& y) { return std::tie(x.a, x.b) < std::tie(y.a, y.b); });
  edges.erase(std::unique(edges.begin(), edges.end(),
                          [](const Edge& x, const Edge& y) { return x.a == y.a && x.b == y.b; }),
              edges.end());
  adj_.clear();
  for (const auto& e : edges) {
    adj_[e.a].push_back(e.b);
    adj_[e.b].push_back(e.a);
  }
  for (auto& [code, list] : adj_) std::sort(list.begin(), list.end());
  player_index_.build(players);
  area_index_.build(areas);
}

Json to_json(const Player& p) {
  Json j = {{"code", p.code},     {"name", p.name},       {"email", p.email},
            {"nation", p.nation}, {"bp", p.bp},           {"treasury", p.treasury},
            {"vp", p.vp},         {"reserve", p.reserve}, {"engine_state", p.engine_state}};
  if (!p.secret.empty()) j["secret"] = p.secret;  // stored states have none (server/app/secrets.h)
  return j;
}

Json to_json(const Area& a) {
  Json j = {{"code", a.code},
            {"name", a.name},
            {"kind", to_string(a.kind)},
            {"terrain", a.terrain},
            {"owner", opt(a.owner)},
            {"population", a.population},
            {"fort", a.fort},
            {"trade", a.trade},
            {"armies", a.armies},
            {"mode", to_string(a.mode)},
            {"retreat_to", opt(a.retreat_to)},
            {"ambush_against", opt(a.ambush_against)},
            {"features", a.features},
            {"engine_state", a.engine_state}};
  if (!a.hinterland.empty()) j["hinterland"] = a.hinterland;
  if (a.x) j["x"] = *a.x;
  if (a.y) j["y"] = *a.y;
  if (!a.outline.is_null()) j["outline"] = a.outline;
  return j;
}

Json to_json(const Edge& e) {
  Json j = Json::array({e.a, e.b});
  if (!e.features.empty()) j.push_back(e.features);
  return j;
}

Json engine_json(const EngineSpec& e) {
  Json j = {{"name", e.name}, {"options", e.options}};
  if (e.script_version > 0)
    j["script"] = {{"version", e.script_version}, {"sha256", e.script_sha256}};
  return j;
}

Json to_json(const GameState& s) {
  Json players = Json::array();
  for (const auto& p : s.players) players.push_back(to_json(p));
  Json areas = Json::array();
  for (const auto& a : s.areas) areas.push_back(to_json(a));
  Json edges = Json::array();
  for (const auto& e : s.edges) edges.push_back(to_json(e));
  return {{"game", s.game_id},
          {"name", s.name},
          {"turn", s.turn},
          {"seed", std::to_string(s.seed)},
          {"engine", engine_json(s.engine)},
          {"rules", to_json(s.rules)},
          {"players", std::move(players)},
          {"areas", std::move(areas)},
          {"adjacency", std::move(edges)},
          {"order_of_play", s.order_of_play},
          {"scenario_extra", s.scenario_extra}};
}

Result<EngineSpec> engine_spec_from_json(const Json& e) {
  try {
    EngineSpec spec;
    spec.name = e.at("name").get<std::string>();
    spec.options = e.value("options", Json::object());
    if (e.contains("script")) {
      spec.script_version = e.at("script").at("version").get<int>();
      spec.script_sha256 = e.at("script").at("sha256").get<std::string>();
    }
    return spec;
  } catch (const std::exception& ex) {
    return Status::Corruption(std::string("stored game state does not parse: ") + ex.what());
  }
}

Result<GameState> state_from_json(const Json& j) {
  try {
    GameState s;
    s.game_id = j.at("game").get<std::string>();
    s.name = j.at("name").get<std::string>();
    s.turn = j.at("turn").get<int>();
    s.seed = std::stoull(j.at("seed").get<std::string>());
    auto engine = engine_spec_from_json(j.at("engine"));
    if (!engine.ok()) return engine.status();
    s.engine = std::move(engine).value();
    auto rules = rules_from_json(j.at("rules"));
    if (!rules.ok()) return rules.status();
    s.rules = std::move(rules).value();
    for (const auto& pj : j.at("players")) {
      Player p;
      p.code = pj.at("code").get<std::string>();
      p.name = pj.value("name", "");
      p.email = pj.value("email", "");
      p.secret = pj.value("secret", "");
      p.nation = pj.value("nation", p.code);
      p.bp = pj.value("bp", 0);
      p.treasury = pj.value("treasury", 0);
      p.vp = pj.value("vp", 0);
      p.reserve = pj.value("reserve", 0);
      p.engine_state = pj.value("engine_state", Json::object());
      s.players.push_back(std::move(p));
    }
    for (const auto& aj : j.at("areas")) {
      Area a;
      a.code = aj.at("code").get<std::string>();
      a.name = aj.value("name", a.code);
      const std::string kind = aj.value("kind", "land");
      a.kind = kind == "city" ? AreaKind::kCity : kind == "sea" ? AreaKind::kSea : AreaKind::kLand;
      a.terrain = aj.value("terrain", "lowlands");
      a.hinterland = aj.value("hinterland", "");
      a.owner = opt_str(aj, "owner");
      a.population = aj.value("population", 0);
      a.fort = aj.value("fort", 0);
      a.trade = aj.value("trade", 0);
      a.armies = aj.value("armies", 0);
      const std::string mode = aj.value("mode", "retreat");
      a.mode = mode == "defend"   ? DefenceMode::kDefend
               : mode == "ambush" ? DefenceMode::kAmbush
                                  : DefenceMode::kRetreat;
      a.retreat_to = opt_str(aj, "retreat_to");
      a.ambush_against = opt_str(aj, "ambush_against");
      if (aj.contains("x") && !aj["x"].is_null()) a.x = aj["x"].get<double>();
      if (aj.contains("y") && !aj["y"].is_null()) a.y = aj["y"].get<double>();
      a.features = aj.value("features", Json::object());
      a.engine_state = aj.value("engine_state", Json::object());
      if (aj.contains("outline")) a.outline = aj["outline"];
      s.areas.push_back(std::move(a));
    }
    for (const auto& ej : j.at("adjacency")) {
      Edge e;
      e.a = ej.at(0).get<std::string>();
      e.b = ej.at(1).get<std::string>();
      if (ej.size() > 2) e.features = ej.at(2);
      s.edges.push_back(std::move(e));
    }
    s.order_of_play = j.value("order_of_play", std::vector<std::string>{});
    s.scenario_extra = j.value("scenario_extra", Json::object());
    s.normalise();
    return s;
  } catch (const std::exception& e) {
    return Status::Corruption(std::string("stored game state does not parse: ") + e.what());
  }
}

}  // namespace adj
