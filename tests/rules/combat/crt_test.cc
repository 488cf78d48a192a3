// Combat results table: the worked examples of seed_rules.md §4.5 with scripted dice, the tables
// as data, retreat paths on a small map and result frequencies.
#include <gtest/gtest.h>

#include "rules/combat/crt_engine.h"
#include "rules/game/json_schema.h"
#include "schemas/embedded.h"
#include "tests/rules/combat/engine_world.h"
#include "tests/support/scripted_rng.h"

namespace adj {
namespace {

using testing::ScriptedRng;

struct AreaSpec {
  std::string code;
  std::optional<std::string> owner;
  int armies = 0;
  std::string terrain = "clear";
  int fort = 0;
};

GameState world(const std::vector<AreaSpec>& areas,
                const std::vector<std::tuple<std::string, std::string, bool>>& edges,
                Json options = Json::object()) {
  std::vector<testing::WorldArea> as;
  for (const auto& a : areas) as.push_back({a.code, a.owner, a.armies, a.terrain, a.fort});
  std::vector<testing::WorldEdge> es;
  for (const auto& [a, b, river] : edges)
    es.push_back({a, b, river ? Json{{"river", true}} : Json::object()});
  return testing::engine_world("crt", {"AAA", "BBB", "CCC"}, as, es, std::move(options));
}

BattleInput battle(const GameState& w, AttackKind kind, int armies, const std::string& to = "TGT",
                   const std::string& from = "ATT") {
  BattleInput in;
  in.id = "test";
  in.kind = kind;
  in.world = &w;
  in.attacker = "AAA";
  in.from = from;
  in.to = to;
  in.attacker_armies = armies;
  in.options = &w.engine.options;
  return in;
}

const CrtEngine kEngine;

// ATT attacks TGT; TGT can retreat to RET and on to RE2; behind ATT lies the attacker's HOM.
GameState example_world(int defenders, const std::string& terrain, int fort, bool river) {
  return world(
      {{"HOM", "AAA", 0},
       {"ATT", "AAA", 0},
       {"TGT", "BBB", defenders, terrain, fort},
       {"RET", "BBB", 0},
       {"RE2", "BBB", 0}},
      {{"HOM", "ATT", false}, {"ATT", "TGT", river}, {"TGT", "RET", false}, {"RET", "RE2", false}});
}

BattleOutcome fight(const GameState& w, int armies, std::deque<int> dice,
                    AttackKind kind = AttackKind::kMove) {
  ScriptedRng rng(std::move(dice));
  auto out = kEngine.resolve(battle(w, kind, armies), rng);
  EXPECT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(rng.remaining(), 0u);
  return out.ok() ? out.value() : BattleOutcome{};
}

std::string result_of(const BattleOutcome& o) { return o.detail.value("result", ""); }
std::string column_of(const BattleOutcome& o) {
  return o.rounds.at(0).detail["column"].get<std::string>();
}

// §4.5 example 1: A 9 v D 4, clear: differential 5 → "4-5"; die 3 → DR.
TEST(CrtWorkedExample, OneClear) {
  const GameState w = example_world(4, "clear", 0, false);
  const BattleOutcome o = fight(w, 9, {3});
  EXPECT_EQ(column_of(o), "4-5");
  EXPECT_EQ(result_of(o), "DR");
  EXPECT_EQ(o.defender_retreats_to, "RET");
  EXPECT_EQ(o.defender_losses, 0);
  EXPECT_TRUE(o.attacker_wins);
  EXPECT_EQ(o.rounds[0].attacker_dice, std::vector<int>{3});
}

// §4.5 example 2: the same in a forest: two columns left → "1"; die 3 → NR.
TEST(CrtWorkedExample, TwoForest) {
  const BattleOutcome o = fight(example_world(4, "forest", 0, false), 9, {3});
  EXPECT_EQ(o.rounds[0].detail["column_before_shifts"], "4-5");
  EXPECT_EQ(column_of(o), "1");
  EXPECT_EQ(result_of(o), "NR");
  EXPECT_FALSE(o.attacker_wins);
  EXPECT_FALSE(o.defender_retreats_to);
}

// §4.5 example 3: A 6 v D 7 fortified: −1 → "<=-1", the shift clamps there; 1 → NR, 3 → AR.
TEST(CrtWorkedExample, ThreeFortifiedClamps) {
  const GameState w = example_world(7, "clear", 1, false);
  const BattleOutcome one = fight(w, 6, {1});
  EXPECT_EQ(column_of(one), "<=-1");
  EXPECT_EQ(one.rounds[0].detail["shifts"], (Json{{"fortified", 3}}));
  EXPECT_EQ(result_of(one), "NR");
  const BattleOutcome three = fight(w, 6, {3});
  EXPECT_EQ(result_of(three), "AR");
  EXPECT_FALSE(three.attacker_wins);
  EXPECT_EQ(three.attacker_losses, 0);
  EXPECT_EQ(three.attacker_retreats_to, "HOM");  // OQ-CRT3: one area back from the origin
}

// AR (OQ-CRT3): the attackers retreat one area from their origin by the defenders' rules, or
// are eliminated; attacker_retreat 0 sends them home instead; a PROBE always just goes home.
TEST(CrtAttackerRetreat, OneAreaBackOrEliminated) {
  // Nowhere to go: ATT's only other neighbour is the defender's (next to the battle: ZOC).
  GameState w = world({{"ATT", "AAA", 0}, {"TGT", "BBB", 7, "clear", 1}, {"SID", "AAA", 0}},
                      {{"ATT", "TGT", false}, {"ATT", "SID", false}, {"SID", "TGT", false}});
  BattleOutcome trapped = fight(w, 6, {3});
  EXPECT_EQ(result_of(trapped), "AR");
  EXPECT_FALSE(trapped.attacker_retreats_to);
  EXPECT_EQ(trapped.attacker_losses, 6);
  EXPECT_EQ(trapped.rounds[0].detail["attacker_retreat"], "no legal retreat: eliminated");
  // Without ZOC, SID (the attacker's own, next to the battle) is a legal retreat.
  w.engine.options["zoc"] = false;
  BattleOutcome side = fight(w, 6, {3});
  EXPECT_EQ(side.attacker_retreats_to, "SID");
  EXPECT_EQ(side.attacker_losses, 0);
  // attacker_retreat 0: home to ATT, nobody lost.
  w.engine.options = {{"attacker_retreat", 0}};
  BattleOutcome home = fight(w, 6, {3});
  EXPECT_FALSE(home.attacker_retreats_to);
  EXPECT_EQ(home.attacker_losses, 0);
  // A probe goes home whatever the map.
  w.engine.options = Json::object();
  BattleOutcome probe = fight(w, 6, {3}, AttackKind::kProbe);
  EXPECT_FALSE(probe.attacker_retreats_to);
  EXPECT_EQ(probe.attacker_losses, 0);
}

// §4.5 example 4: A 14 v D 3 across a river: 11 → ">=10", three left → "4-5"; 1 → DR2, 5 → NR.
TEST(CrtWorkedExample, FourAcrossRiver) {
  const GameState w = example_world(3, "clear", 0, true);
  const BattleOutcome dr2 = fight(w, 14, {1});
  EXPECT_EQ(column_of(dr2), "4-5");
  EXPECT_EQ(result_of(dr2), "DR2");
  EXPECT_EQ(dr2.defender_retreats_to, "RE2");
  EXPECT_EQ(dr2.rounds[0].detail["retreat_path"], (Json{"RET", "RE2"}));
  EXPECT_EQ(result_of(fight(w, 14, {5})), "NR");
}

// §4.5 example 5: ratio 11 v 4 = 2.75 → 2:1; 5 v 7 → 1:1.4 → 1:2 (the defender's favour).
TEST(CrtWorkedExample, FiveRatioRounding) {
  auto o = crt_options_from_json({{"method", "ratio"}}, true);
  ASSERT_TRUE(o.ok()) << o.status().message();
  const CrtTable& t = o->table;
  EXPECT_EQ(t.labels[t.column_for(11, 4)], "2:1");
  EXPECT_EQ(t.labels[t.column_for(5, 7)], "1:2");
  EXPECT_EQ(t.labels[t.column_for(4, 4)], "1:1");
  EXPECT_EQ(t.labels[t.column_for(1, 9)], "1:3");  // below the table: the first column
  EXPECT_EQ(t.labels[t.column_for(60, 2)], "6:1");
}

// §4.5: outcome counts per column of the seed's table, face by face.
TEST(CrtWorkedExample, SeedTableCountsPerColumn) {
  auto o = crt_options_from_json(Json::object(), true);
  ASSERT_TRUE(o.ok()) << o.status().message();
  const std::vector<std::map<std::string, int>> expected = {
      {{"AR", 4}, {"NR", 2}},
      {{"DR", 1}, {"NR", 2}, {"AR", 3}},
      {{"DR", 2}, {"NR", 1}, {"AR", 3}},
      {{"DR", 3}, {"NR", 1}, {"AR", 2}},
      {{"DR2", 1}, {"DR", 3}, {"NR", 1}, {"AR", 1}},
      {{"DR2", 2}, {"DR", 3}, {"NR", 1}},
      {{"DR2", 3}, {"DR", 3}},
      {{"DR2", 4}, {"DR", 2}}};
  ASSERT_EQ(o->table.columns(), 8);
  for (int c = 0; c < 8; ++c) {
    std::map<std::string, int> counts;
    for (int face = 1; face <= 6; ++face) ++counts[o->table.result(face, c)];
    EXPECT_EQ(counts, expected[c]) << o->table.labels[c];
  }
}

TEST(CrtStatistics, ResultFrequenciesPerColumnMatchTheTable) {
  auto opts = crt_options_from_json(Json::object(), false);
  ASSERT_TRUE(opts.ok());
  const CrtTable& t = opts->table;
  const int defenders = 2;
  const int trials = 12000;
  for (int c = 0; c < t.columns(); ++c) {
    const int attack = c == 0 ? 1 : defenders + t.min[c];
    GameState w = example_world(defenders, "clear", 0, false);
    const BattleInput in = battle(w, AttackKind::kMove, attack);
    std::map<std::string, int> seen;
    for (int i = 0; i < trials; ++i) {
      Xoshiro256 rng(derive_seed(99, "crt-stats:" + std::to_string(c) + ":" + std::to_string(i)));
      auto out = kEngine.resolve(in, rng);
      ASSERT_TRUE(out.ok());
      ASSERT_EQ(out->rounds[0].detail["column"], t.labels[c]);
      ++seen[result_of(out.value())];
    }
    std::map<std::string, int> faces;
    for (int face = 1; face <= 6; ++face) ++faces[t.result(face, c)];
    for (const auto& [code, n] : faces) {
      const double freq = seen[code] / static_cast<double>(trials);
      EXPECT_NEAR(freq, n / 6.0, 0.015) << t.labels[c] << " " << code;
      RecordProperty("col_" + t.labels[c] + "_" + code, std::to_string(freq));
    }
  }
}

// The retreat map: ATT (attacker) → TGT; R1 and R4 are the defender's, R1 leads on to R3; R2 is
// next to the attacker's Z; RV lies across a river.
GameState retreat_world(std::optional<std::string> r1_owner = "BBB",
                        std::optional<std::string> r4_owner = "BBB",
                        Json options = Json::object()) {
  return world({{"ATT", "AAA", 0},
                {"TGT", "BBB", 2},
                {"R1", r1_owner, 0},
                {"R2", "BBB", 0},
                {"R3", "BBB", 0},
                {"R4", r4_owner, 0},
                {"RV", "BBB", 0},
                {"Z", "AAA", 1}},
               {{"ATT", "TGT", false},
                {"TGT", "R1", false},
                {"R1", "R3", false},
                {"TGT", "R2", false},
                {"R2", "Z", false},
                {"TGT", "R4", false},
                {"TGT", "RV", true}},
               std::move(options));
}

std::vector<std::string> path(const GameState& w, int steps) {
  auto o = crt_options_from_json(w.engine.options, false);
  EXPECT_TRUE(o.ok());
  return crt_retreat_path(battle(w, AttackKind::kMove, 9), o.value(), steps);
}

TEST(CrtRetreat, AvoidsRiverAndZocTiesByLowestCode) {
  const GameState w = retreat_world();
  EXPECT_EQ(path(w, 1), (std::vector<std::string>{"R1"}));  // R1 and R4 tie at 2 steps
  EXPECT_EQ(path(w, 2), (std::vector<std::string>{"R1", "R3"}));
}

TEST(CrtRetreat, ZocOffAllowsTheAreaNextToTheAttacker) {
  const GameState on = retreat_world("CCC", "CCC");
  EXPECT_TRUE(path(on, 1).empty());
  const GameState off = retreat_world("CCC", "CCC", {{"zoc", false}});
  EXPECT_EQ(path(off, 1), (std::vector<std::string>{"R2"}));
}

TEST(CrtRetreat, EmptyAreasOnlyWhenAllowed) {
  EXPECT_TRUE(path(retreat_world("CCC", std::nullopt), 1).empty());
  const GameState w = retreat_world("CCC", std::nullopt, {{"retreat_into_empty", true}});
  EXPECT_EQ(path(w, 1), (std::vector<std::string>{"R4"}));
}

TEST(CrtRetreat, NoRetreatMeansElimination) {
  const GameState w = retreat_world("CCC", "CCC");
  // 9 v 2: differential 7 → "6-7"; die 3 → DR, but every way out is closed.
  const BattleOutcome o = fight(w, 9, {3});
  EXPECT_EQ(result_of(o), "DR");
  EXPECT_FALSE(o.defender_retreats_to);
  EXPECT_EQ(o.defender_losses, 2);
  EXPECT_TRUE(o.attacker_wins);
  EXPECT_EQ(o.rounds[0].detail["retreat"], "no legal retreat: eliminated");
  // DR2 needs two legal steps: R4 is a dead end, so only R1 → R3 works.
  const BattleOutcome dr2 = fight(retreat_world("BBB", "BBB"), 9, {2});
  EXPECT_EQ(dr2.defender_retreats_to, "R3");
  const BattleOutcome stuck = fight(retreat_world("CCC", "BBB"), 9, {2});
  EXPECT_EQ(stuck.defender_losses, 2);
}

TEST(CrtEngine, RatioTableEliminationsAndExchange) {
  GameState w = example_world(1, "clear", 0, false);
  w.engine.options = {{"method", "ratio"}};
  const BattleOutcome ex = fight(w, 3, {4});  // 3:1, die 4 → EX
  EXPECT_EQ(result_of(ex), "EX");
  EXPECT_EQ(ex.defender_losses, 1);
  EXPECT_EQ(ex.attacker_losses, 1);
  EXPECT_TRUE(ex.attacker_wins);
  w.find_area("TGT")->armies = 3;
  const BattleOutcome ae = fight(w, 1, {3});  // 1:3, die 3 → AE
  EXPECT_EQ(result_of(ae), "AE");
  EXPECT_EQ(ae.attacker_losses, 1);
  EXPECT_EQ(fight(w, 1, {3}, AttackKind::kProbe).attacker_losses, 0);  // a probe withdraws
}

TEST(CrtEngine, AttackKindsAndAmbush) {
  const GameState w = example_world(4, "clear", 0, false);
  // ASSAULT rolls again after an NR: "4-5" die 5 → NR, die 1 → DR2.
  const BattleOutcome a = fight(w, 9, {5, 1}, AttackKind::kAssault);
  EXPECT_EQ(result_of(a), "DR2");
  EXPECT_TRUE(a.attacker_stops);
  // PROBE never enters.
  const BattleOutcome p = fight(w, 9, {3}, AttackKind::kProbe);
  EXPECT_EQ(result_of(p), "DR");
  EXPECT_FALSE(p.attacker_wins);
  // OVERRUN: one column right ("6-7"); die 6 → NR there; an AR costs an army.
  const BattleOutcome o = fight(w, 9, {6}, AttackKind::kOverrun);
  EXPECT_EQ(column_of(o), "6-7");
  EXPECT_EQ(result_of(o), "NR");
  const BattleOutcome oar = fight(example_world(4, "forest", 0, false), 5, {5},
                                  AttackKind::kOverrun);  // "1" → 2 left, 1 right: "0"
  EXPECT_EQ(result_of(oar), "AR");
  EXPECT_EQ(oar.attacker_losses, 1);
  EXPECT_EQ(oar.attacker_retreats_to, "HOM");
  // AMBUSH: one column left.
  BattleInput in = battle(w, AttackKind::kMove, 9);
  in.ambush = true;
  ScriptedRng rng({3});
  auto amb = kEngine.resolve(in, rng);
  ASSERT_TRUE(amb.ok());
  EXPECT_EQ(column_of(amb.value()), "2-3");
}

TEST(CrtEngine, RetreatModeWhenThePushIsLikely) {
  const GameState w = example_world(4, "clear", 0, false);
  EXPECT_TRUE(kEngine.retreat_triggers(battle(w, AttackKind::kMove, 6)));   // "2-3": 3 of 6
  EXPECT_FALSE(kEngine.retreat_triggers(battle(w, AttackKind::kMove, 5)));  // "1": 2 of 6
}

TEST(CrtEngine, StrengthPerArmy) {
  GameState w = example_world(2, "clear", 0, false);
  w.engine.options = {{"strength_per_army", 3}};
  const BattleOutcome o = fight(w, 3, {6});  // 9 v 6: differential 3 → "2-3"
  EXPECT_EQ(column_of(o), "2-3");
  EXPECT_EQ(o.rounds[0].attacker_strength, 9);
  EXPECT_EQ(o.rounds[0].defender_strength, 6);
}

TEST(CrtEngine, CheckGameNamesThePath) {
  GameState w = example_world(1, "clear", 0, false);
  EXPECT_TRUE(kEngine.check_game(w).ok());
  auto msg = [&](Json options) {
    w.engine.options = std::move(options);
    return kEngine.check_game(w).message();
  };
  EXPECT_EQ(msg({{"method", "odds"}}),
            "/engine/options/method: must be one of differential, ratio");
  EXPECT_EQ(msg({{"table", "nope"}}).rfind("/engine/options/table: no bundled table named", 0), 0u);
  EXPECT_EQ(msg({{"method", "ratio"}, {"table", "crt-differential"}}),
            "/engine/options/table: \"crt-differential\" is a differential table but method is "
            "ratio");
  EXPECT_EQ(msg({{"zoc", 1}}), "/engine/options/zoc: must be true or false");
  EXPECT_EQ(msg({{"strength_per_army", 0}}).rfind("/engine/options/strength_per_army: ", 0), 0u);
  EXPECT_EQ(msg({{"table", {{"kind", "crt"}, {"method", "differential"}}}})
                .rfind("/engine/options/table", 0),
            0u);
  Json inline_table = {
      {"kind", "crt"},
      {"method", "differential"},
      {"die", 2},
      {"columns", {{{"label", "low"}}, {{"label", "high"}, {"min", 3}}}},
      {"rows", Json::array({Json::array({"AR", "DR"}), Json::array({"NR", "ZZ"})})},
      {"results", {{"ZZ", {{"defender_retreat", 3}}}}}};
  EXPECT_EQ(
      msg({{"table", inline_table}, {"shifts", {{"kind", "shifts"}, {"terrain", {{"clear", 0}}}}}}),
      "");
  inline_table["rows"][1][1] = "QQ";
  EXPECT_EQ(msg({{"table", inline_table}}),
            "/engine/options/table/rows/1/1: unknown result \"QQ\" (define it under results)");
}

TEST(CrtTables, BundledTablesMatchTheirSchema) {
  const auto files = embedded_files("schemas/tables/crt-");
  ASSERT_GE(files.size(), 3u);
  for (const auto& f : files) {
    const Json doc = Json::parse(*embedded_file(f));
    EXPECT_TRUE(validate_against_schema(doc, "schemas/crt_table.schema.json").empty()) << f;
    if (doc["kind"] == "crt") {
      EXPECT_TRUE(crt_table_from_json(doc, f).ok()) << f;
    }
  }
}

}  // namespace
}  // namespace adj
