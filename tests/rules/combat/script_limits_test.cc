// The Lua script engine's limits on work done in C (library functions, world reads, allocations),
// on what a script returns, on what an idle engine keeps, on declarations; table.sort's order;
// and check_order's view of the world. Each script here would run far past its limits (or pass
// where it must not) without the bound it tests.
#include <gtest/gtest.h>

#include "rules/combat/local_world.h"
#include "rules/combat/lua_sandbox.h"
#include "rules/combat/script_engine.h"
#include "rules/game/scenario.h"
#include "rules/turn/turn_resolver.h"
#include "tests/rules/combat/script_test_util.h"
#include "tests/support/sanitized.h"

namespace adj {
namespace {

using script_test::battle;
using script_test::load;
using script_test::run;

// A resolve that runs `body`, then returns a valid outcome with `detail` (a Lua expression).
std::string limits_with_body(const std::string& body, const std::string& detail = "{}") {
  return "function resolve(battle, rng)\n" + body +
         "\nreturn { attacker_losses = 0, defender_losses = 0, detail = " + detail + " }\nend\n";
}

// Runs `body` under `instructions` and expects the instruction limit to stop it.
void expect_instruction_limit(const std::string& body, std::uint64_t instructions) {
  auto e = load(limits_with_body(body), {.instructions = instructions});
  ASSERT_TRUE(e) << body;
  auto b = battle();
  auto out = run(*e, *b);
  ASSERT_FALSE(out.ok()) << body << ": the script ran to the end";
  EXPECT_NE(out.status().message().find("instruction limit (" + std::to_string(instructions) +
                                        " per call) exceeded"),
            std::string::npos)
      << body << ": " << out.status().message();
  // The engine stays usable: the same call fails the same way.
  auto again = run(*e, *b);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().message(), out.status().message());
}

TEST(ScriptLimits, StringRepIsChargedAndAnEmptyRepEndsAtOnce) {
  // liblua's rep of an empty string loops n times copying nothing: it never ended.
  auto e =
      load(limits_with_body("local a = string.rep('', math.maxinteger)\n"
                            "local b = (''):rep(math.maxinteger, '')\n"
                            "local c = string.rep('ab', 3, ',')",
                            "{ a = a, b = b, c = c }"));
  ASSERT_TRUE(e);
  auto b = battle();
  auto out = run(*e, *b);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->detail["a"], "");
  EXPECT_EQ(out->detail["b"], "");
  EXPECT_EQ(out->detail["c"], "ab,ab,ab");
  // 2,000 calls of ~5 instructions each make 200 MB: charged by the bytes, through the library
  // and through the string metatable.
  expect_instruction_limit("for i = 1, 2000 do local s = string.rep('x', 100000) end", 20'000);
  expect_instruction_limit("for i = 1, 2000 do local s = ('x'):rep(100000) end", 20'000);
  // A concatenation is one instruction whatever its length: its allocation is charged.
  expect_instruction_limit(
      "local s = string.rep('x', 4096)\nfor i = 1, 5000 do local t = s .. i end", 100'000);
}

TEST(ScriptLimits, TableFunctionsAreChargedTheirElements) {
  // Each table.move call moves 4M elements for ~5 instructions.
  expect_instruction_limit(
      "local t = { 1, 2, 3, 4 }\nfor i = 1, 20 do table.move(t, 1, 4194303, 1) end", 1'000'000);
  expect_instruction_limit(
      "local t = {} for i = 1, 10000 do t[i] = 'x' end\n"
      "for r = 1, 200 do local s = table.concat(t) end",
      500'000);
  expect_instruction_limit(
      "local t = {} for i = 1, 10000 do t[i] = i end\n"
      "for r = 1, 200 do local n = select('#', table.unpack(t)) end",
      500'000);
  expect_instruction_limit(
      "local t = {} for i = 1, 10000 do t[i] = i end\n"
      "for r = 1, 200 do table.insert(t, 1, r) table.remove(t, 1) end",
      500'000);
}

TEST(ScriptLimits, PairsIsChargedItsSort) {
  // Every pairs() call collects and sorts all the keys in C.
  expect_instruction_limit(
      "local t = {} for i = 1, 20000 do t[i] = i end\n"
      "for r = 1, 50 do for k in pairs(t) do break end end",
      1'000'000);
}

TEST(ScriptLimits, SetmetatableIsChargedTheFieldsItCopies) {
  expect_instruction_limit(
      "local mt = {} for i = 1, 20000 do mt[i] = i end\n"
      "for r = 1, 100 do setmetatable({}, mt) end",
      500'000);
}

TEST(ScriptLimits, StringAndUtf8ScansAreCharged) {
  expect_instruction_limit(
      "local s = string.rep('a', 100000)\nfor r = 1, 1000 do local n = utf8.len(s) end", 1'000'000);
  expect_instruction_limit(
      "local s = string.rep('a', 100000)\nfor r = 1, 1000 do local u = s:upper() end", 1'000'000);
  expect_instruction_limit(
      "local s = string.rep('1', 100000)\nfor r = 1, 1000 do local n = tonumber(s, 2) end",
      1'000'000);
  expect_instruction_limit(
      "local s = string.rep('a', 100000)\nfor r = 1, 100 do local n = select('#', s:byte(1, -1)) "
      "end",
      1'000'000);
}

TEST(ScriptLimits, WorldReadsAreChargedTheirSize) {
  auto b = battle();
  Json big = Json::array();
  for (int i = 0; i < 50000; ++i) big.push_back(i);
  b->world->find_area("TGT")->features = Json{{"list", big}};
  auto e =
      load(limits_with_body("for r = 1, 100 do local a = battle.world:area('TGT').features end"),
           {.instructions = 1'000'000});
  ASSERT_TRUE(e);
  auto out = run(*e, *b);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("instruction limit"), std::string::npos)
      << out.status().message();
  // An area's fields are built when read: areas whose features are not read cost little.
  auto cheap =
      load(limits_with_body("for r = 1, 100 do local a = battle.world:area('TGT').armies end"),
           {.instructions = 1'000'000});
  ASSERT_TRUE(cheap);
  auto ok = run(*cheap, *b);
  EXPECT_TRUE(ok.ok()) << ok.status().message();
}

// Comparing two long strings is one VM instruction that reads both (1.1 ms for two 16 MiB
// strings): a loop of them ran for minutes per call within the instruction limit, and only a CPU
// clock stopped it, so pass or fail depended on the machine. Now a string is at most the string
// limit, and every instruction counts the most a comparison of the longest string made can cost.
TEST(ScriptLimits, LongStringComparisonsAreChargedByTheirLength) {
  auto b = battle();
  // The upload that ran past 20 s: two 16 MiB strings compared in a loop.
  const std::string slow =
      "local a = string.rep('x', 1 << 24)\n"
      "local b = string.rep('x', 1 << 24)\n"
      "function resolve(battle, rng)\n"
      "  local n = 0\n"
      "  for i = 1, 1000 do if a == b then n = n + 1 end end\n"
      "  return { attacker_losses = 0, defender_losses = 0 }\n"
      "end\n";
  auto refused = load_script_engine(slow, {1, "test"});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("string length limit (1048576 bytes) exceeded"),
            std::string::npos)
      << refused.status().message();
  // Within the string limit, the same loop ends on the instruction limit after a bounded number of
  // comparisons: each instruction counts 1 + 1 MiB / 256.
  const std::uint64_t limit = testing::kSanitized ? 2'000'000 : 20'000'000;
  const std::string within = limits_with_body(
      "local a = string.rep('x', 1 << 20)\n"
      "local b = string.rep('x', 1 << 20)\n"
      "local n = 0\n"
      "for i = 1, 100000000 do if a == b and a <= b then n = n + 1 end end");
  std::uint64_t counted[2] = {};
  std::string messages[2];
  for (int k = 0; k < 2; ++k) {
    auto e = load(within, {.instructions = limit});
    ASSERT_TRUE(e);
    auto out = run(*e, *b);
    ASSERT_FALSE(out.ok());
    messages[k] = out.status().message();
    counted[k] = script_instructions(*e);
    // Charged past the limit by at most one step of the count hook (1,000 instructions).
    EXPECT_LE(counted[k], limit + 1000 * (1 + (1 << 20) / 256 + 1) + (1 << 20));
  }
  EXPECT_NE(messages[0].find("instruction limit (" + std::to_string(limit) + " per call)"),
            std::string::npos)
      << messages[0];
  // Every run the same: the same message and the same count.
  EXPECT_EQ(messages[0], messages[1]);
  EXPECT_EQ(counted[0], counted[1]);
  // Not swallowed by pcall.
  auto p = load(limits_with_body("local a = string.rep('x', 1 << 20)\n"
                                 "local b = string.rep('x', 1 << 20)\n"
                                 "pcall(function() for i = 1, 100000000 do local c = a == b end "
                                 "end)"),
                {.instructions = limit});
  auto out2 = run(*p, *b);
  ASSERT_FALSE(out2.ok());
  EXPECT_NE(out2.status().message().find("instruction limit"), std::string::npos)
      << out2.status().message();
  // Short strings cost nothing more: a loop of comparisons of 400-byte strings passes.
  auto ok = load(limits_with_body("local a = string.rep('x', 400)\n"
                                  "local b = string.rep('x', 400)\n"
                                  "local n = 0 for i = 1, 100000 do if a == b then n = n + 1 end "
                                  "end"),
                 {.instructions = 1'000'000});
  auto fine = run(*ok, *b);
  EXPECT_TRUE(fine.ok()) << fine.status().message();
}

TEST(ScriptLimits, AStringLongerThanTheStringLimitIsNotMade) {
  auto b = battle();
  for (const char* body :
       {"local s = string.rep('x', 1 << 19)\nlocal t = s .. s .. 'y'",
        "local s = string.rep('x', 1 << 19)\nlocal t = table.concat({ s, s, 'y' })",
        "local s = string.rep('x', 1 << 19)\nlocal ok = pcall(function() return s .. s .. 'y' end)",
        "local s = string.format('%s%s%s', string.rep('x', 1 << 19), string.rep('x', 1 << 19), "
        "'y')"}) {
    auto e = load(limits_with_body(body));
    ASSERT_TRUE(e);
    auto out = run(*e, *b);
    ASSERT_FALSE(out.ok()) << body;
    EXPECT_NE(out.status().message().find("resolve: string length limit (1048576 bytes) exceeded"),
              std::string::npos)
        << body << ": " << out.status().message();
  }
  // At the limit, a string is made; the limit is the host's to set.
  auto at = load(limits_with_body("local s = string.rep('x', 1 << 19)\nlocal t = s .. s"));
  auto made = run(*at, *b);
  EXPECT_TRUE(made.ok()) << made.status().message();
  auto small = load(limits_with_body("local s = string.rep('x', 5000)"), {.string_bytes = 4096});
  auto refused = run(*small, *b);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("string length limit (4096 bytes) exceeded"),
            std::string::npos)
      << refused.status().message();
}

// Recursion stops at the call depth limit, the same way on every run, and pcall cannot catch it.
TEST(ScriptLimits, DeepRecursionStopsAtTheDepthLimit) {
  auto b = battle();
  const std::string deep =
      "local function f(n) return 1 + f(n + 1) end\n" + limits_with_body("f(1)");
  std::uint64_t counted[2] = {};
  std::string messages[2];
  for (int k = 0; k < 2; ++k) {
    auto e = load(deep);
    ASSERT_TRUE(e);
    auto out = run(*e, *b);
    ASSERT_FALSE(out.ok());
    messages[k] = out.status().message();
    counted[k] = script_instructions(*e);
    EXPECT_LT(counted[k], 20'000u) << messages[k];
  }
  EXPECT_NE(messages[0].find("resolve: call depth limit (1000 levels) exceeded"), std::string::npos)
      << messages[0];
  EXPECT_EQ(messages[0], messages[1]);
  EXPECT_EQ(counted[0], counted[1]);
  auto caught = load(
      "local function f(n) return 1 + f(n + 1) end\n" + limits_with_body("local ok = pcall(f, 1)"),
      {.call_depth = 50});
  auto out = run(*caught, *b);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("call depth limit (50 levels) exceeded"), std::string::npos)
      << out.status().message();
  // Recursion within the limit runs.
  auto fine = load("local function f(n) if n == 0 then return 0 end return 1 + f(n - 1) end\n" +
                   limits_with_body("assert(f(500) == 500)"));
  auto ok = run(*fine, *b);
  EXPECT_TRUE(ok.ok()) << ok.status().message();
}

// A run's calls share its budget: a turn run stops on its instruction budget and on its outcome
// bytes, at the same battle on every run; an upload check on its own.
TEST(ScriptLimits, ARunHasATotalBudget) {
  auto b = battle();
  const std::string busy = limits_with_body("local n = 0 for i = 1, 100000 do n = n + i end");
  auto failing_battle = [&](ScriptRun kind, const ScriptLimits& limits, std::string* message) {
    auto e = load(busy, limits);
    ScriptRunBudget budget(kind);
    for (int i = 1; i <= 100; ++i) {
      auto out = run(*e, *b);
      if (!out.ok()) {
        *message = out.status().message();
        EXPECT_TRUE(budget.exhausted);
        return i;
      }
    }
    return 0;
  };
  std::string m1, m2;
  const int first = failing_battle(ScriptRun::kTurnRun, {.turn_instructions = 2'000'000}, &m1);
  EXPECT_EQ(failing_battle(ScriptRun::kTurnRun, {.turn_instructions = 2'000'000}, &m2), first);
  EXPECT_GT(first, 1);
  EXPECT_LT(first, 20);
  EXPECT_NE(m1.find("resolve: the turn run's budget of 2000000 script instructions is used up"),
            std::string::npos)
      << m1;
  EXPECT_EQ(m1, m2);
  std::string m3;
  EXPECT_GT(failing_battle(ScriptRun::kUploadCheck, {.check_instructions = 3'000'000}, &m3), first);
  EXPECT_NE(m3.find("the upload check's budget of 3000000 script instructions is used up"),
            std::string::npos)
      << m3;
  // Outside a run, only the per-call limit counts.
  auto free_engine = load(busy, {.turn_instructions = 2'000'000});
  for (int i = 0; i < 30; ++i) ASSERT_TRUE(run(*free_engine, *b).ok());

  // Outcome bytes: 30 kB of detail a battle, 100 kB a turn.
  auto e = load(limits_with_body("", "{ text = string.rep('x', 30000) }"),
                {.turn_outcome_bytes = 100'000});
  ScriptRunBudget turn(ScriptRun::kTurnRun);
  for (int i = 1; i <= 3; ++i) ASSERT_TRUE(run(*e, *b).ok()) << i;
  auto out = run(*e, *b);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find(
                "the turn run's budget of 100000 bytes of battle outcomes is used up (at "
                "outcome.detail.text)"),
            std::string::npos)
      << out.status().message();
}

// resolve_turn runs under a turn run's budget: a turn whose battle costs more than the budget
// fails naming it, on every rerun; the same engine outside a turn resolves the battle.
TEST(ScriptLimits, ATurnRunHasATotalBudget) {
  Result<Json> doc = bundled_scenario_published("path-of-war-ardennes");
  ASSERT_TRUE(doc.ok());
  Result<GameState> state = state_from_scenario(*doc, 1);
  ASSERT_TRUE(state.ok()) << state.status().message();
  auto e = load(limits_with_body("local n = 0 for i = 1, 100000 do n = n + i end"),
                {.turn_instructions = 100'000});
  ASSERT_TRUE(e);
  Order o;
  o.line = o.action = 1;
  o.verb = Verb::kMove;
  o.from = "MON";
  o.to = "SPA";
  o.text = "MOVE MON SPA";
  OrderBook book;
  book["GER"] = {o};
  std::string messages[2];
  for (std::string& m : messages) {
    Result<TurnResult> r = resolve_turn(*state, book, *e);
    ASSERT_FALSE(r.ok());
    m = r.status().message();
  }
  EXPECT_NE(messages[0].find("the turn run's budget of 100000 script instructions is used up"),
            std::string::npos)
      << messages[0];
  EXPECT_EQ(messages[0], messages[1]);
  auto b = battle();
  auto alone = run(*e, *b);
  EXPECT_TRUE(alone.ok()) << alone.status().message();
}

TEST(ScriptLimits, TableSortIsStableAndTakesAnyComparator) {
  auto e =
      load(limits_with_body(R"lua(
  local t = {}
  for i = 1, 300 do t[i] = { k = (i * 7) % 3, id = i } end
  table.sort(t, function(a, b) return a.k < b.k end)
  local ok = true
  for i = 2, #t do
    if t[i - 1].k > t[i].k or (t[i - 1].k == t[i].k and t[i - 1].id > t[i].id) then ok = false end
  end
  local u = {}
  for i = 1, 300 do u[i] = (i * 37) % 101 end
  table.sort(u, function(a, b) return true end)  -- inconsistent: some order, never an error
  local v = { 5, 3, 9, 1, 7 }
  table.sort(v)
  local w = { 'b', 'c', 'a' }
  table.sort(w, function(a, b) return a > b end)
  local big = {}
  for i = 1, 1000 do big[i] = (i * 7919) % 1000 end
  table.sort(big)
  local sorted = true
  for i = 2, #big do if big[i - 1] > big[i] then sorted = false end end
)lua",
                            "{ stable = ok, u = table.concat(u, ','), v = table.concat(v, ','), "
                            "w = table.concat(w, ','), sorted = sorted }"));
  ASSERT_TRUE(e);
  auto b = battle();
  auto out = run(*e, *b);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->detail["stable"], true);
  EXPECT_EQ(out->detail["v"], "1,3,5,7,9");
  EXPECT_EQ(out->detail["w"], "c,b,a");
  EXPECT_EQ(out->detail["sorted"], true);
  // The same order on every run (another engine, another state).
  auto again =
      load(limits_with_body("local u = {}\nfor i = 1, 300 do u[i] = (i * 37) % 101 end\n"
                            "table.sort(u, function(a, b) return true end)",
                            "{ u = table.concat(u, ',') }"));
  auto out2 = run(*again, *b);
  ASSERT_TRUE(out2.ok()) << out2.status().message();
  EXPECT_EQ(out2->detail["u"], out->detail["u"]);
  // Errors of the comparison still surface.
  auto bad = load(limits_with_body("local t = { 1, 'x', 2 } table.sort(t)"));
  auto out3 = run(*bad, *b);
  ASSERT_FALSE(out3.ok());
  EXPECT_NE(out3.status().message().find("attempt to compare"), std::string::npos)
      << out3.status().message();
  // A comparator's own instructions count.
  expect_instruction_limit(
      "local t = {} for i = 1, 2000 do t[i] = -i end\n"
      "table.sort(t, function(a, b) for j = 1, 100 do end return a < b end)",
      1'000'000);
}

TEST(ScriptLimits, AnOutcomeHoldsAtMostTheOutcomeLimit) {
  auto b = battle();
  // One 100 kB string listed 150 times: 15 MB once copied out of Lua (1 MiB of detail a battle
  // was accepted: 3,200 battles would have stored about 16 GB).
  auto shared =
      load(limits_with_body("local d = string.rep('x', 100000)\n"
                            "local big = {} for i = 1, 150 do big[i] = d end",
                            "{ big = big }"));
  ASSERT_TRUE(shared);
  auto out = run(*shared, *b);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find(
                "outcome: more than 262144 bytes of data, the limit of one battle's outcome (at "
                "outcome.detail.big["),
            std::string::npos)
      << out.status().message();
  // Keys count too.
  auto keys = load(limits_with_body(
      "local k = {} for i = 1, 20 do k[string.rep('k', 60000) .. i] = 1 end", "k"));
  out = run(*keys, *b);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("more than 262144 bytes of data"), std::string::npos)
      << out.status().message();
  // The limit is the host's to set.
  auto small =
      load(limits_with_body("", "{ text = string.rep('x', 5000) }"), {.outcome_bytes = 4096});
  out = run(*small, *b);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("more than 4096 bytes of data, the limit of one "
                                        "battle's outcome (at outcome.detail.text)"),
            std::string::npos)
      << out.status().message();
  // Rounds and lists are capped in number.
  auto rounds = load(
      "function resolve(battle, rng)\n  local r = {} for i = 1, 10001 do r[i] = {} end\n"
      "  return { attacker_losses = 0, defender_losses = 0, rounds = r }\nend\n");
  out = run(*rounds, *b);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("outcome.rounds: more than 10000 entries"),
            std::string::npos)
      << out.status().message();
  auto dice = load(
      "function resolve(battle, rng)\n  local d = {} for i = 1, 10001 do d[i] = 1 end\n"
      "  return { attacker_losses = 0, defender_losses = 0, rounds = { { attacker_dice = d } } }\n"
      "end\n");
  out = run(*dice, *b);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("outcome.rounds[1].attacker_dice: more than 10000 values"),
            std::string::npos)
      << out.status().message();
  // Under the bounds, the same shapes pass.
  auto fine =
      load(limits_with_body("local d = string.rep('x', 1000)\n"
                            "local big = {} for i = 1, 150 do big[i] = d end",
                            "{ big = big }"));
  out = run(*fine, *b);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->detail["big"].size(), 150u);
}

