// Checking one order file reads only the part of the open turn that the file names
// (Services::check_orders and submit_orders through GameStore::load_view, migration 0014): the
// acknowledgements are exactly those of the validator over the whole state, as before, on the
// grid world and on every bundled scenario, for files of every verb, every refusal and every
// kind of wrong line (unknown areas with suggestions, borders that do not exist, other kingdoms'
// areas, gifts, engine extras, DRAW).
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "rules/combat/engine_registry.h"
#include "rules/game/scenario.h"
#include "server/app/secrets.h"
#include "server/app/services.h"
#include "storage/sqlite/sqlite_store.h"
#include "tests/support/grid_world.h"
#include "tests/support/sanitized.h"
#include "tests/support/temp_dir.h"

namespace adj {
namespace {

class CheckViewTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(set_secret_hash_cost({1, 8192, 2}).ok());
    auto s = SqliteStore::open(dir_.file("adjutant.db"));
    ASSERT_TRUE(s.ok()) << s.status().to_string();
    store_ = std::move(s).value();
    svc_ = std::make_unique<Services>(Stores{*store_, *store_, *store_, *store_, *store_, *store_},
                                      [] { return UnixTime{1'700'000'000}; });
  }

  // Creates the game of `scenario` and remembers its players' secrets.
  std::string create(const Json& scenario) {
    auto g = svc_->create_game(scenario, 7);
    EXPECT_TRUE(g.ok()) << g.status().to_string();
    if (!g.ok()) return "";
    for (const Json& p : scenario["players"]) secrets_[p["code"]] = p.value("secret", "");
    return g->id;
  }

  // The files to check for game `game`: for each of up to `max_players` players, every verb
  // from each owned area to each neighbour, and wrong lines, in files of actions_per_turn lines;
  // then refused files.
  std::vector<std::string> files_for(const std::string& game, std::size_t max_players) {
    auto st = store_->load_state(game, std::nullopt);
    EXPECT_TRUE(st.ok());
    const GameState& s = *st;
    std::vector<std::string> files;
    const std::size_t per_file = static_cast<std::size_t>(std::max(1, s.rules.actions_per_turn));
    for (std::size_t i = 0; i < s.players.size() && i < max_players; ++i) {
      const Player& p = s.players[i];
      const Player& other = s.players[(i + 1) % s.players.size()];
      std::vector<std::string> lines;
      std::string far;
      for (const Area& a : s.areas) {
        if (a.owner != p.code) {
          if (far.empty()) far = a.code;
          continue;
        }
        lines.push_back("DEFEND " + a.code);
        lines.push_back("LEVY " + a.code + " 1");
        for (const std::string& n : s.neighbours(a.code)) {
          for (const char* verb : {"MOVE", "ASSAULT", "PROBE", "OVERRUN", "RAID", "MIGRATE"})
            lines.push_back(std::string(verb) + " " + a.code + " " + n + " 1");
          for (const char* verb : {"AMBUSH", "RETREAT", "SUPPORT", "INVADE"})
            lines.push_back(std::string(verb) + " " + a.code + " " + n);
          lines.push_back("MOVE " + a.code + " " + n + " CARD 1");
          lines.push_back("ASSAULT " + a.code + " " + n + " AIR 1");
          lines.push_back("MOVE " + n + " " + a.code);  // from an area that may be another's
        }
        if (!far.empty()) lines.push_back("MOVE " + a.code + " " + far + " 2");
        std::string typo = a.code;
        typo.back() = typo.back() == 'Q' ? 'X' : 'Q';
        lines.push_back("MOVE " + a.code + " " + typo);
        lines.push_back("ASSAULT " + typo + " " + a.code);
      }
      lines.push_back("GIFT " + other.code + " 1");
      lines.push_back("GIFT " + p.code + " 1");
      lines.push_back("GIFT NOPE 1");
      lines.push_back("ORDER 2");
      lines.push_back("MOVE ZZZZ9 YYYY9");
      const std::string head =
          "GAME " + game + "\nPLAYER " + p.code + " " + secrets_[p.code] + "\n";
      for (std::size_t at = 0; at < lines.size(); at += per_file) {
        std::string f = head;
        for (std::size_t k = at; k < lines.size() && k < at + per_file; ++k) f += lines[k] + "\n";
        if (at == 0) f += "DRAW\n";
        files.push_back(f);
      }
      const std::string body = lines.empty() ? "" : lines[0] + "\n";
      files.push_back("GAME " + game + "\nPLAYER " + p.code + " wrong-secret\n" + body);
      files.push_back("GAME other-game\nPLAYER " + p.code + " " + secrets_[p.code] + "\n" + body);
      files.push_back("GAME " + game + "\nPLAYER " + p.code + " " + secrets_[p.code] +
                      "\nTURN 9\n" + body);
      files.push_back("GAME " + game + "\n" + body);
      files.push_back("GAME " + game + "\nPLAYER NOPE x\n" + body);
      files.push_back(body);
    }
    files.push_back("");
    return files;
  }

  // The acknowledgement before load_view: the validator over the whole open state.
  OrderAck whole_state_ack(const std::string& game, const std::string& text) {
    auto st = store_->load_state(game, std::nullopt);
    EXPECT_TRUE(st.ok());
    return check_order_file(text, *st, find_engine(st->engine.name),
                            [&](const std::string& code, std::string_view given) {
                              return svc_->authenticate_player(game, code, given).ok();
                            });
  }

  // Checks every file both ways; submits each file that is not refused. Returns how many files
  // had lines rejected with a suggestion, to show the files exercise that path.
  int expect_same_acks(const std::string& game, std::size_t max_players) {
    int suggested = 0, accepted_lines = 0, rejected_lines = 0, refused = 0;
    for (const std::string& f : files_for(game, max_players)) {
      const OrderAck before = whole_state_ack(game, f);
      auto now = svc_->check_orders(game, f);
      EXPECT_TRUE(now.ok()) << now.status().to_string();
      if (!now.ok()) continue;
      EXPECT_EQ(to_json(now->ack).dump(1), to_json(before).dump(1)) << f;
      EXPECT_EQ(now->text(), render_ack_text(before));
      if (!before.refused) {
        auto stored = svc_->submit_orders(game, f, "test");
        EXPECT_TRUE(stored.ok()) << stored.status().to_string();
        if (stored.ok()) {
          EXPECT_EQ(to_json(stored->ack).dump(), to_json(before).dump());
        }
      }
      refused += before.refused;
      accepted_lines += before.accepted_count();
      rejected_lines += before.rejected_count();
      for (const auto& l : before.lines)
        if (l.reason.find("did you mean") != std::string::npos) ++suggested;
    }
    EXPECT_GT(accepted_lines, 0) << game;
    EXPECT_GT(rejected_lines, 0) << game;
    EXPECT_GT(refused, 0) << game;
    return suggested;
  }

  testing::TempDir dir_;
  std::unique_ptr<SqliteStore> store_;
  std::unique_ptr<Services> svc_;
  std::map<std::string, std::string> secrets_;
};

TEST_F(CheckViewTest, BundledScenariosAcknowledgeAsWithTheWholeState) {
  int suggested = 0;
  for (const std::string& name : bundled_scenarios()) {
    auto sc = bundled_scenario_published(name);
    ASSERT_TRUE(sc.ok()) << name;
    const std::string game = create(*sc);
    ASSERT_FALSE(game.empty()) << name;
    suggested += expect_same_acks(game, 8);
  }
  EXPECT_GT(suggested, 0);
}

TEST_F(CheckViewTest, BundledTurnFilesAcknowledgeAsWithTheWholeState) {
  auto sc = bundled_scenario_published("dark-age-britain");
  ASSERT_TRUE(sc.ok());
  const std::string game = create(*sc);
  int checked = 0;
  for (const char* who : {"EAN", "GWN", "MRC", "NUM", "WSX"}) {
    const std::string path =
        std::string(ADJ_SOURCE_DIR) + "/schemas/scenarios/dark-age-britain/turn1-" + who + ".txt";
    std::FILE* f = std::fopen(path.c_str(), "rb");
    ASSERT_NE(f, nullptr) << path;
    std::string text;
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, n);
    std::fclose(f);
    // The bundled files name game britain-1; the created game takes the scenario's id.
    if (text.rfind("GAME britain-1\n", 0) == 0) text = "GAME " + game + text.substr(14);
    const OrderAck before = whole_state_ack(game, text);
    auto now = svc_->check_orders(game, text);
    ASSERT_TRUE(now.ok());
    EXPECT_EQ(to_json(now->ack).dump(), to_json(before).dump());
    EXPECT_EQ(now->text(), render_ack_text(before));
    checked += !before.refused;
  }
  EXPECT_EQ(checked, 5);
}

TEST_F(CheckViewTest, GridWorldAcknowledgesAsWithTheWholeState) {
  using namespace testing::grid_world;
  const Size size{::adj::testing::sanitized_count(300)};  // 30 under the sanitizers
  const std::string game = create(world("grid", size));
  ASSERT_EQ(game, "grid");
  for (int p : {0, 1, 17, size.players / 2, size.players - 1}) {
    const std::string text = orders_for(p, "grid", size);
    const OrderAck before = whole_state_ack(game, text);
    ASSERT_FALSE(before.refused) << before.refusal;
    auto now = svc_->check_orders(game, text);
    ASSERT_TRUE(now.ok());
    EXPECT_EQ(to_json(now->ack).dump(), to_json(before).dump());
  }
  EXPECT_GT(expect_same_acks(game, 3), 0);
  // After a turn (a new indexed state) and a rollback (the state indexed again).
  ASSERT_TRUE(svc_->run_turn(game, false).ok());
  expect_same_acks(game, 2);
  ASSERT_TRUE(svc_->rollback(game, 1).ok());
  expect_same_acks(game, 2);
}

}  // namespace
}  // namespace adj
