// The revision counters behind the web answer cache (migration 0013, RevisionWatch): every table
// holding a game's rows bumps that game's revision and the site's on every write, whoever writes,
// and a watch on its own connection sees commits made through other connections.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "storage/sqlite/database.h"
#include "storage/sqlite/revision_watch.h"
#include "tests/storage/store_test_util.h"

namespace adj::storage_test {
namespace {

using sqlite::Database;
using sqlite::RevisionWatch;

std::int64_t rev(const sqlite::RevisionMap& m, const std::string& scope) {
  auto it = m.find(scope);
  return it == m.end() ? 0 : it->second;
}

class RevisionsTest : public StoreTest {};

// A table added later with a game_id and no triggers would leave its pages stale: this fails.
TEST_F(RevisionsTest, EveryTableWithAGameIdHasItsThreeTriggers) {
  auto db = Database::open(db_path());
  ASSERT_TRUE(db.ok());
  auto tables = db->prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'");
  ASSERT_TRUE(tables.ok());
  std::set<std::string> with_game;
  std::vector<std::string> names;
  while (*tables->step()) names.push_back(tables->column_text(0));
  for (const auto& t : names) {
    auto cols = db->prepare("SELECT name FROM pragma_table_info(?1)");
    ASSERT_TRUE(cols.ok());
    cols->bind_text(1, t);
    while (*cols->step())
      if (cols->column_text(0) == "game_id") with_game.insert(t);
  }
  ASSERT_GE(with_game.size(), 20u);
  // The outbox is left out on purpose (delivering mail changes no kept page).
  with_game.erase("outbox");
  // The open-state index (0014) changes only with turn_states, whose triggers bump the game.
  for (const char* t :
       {"open_states", "open_state_players", "open_state_areas", "open_state_edges"})
    with_game.erase(t);
  with_game.insert("games");
  for (const auto& t : with_game)
    for (const char* ev : {"insert", "update", "delete"}) {
      auto trig =
          db->prepare("SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name = ?1");
      ASSERT_TRUE(trig.ok());
      trig->bind_text(1, "rev_" + t + "_" + ev);
      ASSERT_TRUE(*trig->step());
      EXPECT_EQ(trig->column_int(0), 1) << "table " << t << " has no " << ev << " trigger";
    }
}

TEST_F(RevisionsTest, WritesToOneGameBumpItAndTheSiteButNotAnother) {
  create_game_or_fail("britain");
  create_game_or_fail("gaul");
  auto watch = RevisionWatch::open(db_path());
  ASSERT_TRUE(watch.ok()) << watch.status().to_string();
  auto before = (*watch)->current();
  ASSERT_TRUE(before.ok());
  const auto b = **before;
  EXPECT_GT(rev(b, "britain"), 0);
  EXPECT_GT(rev(b, "gaul"), 0);

  // Unchanged database: the very same map, no re-read.
  auto again = (*watch)->current();
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->get(), before->get());

  commit_open_turn_or_fail("britain");  // through the store's own connection
  auto after = (*watch)->current();
  ASSERT_TRUE(after.ok());
  EXPECT_GT(rev(**after, "britain"), rev(b, "britain"));
  EXPECT_GT(rev(**after, "*"), rev(b, "*"));
  EXPECT_EQ(rev(**after, "gaul"), rev(b, "gaul"));

  // A rollback is a write like any other.
  const auto committed = rev(**after, "britain");
  ASSERT_TRUE(store_->rollback("britain", 1).ok());
  auto rolled = (*watch)->current();
  ASSERT_TRUE(rolled.ok());
  EXPECT_GT(rev(**rolled, "britain"), committed);
}

TEST_F(RevisionsTest, AWriteFromAnotherConnectionIsSeen) {
  create_game_or_fail("britain");
  auto watch = RevisionWatch::open(db_path());
  ASSERT_TRUE(watch.ok());
  auto before = (*watch)->current();
  ASSERT_TRUE(before.ok());
  auto other = Database::open(db_path());  // as another process would
  ASSERT_TRUE(other.ok());
  ASSERT_TRUE(other->exec("UPDATE games SET name = 'Britannia' WHERE id = 'britain'").ok());
  auto after = (*watch)->current();
  ASSERT_TRUE(after.ok());
  EXPECT_GT(rev(**after, "britain"), rev(**before, "britain"));
  EXPECT_GT(rev(**after, "*"), rev(**before, "*"));
}

}  // namespace
}  // namespace adj::storage_test
