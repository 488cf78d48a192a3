// The Lua script engine's sandbox: forbidden functions, limits, errors naming the line or the
// field, no state surviving from one call to the next, and the engine usable after each failure.
#include <gtest/gtest.h>

#include "rules/combat/local_world.h"
#include "rules/combat/script_engine.h"
#include "tests/rules/combat/script_test_util.h"

namespace adj {
namespace {

using script_test::battle;
using script_test::load;
using script_test::run;

const char* kSimple = R"lua(
function resolve(battle, rng)
  return { attacker_wins = false, attacker_losses = 1, defender_losses = 2,
           rounds = { { phase = "x", attacker_before = battle.attacker_armies,
                        defender_before = battle.world:area(battle.to).armies,
                        attacker_losses = 1, defender_losses = 2 } } }
end
)lua";

// A script whose resolve body is `body` (it returns a valid outcome when the body falls through).
std::string sandbox_with_body(const std::string& body) {
  return "function resolve(battle, rng)\n" + body +
         "\nreturn { attacker_losses = 0, defender_losses = 0 }\nend\n";
}

TEST(ScriptEngine, ResolvesASimpleScript) {
  auto e = load(kSimple);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->name(), "lua");
  ASSERT_NE(script_id_of(*e), nullptr);
  EXPECT_EQ(script_id_of(*e)->version, 1);
  auto b = battle();
  auto out = run(*e, *b);
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ(out->attacker_losses, 1);
  EXPECT_EQ(out->defender_losses, 2);
  ASSERT_EQ(out->rounds.size(), 1u);
  EXPECT_EQ(out->rounds[0].attacker_before, 10);
  EXPECT_EQ(out->rounds[0].defender_before, 6);
}

TEST(ScriptEngine, LoadErrorsNameTheProblem) {
  auto too_big = load_script_engine(std::string(100, ' '), {1, ""}, {.source_bytes = 10});
  ASSERT_FALSE(too_big.ok());
  EXPECT_NE(too_big.status().message().find("limit is 10"), std::string::npos);

  auto syntax = load_script_engine("function resolve(\n  x = \n", {1, ""});
  ASSERT_FALSE(syntax.ok());
  EXPECT_NE(syntax.status().message().find("script:"), std::string::npos)
      << syntax.status().message();

  auto no_resolve = load_script_engine("x = 1", {1, ""});
  ASSERT_FALSE(no_resolve.ok());
  EXPECT_NE(no_resolve.status().message().find("resolve"), std::string::npos);

  auto bad_decl =
      load_script_engine("engine = { wold_radius = 3 }\n" + sandbox_with_body(""), {1, ""});
  ASSERT_FALSE(bad_decl.ok());
  EXPECT_NE(bad_decl.status().message().find("engine.wold_radius"), std::string::npos);

  auto binary = load_script_engine("\x1bLua", {1, ""});
  ASSERT_FALSE(binary.ok());
}

TEST(ScriptEngine, DeclarationsMapToTheEngineTraits) {
  auto e = load(R"lua(
engine = { summary = "S", deterministic = true, keywords = { "CARD" }, world_radius = 1,
           accepts_support = true, simultaneous_fire = true, combined_attacks = false,
           dark_age_actions = true, order_help = "CARD n",
           phase_rules = { scope = "turn", one_attack_per_unit = true } }
)lua" + sandbox_with_body(""));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->summary(), "S");
  EXPECT_TRUE(e->deterministic());
  EXPECT_EQ(e->world_radius(Json::object()), 1);
  EXPECT_TRUE(e->accepts_support());
  EXPECT_TRUE(e->simultaneous_fire());
  EXPECT_FALSE(e->combined_attacks());
  EXPECT_TRUE(e->dark_age_actions());
  EXPECT_EQ(e->order_help(), "CARD n");
  EXPECT_EQ(e->phase_rules(Json::object()).scope, CombatPhaseRules::Scope::kTurn);
  EXPECT_TRUE(e->phase_rules(Json::object()).one_attack_per_unit);
  EXPECT_FALSE(e->phase_rules(Json::object()).one_attack_per_target);

  auto d = load(sandbox_with_body(""));
  ASSERT_TRUE(d);
  EXPECT_FALSE(d->deterministic());
  EXPECT_EQ(d->world_radius(Json::object()), 2);
  EXPECT_TRUE(d->combined_attacks());
  EXPECT_FALSE(d->accepts_support());
}

