// The words a game reads (rules/game/vocabulary.h, CombatEngine::vocabulary): each engine's from
// its code and data, what every game reads, the map's terrain families, a Lua script's
// declarations.
#include "rules/game/vocabulary.h"

#include <gtest/gtest.h>

#include "rules/combat/engine_registry.h"
#include "rules/combat/script_engine.h"

namespace adj {
namespace {

std::string effect_of(const VocabularyList& list, const std::string& word) {
  const VocabularyWord* w = list.find(word);
  return w ? w->effect : "(not listed)";
}

const CombatEngine& builtin_engine(const char* name) {
  const CombatEngine* e = find_engine(name);
  EXPECT_NE(e, nullptr) << name;
  return *e;
}

TEST(Vocabulary, ListsStaySortedAndJoinEffects) {
  VocabularyList l;
  l.add("b", "one");
  l.add("a", "two");
  l.add("b", "three");
  l.add("b", "one");  // already said
  ASSERT_EQ(l.words.size(), 2u);
  EXPECT_EQ(l.joined(), "a, b");
  EXPECT_EQ(effect_of(l, "b"), "one; three");
  EXPECT_EQ(l.find("c"), nullptr);
}

TEST(Vocabulary, EachEngineReadsItsOwnWords) {
  const RulesConfig rules;
  const Json none = Json::object();
  // Dark Age: the terrain bonus of the rules.
  EngineVocabulary da = builtin_engine("dark-age").vocabulary(none, rules);
  EXPECT_EQ(da.terrain.joined(), "forest, lowlands, mountains, uplands, wetlands");
  EXPECT_EQ(effect_of(da.terrain, "mountains"),
            "defence level +1 when defending a land area (rules.terrain_bonus)");
  EXPECT_TRUE(da.features.words.empty());
  RulesConfig more;
  more.terrain_bonus["moor"] = 2;
  EXPECT_EQ(effect_of(builtin_engine("dark-age").vocabulary(none, more).terrain, "moor"),
            "defence level +2 when defending a land area (rules.terrain_bonus)");
  // Path of War: the terrain table (as terrain and as features), road, rails, sidemountain, hp.
  EngineVocabulary pw = builtin_engine("path-of-war").vocabulary(none, rules);
  EXPECT_EQ(pw.terrain.joined(), "castle, city, forest, hills, plateau, radar, village");
  EXPECT_EQ(pw.features.joined(),
            "castle, city, forest, hills, plateau, radar, rails, road, village");
  EXPECT_EQ(pw.borders.joined(), "sidemountain");
  EXPECT_EQ(pw.area_state.joined(), "hp");
  EXPECT_EQ(effect_of(pw.terrain, "castle"),
            "firing from it 0 dice, firing at it -2 dice (engine option terrain)");
  EngineVocabulary pw2 =
      builtin_engine("path-of-war")
          .vocabulary(Json::parse(R"({"terrain": {"castle": null, "moor": {"against": -1}}})"),
                      rules);
  EXPECT_EQ(pw2.terrain.find("castle"), nullptr);
  EXPECT_NE(pw2.terrain.find("moor"), nullptr);
  // CRT: the shift chart, river.
  EngineVocabulary crt = builtin_engine("crt").vocabulary(none, rules);
  EXPECT_EQ(crt.terrain.joined(), "clear, forest, fortified, road, rough, town");
  EXPECT_EQ(crt.borders.joined(), "river");
  EXPECT_NE(effect_of(crt.borders, "river").find("3 column shifts left"), std::string::npos);
  // Virtuti Militari: no terrain; weather and port; river and frozen; units, cards, air.
  EngineVocabulary vm = builtin_engine("virtuti-militari").vocabulary(none, rules);
  EXPECT_TRUE(vm.terrain.words.empty());
  EXPECT_EQ(vm.features.joined(), "port, weather");
  EXPECT_EQ(vm.borders.joined(), "frozen, river");
  EXPECT_EQ(vm.area_state.joined(), "defence, support, units");
  EXPECT_EQ(vm.player_state.joined(), "air, hand");
  // Exalted: terrain_dv, river, counter and wounds, profile.
  EngineVocabulary ex = builtin_engine("exalted-mass-combat").vocabulary(none, rules);
  EXPECT_EQ(ex.terrain.joined(), "forest, hills, mountains, uplands, wetlands");
  EXPECT_EQ(ex.borders.joined(), "river");
  EXPECT_EQ(ex.area_state.joined(), "counter, wounds");
  EXPECT_EQ(ex.player_state.joined(), "profile");
  // Every word says what it does; no engine reads any word.
  for (const CombatEngine* e : all_engines()) {
    const EngineVocabulary v = e->vocabulary(none, rules);
    for (const VocabularyList* l :
         {&v.terrain, &v.features, &v.borders, &v.area_state, &v.player_state}) {
      EXPECT_FALSE(l->any) << e->name();
      for (const VocabularyWord& w : l->words) EXPECT_FALSE(w.effect.empty()) << w.word;
    }
  }
}

TEST(Vocabulary, EveryGameReadsTheTurnLoopsVictoryAndTheMapsWords) {
  const RulesConfig rules;
  const EngineVocabulary da = game_vocabulary(builtin_engine("dark-age"), Json::object(), rules);
  // The engine's effect first, then the turn loop's.
  EXPECT_EQ(effect_of(da.terrain, "forest"),
            "defence level +1 when defending a land area (rules.terrain_bonus); difficult "
            "terrain: armies that enter it stop for the turn (rules.sticky_terrain); a RAID "
            "costs its defenders no army (rules.raid_shelter_terrain)");
  EXPECT_NE(effect_of(da.features, "vp").find("victory points"), std::string::npos);
  EXPECT_EQ(effect_of(da.terrain, "hills"), "no effect on play; the map draws it as hills");
  EXPECT_EQ(effect_of(da.borders, "river").rfind("no effect on play", 0), 0u);
  // RAID's sheltering terrain only under an engine with the Dark Age actions.
  const EngineVocabulary vm =
      game_vocabulary(builtin_engine("virtuti-militari"), Json::object(), rules);
  EXPECT_EQ(effect_of(vm.terrain, "forest"),
            "difficult terrain: armies that enter it stop for the turn (rules.sticky_terrain)");
  EXPECT_EQ(effect_of(vm.borders, "river").rfind("true: units attacking", 0), 0u);
  EXPECT_EQ(effect_of(vm.terrain, "uplands"), "no effect on play; the map draws it as hills");
}

TEST(Vocabulary, TheMapsTerrainFamilies) {
  EXPECT_EQ(map_terrain_family("forest"), "forest");
  EXPECT_EQ(map_terrain_family("Woods"), "forest");
  EXPECT_EQ(map_terrain_family("uplands"), "hills");
  EXPECT_EQ(map_terrain_family("village"), "town");
  EXPECT_EQ(map_terrain_family("fen"), "wetlands");
  EXPECT_EQ(map_terrain_family("sand"), "desert");
  EXPECT_EQ(map_terrain_family("plains"), "lowlands");
  EXPECT_EQ(map_terrain_family("anything else"), "lowlands");
  for (const auto& [word, family] : map_terrain_words())
    EXPECT_EQ(map_terrain_family(word), family);
}

TEST(Vocabulary, ALuaScriptReadsAnyWordOrWhatItDeclares) {
  const std::string resolve =
      "function resolve(b, r) return {attacker_losses = 0, defender_losses = 0} end\n";
  auto open = load_script_engine(resolve, ScriptId{1, ""});
  ASSERT_TRUE(open.ok()) << open.status().to_string();
  const EngineVocabulary any = (*open)->vocabulary(Json::object(), RulesConfig{});
  EXPECT_TRUE(any.terrain.any && any.features.any && any.borders.any && any.area_state.any &&
              any.player_state.any);
  auto declared = load_script_engine(
      "engine = {terrain = {marsh = \"defence +1\"}, borders = {\"ford\"}, player_state = {}}\n" +
          resolve,
      ScriptId{1, ""});
  ASSERT_TRUE(declared.ok()) << declared.status().to_string();
  const EngineVocabulary v = (*declared)->vocabulary(Json::object(), RulesConfig{});
  EXPECT_FALSE(v.terrain.any);
  EXPECT_EQ(effect_of(v.terrain, "marsh"), "defence +1");
  EXPECT_EQ(effect_of(v.borders, "ford"), "read by the script");
  EXPECT_FALSE(v.player_state.any);
  EXPECT_TRUE(v.player_state.words.empty());
  EXPECT_TRUE(v.features.any);  // not declared
  for (const char* bad : {"engine = {terrain = 3}\n", "engine = {terrain = {\"two words\"}}\n",
                          "engine = {features = {x = 5}}\n"}) {
    auto refused = load_script_engine(bad + resolve, ScriptId{1, ""});
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_NE(refused.status().message().find("engine."), std::string::npos)
        << refused.status().message();
  }
}

}  // namespace
}  // namespace adj
