// A script's top level runs once when nothing it leaves can carry state from one call to the
// next (LuaSandbox::keep_top_level): each call must still see exactly what the top level left.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "rules/combat/local_world.h"
#include "rules/combat/script_engine.h"
#include "schemas/embedded.h"
#include "tests/rules/combat/script_test_util.h"

namespace adj {
namespace {

using script_test::battle;
using script_test::load;
using script_test::run;

TEST(ScriptTopLevel, TheShippedExamplesRunTheirTopLevelOnce) {
  for (const char* file : {"dark_age.lua", "dice.lua"}) {
    auto src = embedded_file(std::string("rules/combat/scripts/") + file);
    ASSERT_TRUE(src.has_value()) << file;
    auto e = load(std::string(*src));
    ASSERT_TRUE(e) << file;
    EXPECT_TRUE(script_top_level_kept(*e)) << file;
  }
}

TEST(ScriptTopLevel, EveryCallSeesWhatTheTopLevelLeft) {
  auto e = load(R"lua(
engine = { summary = "kept", world_radius = 0 }
calls = 0
local up = 0
local name = "x"
local function helper() return 1 end
function resolve(battle, rng)
  calls = calls + 1
  up = up + 1
  name = name .. "y"
  local had_helper = helper ~= nil
  helper = nil
  local before = engine.summary
  engine.summary = engine.summary .. "!"
  engine.extra = 1
  _G.g = (_G.g or 0) + 1
  return { attacker_losses = 0, defender_losses = 0,
           detail = { calls = calls, up = up, name = name, had_helper = had_helper,
                      before = before, after = engine.summary, g = g, same_g = _G == _ENV } }
end)lua");
  ASSERT_TRUE(e);
  EXPECT_TRUE(script_top_level_kept(*e));
  auto b = battle();
  for (int i = 0; i < 4; ++i) {
    auto out = run(*e, *b);
    ASSERT_TRUE(out.ok()) << out.status().message();
    const Json& d = out->detail;
    EXPECT_EQ(d["calls"], 1);
    EXPECT_EQ(d["up"], 1);
    EXPECT_EQ(d["name"], "xy");
    EXPECT_EQ(d["had_helper"], true);
    EXPECT_EQ(d["before"], "kept");
    EXPECT_EQ(d["after"], "kept!");
    EXPECT_EQ(d["g"], 1);
    EXPECT_EQ(d["same_g"], true);
  }
}

// `engine` is a fresh table in every call that reads the top level's until the call changes it;
// to the script it is the plain table a fresh run of the top level would make.
TEST(ScriptTopLevel, TheEngineTableIsTheCallsOwn) {
  auto e = load(R"lua(
engine = { summary = "kept", world_radius = 0, deterministic = true }
function resolve(battle, rng)
  local keys = {}
  for k in pairs(engine) do keys[#keys + 1] = k end
  local raw = rawget(engine, "summary")
  local cleared = engine
  local removed
  if battle.kind == "move" then
    engine.summary = nil
    removed = engine.summary == nil
  else
    setmetatable(engine, { __index = function() return 5 end })
    removed = engine.nosuch == 5 and engine.summary == "kept"
  end
  engine = nil
  return { attacker_losses = 0, defender_losses = 0,
           detail = { keys = table.concat(keys, ","), raw = raw, removed = removed,
                      gone = engine == nil, type = type(cleared) } }
end)lua");
  ASSERT_TRUE(e);
  EXPECT_TRUE(script_top_level_kept(*e));
  for (const char* kind : {"move", "assault", "move"}) {
    auto b = battle(kind);
    auto out = run(*e, *b);
    ASSERT_TRUE(out.ok()) << kind << ": " << out.status().message();
    const Json& d = out->detail;
    EXPECT_EQ(d["keys"], "deterministic,summary,world_radius") << kind;
    EXPECT_EQ(d["raw"], "kept") << kind;
    EXPECT_EQ(d["removed"], true) << kind;
    EXPECT_EQ(d["gone"], true) << kind;
    EXPECT_EQ(d["type"], "table") << kind;
  }
}

// What a call could change and the next would see keeps the chunk running before every call:
// a table in a global or in an upvalue of a function a global reaches, a C function with state,
// an `engine` holding a table or carrying a metatable. (A local the top level left unreachable,
// such as a table only a local function nobody keeps uses, is not state.)
TEST(ScriptTopLevel, StateTheTopLevelLeavesKeepsTheChunkRunning) {
  const std::vector<std::string> tops = {
      "local t = {}\nfunction f() return t end", "lookup = { 1, 2 }",
      "iter = pairs({ a = 1, b = 2 })",          "engine = { keywords = { 'CARD' } }",
      "engine = setmetatable({}, {})",           "local env = _ENV\nfunction f() return env end",
  };
  for (const std::string& top : tops) {
    auto e = load(top + R"lua(
n = (n or 0) + 1
function resolve(battle, rng)
  n = n + 1
  local first
  if iter then first = iter({ a = 1, b = 2 }, nil) end
  return { attacker_losses = 0, defender_losses = 0, detail = { n = n, first = first } }
end)lua");
    ASSERT_TRUE(e) << top;
    EXPECT_FALSE(script_top_level_kept(*e)) << top;
    auto b = battle();
    for (int i = 0; i < 3; ++i) {
      auto out = run(*e, *b);
      ASSERT_TRUE(out.ok()) << top << ": " << out.status().message();
      EXPECT_EQ(out->detail["n"], 2) << top;
    }
  }
}

TEST(ScriptTopLevel, ChecksRunOnAKeptTopLevel) {
  auto e = load(R"lua(
engine = { summary = "checks" }
local limit = 3
function check_game(options)
  if options.bad then return "bad option" end
end
function resolve(battle, rng)
  return { attacker_losses = math.min(limit, battle.attacker_armies), defender_losses = 0 }
end)lua");
  ASSERT_TRUE(e);
  EXPECT_TRUE(script_top_level_kept(*e));
  auto b = battle();
  auto out = run(*e, *b);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->attacker_losses, 3);
  GameState s = *b->world;
  s.engine.options = Json{{"bad", true}};
  Status st = e->check_game(s);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("bad option"), std::string::npos) << st.message();
  s.engine.options = Json::object();
  EXPECT_TRUE(e->check_game(s).ok());
}

// The same script, kept and not (a table pinned in an upvalue of resolve keeps the chunk running),
// gives the same answers to everything a call can ask of its globals.
TEST(ScriptTopLevel, KeptAndRunAgainAnswerAlike) {
  const std::string body = R"lua(
engine = { summary = "kept", deterministic = true }
limit = 3
function helper() return 1 end
function resolve(battle, rng)
  pin_use()
  local before = rawget(_G, "limit")
  limit = nil
  helper = nil
  local keys = {}
  for k in pairs(_G) do keys[#keys + 1] = k end
  local meta = tostring(getmetatable(engine)) .. "," .. tostring(getmetatable(_G))
  local inserted = pcall(table.insert, _G, 5)
  rawset(_G, "extra", 1)
  rawset(engine, "summary", nil)
  local ekeys = {}
  for k in pairs(engine) do ekeys[#ekeys + 1] = k end
  return { attacker_losses = 0, defender_losses = 0,
           detail = { before = before, limit = tostring(limit), helper = tostring(helper),
                      keys = table.concat(keys, ","), extra = extra,
                      summary = tostring(engine.summary), ekeys = table.concat(ekeys, ","),
                      meta = meta, inserted = inserted } }
end)lua";
  // pin_use is a local function (not a global): kept, it reads nothing; pinned, it reads a table.
  auto kept = load("local function pin_use() end\n" + body);
  auto again = load("local pin = {}\nlocal function pin_use() return pin end\n" + body);
  ASSERT_TRUE(kept && again);
  EXPECT_TRUE(script_top_level_kept(*kept));
  EXPECT_FALSE(script_top_level_kept(*again));
  auto b = battle();
  for (int i = 0; i < 3; ++i) {
    auto k = run(*kept, *b);
    auto a = run(*again, *b);
    ASSERT_TRUE(k.ok()) << k.status().message();
    ASSERT_TRUE(a.ok()) << a.status().message();
    EXPECT_EQ(k->detail, a->detail);
    EXPECT_EQ(k->detail["before"], 3);
    EXPECT_EQ(k->detail["limit"], "nil");
    EXPECT_EQ(k->detail["helper"], "nil");
    EXPECT_EQ(k->detail["keys"], "_G,engine,resolve");
    EXPECT_EQ(k->detail["extra"], 1);
    EXPECT_EQ(k->detail["summary"], "nil");
    EXPECT_EQ(k->detail["ekeys"], "deterministic");
    EXPECT_EQ(k->detail["meta"], "nil,false");
    EXPECT_EQ(k->detail["inserted"], false);  // the environment has a metatable: refused
  }
  // An outcome made of the call's engine reads as the script sees it, kept or not.
  const std::string outcome = R"lua(
engine = { summary = "s" }
function resolve(battle, rng)
  pin_use()
  return { attacker_losses = 0, defender_losses = 0, rounds = engine }
end)lua";
  auto k2 = load("local function pin_use() end\n" + outcome);
  auto a2 = load("local pin = {}\nlocal function pin_use() return pin end\n" + outcome);
  ASSERT_TRUE(k2 && a2);
  EXPECT_TRUE(script_top_level_kept(*k2));
  auto ko = run(*k2, *b);
  auto ao = run(*a2, *b);
  ASSERT_FALSE(ko.ok());
  ASSERT_FALSE(ao.ok());
  EXPECT_EQ(ko.status().message(), ao.status().message());
}

// A top level that sets _G to something else, or removes it, keeps running before every call (a
// kept call's _G is its environment).
TEST(ScriptTopLevel, AnotherGKeepsTheChunkRunning) {
  for (const char* g : {"7", "nil"}) {
    auto e = load(std::string("_G = ") + g + R"lua(
function resolve(battle, rng)
  return { attacker_losses = 0, defender_losses = 0, detail = { g = tostring(_G) } }
end)lua");
    ASSERT_TRUE(e);
    EXPECT_FALSE(script_top_level_kept(*e)) << g;
    auto out = run(*e, *battle());
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_EQ(out->detail["g"], g);
  }
}

}  // namespace
}  // namespace adj