TEST(ScriptEngine, KeywordsAndCheckOrder) {
  auto e = load(R"lua(
engine = { keywords = { "CARD" } }
function check_order(order, world)
  if order.extras.CARD and order.extras.CARD > 3 then
    return "CARD must be 1 to 3 (line " .. order.line .. ", " .. order.verb .. ")"
  end
end
)lua" + sandbox_with_body(""));
  ASSERT_TRUE(e);
  auto b = battle();
  Order o;
  o.line = 4;
  o.verb = Verb::kAssault;
  o.from = "ATT";
  o.to = "TGT";
  o.extras = {{"CARD", 2}};
  EXPECT_TRUE(e->check_order(o, *b->world).ok());
  o.extras = {{"CARD", 5}};
  Status s = e->check_order(o, *b->world);
  EXPECT_EQ(s.message(), "CARD must be 1 to 3 (line 4, ASSAULT)");
  o.extras = {{"AIR", 1}};
  s = e->check_order(o, *b->world);
  EXPECT_NE(s.message().find("AIR is not part of the orders"), std::string::npos) << s.message();
}

TEST(ScriptEngine, CheckGameGetsTheOptions) {
  auto e = load(R"lua(
function check_game(options, world)
  if options.bad then return "bad is set (turn " .. world.turn .. ")" end
end
)lua" + sandbox_with_body(""));
  ASSERT_TRUE(e);
  auto b = battle();
  EXPECT_TRUE(e->check_game(*b->world).ok());
  b->world->engine.options = {{"bad", true}};
  Status s = e->check_game(*b->world);
  EXPECT_EQ(s.message(), "/engine/options: bad is set (turn 1)");
}

// Each forbidden thing, used from resolve, fails with an error naming it, and the next call works.
TEST(ScriptSandbox, ForbiddenThingsAreRefused) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"io.write('x')", "global 'io'"},
      {"os.exit(1)", "global 'os'"},
      {"require('x')", "global 'require'"},
      {"package.loaded.x = 1", "global 'package'"},
      {"load('return 1')()", "global 'load'"},
      {"loadstring('return 1')()", "global 'loadstring'"},
      {"dofile('/etc/passwd')", "global 'dofile'"},
      {"loadfile('/etc/passwd')", "global 'loadfile'"},
      {"debug.getinfo(1)", "global 'debug'"},
      {"collectgarbage()", "global 'collectgarbage'"},
      {"string.dump(resolve)", "field 'dump'"},
      {"math.random(6)", "field 'random'"},
      {"string.find('aaa', 'a')", "field 'find'"},
      {"string.match('aaa', 'a')", "field 'match'"},
      {"string.gmatch('aaa', 'a')", "field 'gmatch'"},
      {"('x'):gsub('a', 'b')", "method 'gsub'"},
      {"string.x = 1", "read-only"},
      {"math.floor = nil", "read-only"},
      {"rawset(table, 'x', 1)", "read-only"},
      {"setmetatable(math, {})", "read-only"},
      {"local m = getmetatable(string); m.__index.x = 1", "attempt to index"},
      {"local m = getmetatable(''); m.__index = nil", "attempt to index"},
      {"setmetatable({}, { __gc = function() end })", "__gc"},
      {"setmetatable({}, { __mode = 'k' })", "__mode"},
      {"string.format('%p', {})", "%p"},
      {"next({})", "global 'next'"},
      {"coroutine.wrap(function() end)()", "global 'coroutine'"},
      {"print('x')", "global 'print'"},
      {"local t = setmetatable({}, { __len = function() return 1 << 40 end, __index = rawlen })\n"
       "table.sort(t)",
       "table.sort: a table with a metatable is not accepted"},
      {"table.move({}, 1, 1 << 40, 2)", "table.move: at most 4194304 elements"},
  };
  auto b = battle();
  for (const auto& [code, expected] : cases) {
    auto e = load(sandbox_with_body(code));
    ASSERT_TRUE(e) << code;
    auto out = run(*e, *b);
    ASSERT_FALSE(out.ok()) << code;
    EXPECT_NE(out.status().message().find(expected), std::string::npos)
        << code << " -> " << out.status().message();
    EXPECT_NE(out.status().message().find("resolve"), std::string::npos) << code;
    // The engine stays usable: the same call fails the same way.
    auto again = run(*e, *b);
    ASSERT_FALSE(again.ok());
    EXPECT_EQ(again.status().message(), out.status().message());
  }
}

TEST(ScriptSandbox, ScriptErrorNamesTheLine) {
  auto e = load(R"lua(function resolve(battle, rng)
  local x = battle.attacker_armies
  if x > 0 then
    error("no battles today")
  end
end
)lua");
  ASSERT_TRUE(e);
  auto b = battle();
  auto out = run(*e, *b);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("script:4: no battles today"), std::string::npos)
      << out.status().message();
  auto nil_index = load("function resolve(battle, rng)\n  return battle.nothing.x\nend\n");
  ASSERT_TRUE(nil_index);
  out = run(*nil_index, *b);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("script:2:"), std::string::npos) << out.status().message();
}