TEST(ScriptLimits, DeclarationsHoldAtMostOneMegabyteAndSixtyFourKeywords) {
  auto big = load_script_engine(
      "local s = string.rep('x', 1 << 20)\nengine = { summary = s }\n" + limits_with_body(""),
      {1, ""});
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.status().message().find("engine: more than 1 MB of data"), std::string::npos)
      << big.status().message();

  auto words = [](int n) {
    std::string list;
    for (int i = 0; i < n; ++i) {
      std::string w = "K";
      for (int v = i; v > 0; v /= 26) w += static_cast<char>('A' + v % 26);
      list += (i ? ", \"" : "\"") + w + "\"";
    }
    return "engine = { keywords = { " + list + " } }\n" + limits_with_body("");
  };
  auto many = load_script_engine(words(65), {1, ""});
  ASSERT_FALSE(many.ok());
  EXPECT_NE(many.status().message().find("engine.keywords: at most 64 keywords"), std::string::npos)
      << many.status().message();
  EXPECT_TRUE(load_script_engine(words(64), {1, ""}).ok());
}

TEST(ScriptLimits, AnIdleEngineKeepsLittleMemory) {
  // 200,000 small tables: freed blocks stayed on the state's free lists until the engine died.
  auto e = load(limits_with_body("local t = {} for i = 1, 200000 do t[i] = { i } end"));
  ASSERT_TRUE(e);
  auto b = battle();
  auto out = run(*e, *b);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_LE(script_memory_held(*e), LuaSandbox::kIdleBytes);
  // The same after a failed call.
  auto f = load(limits_with_body("local t = {} for i = 1, 200000 do t[i] = { i } end error('x')"));
  ASSERT_TRUE(f);
  EXPECT_FALSE(run(*f, *b).ok());
  EXPECT_LE(script_memory_held(*f), LuaSandbox::kIdleBytes);
  // A small battle does not pay for a collection: it holds more than its live data.
  auto small = load(limits_with_body("local t = {} for i = 1, 1000 do t[i] = { i } end"));
  const std::size_t before = script_memory_held(*small);
  ASSERT_TRUE(run(*small, *b).ok());
  EXPECT_GT(script_memory_held(*small), before);
}

