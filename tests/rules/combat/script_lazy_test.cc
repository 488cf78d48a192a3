// The world's lazy tables (rules/combat/lua_views.cc, lua_rules_views.cc): an area, the battle and
// world:rules() build their fields when first read, and behave to a script as the complete tables
// they stand for.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "rules/combat/local_world.h"
#include "rules/combat/script_engine.h"
#include "rules/game/rules_config.h"
#include "tests/rules/combat/script_test_util.h"

namespace adj {
namespace {

using script_test::battle;
using script_test::load;
using script_test::run;

// The field names of `j` (an object), without those whose value is null, joined by commas.
std::string keys_of(const Json& j) {
  std::string out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it->is_null()) continue;
    out += (out.empty() ? "" : ",") + it.key();
  }
  return out;
}

// A Lua helper: keys(t) lists the keys pairs gives, joined by commas.
const std::string kKeys = R"lua(
local function keys(t)
  local out = {}
  for k in pairs(t) do out[#out + 1] = k end
  return table.concat(out, ",")
end)lua";

TEST(ScriptLazyTables, AnAreaIsACompleteTable) {
  auto e = load(kKeys + R"lua(
function resolve(battle, rng)
  local w = battle.world
  local a = w:area(battle.to)
  local c = w:area(battle.to)
  c.armies = 99
  c.owner = nil
  c.extra = "mine"
  local d = setmetatable(w:area(battle.to), { __index = function() return "default" end })
  return { attacker_losses = 0, defender_losses = 0,
           detail = { unread = keys(a), raw = rawget(w:area(battle.to), "armies"),
                      written = c.armies, owner_cleared = c.owner == nil, extra = c.extra,
                      written_keys = keys(c), code = d.code, missing = d.nosuch,
                      kind = type(a), fresh = w:area(battle.to).armies,
                      meta = tostring(getmetatable(w:area(battle.to))),
                      inserted = pcall(table.insert, w:area(battle.to), 1) } }
end)lua");
  ASSERT_TRUE(e);
  auto b = battle("assault");
  b->world->find_area("TGT")->owner = "DEF";
  auto out = run(*e, *b);
  ASSERT_TRUE(out.ok()) << out.status().message();
  const Json& d = out->detail;
  const Json area = to_json(*b->world->find_area("TGT"));
  EXPECT_EQ(d["unread"], keys_of(area));  // pairs sees every field, none of them read before
  EXPECT_EQ(d["raw"], 6);                 // rawget sees a field never read
  EXPECT_EQ(d["written"], 99);            // a write before any read is not built over
  EXPECT_EQ(d["owner_cleared"], true);
  EXPECT_EQ(d["extra"], "mine");
  EXPECT_NE(d["written_keys"].get<std::string>().find("extra"), std::string::npos);
  EXPECT_EQ(d["written_keys"].get<std::string>().find("owner"), std::string::npos);
  EXPECT_EQ(d["code"], "TGT");  // a table given the script's own metatable keeps its fields
  EXPECT_EQ(d["missing"], "default");
  EXPECT_EQ(d["kind"], "table");
  EXPECT_EQ(d["fresh"], 6);     // each world:area() is a table of its own
  EXPECT_EQ(d["meta"], "nil");  // as a plain table's
  EXPECT_EQ(d["inserted"], true);
}

