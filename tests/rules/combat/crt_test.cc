// Combat results table: the worked examples of docs/rules/crt.md §4.5 with scripted dice, the
// tables as data, retreat paths on a small map and result frequencies.
#include <gtest/gtest.h>

#include "rules/combat/local_world.h"

#include "rules/combat/crt_engine.h"
#include "rules/game/json_schema.h"
#include "schemas/embedded.h"
#include "tests/rules/combat/engine_world.h"
#include "tests/support/scripted_rng.h"

namespace adj {
namespace {

using testing::ScriptedRng;

struct CrtArea {
  std::string code;
  std::optional<std::string> owner;
  int armies = 0;
  std::string terrain = "clear";
  int fort = 0;
};

GameState crt_world(const std::vector<CrtArea>& areas,
                    const std::vector<std::tuple<std::string, std::string, bool>>& edges,
                    Json options = Json::object()) {
  std::vector<testing::WorldArea> as;
  for (const auto& a : areas) as.push_back({a.code, a.owner, a.armies, a.terrain, a.fort});
  std::vector<testing::WorldEdge> es;
  for (const auto& [a, b, river] : edges)
    es.push_back({a, b, river ? Json{{"river", true}} : Json::object()});
  return testing::engine_world("crt", {"AAA", "BBB", "CCC"}, as, es, std::move(options));
}

BattleInput crt_battle(const GameState& w, AttackKind kind, int armies,
                       const std::string& to = "TGT", const std::string& from = "ATT") {
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

const CrtEngine kCrtEngine;

// ATT attacks TGT; TGT can retreat to RET and on to RE2; behind ATT lies the attacker's HOM.
GameState example_world(int defenders, const std::string& terrain, int fort, bool river) {
  return crt_world(
      {{"HOM", "AAA", 0},
       {"ATT", "AAA", 0},
       {"TGT", "BBB", defenders, terrain, fort},
       {"RET", "BBB", 0},
       {"RE2", "BBB", 0}},
      {{"HOM", "ATT", false}, {"ATT", "TGT", river}, {"TGT", "RET", false}, {"RET", "RE2", false}});
}

BattleOutcome crt_fight(const GameState& w, int armies, std::deque<int> dice,
                        AttackKind kind = AttackKind::kMove) {
  ScriptedRng rng(std::move(dice));
  auto out = kCrtEngine.resolve(crt_battle(w, kind, armies), rng);
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
  const BattleOutcome o = crt_fight(w, 9, {3});
  EXPECT_EQ(column_of(o), "4-5");
  EXPECT_EQ(result_of(o), "DR");
  EXPECT_EQ(o.defender_retreats_to, "RET");
  EXPECT_EQ(o.defender_losses, 0);
  EXPECT_TRUE(o.attacker_wins);
  EXPECT_EQ(o.rounds[0].attacker_dice, std::vector<int>{3});
}

// §4.5 example 2: the same in a forest: two columns left → "1"; die 3 → NR.
TEST(CrtWorkedExample, TwoForest) {
  const BattleOutcome o = crt_fight(example_world(4, "forest", 0, false), 9, {3});
  EXPECT_EQ(o.rounds[0].detail["column_before_shifts"], "4-5");
  EXPECT_EQ(column_of(o), "1");
  EXPECT_EQ(result_of(o), "NR");
  EXPECT_FALSE(o.attacker_wins);
  EXPECT_FALSE(o.defender_retreats_to);
}

// §4.5 example 3: A 6 v D 7 fortified: −1 → "<=-1", the shift clamps there; 1 → NR, 3 → AR.
TEST(CrtWorkedExample, ThreeFortifiedClamps) {
  const GameState w = example_world(7, "clear", 1, false);
  const BattleOutcome one = crt_fight(w, 6, {1});
  EXPECT_EQ(column_of(one), "<=-1");
  EXPECT_EQ(one.rounds[0].detail["shifts"], (Json{{"fortified", 3}}));
  EXPECT_EQ(result_of(one), "NR");
  const BattleOutcome three = crt_fight(w, 6, {3});
  EXPECT_EQ(result_of(three), "AR");
  EXPECT_FALSE(three.attacker_wins);
  EXPECT_EQ(three.attacker_losses, 0);
  EXPECT_EQ(three.attacker_retreats_to, "HOM");  // OQ-CRT3: one area back from the origin
}

// AR (OQ-CRT3): the attackers retreat one area from their origin by the defenders' rules, or
// are eliminated; attacker_retreat 0 sends them home instead; a PROBE always just goes home.
TEST(CrtAttackerRetreat, OneAreaBackOrEliminated) {
  // Nowhere to go: ATT's only other neighbour is the defender's (next to the battle: ZOC).
  GameState w = crt_world({{"ATT", "AAA", 0}, {"TGT", "BBB", 7, "clear", 1}, {"SID", "AAA", 0}},
                          {{"ATT", "TGT", false}, {"ATT", "SID", false}, {"SID", "TGT", false}});
  BattleOutcome trapped = crt_fight(w, 6, {3});
  EXPECT_EQ(result_of(trapped), "AR");
  EXPECT_FALSE(trapped.attacker_retreats_to);
  EXPECT_EQ(trapped.attacker_losses, 6);
  EXPECT_EQ(trapped.rounds[0].detail["attacker_retreat"], "no legal retreat: eliminated");
  // Without ZOC, SID (the attacker's own, next to the battle) is a legal retreat.
  w.engine.options["zoc"] = false;
  BattleOutcome side = crt_fight(w, 6, {3});
  EXPECT_EQ(side.attacker_retreats_to, "SID");
  EXPECT_EQ(side.attacker_losses, 0);
  // attacker_retreat 0: home to ATT, nobody lost.
  w.engine.options = {{"attacker_retreat", 0}};
  BattleOutcome home = crt_fight(w, 6, {3});
  EXPECT_FALSE(home.attacker_retreats_to);
  EXPECT_EQ(home.attacker_losses, 0);
  // A probe goes home whatever the map.
  w.engine.options = Json::object();
  BattleOutcome probe = crt_fight(w, 6, {3}, AttackKind::kProbe);
  EXPECT_FALSE(probe.attacker_retreats_to);
  EXPECT_EQ(probe.attacker_losses, 0);
}

// §4.5 example 4: A 14 v D 3 across a river: 11 → ">=10", three left → "4-5"; 1 → DR2, 5 → NR.
TEST(CrtWorkedExample, FourAcrossRiver) {
  const GameState w = example_world(3, "clear", 0, true);
  const BattleOutcome dr2 = crt_fight(w, 14, {1});
  EXPECT_EQ(column_of(dr2), "4-5");
  EXPECT_EQ(result_of(dr2), "DR2");
  EXPECT_EQ(dr2.defender_retreats_to, "RE2");
  EXPECT_EQ(dr2.rounds[0].detail["retreat_path"], (Json{"RET", "RE2"}));
  EXPECT_EQ(result_of(crt_fight(w, 14, {5})), "NR");
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

// OQ-CRT2 and the ratio rule of §4.3. Cumulative shifts: a defender in a forest behind a river,
// 14 v 3: 11 → ">=10", 2 + 3 = 5 left → "1". Ratios: A ≥ D → ⌊A/D⌋:1 (7 v 3 → 2:1); A < D →
// 1:⌈D/A⌉ (3 v 7 → 1:3, 4 v 7 → 1:2).
TEST(CrtOpenQuestions, CumulativeShiftsAndRatioRounding) {
  const BattleOutcome o = crt_fight(example_world(3, "forest", 0, true), 14, {2});
  EXPECT_EQ(o.rounds[0].detail["shifts"], (Json{{"forest", 2}, {"river", 3}}));
  EXPECT_EQ(column_of(o), "1");
  EXPECT_EQ(result_of(o), "DR");
  auto r = crt_options_from_json({{"method", "ratio"}}, false);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->table.labels[r->table.column_for(7, 3)], "2:1");
  EXPECT_EQ(r->table.labels[r->table.column_for(3, 7)], "1:3");
  EXPECT_EQ(r->table.labels[r->table.column_for(4, 7)], "1:2");
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
    const BattleInput in = crt_battle(w, AttackKind::kMove, attack);
    std::map<std::string, int> seen;
    for (int i = 0; i < trials; ++i) {
      Xoshiro256 rng(derive_seed(99, "crt-stats:" + std::to_string(c) + ":" + std::to_string(i)));
      auto out = kCrtEngine.resolve(in, rng);
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
  return crt_world({{"ATT", "AAA", 0},
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
  return crt_retreat_path(crt_battle(w, AttackKind::kMove, 9), o.value(), steps);
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
  const BattleOutcome o = crt_fight(w, 9, {3});
  EXPECT_EQ(result_of(o), "DR");
  EXPECT_FALSE(o.defender_retreats_to);
  EXPECT_EQ(o.defender_losses, 2);
  EXPECT_TRUE(o.attacker_wins);
  EXPECT_EQ(o.rounds[0].detail["retreat"], "no legal retreat: eliminated");
  // DR2 needs two legal steps: R4 is a dead end, so only R1 → R3 works.
  const BattleOutcome dr2 = crt_fight(retreat_world("BBB", "BBB"), 9, {2});
  EXPECT_EQ(dr2.defender_retreats_to, "R3");
  const BattleOutcome stuck = crt_fight(retreat_world("CCC", "BBB"), 9, {2});
  EXPECT_EQ(stuck.defender_losses, 2);
}

TEST(CrtEngine, RatioTableEliminationsAndExchange) {
  GameState w = example_world(1, "clear", 0, false);
  w.engine.options = {{"method", "ratio"}};
  const BattleOutcome ex = crt_fight(w, 3, {4});  // 3:1, die 4 → EX
  EXPECT_EQ(result_of(ex), "EX");
  EXPECT_EQ(ex.defender_losses, 1);
  EXPECT_EQ(ex.attacker_losses, 1);
  EXPECT_TRUE(ex.attacker_wins);
  w.find_area("TGT")->armies = 3;
  const BattleOutcome ae = crt_fight(w, 1, {3});  // 1:3, die 3 → AE
  EXPECT_EQ(result_of(ae), "AE");
  EXPECT_EQ(ae.attacker_losses, 1);
  EXPECT_EQ(crt_fight(w, 1, {3}, AttackKind::kProbe).attacker_losses, 0);  // a probe withdraws
}

TEST(CrtEngine, AttackKindsAndAmbush) {
  const GameState w = example_world(4, "clear", 0, false);
  // ASSAULT rolls again after an NR: "4-5" die 5 → NR, die 1 → DR2.
  const BattleOutcome a = crt_fight(w, 9, {5, 1}, AttackKind::kAssault);
  EXPECT_EQ(result_of(a), "DR2");
  EXPECT_TRUE(a.attacker_stops);
  // PROBE never enters.
  const BattleOutcome p = crt_fight(w, 9, {3}, AttackKind::kProbe);
  EXPECT_EQ(result_of(p), "DR");
  EXPECT_FALSE(p.attacker_wins);
  // OVERRUN (overrun "shift", the reading before seed 001 5.5 was applied): one column right
  // ("6-7"); die 6 → NR there; an AR costs an army. The default "rout" is in CrtOverrun below.
  GameState shift = example_world(4, "clear", 0, false);
  shift.engine.options = {{"overrun", "shift"}};
  const BattleOutcome o = crt_fight(shift, 9, {6}, AttackKind::kOverrun);
  EXPECT_EQ(column_of(o), "6-7");
  EXPECT_EQ(result_of(o), "NR");
  GameState shift_forest = example_world(4, "forest", 0, false);
  shift_forest.engine.options = {{"overrun", "shift"}};
  const BattleOutcome oar =
      crt_fight(shift_forest, 5, {5}, AttackKind::kOverrun);  // "1" → 2 left, 1 right: "0"
  EXPECT_EQ(result_of(oar), "AR");
  EXPECT_EQ(oar.attacker_losses, 1);
  EXPECT_EQ(oar.attacker_retreats_to, "HOM");
  // AMBUSH: one column left.
  BattleInput in = crt_battle(w, AttackKind::kMove, 9);
  in.ambush = true;
  ScriptedRng rng({3});
  auto amb = kCrtEngine.resolve(in, rng);
  ASSERT_TRUE(amb.ok());
  EXPECT_EQ(column_of(amb.value()), "2-3");
}

TEST(CrtEngine, RetreatModeWhenThePushIsLikely) {
  const GameState w = example_world(4, "clear", 0, false);
  EXPECT_TRUE(kCrtEngine.retreat_triggers(crt_battle(w, AttackKind::kMove, 6)));   // "2-3": 3 of 6
  EXPECT_FALSE(kCrtEngine.retreat_triggers(crt_battle(w, AttackKind::kMove, 5)));  // "1": 2 of 6
}

TEST(CrtEngine, StrengthPerArmy) {
  GameState w = example_world(2, "clear", 0, false);
  w.engine.options = {{"strength_per_army", 3}};
  const BattleOutcome o = crt_fight(w, 3, {6});  // 9 v 6: differential 3 → "2-3"
  EXPECT_EQ(column_of(o), "2-3");
  EXPECT_EQ(o.rounds[0].attacker_strength, 9);
  EXPECT_EQ(o.rounds[0].defender_strength, 6);
}

TEST(CrtEngine, CheckGameNamesThePath) {
  GameState w = example_world(1, "clear", 0, false);
  EXPECT_TRUE(kCrtEngine.check_game(w).ok());
  auto msg = [&](Json options) {
    w.engine.options = std::move(options);
    return kCrtEngine.check_game(w).message();
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

// Seed 003: "No unit may participate in more than one attack per combat phase. No unit may be
// the object of more than one attack per combat phase." The seed's game has one combat phase per
// turn: by default the phase is the turn and both limits hold; options switch each.
TEST(CrtPhaseRules, OneAttackPerUnitAndPerTargetPerTurn) {
  const CombatPhaseRules d = kCrtEngine.phase_rules(Json::object());
  EXPECT_EQ(d.scope, CombatPhaseRules::Scope::kTurn);
  EXPECT_TRUE(d.one_attack_per_unit);
  EXPECT_TRUE(d.one_attack_per_target);
  const CombatPhaseRules a = kCrtEngine.phase_rules({{"combat_phase", "action"},
                                                     {"one_attack_per_unit", false},
                                                     {"one_attack_per_target", false}});
  EXPECT_EQ(a.scope, CombatPhaseRules::Scope::kActionRound);
  EXPECT_FALSE(a.one_attack_per_unit);
  EXPECT_FALSE(a.one_attack_per_target);
  GameState w = example_world(1, "clear", 0, false);
  w.engine.options = {{"combat_phase", "round"}};
  EXPECT_EQ(kCrtEngine.check_game(w).message(),
            "/engine/options/combat_phase: must be one of turn, action");
}

// Seed 003: "Whenever a unit retreats from a hexagon or is eliminated as a result of combat, one
// of the attacking units may enter the hexagon." 9 v 4 clear: 5 → "4-5"; die 3 → DR: the
// defender retreats to RET, one of the nine attackers enters TGT, eight stay in ATT.
TEST(CrtAdvance, OneAttackingArmyEnters) {
  GameState w = example_world(4, "clear", 0, false);
  const BattleOutcome o = crt_fight(w, 9, {3});
  EXPECT_EQ(result_of(o), "DR");
  EXPECT_TRUE(o.attacker_wins);
  EXPECT_EQ(o.advancing, 1);
  EXPECT_EQ(o.detail["advancing"], 1);
  // "or is eliminated": DR with no way out (retreat_world with foreign R1, R4) → eliminated;
  // 9 v 2: 7 → "6-7", die 3 → DR; one army enters.
  const BattleOutcome dead = crt_fight(retreat_world("CCC", "CCC"), 9, {3});
  EXPECT_EQ(dead.defender_losses, 2);
  EXPECT_EQ(dead.advancing, 1);
  // advance 3: three enter; "all": every survivor (nullopt); 0: nobody, so the area is not taken.
  w.engine.options = {{"advance", 3}};
  EXPECT_EQ(crt_fight(w, 9, {3}).advancing, 3);
  w.engine.options = {{"advance", "all"}};
  const BattleOutcome all = crt_fight(w, 9, {3});
  EXPECT_TRUE(all.attacker_wins);
  EXPECT_FALSE(all.advancing);
  w.engine.options = {{"advance", 0}};
  const BattleOutcome none = crt_fight(w, 9, {3});
  EXPECT_EQ(none.defender_retreats_to, "RET");
  EXPECT_FALSE(none.attacker_wins);
  EXPECT_EQ(none.detail["advancing"], 0);
  // An empty area is not a combat: every army moves in.
  const BattleOutcome empty = crt_fight(example_world(0, "clear", 0, false), 9, {});
  EXPECT_TRUE(empty.attacker_wins);
  EXPECT_FALSE(empty.advancing);
  w.engine.options = {{"advance", "some"}};
  EXPECT_EQ(kCrtEngine.check_game(w).message(),
            "/engine/options/advance: must be \"all\" or an integer from 0 to 100000");
}

// A combined attack ("More than one unit may participate in a given attack"): ATT (across a
// river) and AT2 (no river) attack TGT. HOM lies behind ATT; AT2 has no area of its own but ATT.
GameState combined_world(int defenders, int fort = 0, bool at2_river = false) {
  return crt_world({{"HOM", "AAA", 0},
                    {"ATT", "AAA", 0},
                    {"AT2", "AAA", 0},
                    {"TGT", "BBB", defenders, "clear", fort},
                    {"RET", "BBB", 0},
                    {"RE2", "BBB", 0}},
                   {{"HOM", "ATT", false},
                    {"ATT", "TGT", true},
                    {"AT2", "TGT", at2_river},
                    {"ATT", "AT2", false},
                    {"TGT", "RET", false},
                    {"RET", "RE2", false}});
}

BattleInput combined(const GameState& w, int from_att, int from_at2,
                     AttackKind kind = AttackKind::kMove) {
  BattleInput in = crt_battle(w, kind, from_att + from_at2);
  in.groups = {{"AAA", "ATT", from_att, Json::object(), 1, 1},
               {"AAA", "AT2", from_at2, Json::object(), 1, 2}};
  return in;
}

BattleOutcome crt_fight(const BattleInput& in, std::deque<int> dice) {
  ScriptedRng rng(std::move(dice));
  auto out = kCrtEngine.resolve(in, rng);
  EXPECT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(rng.remaining(), 0u);
  return out.ok() ? out.value() : BattleOutcome{};
}

// Strength is the sum of the groups: 5 + 4 = 9 v 4 → 5 → "4-5". The river lies only on ATT's
// side. river_shift "all" (default): not every group crosses, so no shift: die 2 → DR.
// "any": 3 left → "0": die 2 → NR. "proportional": ⌈3 × 5 / 9⌉ = 2 left → "1": die 2 → DR.
TEST(CrtCombined, StrengthsAddAndTheRiverShiftFollowsTheOption) {
  GameState w = combined_world(4);
  const BattleOutcome all = crt_fight(combined(w, 5, 4), {2});
  EXPECT_EQ(all.rounds[0].attacker_strength, 9);
  EXPECT_EQ(all.rounds[0].detail["shifts"], Json::object());
  EXPECT_EQ(column_of(all), "4-5");
  EXPECT_EQ(result_of(all), "DR");
  EXPECT_EQ(all.advancing, 1);
  EXPECT_EQ(all.group_losses, (std::vector<int>{0, 0}));
  w.engine.options = {{"river_shift", "any"}};
  const BattleOutcome any = crt_fight(combined(w, 5, 4), {2});
  EXPECT_EQ(column_of(any), "0");
  EXPECT_EQ(result_of(any), "NR");
  w.engine.options = {{"river_shift", "proportional"}};
  const BattleOutcome prop = crt_fight(combined(w, 5, 4), {2});
  EXPECT_EQ(prop.rounds[0].detail["shifts"], (Json{{"river", 2}}));
  EXPECT_EQ(column_of(prop), "1");
  // Both groups across a river: the full 3 under "all": "4-5" → "0".
  const GameState both = combined_world(4, 0, true);
  EXPECT_EQ(column_of(crt_fight(combined(both, 5, 4), {2})), "0");
}

// AR in a combined attack: every group retreats from its own origin. 3 + 3 = 6 v 7 fortified:
// −1 → "<=-1"; die 3 → AR. ATT's group retreats to HOM; AT2's only own neighbour is ATT, next to
// the battle (ZOC): it cannot retreat and is eliminated, counted in its group's losses.
TEST(CrtCombined, AttackerRetreatPerGroup) {
  const GameState w = combined_world(7, 1);
  const BattleOutcome o = crt_fight(combined(w, 3, 3), {3});
  EXPECT_EQ(result_of(o), "AR");
  EXPECT_EQ(o.group_losses, (std::vector<int>{0, 3}));
  EXPECT_EQ(o.attacker_losses, 3);
  ASSERT_EQ(o.group_retreats_to.size(), 2u);
  EXPECT_EQ(o.group_retreats_to[0], "HOM");
  EXPECT_FALSE(o.group_retreats_to[1]);
  EXPECT_EQ(o.attacker_retreats_to, "HOM");
  EXPECT_EQ(o.detail["groups"][1], (Json{{"from", "AT2"}, {"armies", 3}, {"losses", 3}}));
  EXPECT_FALSE(o.attacker_wins);
}

// EX (crt-ratio) in a combined attack: the loss is taken one army at a time from the group with
// the most armies left, the earlier group on a tie. 4 + 2 = 6 v 2 → 3:1; die 4 → EX: the
// defence strength 2 costs 2 armies: ATT 4 → 3 → 2 (ATT always has the most). 3 + 3: ATT 3 → 2
// (tie: the earlier), then AT2 3 → 2.
TEST(CrtCombined, ExchangeLossesSpreadFromTheLargestGroup) {
  GameState w = combined_world(2);
  w.engine.options = {{"method", "ratio"}};
  const BattleOutcome a = crt_fight(combined(w, 4, 2), {4});
  EXPECT_EQ(column_of(a), "3:1");
  EXPECT_EQ(result_of(a), "EX");
  EXPECT_EQ(a.attacker_losses, 2);
  EXPECT_EQ(a.group_losses, (std::vector<int>{2, 0}));
  EXPECT_EQ(a.defender_losses, 2);
  EXPECT_EQ(a.advancing, 1);
  const BattleOutcome b = crt_fight(combined(w, 3, 3), {4});
  EXPECT_EQ(b.group_losses, (std::vector<int>{1, 1}));
}

// The defender's retreat keeps out of the zone of control of every attacking group: RET is next
// to AT2 here, so a DR has no legal way out and eliminates the defender.
TEST(CrtCombined, EveryGroupOriginExertsZoc) {
  const GameState w = crt_world(
      {{"ATT", "AAA", 0}, {"AT2", "AAA", 0}, {"TGT", "BBB", 2}, {"RET", "BBB", 0}},
      {{"ATT", "TGT", false}, {"AT2", "TGT", false}, {"TGT", "RET", false}, {"AT2", "RET", false}});
  // 5 + 4 = 9 v 2: 7 → "6-7"; die 3 → DR.
  const BattleOutcome o = crt_fight(combined(w, 5, 4), {3});
  EXPECT_EQ(result_of(o), "DR");
  EXPECT_EQ(o.defender_losses, 2);
  EXPECT_EQ(o.rounds[0].detail["retreat"], "no legal retreat: eliminated");
}

// Seed 001 5.5: "If successful the attacker will suffer a minimum of losses, and the defender will
// be routed." 9 v 4 clear: "4-5", one right for the overrun → "6-7"; die 1 → DR2, routed one
// further: three areas (RET → RE2 → RE3), no attacking army lost; one enters and may move on.
TEST(CrtOverrun, SuccessRoutsTheDefender) {
  const GameState w = crt_world({{"HOM", "AAA", 0},
                                 {"ATT", "AAA", 0},
                                 {"TGT", "BBB", 4},
                                 {"RET", "BBB", 0},
                                 {"RE2", "BBB", 0},
                                 {"RE3", "BBB", 0}},
                                {{"HOM", "ATT", false},
                                 {"ATT", "TGT", false},
                                 {"TGT", "RET", false},
                                 {"RET", "RE2", false},
                                 {"RE2", "RE3", false}});
  const BattleOutcome o = crt_fight(w, 9, {1}, AttackKind::kOverrun);
  EXPECT_EQ(column_of(o), "6-7");
  EXPECT_EQ(result_of(o), "DR2");
  EXPECT_EQ(o.rounds[0].detail["rout"], 1);
  EXPECT_EQ(o.rounds[0].detail["retreat_path"], (Json{"RET", "RE2", "RE3"}));
  EXPECT_EQ(o.defender_retreats_to, "RE3");
  EXPECT_EQ(o.attacker_losses, 0);
  EXPECT_TRUE(o.attacker_wins);
  EXPECT_FALSE(o.attacker_stops);
  // In example_world there is no third area: the routed defender is eliminated.
  const BattleOutcome dead =
      crt_fight(example_world(4, "clear", 0, false), 9, {1}, AttackKind::kOverrun);
  EXPECT_EQ(dead.defender_losses, 4);
  // overrun_rout 0: a DR2 is just a DR2.
  GameState w0 = example_world(4, "clear", 0, false);
  w0.engine.options = {{"overrun_rout", 0}};
  EXPECT_EQ(crt_fight(w0, 9, {1}, AttackKind::kOverrun).defender_retreats_to, "RE2");
}

// Seed 001 5.5: "If unsuccessful the attacker will be thrown into confusion and forced to fight
// to the finish." 9 v 4 clear: "6-7" with the overrun shift; die 6 → NR: the attacker loses one
// army (8 left), rolls at 8 v 4: 4 → "4-5" (no overrun shift any more); die 6 → AR: no retreat,
// it fights on: loses one (7), 7 v 4: 3 → "2-3"; die 3 → DR: the defender retreats to RET. Two
// armies lost in all; the survivors stop, and one enters.
TEST(CrtOverrun, FailureFightsToTheFinish) {
  const BattleOutcome o =
      crt_fight(example_world(4, "clear", 0, false), 9, {6, 6, 3}, AttackKind::kOverrun);
  ASSERT_EQ(o.rounds.size(), 3u);
  EXPECT_EQ(o.rounds[0].detail["overrun"], "failed: the attacker fights to the finish");
  EXPECT_EQ(o.rounds[1].phase, "to the finish 1");
  EXPECT_EQ(o.rounds[1].detail["column"], "4-5");
  EXPECT_EQ(o.rounds[1].detail["result"], "AR");
  EXPECT_EQ(o.rounds[1].attacker_losses, 1);
  EXPECT_EQ(o.rounds[2].detail["column"], "2-3");
  EXPECT_EQ(result_of(o), "DR");
  EXPECT_EQ(o.attacker_losses, 2);
  EXPECT_FALSE(o.attacker_retreats_to);
  EXPECT_EQ(o.defender_retreats_to, "RET");
  EXPECT_TRUE(o.attacker_wins);
  EXPECT_TRUE(o.attacker_stops);
  EXPECT_EQ(o.advancing, 1);
  // Forest, 5 v 4: 1 → "1", 2 left and 1 right → "0"; die 5 → AR: fight. Each further roll costs
  // an army and is at 4, 3, 2, 1 v 4, forest: "<=-1" (NR 1-2, AR 3-6): dice 3, 1, 4, 6 → AR, NR,
  // AR, AR; then the last army is lost to confusion: all five gone, the defender stays.
  const BattleOutcome lost =
      crt_fight(example_world(4, "forest", 0, false), 5, {5, 3, 1, 4, 6}, AttackKind::kOverrun);
  EXPECT_EQ(lost.attacker_losses, 5);
  EXPECT_EQ(lost.defender_losses, 0);
  EXPECT_FALSE(lost.attacker_wins);
  EXPECT_EQ(lost.rounds.back().detail["result"], "the attackers are destroyed");
  // overrun_confusion_loss 2: two armies before each roll: 5 → 3 → 1 → gone after two rolls.
  GameState w2 = example_world(4, "forest", 0, false);
  w2.engine.options = {{"overrun_confusion_loss", 2}};
  EXPECT_EQ(crt_fight(w2, 5, {5, 3, 4}, AttackKind::kOverrun).attacker_losses, 5);
}

// OQ-CRT4: the retreat follows the owner's standing order (the area's RETREAT location) when it
// is legal, else the engine's choice: R4 instead of R1 (which the engine would take on the tie).
TEST(CrtRetreat, FollowsTheRetreatLocationWhenLegal) {
  GameState w = retreat_world();
  w.find_area("TGT")->retreat_to = "R4";
  EXPECT_EQ(path(w, 1), (std::vector<std::string>{"R4"}));
  w.find_area("TGT")->retreat_to = "RV";  // across the river: not legal, the engine chooses
  EXPECT_EQ(path(w, 1), (std::vector<std::string>{"R1"}));
}

// The calculator's compact form takes a river and retreat paths, and says what it assumed.
TEST(CrtCalculator, CompactFormRiverRetreatsAndAssumptions) {
  Json doc = {{"kind", "move"},
              {"engine", "crt"},
              {"attacker", {{"armies", 14}}},
              {"defender", {{"armies", 3}}}};
  auto plain = prepare_battle(doc, "");
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  ASSERT_EQ((*plain)->assumptions.size(), 3u);
  EXPECT_EQ((*plain)->assumptions[0],
            "no river between ATT and TGT (attacker.river: true puts one there)");
  // 14 v 3: 11 → ">=10"; die 1 → DR2 but TGT has no neighbour: eliminated.
  ScriptedRng rng1({1});
  auto o1 = kCrtEngine.resolve((*plain)->input, rng1);
  ASSERT_TRUE(o1.ok());
  EXPECT_EQ(o1->defender_losses, 3);
  EXPECT_EQ(outcome_json(**plain, *o1, {})["assumptions"].size(), 3u);

  doc["attacker"]["river"] = true;
  doc["attacker"]["retreat"] = {"H1"};
  doc["defender"]["retreat"] = {"R1", "R2"};
  auto full = prepare_battle(doc, "");
  ASSERT_TRUE(full.ok()) << full.status().message();
  EXPECT_TRUE((*full)->assumptions.empty());
  const GameState& w = *(*full)->world;
  EXPECT_EQ(w.find_area("R2")->owner, "DEF");
  EXPECT_TRUE(w.adjacent("R1", "R2"));
  EXPECT_FALSE(w.adjacent("ATT", "R1"));
  EXPECT_EQ(w.find_area("H1")->owner, "ATT");
  // §4.5 example 4 through the calculator: ">=10" three left → "4-5"; die 1 → DR2 to R2.
  ScriptedRng rng2({1});
  auto o2 = kCrtEngine.resolve((*full)->input, rng2);
  ASSERT_TRUE(o2.ok());
  EXPECT_EQ(o2->rounds[0].detail["column"], "4-5");
  EXPECT_EQ(o2->defender_retreats_to, "R2");
  EXPECT_FALSE(outcome_json(**full, *o2, {}).contains("assumptions"));
  // 4 v 7 across the river: −3 → "<=-1"; die 3 → AR: the attacker retreats to H1.
  doc["attacker"]["armies"] = 4;
  doc["defender"]["armies"] = 7;
  auto weak = prepare_battle(doc, "");
  ASSERT_TRUE(weak.ok());
  ScriptedRng rng3({3});
  auto o3 = kCrtEngine.resolve((*weak)->input, rng3);
  ASSERT_TRUE(o3.ok());
  EXPECT_EQ(o3->attacker_retreats_to, "H1");
  doc["attacker"]["retreat"] = {"R1"};
  auto dup = prepare_battle(doc, "");
  ASSERT_FALSE(dup.ok());
  EXPECT_NE(dup.status().message().find("/attacker/retreat: area \"R1\" is used twice"),
            std::string::npos);
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
