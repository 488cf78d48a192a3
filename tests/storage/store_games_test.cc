// GameStore on both backends: creating, listing and loading games; foreign keys; corrupted
// rows. SQLite only: WAL mode, two stores on one file.
#include <gtest/gtest.h>

#include "storage/sqlite/database.h"
#include "storage/sqlite/sqlite_store.h"
#include "tests/storage/backend_sql.h"
#include "tests/storage/store_test_util.h"

namespace adj::storage_test {
namespace {

class GamesSqliteTest : public StoreTest {
 protected:
  // A second connection to the same file, for looking under the store.
  sqlite::Database raw() {
    auto db = sqlite::Database::open(db_path());
    EXPECT_TRUE(db.ok()) << db.status().to_string();
    return std::move(db).value();
  }

  std::string query_text(const std::string& sql) {
    auto db = raw();
    auto r = db.query(sql, {});
    EXPECT_TRUE(r.ok() && !r->empty())
        << sql << ": " << (r.ok() ? "no row" : r.status().to_string());
    return r.ok() && !r->empty() ? r->text(0, 0) : "";
  }
};

TEST_F(GamesSqliteTest, DatabaseIsInWalMode) {
  EXPECT_EQ(query_text("PRAGMA journal_mode"), "wal");
}

TEST_F(GamesSqliteTest, TwoStoresOnOneFileSeeEachOthersWrites) {
  auto second = SqliteStore::open(db_path());
  ASSERT_TRUE(second.ok()) << second.status().to_string();
  create_game_or_fail();
  auto seen = (*second)->game_summary("britain");
  ASSERT_TRUE(seen.ok()) << seen.status().to_string();
  ASSERT_TRUE((*second)->set_game_status("britain", "held").ok());
  EXPECT_EQ(store_->game_summary("britain")->status, "held");
}

class GamesTest : public BackendTest {
 protected:
  Status exec(const std::string& sql) { return exec_sql(*store_, dir_, sql); }
  std::string query_text(const std::string& sql) {
    return storage_test::query_text(*store_, dir_, sql);
  }
};

TEST_P(GamesTest, ForeignKeysBackTheStore) {
  // The store checks the game itself; the schema's foreign keys back it up on every connection.
  SubmissionRecord orphan;
  orphan.game = "nope";
  orphan.turn = 1;
  auto put = store_->put_submission(orphan);
  ASSERT_FALSE(put.ok());
  EXPECT_EQ(put.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(exec("INSERT INTO turn_states VALUES ('nope', 1, '{}')").code(),
            StatusCode::kFailedPrecondition);  // FOREIGN KEY constraint failed
}

TEST_P(GamesTest, CreateListLoadRoundTrip) {
  const GameState initial = make_state("britain");
  ASSERT_TRUE(store_->create_game(initial, make_scenario("britain"), 1'600'000'000).ok());
  ASSERT_TRUE(
      store_->create_game(make_state("albion"), make_scenario("albion"), 1'600'000'500).ok());

  auto games = store_->list_games();
  ASSERT_TRUE(games.ok()) << games.status().to_string();
  ASSERT_EQ(games->size(), 2u);
  EXPECT_EQ((*games)[0].id, "albion");  // sorted by id
  const GameSummary& g = (*games)[1];
  EXPECT_EQ(g.id, "britain");
  EXPECT_EQ(g.name, "Britain britain");
  EXPECT_EQ(g.engine, "dark-age");
  EXPECT_EQ(g.turn, 1);
  EXPECT_EQ(g.status, "open");
  EXPECT_EQ(g.created_at, 1'600'000'000);

  auto one = store_->game_summary("britain");
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->created_at, 1'600'000'000);

  auto scenario = store_->scenario("britain");
  ASSERT_TRUE(scenario.ok());
  EXPECT_EQ(*scenario, make_scenario("britain"));

  for (std::optional<int> turn : {std::optional<int>(), std::optional<int>(1)}) {
    auto loaded = store_->load_state("britain", turn);
    ASSERT_TRUE(loaded.ok()) << loaded.status().to_string();
    EXPECT_EQ(to_json(*loaded), to_json(initial));
    EXPECT_EQ(loaded->seed, initial.seed);        // above INT64_MAX
    EXPECT_TRUE(loaded->adjacent("HRS", "LON"));  // adjacency index rebuilt
  }
}

TEST_P(GamesTest, GameIdsMatchExactlyAndACaseVariantIsRefused) {
  create_game_or_fail("britain");
  EXPECT_EQ(store_->game_summary("Britain").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store_->game_summary("britain ").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(*store_->stored_game_id("Britain"), "britain");  // how front ends find it
  Status s = store_->create_game(make_state("Britain"), make_scenario("Britain"), 1);
  EXPECT_EQ(s.code(), StatusCode::kAlreadyExists) << s.to_string();
  EXPECT_EQ(store_->list_games()->size(), 1u);
}

TEST_P(GamesTest, DuplicateCreateIsRefusedAndKeepsTheOriginal) {
  create_game_or_fail("britain");
  GameState other = make_state("britain");
  other.name = "Impostor";
  other.find_area("HRS")->armies = 99;
  Status s = store_->create_game(other, Json{{"other", true}}, 1'700'000'000);
  EXPECT_EQ(s.code(), StatusCode::kAlreadyExists) << s.to_string();
  EXPECT_NE(s.message().find("britain"), std::string::npos);

  auto g = store_->game_summary("britain");
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->name, "Britain britain");
  EXPECT_EQ(g->created_at, 1'600'000'000);
  EXPECT_EQ(*store_->scenario("britain"), make_scenario("britain"));
  EXPECT_EQ(store_->load_state("britain", 1)->find_area("HRS")->armies, 3);
  EXPECT_EQ(query_text("SELECT count(*) FROM turn_states"), "1");
}

TEST_P(GamesTest, CreateValidatesTheInitialState) {
  EXPECT_EQ(store_->create_game(make_state(""), Json::object(), 1).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->create_game(make_state("x", 0), Json::object(), 1).code(),
            StatusCode::kInvalidArgument);
  EXPECT_TRUE(store_->list_games()->empty());
}

TEST_P(GamesTest, CreateAtALaterTurnOpensThatTurn) {
  ASSERT_TRUE(store_->create_game(make_state("late", 4), Json::object(), 1).ok());
  EXPECT_EQ(store_->game_summary("late")->turn, 4);
  EXPECT_EQ(store_->load_state("late", std::nullopt)->turn, 4);
  EXPECT_EQ(store_->load_state("late", 1).status().code(), StatusCode::kNotFound);
}

TEST_P(GamesTest, ReplaceOpeningRewritesTheStartUntilATurnRuns) {
  create_game_or_fail("britain");
  GameState other = make_state("britain");
  other.name = "Britain again";
  other.find_area("HRS")->armies = 7;
  ASSERT_TRUE(store_->replace_opening(other, Json{{"again", true}}).ok());
  EXPECT_EQ(store_->game_summary("britain")->name, "Britain again");
  EXPECT_EQ(store_->game_summary("britain")->created_at, 1'600'000'000);  // kept
  EXPECT_EQ(*store_->scenario("britain"), (Json{{"again", true}}));
  EXPECT_EQ(store_->load_state("britain", std::nullopt)->find_area("HRS")->armies, 7);
  EXPECT_EQ(store_->load_state("britain", 1)->find_area("HRS")->armies, 7);

  // A position the new opening drops loses its secret and address; the others keep theirs.
  ASSERT_TRUE(store_->set_secret_hash("britain", "WSX", "$argon2id$wsx", 1).ok());
  ASSERT_TRUE(store_->set_secret_hash("britain", "GONE", "$argon2id$gone", 1).ok());
  ASSERT_TRUE(store_->replace_opening(other, Json{{"again", true}}).ok());
  EXPECT_EQ(query_text("SELECT count(*) FROM player_secrets WHERE player = 'GONE'"), "0");
  EXPECT_EQ(query_text("SELECT count(*) FROM player_secrets WHERE player = 'WSX'"), "1");

  EXPECT_EQ(store_->replace_opening(make_state("nope"), Json::object()).code(),
            StatusCode::kNotFound);
  commit_open_turn_or_fail("britain");
  const Status late = store_->replace_opening(make_state("britain"), Json::object());
  EXPECT_EQ(late.code(), StatusCode::kFailedPrecondition) << late.to_string();
  EXPECT_EQ(store_->load_state("britain", 1)->find_area("HRS")->armies, 7);  // nothing changed
}

TEST_P(GamesTest, UnknownGameIsNotFound) {
  create_game_or_fail("britain");
  const std::string g = "atlantis";
  const auto expect_not_found = [&](const Status& s, const char* what) {
    EXPECT_EQ(s.code(), StatusCode::kNotFound) << what << ": " << s.to_string();
    EXPECT_EQ(s.message(),
              "there is no game atlantis on this server (the game list shows every "
              "game's id)")
        << what;
  };
  expect_not_found(store_->game_summary(g).status(), "game_summary");
  expect_not_found(store_->scenario(g).status(), "scenario");
  expect_not_found(store_->load_state(g, std::nullopt).status(), "load_state");
  expect_not_found(store_->load_state(g, 1).status(), "load_state(1)");
  expect_not_found(commit_turn(*store_, g, make_commit(make_state(g))), "commit_turn");
  expect_not_found(store_->rollback(g, 1), "rollback");
  expect_not_found(store_->turn_record(g, 1).status(), "turn_record");
  expect_not_found(store_->current_submissions(g, 1).status(), "current_submissions");
  expect_not_found(store_->all_submissions(g).status(), "all_submissions");
  expect_not_found(store_->report(g, "WSX", 1).status(), "report");
  expect_not_found(store_->report_turns(g).status(), "report_turns");
  expect_not_found(store_->battle(g, 1, "1.1.WSX").status(), "battle");
  expect_not_found(store_->battles(g, 1).status(), "battles");
  expect_not_found(store_->set_game_status(g, "paused"), "set_game_status");
}

TEST_P(GamesTest, StateOfAnUnknownTurnIsNotFound) {
  create_game_or_fail();
  auto s = store_->load_state("britain", 2);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kNotFound);
  EXPECT_NE(s.status().message().find("turn 2"), std::string::npos) << s.status().message();
}

TEST_P(GamesTest, SetGameStatus) {
  create_game_or_fail();
  ASSERT_TRUE(store_->set_game_status("britain", "paused").ok());
  EXPECT_EQ(store_->game_summary("britain")->status, "paused");
  EXPECT_EQ(store_->set_game_status("britain", "").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->game_summary("britain")->status, "paused");
}

TEST_P(GamesTest, StateThatDoesNotParseIsCorruption) {
  create_game_or_fail();
  // Valid JSON, but not a GameState.
  ASSERT_TRUE(exec("UPDATE turn_states SET state_json = '{\"game\": 5}'").ok());
  auto s = store_->load_state("britain", std::nullopt);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kCorruption) << s.status().to_string();
  EXPECT_NE(s.status().message().find("britain"), std::string::npos);

  // Not JSON at all (written past the CHECK constraint, as a damaged database might hold).
  if (is_sqlite()) {
    ASSERT_TRUE(exec("PRAGMA ignore_check_constraints = ON;"
                     "UPDATE turn_states SET state_json = '{\"game\": \"brit';")
                    .ok());
  } else {
    ASSERT_TRUE(exec("ALTER TABLE turn_states DROP CONSTRAINT turn_states_state_json_check;"
                     "UPDATE turn_states SET state_json = '{\"game\": \"brit';")
                    .ok());
  }
  s = store_->load_state("britain", 1);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kCorruption) << s.status().to_string();
}

TEST_P(GamesTest, StateOfAnotherTurnIsCorruption) {
  create_game_or_fail();
  ASSERT_TRUE(exec(is_sqlite()
                       ? "UPDATE turn_states SET state_json = json_set(state_json, '$.turn', 7)"
                       : "UPDATE turn_states SET state_json = "
                         "jsonb_set(state_json::jsonb, '{turn}', '7')::text")
                  .ok());
  auto s = store_->load_state("britain", std::nullopt);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kCorruption) << s.status().to_string();
}

TEST_P(GamesTest, ScenarioThatDoesNotParseIsCorruption) {
  create_game_or_fail();
  ASSERT_TRUE(exec(is_sqlite() ? "PRAGMA ignore_check_constraints = ON;"
                                 "UPDATE games SET scenario_json = 'not json'"
                               : "ALTER TABLE games DROP CONSTRAINT games_scenario_json_check;"
                                 "UPDATE games SET scenario_json = 'not json'")
                  .ok());
  EXPECT_EQ(store_->scenario("britain").status().code(), StatusCode::kCorruption);
  EXPECT_TRUE(store_->game_summary("britain").ok());  // the rest of the row is still readable
}

TEST_P(GamesTest, InvalidUtf8IsRefusedBeforeWriting) {
  GameState bad = make_state("britain");
  bad.name = "Br\xFFtain";
  Status s = store_->create_game(bad, Json::object(), 1);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.to_string();
  EXPECT_EQ(store_->game_summary("britain").status().code(), StatusCode::kNotFound);
}

TEST_P(GamesTest, JsonColumnsRefuseWhatIsNotJson) {
  create_game_or_fail();
  EXPECT_EQ(exec("UPDATE games SET scenario_json = 'not json'").code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(*store_->scenario("britain"), make_scenario("britain"));
}

ADJ_ON_EVERY_BACKEND(GamesTest);

}  // namespace
}  // namespace adj::storage_test
