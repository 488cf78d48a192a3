// The HELP answer's text (server/mail/mail_help.h) on every bundled scenario: its examples use
// the game's own area and kingdom codes, never another scenario's; without a game, placeholders.
#include "server/mail/mail_help.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>

#include "rules/game/scenario.h"

namespace adj::mail {
namespace {

GameState help_state(const std::string& scenario) {
  Result<Json> doc = bundled_scenario_published(scenario);
  EXPECT_TRUE(doc.ok()) << scenario;
  Result<GameState> st = state_from_scenario(doc.value(), 1);
  EXPECT_TRUE(st.ok()) << st.status().message();
  return st.value();
}

// The codes (areas and kingdoms) of a state.
std::set<std::string> codes_of(const GameState& st) {
  std::set<std::string> out;
  for (const Area& a : st.areas) out.insert(a.code);
  for (const Player& p : st.players) out.insert(p.code);
  return out;
}

// Every upper-case word of 3 letters in `text` that is a code of another bundled scenario and
// not of `own`.
std::set<std::string> foreign_codes(const std::string& text, const GameState& own) {
  std::set<std::string> others;
  for (const std::string& name : bundled_scenarios())
    for (const std::string& c : codes_of(help_state(name))) others.insert(c);
  const std::set<std::string> mine = codes_of(own);
  std::set<std::string> out;
  const std::regex word("\\b[A-Z]{3}\\b");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), word); it != std::sregex_iterator();
       ++it)
    if (others.count(it->str()) && !mine.count(it->str())) out.insert(it->str());
  return out;
}

TEST(MailHelp, ExamplesUseTheGamesOwnCodesOnEveryBundledScenario) {
  for (const std::string& name : bundled_scenarios()) {
    const GameState st = help_state(name);
    const std::set<std::string> mine = codes_of(st);
    for (const std::string& player : {std::string(), st.players.front().code}) {
      const std::string text = help_for_game(st, player, "") + help_syntax(&st);
      EXPECT_TRUE(foreign_codes(text, st).empty())
          << name << " " << player << ": " << *foreign_codes(text, st).begin() << "\n"
          << text;
      // The combined attack and the gift name this game's areas and kingdoms.
      std::smatch m;
      ASSERT_TRUE(std::regex_search(text, m, std::regex("3\\. MOVE (\\S+) (\\S+) 3\n")))
          << name << "\n"
          << text;
      EXPECT_TRUE(mine.count(m[1].str()) && mine.count(m[2].str())) << name << ": " << m[0];
      EXPECT_TRUE(st.neighbours(m[1].str()).size() > 0) << m[0];
      ASSERT_TRUE(std::regex_search(text, m, std::regex("GIFT ([A-Z0-9]+) 2"))) << name << text;
      EXPECT_NE(st.find_player(m[1].str()), nullptr) << name << ": " << m[0];
      EXPECT_NE(m[1].str(), player) << "a player is not shown a gift to themselves";
    }
  }
}

TEST(MailHelp, SyntaxWithoutAGameUsesPlaceholders) {
  const std::string text = help_syntax();
  EXPECT_NE(text.find("3. MOVE <area> <target> 3"), std::string::npos) << text;
  EXPECT_TRUE(foreign_codes(text, GameState{}).empty()) << text;
}

}  // namespace
}  // namespace adj::mail