TEST(ScriptSandbox, InfiniteLoopStopsAtTheInstructionLimit) {
  auto b = battle();
  for (const char* body :
       {"while true do end", "while true do pcall(function() while true do end end) end",
        "local function f() return f() end f()"}) {
    auto e = load(sandbox_with_body(body), {.instructions = 100'000});
    ASSERT_TRUE(e);
    auto out = run(*e, *b);
    ASSERT_FALSE(out.ok()) << body;
    EXPECT_NE(out.status().message().find("instruction limit (100000 per call) exceeded"),
              std::string::npos)
        << body << ": " << out.status().message();
  }
  // The next call of a script under the limit works.
  auto ok = load(sandbox_with_body("for i = 1, 1000 do end"), {.instructions = 100'000});
  EXPECT_TRUE(run(*ok, *b).ok());
}

TEST(ScriptSandbox, MemoryBombStopsAtTheMemoryLimit) {
  auto b = battle();
  for (const char* body :
       {"local s = string.rep('x', 1 << 30)", "local t = {} for i = 1, 1e9 do t[i] = i end",
        "local t = {} for i = 1, 1e9 do t[i] = string.rep('y', 1000) .. i end",
        "local s = 'x' while true do s = s .. s end",
        "while true do pcall(function() local t = {} for i = 1, 1e9 do t[i] = i end end) end"}) {
    // An instruction limit far above what the bombs reach, strings as long as the memory: the
    // memory limit must stop them.
    auto e =
        load(sandbox_with_body(body),
             {.instructions = 1'000'000'000'000, .memory_bytes = 8 << 20, .string_bytes = 8 << 20});
    ASSERT_TRUE(e);
    auto out = run(*e, *b);
    ASSERT_FALSE(out.ok()) << body;
    const std::string& m = out.status().message();
    EXPECT_NE(m.find("memory limit (8388608 bytes) exceeded"), std::string::npos)
        << body << ": " << m;
    // The engine stays usable: the same call fails the same way.
    auto again = run(*e, *b);
    ASSERT_FALSE(again.ok()) << body;
    EXPECT_EQ(again.status().message(), m);
  }
  // A well-behaved engine under the same limits works.
  auto ok = load(sandbox_with_body("local t = {} for i = 1, 1000 do t[i] = i end"),
                 {.memory_bytes = 8 << 20});
  EXPECT_TRUE(run(*ok, *b).ok());
}

TEST(ScriptSandbox, EngineRecoversAfterAFailedCall) {
  // The same engine fails on one battle and succeeds on the next.
  auto e = load(R"lua(
function resolve(battle, rng)
  if battle.attacker_armies == 1 then
    local t = {} for i = 1, 1e9 do t[i] = i end
  elseif battle.attacker_armies == 2 then
    while true do end
  elseif battle.attacker_armies == 3 then
    error("three")
  end
  return { attacker_losses = 0, defender_losses = 0 }
end)lua",
                {.instructions = 1'000'000, .memory_bytes = 16 << 20});
  ASSERT_TRUE(e);
  for (int a : {1, 2, 3}) {
    auto bad = battle("move", a);
    EXPECT_FALSE(run(*e, *bad).ok()) << a;
    auto good = battle("move", 10);
    auto out = run(*e, *good);
    EXPECT_TRUE(out.ok()) << a << ": " << out.status().message();
  }
}

TEST(ScriptSandbox, NoStateSurvivesBetweenCalls) {
  auto e = load(R"lua(
calls = 0
local up = 0
local seen = {}
function resolve(battle, rng)
  calls = calls + 1
  up = up + 1
  seen[#seen + 1] = 1
  local had_x = string.x ~= nil
  pcall(function() string.x = 1 end)  -- refused: library tables are shared by every call
  return { attacker_losses = 0, defender_losses = 0,
           detail = { calls = calls, up = up, seen = #seen, had_x = had_x } }
end)lua");
  ASSERT_TRUE(e);
  auto b = battle();
  for (int i = 0; i < 5; ++i) {
    auto out = run(*e, *b);
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_EQ(out->detail["calls"], 1);
    EXPECT_EQ(out->detail["up"], 1);
    EXPECT_EQ(out->detail["seen"], 1);
    EXPECT_EQ(out->detail["had_x"], false);
  }
}

// The world and rng objects are the same from one call to the next (one of each per Lua state),
// so nothing may be stored in them or in their method tables.
TEST(ScriptSandbox, WorldAndRngObjectsCarryNoState) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"battle.world.x = 1", "attempt to index a userdata value"},
      {"rng.x = 1", "attempt to index a userdata value"},
      {"rawset(battle.world, 'x', 1)", "table expected, got userdata"},
      {"setmetatable(rng, {})", "table expected, got userdata"},
      {"local m = getmetatable(battle.world); m.__index.x = 1", "attempt to index a boolean"},
      {"local a = battle.world.area; a.x = 1", "attempt to index a function"},
      {"for k in pairs(battle.world) do end", "table expected, got userdata"},
  };
  auto b = battle();
  for (const auto& [code, expected] : cases) {
    auto e = load(sandbox_with_body(code));
    ASSERT_TRUE(e) << code;
    auto out = run(*e, *b);
    ASSERT_FALSE(out.ok()) << code;
    EXPECT_NE(out.status().message().find(expected), std::string::npos)
        << code << " -> " << out.status().message();
  }
  // world.turn follows the world of each call.
  auto turn = load(R"lua(
function resolve(battle, rng)
  return { attacker_losses = 0, defender_losses = 0,
           detail = { turn = battle.world.turn, same = battle.world == battle.world } }
end)lua");
  ASSERT_TRUE(turn);
  for (int t : {3, 7, 1}) {
    auto bt = battle();
    bt->world->turn = t;
    auto out = run(*turn, *bt);
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_EQ(out->detail["turn"], t);
    EXPECT_EQ(out->detail["same"], true);
  }
}

TEST(ScriptSandbox, TableLibraryWorksOnPlainAndReadOnlyTables) {
  auto e = load(R"lua(
function resolve(battle, rng)
  local t = { 3, 1, 2 }
  table.sort(t)
  table.insert(t, 4)
  local moved = table.move(t, 1, 4, 1, {})
  local terrain = table.concat(battle.world:rules().sticky_terrain, ",")
  return { attacker_losses = 0, defender_losses = 0,
           detail = { t = table.concat(moved, ","), n = #battle.world:rules().sticky_terrain,
                      terrain = terrain } }
end)lua");
  ASSERT_TRUE(e);
  auto b = battle();
  auto out = run(*e, *b);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->detail["t"], "1,2,3,4");
  EXPECT_EQ(out->detail["n"], 3);
  EXPECT_EQ(out->detail["terrain"], "forest,mountains,wetlands");
}

TEST(ScriptSandbox, PairsIsInSortedOrder) {
  auto e = load(R"lua(
function resolve(battle, rng)
  local t = { zeta = 1, alpha = 2, [3] = "c", [1] = "a", mid = 3, [true] = 0 }
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = tostring(k) end
  return { attacker_losses = 0, defender_losses = 0,
           detail = { keys = table.concat(keys, ","), t = tostring({}), f = tostring(print) } }
end)lua");
  ASSERT_TRUE(e);
  auto b = battle();
  auto out = run(*e, *b);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->detail["keys"], "true,1,3,alpha,mid,zeta");
  EXPECT_EQ(out->detail["t"], "table");
}

TEST(ScriptRng, DrawsComeFromTheBattleRng) {
  auto e = load(R"lua(
function resolve(battle, rng)
  local d = {}
  for i = 1, 5 do d[i] = rng:die(6) end
  local u = rng:uniform(10)
  return { attacker_losses = 0, defender_losses = 0,
           rounds = { { phase = "dice", attacker_dice = d, attacker_before = 10,
                        defender_before = 6, detail = { u = u } } } }
end)lua");
  ASSERT_TRUE(e);
  auto b = battle();
  Xoshiro256 rng(42), ref(42);
  auto out = e->resolve(b->input, rng);
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_EQ(rng.draw_count(), 6u);
  std::vector<int> expected;
  for (int i = 0; i < 5; ++i) expected.push_back(ref.die(6));
  EXPECT_EQ(out->rounds[0].attacker_dice, expected);
  EXPECT_EQ(out->rounds[0].detail["u"], static_cast<int>(ref.uniform(10)));
  EXPECT_EQ(rng.draws()[5].bound, 10u);

  auto bad = load(sandbox_with_body("rng:die(0)"));
  auto r = run(*bad, *b);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("sides"), std::string::npos) << r.status().message();
}