TEST(ScriptLimits, MemoryErrorsCannotBeCaught) {
  auto e =
      load(limits_with_body("local ok = pcall(function() local s = string.rep('x', 1 << 24) end)\n"
                            "local ok2 = xpcall(function() local t = {} for i = 1, 1e9 do t[i] = i "
                            "end end, function(m) return m end)"),
           {.instructions = 1'000'000'000, .memory_bytes = 8 << 20});
  ASSERT_TRUE(e);
  auto b = battle();
  auto out = run(*e, *b);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("memory limit (8388608 bytes) exceeded"), std::string::npos)
      << out.status().message();
  // Other errors are caught as before.
  auto caught =
      load(limits_with_body("local ok, m = pcall(error, 'x')\n"
                            "local ok2, m2 = xpcall(error, function(e) return 'h:' .. e end, 'y')",
                            "{ ok = ok, m = m, ok2 = ok2, m2 = m2 }"));
  auto out2 = run(*caught, *b);
  ASSERT_TRUE(out2.ok()) << out2.status().message();
  EXPECT_EQ(out2->detail["ok"], false);
  EXPECT_EQ(out2->detail["m"], "x");
  EXPECT_EQ(out2->detail["ok2"], false);
  EXPECT_EQ(out2->detail["m2"], "h:y");
}

// check_order's world shows what the order names and nothing else, so that the check at
// submission (a view of those parts) and at the turn run (the whole state) see the same world.
TEST(ScriptLimits, CheckOrderSeesOnlyWhatTheOrderNames) {
  auto e = load(R"lua(
function check_order(order, world)
  local seen = {}
  for _, code in ipairs({ "ATT", "TGT" }) do
    if world:area(code) then seen[#seen + 1] = "area " .. code end
    if #world:neighbours(code) > 0 then seen[#seen + 1] = "borders " .. code end
  end
  for _, code in ipairs({ "ATT", "DEF" }) do
    if world:player(code) then seen[#seen + 1] = "player " .. code end
  end
  if world:edge("ATT", "TGT") then seen[#seen + 1] = "edge" end
  return table.concat(seen, ", ")
end
)lua" + limits_with_body(""));
  ASSERT_TRUE(e);
  auto b = battle();
  Order defend;
  defend.verb = Verb::kDefend;
  defend.from = "ATT";
  EXPECT_EQ(e->check_order(defend, *b->world).message(), "area ATT, borders ATT, player ATT, edge");
  Order move;
  move.verb = Verb::kAssault;
  move.from = "ATT";
  move.to = "TGT";
  EXPECT_EQ(e->check_order(move, *b->world).message(),
            "area ATT, borders ATT, area TGT, borders TGT, player ATT, player DEF, edge");
  Order gift;
  gift.verb = Verb::kGift;
  gift.to = "DEF";
  EXPECT_EQ(e->check_order(gift, *b->world).message(), "player DEF");
  // resolve still sees the whole world.
  auto r = load(limits_with_body("",
                                 "{ a = battle.world:area('ATT') ~= nil, d = "
                                 "battle.world:player('DEF') ~= nil }"));
  auto out = run(*r, *b);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->detail["a"], true);
  EXPECT_EQ(out->detail["d"], true);
}

// world:rules() makes its tables on first use: a memory error at any point of that must leave the
// engine able to serve the next call (it once left a half-made cache that crashed it). The first
// call fills the memory up to a point that moves by 8 bytes from engine to engine, then asks for
// the rules; the second asks again, with room.
TEST(ScriptLimits, AMemoryErrorWhileTheRulesAreMadeLeavesTheEngineUsable) {
  // The fill is made of strings under 1 KiB, which string.rep builds on the C stack: one big
  // string would leave its build buffer as garbage, which the collector frees when memory runs
  // out, and the rules would never be the ones to break the limit.
  const std::string src = R"lua(
function resolve(battle, rng)
  local fill, keep = battle.attacker_armies, {}
  for i = 1, fill // 1000 do keep[i] = string.rep("x", 999) end
  keep[#keep + 1] = string.rep("y", fill % 1000)
  local r = battle.world:rules()
  return { attacker_losses = 0, defender_losses = 0,
           detail = { city = r.city_bonus, forest = r.terrain_bonus.forest, n = #keep } }
end)lua";
  const ScriptLimits limits{.memory_bytes = 2 << 20};
  auto fails = [&](int fill) {
    auto e = load(src, limits);
    return !run(*e, *battle("move", fill)).ok();
  };
  // The smallest fill that fails, with nothing but the string (binary search).
  int lo = 1, hi = 2 << 20;
  ASSERT_TRUE(fails(hi));
  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    if (fails(mid))
      hi = mid;
    else
      lo = mid + 1;
  }
  // From there up, the first call fails: inside world:rules() first, then earlier.
  // Every 8th fill (every 64th under the sanitizers) of the 4 KiB above it.
  const int step = testing::kSanitized ? 64 : 8;
  int failed = 0;
  for (int fill = lo; fill < lo + 4096; fill += step) {
    auto e = load(src, limits);
    ASSERT_TRUE(e);
    auto first = run(*e, *battle("move", fill));
    if (!first.ok()) {
      ++failed;
      EXPECT_NE(first.status().message().find("memory limit"), std::string::npos)
          << first.status().message();
    }
    auto next = run(*e, *battle("move", 10));
    ASSERT_TRUE(next.ok()) << fill << ": " << next.status().message();
    EXPECT_EQ(next->detail["city"], 3);
    EXPECT_EQ(next->detail["forest"], 1);
  }
  EXPECT_EQ(failed, 4096 / step);
}

}  // namespace
}  // namespace adj
