// The open-state index (migration 0014; load_view and
// area_names of either store): the part of a state it returns is exactly GameStore's default (the
// whole state, cut), after every path that writes states, and a state written around it is never
// read through a stale index.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "storage/sqlite/database.h"
#include "storage/sqlite/migrator.h"
#include "storage/sqlite/sqlite_store.h"
#include "storage/state_view.h"
#include "tests/storage/backend_sql.h"
#include "tests/storage/store_test_util.h"

namespace adj::storage_test {
namespace {

using Codes = std::vector<std::string>;

struct Request {
  Codes players, areas;
};

// Every kind of request a file can make: nothing, one player, areas with and without owners,
// borders among them, codes that name nothing, everything.
const std::vector<Request> kRequests = {
    {{}, {}},
    {{"WSX"}, {}},
    {{"MRC"}, {"HRS"}},
    {{}, {"LON", "NSE"}},
    {{"NOPE"}, {"XXX", "HRS"}},
    {{"WSX", "MRC"}, {"HRS", "LON", "NSE"}},
    {{"wsx"}, {"hrs"}},                       // codes match exactly: nothing
    {{"MRC", "MRC"}, {"LON", "HRS", "LON"}},  // repeated
};

// load_view and area_names agree with the whole state, cut, for every request.
void expect_views_match_on(Store& store, std::optional<int> turn) {
  auto whole = store.load_state("britain", turn);
  ASSERT_TRUE(whole.ok()) << whole.status().to_string();
  for (const Request& r : kRequests) {
    auto view = store.load_view("britain", turn, r.players, r.areas);
    ASSERT_TRUE(view.ok()) << view.status().to_string();
    EXPECT_EQ(to_json(*view).dump(), to_json(cut_state(*whole, r.players, r.areas)).dump());
  }
  auto names = store.area_names("britain", turn);
  ASSERT_TRUE(names.ok()) << names.status().to_string();
  const std::vector<Area> expected = area_names_of(*whole);
  ASSERT_EQ(names->size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ((*names)[i].code, expected[i].code);
    EXPECT_EQ((*names)[i].name, expected[i].name);
  }
}

// SQLite only: its migration's backfill.
class OpenStateIndexTest : public StoreTest {
 protected:
  std::string query(const std::string& sql) {
    auto db = sqlite::Database::open(db_path());
    EXPECT_TRUE(db.ok());
    auto r = db->query(sql, {});
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    return r.ok() && !r->empty() ? r->text(0, 0) : "";
  }
  void exec(const std::string& sql) {
    auto db = sqlite::Database::open(db_path());
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(db->exec(sql).ok()) << sql;
  }
  // The turn the index of `game` is valid for ("" when it is not).
  std::string indexed_turn(const std::string& game = "britain") {
    return query("SELECT turn FROM open_states WHERE game_id = '" + game + "'");
  }
  void expect_views_match(std::optional<int> turn = std::nullopt) {
    expect_views_match_on(*store_, turn);
  }
};

TEST_F(OpenStateIndexTest, CutKeepsNamedPartsOwnersAndTheirBorders) {
  const GameState s = make_state("britain");
  const GameState v = cut_state(s, {}, {"LON"});
  ASSERT_EQ(v.areas.size(), 1u);
  EXPECT_EQ(v.areas[0].code, "LON");
  ASSERT_EQ(v.players.size(), 1u);  // LON's owner
  EXPECT_EQ(v.players[0].code, "MRC");
  ASSERT_EQ(v.edges.size(), 1u);  // HRS-LON: one end named
  EXPECT_TRUE(v.adjacent("LON", "HRS"));
  EXPECT_EQ(v.neighbours("LON"), Codes{"HRS"});
  EXPECT_EQ(v.scenario_extra, s.scenario_extra);
  EXPECT_EQ(v.rules.actions_per_turn, 12);
  EXPECT_TRUE(cut_state(s, {}, {}).areas.empty());
}

// Either backend: SQLite and PostgreSQL (migration 0014).
class OpenStateViewTest : public BackendTest {
 protected:
  std::string query(const std::string& sql) { return query_text(*store_, dir_, sql); }
  void exec(const std::string& sql) {
    Status s = exec_sql(*store_, dir_, sql);
    ASSERT_TRUE(s.ok()) << sql << ": " << s.to_string();
  }
  // The turn the index of `game` is valid for ("" when it is not).
  std::string indexed_turn(const std::string& game = "britain") {
    return query("SELECT coalesce(max(CAST(turn AS TEXT)), '') FROM open_states WHERE game_id = '" +
                 game + "'");
  }
  // Sets the first area's armies in the stored open state, around the store.
  void set_armies_around_the_store(int armies) {
    const std::string n = std::to_string(armies);
    if (is_sqlite())
      exec("UPDATE turn_states SET state_json = json_set(state_json, '$.areas[0].armies', " + n +
           ")");
    else
      exec(
          "UPDATE turn_states SET state_json = jsonb_set(state_json::jsonb, "
          "'{areas,0,armies}', '" +
          n + "')::text");
  }
  void expect_views_match(std::optional<int> turn = std::nullopt) {
    expect_views_match_on(*store_, turn);
  }
};
ADJ_ON_EVERY_BACKEND(OpenStateViewTest);

TEST_P(OpenStateViewTest, ViewsMatchTheWholeStateAfterCreateCommitAndRollback) {
  create_game_or_fail();
  EXPECT_EQ(indexed_turn(), "1");
  expect_views_match();
  commit_open_turn_or_fail();
  EXPECT_EQ(indexed_turn(), "2");
  expect_views_match();
  expect_views_match(1);  // a turn that is not open: read whole and cut
  commit_open_turn_or_fail();
  ASSERT_TRUE(store_->rollback("britain", 2).ok());
  EXPECT_EQ(indexed_turn(), "2");
  expect_views_match();
  ASSERT_TRUE(store_->rollback("britain", 1).ok());
  EXPECT_EQ(indexed_turn(), "1");
  expect_views_match();
  // Rows of the later turns are gone, not left beside the new ones.
  EXPECT_EQ(query("SELECT count(*) FROM open_state_areas"), "3");
  EXPECT_EQ(query("SELECT count(*) FROM open_state_edges"), "2");
}

TEST_P(OpenStateViewTest, ViewsCarryContactsAsLoadStateDoes) {
  create_game_or_fail();
  ASSERT_TRUE(store_->set_contact("britain", Contact{"MRC", "new@example.org", "M", 5}).ok());
  auto v = store_->load_view("britain", std::nullopt, {"MRC"}, {});
  ASSERT_TRUE(v.ok());
  ASSERT_EQ(v->players.size(), 1u);
  EXPECT_EQ(v->players[0].email, "new@example.org");
  expect_views_match();
}

TEST_P(OpenStateViewTest, AStateWrittenAroundTheIndexIsReadWhole) {
  create_game_or_fail();
  set_armies_around_the_store(41);
  EXPECT_EQ(indexed_turn(), "");  // the trigger made it stale
  auto v = store_->load_view("britain", std::nullopt, {}, {"HRS"});
  ASSERT_TRUE(v.ok()) << v.status().to_string();
  ASSERT_EQ(v->areas.size(), 1u);
  EXPECT_EQ(v->areas[0].armies, 41);
  expect_views_match();
  set_armies_around_the_store(42);
  // The next state written through the store is indexed again.
  commit_open_turn_or_fail();
  EXPECT_EQ(indexed_turn(), "2");
  expect_views_match();
}

TEST_P(OpenStateViewTest, AStateWithRepeatedCodesIsCommittedAndReadWhole) {
  create_game_or_fail();
  auto state = store_->load_state("britain", std::nullopt);
  ASSERT_TRUE(state.ok());
  TurnCommit c = make_commit(*state);
  c.next_state.areas.push_back(c.next_state.areas[0]);
  ASSERT_TRUE(commit_turn(*store_, "britain", c).ok());
  EXPECT_EQ(indexed_turn(), "");
  EXPECT_EQ(store_->load_state("britain", std::nullopt)->areas.size(), 4u);
  // Borders are kept when unchanged and rewritten when they change.
  state = store_->load_state("britain", std::nullopt);
  c = make_commit(*state);
  auto& areas = c.next_state.areas;
  areas.erase(std::unique(areas.begin(), areas.end(),
                          [](const Area& x, const Area& y) { return x.code == y.code; }),
              areas.end());
  ASSERT_EQ(areas.size(), 3u);
  ASSERT_TRUE(commit_turn(*store_, "britain", c).ok());
  EXPECT_EQ(indexed_turn(), "3");
  expect_views_match();
  state = store_->load_state("britain", std::nullopt);
  c = make_commit(*state);
  c.next_state.edges[0].features = {{"bridge", true}};
  c.next_state.edges.push_back(Edge{"LON", "NSE", {}});
  c.next_state.normalise();
  ASSERT_TRUE(commit_turn(*store_, "britain", c).ok());
  EXPECT_EQ(query("SELECT count(*) FROM open_state_edges"), "3");
  expect_views_match();
  auto v = store_->load_view("britain", std::nullopt, {}, {"LON"});
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v->adjacent("LON", "NSE"));
}

TEST_P(OpenStateViewTest, OnlyTheAreasThatChangedAreWrittenAgain) {
  create_game_or_fail();
  // PostgreSQL names the transaction that wrote each row (xmin); SQLite's rows keep no trace.
  const auto writer = [this](const std::string& code) {
    return is_sqlite() ? std::string()
                       : query("SELECT CAST(xmin AS TEXT) FROM open_state_areas WHERE code = '" +
                               code + "'");
  };
  const std::string sea = writer("NSE"), london = writer("LON");
  auto state = store_->load_state("britain", std::nullopt);
  ASSERT_TRUE(state.ok());
  TurnCommit c = make_commit(*state);  // HRS's armies change
  c.next_state.find_area("LON")->name = "Londinium";
  Area wall;
  wall.code = "HAD";
  wall.name = "Hadrian's Wall";
  wall.owner = "WSX";
  c.next_state.areas.push_back(wall);
  c.next_state.edges.push_back(Edge{"HAD", "HRS", {}});
  c.next_state.normalise();
  ASSERT_TRUE(commit_turn(*store_, "britain", c).ok());
  EXPECT_EQ(indexed_turn(), "2");
  EXPECT_EQ(query("SELECT count(*) FROM open_state_areas"), "4");
  EXPECT_EQ(query("SELECT name FROM open_state_areas WHERE code = 'LON'"), "Londinium");
  expect_views_match();
  EXPECT_EQ(writer("NSE"), sea);  // as it was: not written again
  if (!is_sqlite()) {
    EXPECT_NE(writer("LON"), london);
  }
  // An area the next state no longer has goes.
  state = store_->load_state("britain", std::nullopt);
  ASSERT_TRUE(state.ok());
  c = make_commit(*state);
  c.next_state.find_area("HRS")->armies -= 1;  // as it was: only HAD changes
  auto& areas = c.next_state.areas;
  areas.erase(
      std::remove_if(areas.begin(), areas.end(), [](const Area& a) { return a.code == "HAD"; }),
      areas.end());
  auto& edges = c.next_state.edges;
  edges.erase(std::remove_if(edges.begin(), edges.end(),
                             [](const Edge& e) { return e.a == "HAD" || e.b == "HAD"; }),
              edges.end());
  ASSERT_TRUE(commit_turn(*store_, "britain", c).ok());
  EXPECT_EQ(query("SELECT count(*) FROM open_state_areas WHERE code = 'HAD'"), "0");
  EXPECT_EQ(query("SELECT count(*) FROM open_state_areas"), "3");
  expect_views_match();
  EXPECT_EQ(writer("NSE"), sea);
  // Most areas changed: all of them are written again, in one go (LON too, unchanged).
  const std::string londinium = writer("LON");
  state = store_->load_state("britain", std::nullopt);
  ASSERT_TRUE(state.ok());
  c = make_commit(*state);
  c.next_state.find_area("NSE")->name = "German Ocean";
  ASSERT_TRUE(commit_turn(*store_, "britain", c).ok());
  EXPECT_EQ(query("SELECT count(*) FROM open_state_areas"), "3");
  EXPECT_EQ(query("SELECT name FROM open_state_areas WHERE code = 'NSE'"), "German Ocean");
  expect_views_match();
  if (!is_sqlite()) {
    EXPECT_NE(writer("LON"), londinium);
  }
}

TEST_P(OpenStateViewTest, UnknownGameIsNotFound) {
  EXPECT_EQ(store_->load_view("nope", std::nullopt, {}, {}).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store_->area_names("nope", std::nullopt).status().code(), StatusCode::kNotFound);
}

// The migration's backfill (SQL over the stored JSON) gives the same views as the index the
// store writes: it is run again here on a database whose index tables were dropped.
TEST_F(OpenStateIndexTest, MigrationBackfillsExistingGames) {
  create_game_or_fail();
  commit_open_turn_or_fail();
  create_game_or_fail("gaul");
  auto migrations = adj::bundled_migrations(sql::Dialect::kSqlite);
  ASSERT_TRUE(migrations.ok());
  std::string sql;
  for (const auto& m : *migrations)
    if (m.version == 14) sql = m.sql;
  ASSERT_NE(sql, "") << "migration 0014 is not bundled";
  store_.reset();
  exec(
      "DROP TABLE open_state_players; DROP TABLE open_state_areas; DROP TABLE open_state_edges; "
      "DROP TABLE open_states; DROP TRIGGER open_state_stale_insert; "
      "DROP TRIGGER open_state_stale_update; DROP TRIGGER open_state_stale_delete; "
      "DROP INDEX games_small_columns;");
  exec(sql);
  auto opened = SqliteStore::open(db_path());
  ASSERT_TRUE(opened.ok());
  store_ = std::move(opened).value();
  EXPECT_EQ(indexed_turn(), "2");
  EXPECT_EQ(indexed_turn("gaul"), "1");
  expect_views_match();
}

TEST_F(OpenStateIndexTest, BackfillLeavesAStateWithRepeatedCodesUnindexed) {
  create_game_or_fail();
  store_.reset();
  exec(
      "UPDATE turn_states SET state_json = json_insert(state_json, '$.areas[#]', "
      "json_extract(state_json, '$.areas[0]'))");
  auto migrations = adj::bundled_migrations(sql::Dialect::kSqlite);
  ASSERT_TRUE(migrations.ok());
  exec(
      "DROP TABLE open_state_players; DROP TABLE open_state_areas; DROP TABLE open_state_edges; "
      "DROP TABLE open_states; DROP TRIGGER open_state_stale_insert; "
      "DROP TRIGGER open_state_stale_update; DROP TRIGGER open_state_stale_delete; "
      "DROP INDEX games_small_columns;");
  for (const auto& m : *migrations)
    if (m.version == 14) exec(m.sql);
  EXPECT_EQ(indexed_turn(), "");
  auto opened = SqliteStore::open(db_path());
  ASSERT_TRUE(opened.ok());
  store_ = std::move(opened).value();
  expect_views_match();
}

}  // namespace
}  // namespace adj::storage_test
