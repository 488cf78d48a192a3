#include "rules/game/vocabulary.h"

#include <algorithm>

namespace adj {

namespace {
namespace vocabulary_local {

// The map's terrain families (server/render/map_style.cc draws each in its own colour).
const std::vector<std::pair<std::string, std::vector<std::string>>>& families() {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> kFamilies = {
      {"forest", {"forest", "wood", "woods", "woodland", "jungle"}},
      {"hills", {"hills", "hill", "rough", "uplands", "highlands"}},
      {"mountains", {"mountains", "mountain"}},
      {"wetlands", {"wetlands", "marsh", "swamp", "fen"}},
      {"town", {"town", "village", "castle", "city", "urban"}},
      {"desert", {"desert", "sand"}},
      {"lowlands", {"lowlands", "clear", "plains"}}};
  return kFamilies;
}

// What the turn loop, victory and the map read, added to `v` (the map's words only when nothing
// else reads them: they have no effect on play).
void add_common(EngineVocabulary& v, const RulesConfig& rules, bool dark_age_actions) {
  v.terrain.add("lowlands", "the terrain of a land area that names none");
  v.terrain.add("city", "the terrain of a city area that names none");
  v.terrain.add("sea", "the terrain of a sea area that names none");
  for (const std::string& t : rules.sticky_terrain)
    v.terrain.add(t,
                  "difficult terrain: armies that enter it stop for the turn "
                  "(rules.sticky_terrain)");
  if (dark_age_actions)
    for (const std::string& t : rules.raid_shelter_terrain)
      v.terrain.add(t, "a RAID costs its defenders no army (rules.raid_shelter_terrain)");
  v.features.add("vp",
                 "a whole number 0..1000000: victory points for whoever holds the area "
                 "(victory.vp counts them)");
  for (const auto& [word, family] : map_terrain_words())
    if (!v.terrain.find(word))
      v.terrain.add(word, "no effect on play; the map draws it as " + family);
  for (const char* f : {"castle", "road", "rails"})
    if (!v.features.find(f))
      v.features.add(
          f, std::string("no effect on play; the map draws a ") + f + " symbol where it is true");
  if (!v.features.find("weather"))
    v.features.add("weather", "no effect on play; the map draws \"mud\" and \"frozen\"");
  if (!v.borders.find("river"))
    v.borders.add("river",
                  "no effect on play; the map draws a river along the border where it is true");
}

}  // namespace vocabulary_local
}  // namespace

const std::vector<std::pair<std::string, std::string>>& map_terrain_words() {
  static const std::vector<std::pair<std::string, std::string>> kWords = [] {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& [family, words] : vocabulary_local::families())
      for (const std::string& w : words) out.emplace_back(w, family);
    std::sort(out.begin(), out.end());
    return out;
  }();
  return kWords;
}

std::string map_terrain_family(std::string_view terrain) {
  std::string t;
  t.reserve(terrain.size());
  for (char c : terrain) t += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  const auto& words = map_terrain_words();
  auto it =
      std::lower_bound(words.begin(), words.end(), t,
                       [](const auto& entry, const std::string& x) { return entry.first < x; });
  return it != words.end() && it->first == t ? it->second : "lowlands";
}

std::string vocabulary_markdown(const EngineVocabulary& v) {
  std::string out = "| kind | word | what it does |\n|---|---|---|\n";
  const std::pair<const char*, const VocabularyList*> kinds[] = {
      {"terrain", &v.terrain},
      {"feature", &v.features},
      {"border", &v.borders},
      {"area `engine_state`", &v.area_state},
      {"player `engine_state`", &v.player_state}};
  for (const auto& [kind, list] : kinds) {
    if (list->any) out += std::string("| ") + kind + " | any word | read by the engine |\n";
    for (const VocabularyWord& w : list->words) {
      std::string effect;
      for (char c : w.effect) effect += c == '|' ? std::string("\\|") : std::string(1, c);
      out += std::string("| ") + kind + " | `" + w.word + "` | " + effect + " |\n";
    }
  }
  return out;
}

EngineVocabulary common_vocabulary(const RulesConfig& rules, bool dark_age_actions) {
  EngineVocabulary v;
  vocabulary_local::add_common(v, rules, dark_age_actions);
  return v;
}

EngineVocabulary game_vocabulary(const CombatEngine& engine, const Json& options,
                                 const RulesConfig& rules) {
  EngineVocabulary v = engine.vocabulary(options, rules);
  vocabulary_local::add_common(v, rules, engine.dark_age_actions());
  return v;
}

}  // namespace adj