TEST(ScriptMarshal, OutcomeErrorsNameTheField) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"return 5", "outcome: resolve must return a table, not a number"},
      {"return { attacker_losses = 'x' }", "outcome.attacker_losses: must be an integer"},
      {"return { attacker_losses = 1.5 }", "outcome.attacker_losses: must be an integer"},
      {"return { attacker_wins = 1 }", "outcome.attacker_wins: must be a boolean"},
      {"return { atacker_losses = 1 }", "outcome.atacker_losses: unknown field"},
      {"return { rounds = { { phase = 3 } } }", "outcome.rounds[1].phase: must be a string"},
      {"return { rounds = { {}, { attacker_dice = { 1, 'x' } } } }",
       "outcome.rounds[2].attacker_dice[2]: must be an integer"},
      {"return { detail = { f = resolve } }", "outcome.detail.f: a function cannot be stored"},
      {"return { detail = { 1, x = 2 } }", "outcome.detail: a table must be a list"},
      {"return { group_losses = { 1, 2 } }", "group_losses is not one per force"},
      {"return { attacker_losses = 11 }", "attacker losses 11 of 10"},
      {"return { defender_losses = 7 }", "defender losses 7 of 6"},
      {"return { attacker_wins = true, attacker_losses = 10, defender_losses = 6 }",
       "attacker_wins: the attacker has no survivors"},
      {"return { attacker_wins = true, defender_losses = 5 }", "attacker_wins: defending armies"},
      {"return { defender_retreats_to = 'NOWHERE' }",
       "defender_retreats_to: NOWHERE is not a neighbour of TGT"},
      {"return { rounds = { { attacker_before = 2, attacker_losses = 3 } } }",
       "rounds[1].attacker_losses: 3 of 2"},
      {"return { advancing = 11 }", "advancing: 11 of 10"},
      // Field names are recognised by their interned string: names of other tables (battle,
      // area, round) and long strings are not outcome fields.
      {"return { kind = 'move' }", "outcome.kind: unknown field of an outcome"},
      {"return { phase = 'x' }", "outcome.phase: unknown field of an outcome"},
      {"return { [string.rep('attacker_losses', 3)] = 1 }", "unknown field of an outcome"},
      {"return { rounds = { { attacker_wins = true } } }",
       "outcome.rounds[1].attacker_wins: unknown field of a round"},
      {"return { rounds = { { [string.rep('phase', 9)] = 'x' } } }", "unknown field of a round"},
  };
  auto b = battle();
  for (const auto& [code, expected] : cases) {
    auto e = load("function resolve(battle, rng)\n" + code + "\nend\n");
    ASSERT_TRUE(e) << code;
    auto out = run(*e, *b);
    ASSERT_FALSE(out.ok()) << code;
    EXPECT_NE(out.status().message().find(expected), std::string::npos)
        << code << " -> " << out.status().message();
  }
}

