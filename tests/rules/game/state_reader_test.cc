// read_state_direct against the tree (Json::parse + state_from_json): the same GameState for
// every text it reads, nullopt for every text outside its subset, and never a state for a text
// the tree refuses.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "rules/game/json_text.h"
#include "rules/game/scenario.h"
#include "rules/game/state_reader.h"
#include "schemas/embedded.h"
#include "tests/support/grid_world.h"
#include "tests/support/sanitized.h"

namespace adj {
namespace {

// The tree's reading of `text`, or nullopt when it refuses it.
std::optional<GameState> tree(const std::string& text) {
  Json j = Json::parse(text, nullptr, false);
  if (j.is_discarded()) return std::nullopt;
  Result<GameState> s = state_from_json(j);
  if (!s.ok()) return std::nullopt;
  return std::move(s).value();
}

// Whether the direct reader gives exactly the tree's state (both the canonical JSON and the
// fields it leaves out: the secret, the script id).
void expect_same_state(const std::string& text) {
  std::optional<GameState> direct = read_state_direct(text);
  std::optional<GameState> reference = tree(text);
  ASSERT_TRUE(direct.has_value()) << text.substr(0, 300);
  ASSERT_TRUE(reference.has_value()) << text.substr(0, 300);
  EXPECT_EQ(to_json(*direct), to_json(*reference));
  ASSERT_EQ(direct->players.size(), reference->players.size());
  for (std::size_t i = 0; i < direct->players.size(); ++i)
    EXPECT_EQ(direct->players[i].secret, reference->players[i].secret);
  EXPECT_EQ(direct->engine.script_version, reference->engine.script_version);
  EXPECT_EQ(direct->engine.script_sha256, reference->engine.script_sha256);
  for (const Area& a : reference->areas)
    EXPECT_EQ(direct->neighbours(a.code), reference->neighbours(a.code)) << a.code;
}

std::string stored(const GameState& s) {
  std::string out;
  json_text::state(out, s);
  return out;
}

// A small state with every optional member set, as the tree writes it.
Json full() {
  return Json::parse(R"({
    "game": "g-1", "name": "T\u00e9st \"quoted\"\n", "turn": 3, "seed": "18446744073709551615",
    "engine": {"name": "lua", "options": {"a": [1, 2.5, null]},
               "script": {"version": 2, "sha256": "ab"}},
    "rules": {"city_bonus": 4},
    "players": [{"code": "WSX", "name": "Wessex", "email": "w@example.org", "secret": "x",
                 "nation": "Saxons", "bp": -3, "treasury": 2147483647, "vp": 1, "reserve": 4,
                 "engine_state": {"cards": ["A", "B"]}, "extra": {"ignored": true}},
                {"code": "MRC"}],
    "areas": [{"code": "HRS", "name": "Horsa \ud83d\ude00", "kind": "city", "terrain": "forest",
               "hinterland": "BDS", "owner": "WSX", "population": 2, "fort": 1, "trade": 3,
               "armies": 7, "mode": "ambush", "retreat_to": "BDS", "ambush_against": "BDS",
               "x": 1.25, "y": -3, "features": {"port": true}, "engine_state": {"hp": [1]},
               "outline": [[0, 0], [1, 0.5e1]]},
              {"code": "BDS", "owner": null, "retreat_to": null, "x": null, "mode": "defend",
               "kind": "sea", "outline": null},
              {"code": "AAA", "kind": "moon", "mode": "sideways"}],
    "adjacency": [["BDS", "HRS", {"river": true}], ["AAA", "BDS"], ["AAA", "HRS", {}, 9]],
    "order_of_play": ["MRC", "WSX"],
    "scenario_extra": {"map": {"w": 3}},
    "unknown": [1, {"x": "y"}]
  })");
}

TEST(StateReader, GivesTheTreesStateForStoredStates) {
  const Json world = testing::grid_world::world("g", {testing::sanitized_count(200), 40});
  Result<GameState> grid = state_from_scenario(world, 7);
  ASSERT_TRUE(grid.ok()) << grid.status().to_string();
  expect_same_state(stored(*grid));
  expect_same_state(to_json(*grid).dump());
  expect_same_state(to_json(*grid).dump(2));  // whitespace everywhere

  int scenarios = 0;
  for (const std::string& f : embedded_files("schemas/scenarios/")) {
    if (f.size() < 5 || f.substr(f.size() - 5) != ".json") continue;
    ++scenarios;
    Result<GameState> s = state_from_scenario(Json::parse(*embedded_file(f)), 11);
    ASSERT_TRUE(s.ok()) << f << ": " << s.status().to_string();
    expect_same_state(stored(*s));
  }
  EXPECT_GE(scenarios, 5);
}

TEST(StateReader, ReadsEveryMemberInAnyOrderWithEscapes) {
  const Json j = full();
  expect_same_state(j.dump());
  expect_same_state(j.dump(1, '\t'));
  expect_same_state(j.dump(-1, ' ', /*ensure_ascii=*/true));  // \uXXXX escapes and surrogate pairs
  // Keys in another order: nlohmann keeps objects sorted, so reverse them by hand.
  std::string reversed = "{";
  std::vector<std::pair<std::string, Json>> members;
  for (const auto& m : j.items()) members.emplace_back(m.key(), m.value());
  for (auto it = members.rbegin(); it != members.rend(); ++it)
    reversed += (reversed.size() > 1 ? "," : "") + Json(it->first).dump() + ":" + it->second.dump();
  reversed += "}";
  expect_same_state(reversed);
  // Defaults: a player without nation takes its code, an area without name its code.
  auto direct = read_state_direct(j.dump());
  ASSERT_TRUE(direct.has_value());
  EXPECT_EQ(direct->find_player("MRC")->nation, "MRC");
  EXPECT_EQ(direct->find_area("BDS")->name, "BDS");
  EXPECT_EQ(direct->find_area("HRS")->name, "Horsa \xF0\x9F\x98\x80");
  EXPECT_EQ(direct->seed, 18446744073709551615ull);
  EXPECT_FALSE(direct->find_area("BDS")->x.has_value());
  EXPECT_EQ(*direct->find_area("HRS")->y, -3.0);
}

// Texts outside the subset: the direct reader declines and the tree decides.
TEST(StateReader, DeclinesWhatItDoesNotModel) {
  const std::string base = full().dump();
  auto edit = [&](const std::string& from, const std::string& to) {
    std::string t = base;
    const auto at = t.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) t.replace(at, from.size(), to);
    return t;
  };
  const std::vector<std::string> declined = {
      edit("\"bp\":-3", "\"bp\":-3.5"),                    // the tree truncates
      edit("\"bp\":-3", "\"bp\":true"),                    // the tree converts
      edit("\"bp\":-3", "\"bp\":\"3\""),                   // the tree refuses
      edit("\"bp\":-3", "\"bp\":3000000000"),              // the tree wraps
      edit("\"bp\":-3", "\"bp\":-3,\"bp\":4"),             // duplicate: the tree keeps the last
      edit("\"code\":\"WSX\"", "\"\\u0063ode\":\"WSX\""),  // an escaped key
      edit("\"owner\":\"WSX\"", "\"owner\":5"),
      edit("\"x\":1.25", "\"x\":\"1\""),
      edit("\"x\":1.25", "\"x\":12345678901234567890"),
      edit("\"seed\":\"18446744073709551615\"", "\"seed\":\" 1\""),
      edit("\"seed\":\"18446744073709551615\"", "\"seed\":\"-1\""),
      edit("\"seed\":\"18446744073709551615\"", "\"seed\":\"18446744073709551616\""),
      edit("\"order_of_play\":[\"MRC\",\"WSX\"]", "\"order_of_play\":null"),
      edit("\"kind\":\"moon\"", "\"kind\":null"),
      edit("\"name\":\"Wessex\"", "\"name\":\"We\xC3\x28ssex\""),  // invalid UTF-8
      edit("\"name\":\"Wessex\"", "\"name\":\"\\udc00\""),         // a lone low surrogate
      edit("\"name\":\"Wessex\"", "\"name\":\"tab\there\""),       // a raw control character
      edit("\"turn\":3", "\"turn\":03"),
      edit("\"adjacency\":", "\"adjacencies\":"),  // a required member missing
      edit("\"players\":[", "\"players\":{\"p\":"),
      "\xEF\xBB\xBF" + base,  // a byte order mark
      base + " x",            // trailing garbage
      base.substr(0, base.size() - 1),
  };
  for (const std::string& t : declined) EXPECT_FALSE(read_state_direct(t).has_value()) << t;
}

