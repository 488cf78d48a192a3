#include "rules/game/state.h"

#include "rules/game/state_fields.h"

#include <algorithm>
#include <utility>

namespace adj {

const char* to_string(AreaKind kind) {
  const auto i = static_cast<std::size_t>(kind);
  return i < std::size(kAreaKindNames) ? kAreaKindNames[i] : kAreaKindNames[0];
}

const char* to_string(DefenceMode mode) {
  const auto i = static_cast<std::size_t>(mode);
  return i < std::size(kDefenceModeNames) ? kDefenceModeNames[i] : kDefenceModeNames[0];
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

// The forms of the state's JSON come from its descriptions (rules/game/state_fields.h).
Json to_json(const Player& p) { return json_form::write_tree(p); }
Json to_json(const Area& a) { return json_form::write_tree(a); }
Json to_json(const Edge& e) { return json_form::write_tree(e); }
Json to_json(const GameState& s) { return json_form::write_tree(s); }

Json engine_json(const EngineSpec& e) {
  Json j = {{"name", e.name}, {"options", e.options}};
  if (e.script_version > 0)
    j["script"] = {{"version", e.script_version}, {"sha256", e.script_sha256}};
  return j;
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
    json_form::TreeReader r(j);
    describe(r, s);
    s.normalise();
    return s;
  } catch (const json_form::TreeReader::Failed& f) {
    return f.status;  // the engine's or the rules' own error
  } catch (const std::exception& e) {
    return Status::Corruption(std::string("stored game state does not parse: ") + e.what());
  }
}

}  // namespace adj