TEST(ScriptMarshal, WorldAccess) {
  auto e = load(R"lua(
function resolve(battle, rng)
  local w = battle.world
  return { attacker_losses = 0, defender_losses = 0,
           detail = { area = w:area(battle.to), missing = w:area("ZZZ") == nil,
                      n = w:neighbours(battle.to), edge = w:edge("ATT", "TGT"),
                      player = w:player("ATT"), order = w:order_of_play(),
                      rules = w:rules(), turn = w.turn, kind = battle.kind,
                      groups = battle.groups, options = battle.options } }
end)lua");
  ASSERT_TRUE(e);
  auto b = battle("assault");
  auto out = run(*e, *b);
  ASSERT_TRUE(out.ok()) << out.status().message();
  const Json& d = out->detail;
  Json area = to_json(*b->world->find_area("TGT"));
  for (auto it = area.begin(); it != area.end();)
    it = it->is_null() ? area.erase(it) : std::next(it);
  EXPECT_EQ(d["area"], area);
  EXPECT_EQ(d["missing"], true);
  EXPECT_EQ(d["n"], Json::array({"ATT"}));
  EXPECT_EQ(d["edge"]["a"], "ATT");
  EXPECT_EQ(d["player"]["code"], "ATT");
  EXPECT_FALSE(d["player"].contains("secret"));
  EXPECT_FALSE(d["player"].contains("email"));
  EXPECT_EQ(d["rules"], to_json(b->world->rules));
  // A read-only table returned as a whole field.
  auto r = load("function resolve(battle, rng)\n  return { detail = battle.world:rules() }\nend\n");
  auto out2 = run(*r, *b);
  ASSERT_TRUE(out2.ok()) << out2.status().message();
  EXPECT_EQ(out2->detail, to_json(b->world->rules));
  EXPECT_EQ(d["kind"], "assault");
  EXPECT_EQ(d["groups"][0]["armies"], 10);
  EXPECT_EQ(d["groups"][0]["from"], "ATT");
}

}  // namespace
}  // namespace adj