// Random damage to a stored state: whenever the direct reader still reads it, the tree reads the
// same state; it never accepts what the tree refuses.
TEST(StateReader, NeverAcceptsWhatTheTreeRefuses) {
  const std::string base = full().dump(-1, ' ', true);
  std::mt19937 gen(20261123);
  const std::string alphabet = "{}[],:\"\\ 0123456789.-+eEtrufalsn\x80\xC3\xA9";
  int read = 0;
  for (int i = 0; i < testing::sanitized_count(3000); ++i) {
    std::string t = base;
    const int edits = 1 + static_cast<int>(gen() % 3);
    for (int e = 0; e < edits; ++e) {
      const std::size_t at = gen() % t.size();
      const char c = alphabet[gen() % alphabet.size()];
      switch (gen() % 3) {
        case 0:
          t[at] = c;
          break;
        case 1:
          t.insert(t.begin() + static_cast<std::ptrdiff_t>(at), c);
          break;
        default:
          t.erase(at, 1);
      }
    }
    std::optional<GameState> direct = read_state_direct(t);
    if (!direct) continue;
    ++read;
    std::optional<GameState> reference = tree(t);
    ASSERT_TRUE(reference.has_value()) << t;
    EXPECT_EQ(to_json(*direct), to_json(*reference)) << t;
  }
  EXPECT_GT(read,
            testing::sanitized_count(100));  // the damage often hits a value the reader still reads
}

}  // namespace
}  // namespace adj
