// Shared pieces of the storage tests: a small hand-built game and a fixture owning a store in a
// temporary directory. Header-only (the test glob compiles *_test.cc only).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <string>

#include "rules/game/state.h"
#include "storage/sqlite/sqlite_store.h"
#include "storage/store.h"
#include "tests/support/pg_test_db.h"
#include "tests/support/temp_dir.h"

namespace adj::storage_test {

// Two players, three areas (land, city, sea), two edges; enough non-default fields that a lost
// column or key shows up in a to_json comparison.
inline GameState make_state(const std::string& id, int turn = 1) {
  GameState s;
  s.game_id = id;
  s.name = "Britain " + id;
  s.turn = turn;
  s.seed = std::numeric_limits<std::uint64_t>::max() - 7;  // above INT64_MAX on purpose
  s.engine.name = "dark-age";
  s.engine.options = {{"rounds", 3}};
  s.rules.actions_per_turn = 12;

  Player wsx;
  wsx.code = "WSX";
  wsx.name = "Wessex";
  wsx.email = "wsx@example.org";
  wsx.secret = "s3cret";
  wsx.nation = "Saxons";
  wsx.bp = 10;
  wsx.treasury = 4;
  wsx.engine_state = {{"cards", {"A", "B"}}};
  Player mrc;
  mrc.code = "MRC";
  mrc.name = "Mercia";
  mrc.nation = "MRC";
  mrc.vp = 2;
  s.players = {wsx, mrc};

  Area hrs;
  hrs.code = "HRS";
  hrs.name = "Horsa";
  hrs.terrain = "forest";
  hrs.owner = "WSX";
  hrs.armies = 3;
  hrs.mode = DefenceMode::kAmbush;
  hrs.ambush_against = "MRC";
  hrs.x = 1.5;
  hrs.y = -2.25;
  Area lon;
  lon.code = "LON";
  lon.name = "London";
  lon.kind = AreaKind::kCity;
  lon.hinterland = "HRS";
  lon.owner = "MRC";
  lon.population = 2;
  lon.fort = 1;
  lon.trade = 3;
  lon.mode = DefenceMode::kRetreat;
  lon.retreat_to = "HRS";
  Area sea;
  sea.code = "NSE";
  sea.name = "North Sea";
  sea.kind = AreaKind::kSea;
  sea.features = {{"storms", true}};
  s.areas = {hrs, lon, sea};

  s.edges = {Edge{"LON", "HRS", {{"river", true}}}, Edge{"HRS", "NSE", {}}};
  s.order_of_play = {"WSX", "MRC"};
  s.scenario_extra = {{"era", "dark"}};
  s.normalise();
  return s;
}

inline Json make_scenario(const std::string& id) {
  return {{"game", id}, {"name", "Britain " + id}, {"note", "scenario as given"}};
}

// What a run of `from.turn` might produce: the next state, two battles, one report per player.
inline TurnCommit make_commit(const GameState& from) {
  TurnCommit c;
  c.turn = from.turn;
  c.seed = std::numeric_limits<std::uint64_t>::max();
  c.next_state = from;
  c.next_state.turn = from.turn + 1;
  c.next_state.find_area("HRS")->armies += 1;
  c.summary = {{"order_of_play", {"WSX", "MRC"}}, {"digest", "abc123"}};
  const std::string t = std::to_string(from.turn);
  c.battles.push_back(BattleRecord{t + ".2.MRC",
                                   42,
                                   "dark-age",
                                   {{"attackers", 3}},
                                   {{"winner", "defender"}, {"dice", {6, 1, 3}}},
                                   {},
                                   {}});
  c.battles.push_back(BattleRecord{t + ".1.WSX",
                                   std::uint64_t{1} << 63,
                                   "dark-age",
                                   {{"attackers", 1}},
                                   {{"winner", "attacker"}},
                                   {},
                                   {}});
  c.reports.push_back(ReportRecord{
      "WSX", from.turn, "Turn " + t + " report for Wessex\n", {{"player", "WSX"}}, {}});
  c.reports.push_back(ReportRecord{
      "MRC", from.turn, "Turn " + t + " report for Mercia\n", {{"player", "MRC"}}, {}});
  c.ran_at = 1'700'000'000 + from.turn;
  return c;
}

// What the fixtures share: a store, `game` ("britain") created by create_game_or_fail().
// A turn's whole commit at once: begin_commit(game, c.turn, c.submissions), then finish(c).
inline Status commit_turn(GameStore& store, const std::string& game, TurnCommit c) {
  auto writer = store.begin_commit(game, c.turn, c.submissions);
  if (!writer.ok()) return writer.status();
  return (*writer)->finish(c);
}

template <typename StoreT, typename Base>
class StoreFixture : public Base {
 protected:
  void create_game_or_fail(const std::string& id = "britain") {
    Status s = store_->create_game(make_state(id), make_scenario(id), 1'600'000'000);
    ASSERT_TRUE(s.ok()) << s.to_string();
  }

  // Runs make_commit() on the open turn's state, resolving its current files.
  void commit_open_turn_or_fail(const std::string& id = "britain") {
    auto state = store_->load_state(id, std::nullopt);
    ASSERT_TRUE(state.ok()) << state.status().to_string();
    TurnCommit c = make_commit(*state);
    auto files = store_->current_submissions(id, state->turn);
    ASSERT_TRUE(files.ok()) << files.status().to_string();
    for (const auto& f : *files) c.submissions.push_back(f.id);
    Status s = commit_turn(*store_, id, c);
    ASSERT_TRUE(s.ok()) << s.to_string();
  }

  adj::testing::TempDir dir_;
  std::unique_ptr<StoreT> store_;
};

// A SqliteStore on a fresh file: for what only the SQLite backend has (its file, its pragmas).
class StoreTest : public StoreFixture<SqliteStore, ::testing::Test> {
 protected:
  void SetUp() override {
    auto opened = SqliteStore::open(db_path());
    ASSERT_TRUE(opened.ok()) << opened.status().to_string();
    store_ = std::move(opened).value();
  }

  std::string db_path() const { return dir_.file("adjutant.db"); }
};

// A Store of each backend, on a fresh database: SQLite in a temporary file, PostgreSQL in a new
// database of the test run's throw-away cluster (tests/support/pg_test_db.h). Where no
// PostgreSQL server can be started the PostgreSQL instances are skipped, with the reason shown.
// Use with TEST_P and ADJ_ON_EVERY_BACKEND(Suite).
class BackendTest : public StoreFixture<Store, ::testing::TestWithParam<std::string>> {
 protected:
  void SetUp() override {
    auto opened = open_test_store(GetParam(), dir_);
    if (!opened.ok() && opened.status().code() == StatusCode::kUnavailable)
      GTEST_SKIP() << "PostgreSQL not available: " << opened.status().message();
    ASSERT_TRUE(opened.ok()) << opened.status().to_string();
    store_ = std::move(opened).value();
  }
  bool is_sqlite() const { return GetParam() == "sqlite"; }
};

#define ADJ_ON_EVERY_BACKEND(Suite)                                                    \
  INSTANTIATE_TEST_SUITE_P(Backends, Suite, ::testing::Values("sqlite", "postgresql"), \
                           [](const auto& info) { return info.param; })

}  // namespace adj::storage_test