TEST(ScriptLazyTables, TheBattleIsACompleteTable) {
  auto e = load(R"lua(
function resolve(battle, rng)
  local keys = {}
  for k in pairs(battle) do keys[#keys + 1] = k end
  local armies = battle.attacker_armies
  battle.kind = "changed"
  return { attacker_losses = 0, defender_losses = 0,
           detail = { keys = table.concat(keys, ","), kind = battle.kind, armies = armies,
                      groups = #battle.groups } }
end)lua");
  ASSERT_TRUE(e);
  auto b = battle("probe");
  auto out = run(*e, *b);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->detail["keys"],
            "ambush,attacker,attacker_armies,attacker_units,extras,from,groups,id,kind,options,"
            "to,world");
  EXPECT_EQ(out->detail["kind"], "changed");
  EXPECT_EQ(out->detail["armies"], 10);
  EXPECT_EQ(out->detail["groups"], 1);
  // The next call sees its own battle again.
  auto again = run(*e, *b);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->detail["armies"], 10);
}

// One rules object serves every call of a Lua state, so each read must show the current call's
// rules, however the rules of two battles differ.
TEST(ScriptLazyTables, RulesFollowEachCallsWorld) {
  auto e = load(R"lua(
function resolve(battle, rng)
  local r = battle.world:rules()
  local sticky = {}
  for i, t in ipairs(r.sticky_terrain) do sticky[i] = t end
  return { attacker_losses = 0, defender_losses = 0,
           detail = { city = r.city_bonus, forest = r.terrain_bonus.forest,
                      swamp = r.terrain_bonus.swamp, sticky = table.concat(sticky, ","),
                      n = #r.sticky_terrain, levy = r.costs.LEVY, same = r == battle.world:rules() } }
end)lua");
  ASSERT_TRUE(e);
  auto plain = battle();
  auto house = battle();
  house->world->rules.city_bonus = 9;
  house->world->rules.terrain_bonus["forest"] = 4;
  house->world->rules.terrain_bonus["swamp"] = 2;
  house->world->rules.sticky_terrain = {"swamp"};
  house->world->rules.costs["LEVY"] = 5;
  for (int round = 0; round < 2; ++round) {
    auto a = run(*e, *plain);
    ASSERT_TRUE(a.ok()) << a.status().message();
    EXPECT_EQ(a->detail["city"], 3);
    EXPECT_EQ(a->detail["forest"], 1);
    EXPECT_FALSE(a->detail.contains("swamp"));
    EXPECT_EQ(a->detail["sticky"], "forest,mountains,wetlands");
    EXPECT_EQ(a->detail["n"], 3);
    EXPECT_EQ(a->detail["levy"], 3);
    EXPECT_EQ(a->detail["same"], true);
    auto h = run(*e, *house);
    ASSERT_TRUE(h.ok()) << h.status().message();
    EXPECT_EQ(h->detail["city"], 9);
    EXPECT_EQ(h->detail["forest"], 4);
    EXPECT_EQ(h->detail["swamp"], 2);
    EXPECT_EQ(h->detail["sticky"], "swamp");
    EXPECT_EQ(h->detail["n"], 1);
    EXPECT_EQ(h->detail["levy"], 5);
  }
}

TEST(ScriptLazyTables, RulesAreReadOnlyAndListEveryField) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"battle.world:rules().city_bonus = 1", "read-only"},
      {"battle.world:rules().terrain_bonus.forest = 5", "read-only"},
      {"rawset(battle.world:rules(), 'x', 1)", "read-only"},
      {"rawset(battle.world:rules().costs, 'MOVE', 0)", "read-only"},
      {"setmetatable(battle.world:rules(), {})", "read-only"},
      {"table.insert(battle.world:rules().sticky_terrain, 'x')", "read-only"},
      {"table.sort(battle.world:rules().gaelic_nations)", "read-only"},
  };
  auto b = battle();
  for (const auto& [code, expected] : cases) {
    auto e = load("function resolve(battle, rng)\n" + code +
                  "\nreturn { attacker_losses = 0, defender_losses = 0 }\nend\n");
    ASSERT_TRUE(e) << code;
    auto out = run(*e, *b);
    ASSERT_FALSE(out.ok()) << code;
    EXPECT_NE(out.status().message().find(expected), std::string::npos)
        << code << " -> " << out.status().message();
  }
  auto e = load(R"lua(
function resolve(battle, rng)
  local r = battle.world:rules()
  local keys, costs = {}, {}
  for k in pairs(r) do keys[#keys + 1] = k end
  for k, v in pairs(r.costs) do costs[#costs + 1] = k .. "=" .. v end
  return { attacker_losses = 0, defender_losses = 0,
           detail = { keys = table.concat(keys, ","), costs = table.concat(costs, ","),
                      missing = r.nosuch == nil and r.terrain_bonus[1] == nil
                                and r.sticky_terrain[0] == nil and r.sticky_terrain[4] == nil,
                      raw = rawget(r, "city_bonus") } }
end)lua");
  ASSERT_TRUE(e);
  auto out = run(*e, *b);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->detail["keys"], keys_of(to_json(b->world->rules)));
  EXPECT_EQ(out->detail["costs"],
            "AMBUSH=0,ASSAULT=2,DEFEND=0,INVADE=0,LEVY=3,MOVE=1,OVERRUN=1,PROBE=1,RAID=1,"
            "RETREAT=0");
  EXPECT_EQ(out->detail["missing"], true);
  EXPECT_EQ(out->detail["raw"], 3);  // rawget sees the fields, as it does an area's
}

// A field set to nil stays nil, whether it was set when the table was made, built by a read, or
// not built yet; rawset too.
TEST(ScriptLazyTables, AFieldSetToNilStaysNil) {
  auto e = load(kKeys + R"lua(
function resolve(battle, rng)
  local a = battle.world:area(battle.to)
  local f = a.features
  a.armies = nil
  a.features = nil
  a.name = nil
  battle.world = nil
  battle.kind = nil
  local g = battle.groups
  battle.groups = nil
  rawset(battle, "id", nil)
  local r = battle.world
  return { attacker_losses = 0, defender_losses = 0,
           detail = { armies = tostring(a.armies), features = tostring(a.features),
                      name = tostring(a.name), world = type(battle.world),
                      kind = tostring(battle.kind), groups = tostring(battle.groups),
                      id = tostring(battle.id), area_keys = keys(a), battle_keys = keys(battle),
                      had = type(f) .. type(g) } }
end)lua");
  ASSERT_TRUE(e);
  auto b = battle("assault");
  auto out = run(*e, *b);
  ASSERT_TRUE(out.ok()) << out.status().message();
  const Json& d = out->detail;
  for (const char* k : {"armies", "features", "name", "kind", "groups", "id"})
    EXPECT_EQ(d[k], "nil") << k;
  EXPECT_EQ(d["world"], "nil");
  EXPECT_EQ(d["had"], "tabletable");
  EXPECT_EQ(d["area_keys"], "code,engine_state,fort,kind,mode,owner,population,terrain,trade");
  EXPECT_EQ(d["battle_keys"],
            "ambush,attacker,attacker_armies,attacker_units,extras,from,options,to");
}

TEST(ScriptLazyTables, RulesListsTakeWholeFloatKeys) {
  auto e = load(R"lua(
function resolve(battle, rng)
  local g = battle.world:rules().gaelic_nations
  return { attacker_losses = 0, defender_losses = 0,
           detail = { two = g[4 / 2], half = tostring(g[1.5]), str = tostring(g["1"]) } }
end)lua");
  ASSERT_TRUE(e);
  auto out = run(*e, *battle());
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->detail["two"], "Picts");
  EXPECT_EQ(out->detail["half"], "nil");
  EXPECT_EQ(out->detail["str"], "nil");
}

}  // namespace
}  // namespace adj
