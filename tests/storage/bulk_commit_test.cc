// What commit_turn's bulk writes keep (migration 0016_bulk_revisions.sql, sqlite_store_turns.cc
// UncheckedWrites and TriggersOff, storage/core/state_text.h): one revision bump per commit and
// rollback for the battles and reports while every other writer still bumps per row; CHECKs and
// triggers skipped only for the store's own bulk rows, which need no statement journal; the
// open-state index cut out of the stored state text, byte for byte what serialising each element
// gives; and the upgrade of a database at the previous schema.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <string>

#include "storage/core/state_text.h"
#include "storage/sqlite/database.h"
#include "storage/sqlite/migrator.h"
#include "storage/sqlite/sqlite_store.h"
#include "tests/storage/store_test_util.h"

namespace adj::storage_test {
namespace {

using sqlite::Database;

// Whether `db` runs triggers now (SQLITE_DBCONFIG_ENABLE_TRIGGER, read without changing it).
bool triggers_on(Database& db) {
  int on = -1;
  EXPECT_EQ(sqlite3_db_config(db.handle(), SQLITE_DBCONFIG_ENABLE_TRIGGER, -1, &on), SQLITE_OK);
  return on == 1;
}

// While alive, the default VFS is a pass-through that counts the bytes SQLite writes to statement
// journals kept as files (SQLITE_OPEN_SUBJOURNAL: a statement's journal spilled past its memory
// threshold; once spilled, the transaction's later statements journal into the same file).
// Connections opened before or after it use the real default VFS. One at a time.
class SubjournalCounter {
 public:
  SubjournalCounter() : base_(sqlite3_vfs_find(nullptr)) {
    shim_ = *base_;
    shim_.zName = "adj-count-subjournals";
    shim_.pAppData = base_;
    shim_.pNext = nullptr;
    shim_.xOpen = [](sqlite3_vfs* vfs, sqlite3_filename name, sqlite3_file* file, int flags,
                     int* out) {
      auto* base = static_cast<sqlite3_vfs*>(vfs->pAppData);
      const int rc = base->xOpen(base, name, file, flags, out);
      if (rc == SQLITE_OK && (flags & SQLITE_OPEN_SUBJOURNAL) && file->pMethods) {
        // The same file object and methods, but for xWrite, which counts and passes on.
        real_ = file->pMethods;
        counting_ = *real_;
        counting_.xWrite = [](sqlite3_file* f, const void* data, int n, sqlite3_int64 off) {
          bytes_.fetch_add(n);
          return real_->xWrite(f, data, n, off);
        };
        file->pMethods = &counting_;
      }
      return rc;
    };
    bytes_ = 0;
    EXPECT_EQ(sqlite3_vfs_register(&shim_, 1), SQLITE_OK);
  }
  ~SubjournalCounter() {
    sqlite3_vfs_register(base_, 1);
    sqlite3_vfs_unregister(&shim_);
  }
  long long bytes() const { return bytes_.load(); }

 private:
  static inline std::atomic<long long> bytes_{0};
  static inline const sqlite3_io_methods* real_ = nullptr;
  static inline sqlite3_io_methods counting_{};
  sqlite3_vfs* base_;
  sqlite3_vfs shim_{};
};

class BulkCommitTest : public StoreTest {
 protected:
  // The file the helpers read: the store's, or another the test names.
  std::string path() const { return path_.empty() ? db_path() : path_; }
  std::string query(const std::string& sql) {
    auto db = Database::open(path());
    EXPECT_TRUE(db.ok());
    auto r = db->query(sql, {});
    EXPECT_TRUE(r.ok()) << sql << ": " << r.status().to_string();
    return r.ok() && !r->empty() ? r->text(0, 0) : "";
  }
  Status exec(const std::string& sql) {
    auto db = Database::open(path());
    if (!db.ok()) return db.status();
    return db->exec(sql);
  }
  long long rev(const std::string& game = "britain") {
    return std::stoll(
        query("SELECT coalesce(max(rev), 0) FROM revisions WHERE scope = '" + game + "'"));
  }
  std::string path_;
};

TEST_F(BulkCommitTest, ACommitBumpsTheGameAFixedNumberOfTimesWhateverItsRowCount) {
  create_game_or_fail("britain");
  create_game_or_fail("gaul");
  const auto bumps_of_commit = [&](const std::string& game, int extra_battles) {
    auto state = store_->load_state(game, std::nullopt);
    EXPECT_TRUE(state.ok());
    TurnCommit c = make_commit(*state);
    for (int i = 0; i < extra_battles; ++i)
      c.battles.push_back(BattleRecord{"x." + std::to_string(i), 1, "dark-age", {}, {}, {}, {}});
    const auto before = rev(game);
    EXPECT_TRUE(commit_turn(*store_, game, c).ok());
    return rev(game) - before;
  };
  const auto few = bumps_of_commit("britain", 0);
  const auto many = bumps_of_commit("gaul", 500);
  EXPECT_GT(few, 0);
  EXPECT_EQ(many, few);
  EXPECT_EQ(query("SELECT count(*) FROM battles WHERE game_id = 'gaul'"), "502");
  EXPECT_EQ(query("SELECT count(*) FROM revision_bulk"), "0");  // the mark never outlives it

  // A rollback removing them bumps too, and a fixed number of times as well.
  const auto before = rev("gaul");
  ASSERT_TRUE(store_->rollback("gaul", 1).ok());
  EXPECT_GT(rev("gaul"), before);
  EXPECT_LT(rev("gaul"), before + 10);
  EXPECT_EQ(query("SELECT count(*) FROM revision_bulk"), "0");
}

TEST_F(BulkCommitTest, RowsWrittenByHandStillBumpPerRowAndAreStillChecked) {
  create_game_or_fail();
  commit_open_turn_or_fail();
  const auto before = rev();
  ASSERT_TRUE(exec("INSERT INTO battles(game_id, turn, battle_id, seed, engine, input_json, "
                   "outcome_json) VALUES ('britain', 1, 'hand.1', '7', 'dark-age', '{}', '{}')")
                  .ok());
  EXPECT_EQ(rev(), before + 1);
  ASSERT_TRUE(exec("INSERT INTO reports(game_id, turn, player, text, json) VALUES "
                   "('britain', 1, 'ZZZ', 'hand', '{}')")
                  .ok());
  EXPECT_EQ(rev(), before + 2);
  ASSERT_TRUE(exec("DELETE FROM battles WHERE battle_id = 'hand.1'").ok());
  EXPECT_EQ(rev(), before + 3);
  // Another connection's rows keep their CHECKs.
  EXPECT_FALSE(exec("INSERT INTO battles(game_id, turn, battle_id, seed, engine, input_json, "
                    "outcome_json) VALUES ('britain', 1, 'hand.2', '7', 'dark-age', '{', '{}')")
                   .ok());
  // So do the store's own connection's, once commit_turn is done: the pragma is off again and no
  // statement compiled under it is reused.
  Database& own = store_->database();
  auto flag = own.query("PRAGMA ignore_check_constraints", {});
  ASSERT_TRUE(flag.ok());
  EXPECT_EQ(flag->int64(0, 0), 0);
  // A battle row on `own` through the very statement text commit_turn uses.
  const auto insert_on_own = [&own](const std::string& id, const std::string& input) {
    auto st = own.prepare(
        "INSERT INTO battles(game_id, turn, battle_id, seed, engine, input_json, outcome_json) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)");
    if (!st.ok()) return st.status();
    st->bind(1, "britain")
        .bind(2, 1)
        .bind(3, id)
        .bind(4, "7")
        .bind(5, "dark-age")
        .bind(6, input)
        .bind(7, "{}");
    return st->run();
  };
  EXPECT_FALSE(insert_on_own("hand.3", "not json").ok());
  EXPECT_EQ(query("SELECT count(*) FROM battles WHERE battle_id LIKE 'hand.%'"), "0");
  // Its triggers run again too: the same statement text, compiled afresh, bumps per row.
  EXPECT_TRUE(triggers_on(own));
  const auto before_own = rev();
  ASSERT_TRUE(insert_on_own("hand.4", "{}").ok());
  EXPECT_EQ(rev(), before_own + 1);
}

// A commit's battles and reports are written without statement journals. With a trigger on their
// table every INSERT would copy the B-tree pages it touches into one (16 KB each), and a big turn
// spills it to a temporary file: a commit with 400 more big rows would write megabytes more there.
// (The turn's other writes, a few rows with triggers, may journal a few pages.)
TEST_F(BulkCommitTest, BulkRowsNeedNoStatementJournal) {
  create_game_or_fail("britain");
  create_game_or_fail("gaul");
  store_.reset();
  SubjournalCounter counter;
  auto opened = SqliteStore::open(db_path());  // through the counting VFS
  ASSERT_TRUE(opened.ok()) << opened.status().to_string();
  store_ = std::move(opened).value();
  const std::string big = "{\"pad\":\"" + std::string(20000, 'x') + "\"}";
  const auto journalled = [&](const std::string& game, int rows) {
    auto state = store_->load_state(game, std::nullopt);
    EXPECT_TRUE(state.ok());
    TurnCommit c = make_commit(*state);
    for (int i = 0; i < rows; ++i) {
      BattleRecord b{"x." + std::to_string(i), 1, "dark-age", {}, {}, {}, {}};
      b.input_text = big;
      b.outcome_text = "{}";
      c.battles.push_back(std::move(b));
      c.reports.push_back(ReportRecord{"R" + std::to_string(i), 1, big, {}, big});
    }
    const long long before = counter.bytes();
    EXPECT_TRUE(commit_turn(*store_, game, c).ok());
    return counter.bytes() - before;
  };
  const long long few = journalled("britain", 0);
  const long long many = journalled("gaul", 200);
  // Journalled per row, the 400 rows wrote 26 MB more (SQLite 3.40); without, ~0.2 MB more.
  EXPECT_LT(many - few, 1024 * 1024) << few << " bytes journalled for the small commit";
  EXPECT_EQ(query("SELECT count(*) FROM battles WHERE game_id = 'gaul'"), "202");
  EXPECT_EQ(query("SELECT count(*) FROM revision_bulk"), "0");
  EXPECT_TRUE(triggers_on(store_->database()));
  store_.reset();  // closed before the counting VFS goes
}

TEST_F(BulkCommitTest, AFailedCommitLeavesNoMarkAndChecksOnAgain) {
  create_game_or_fail();
  auto state = store_->load_state("britain", std::nullopt);
  ASSERT_TRUE(state.ok());
  TurnCommit c = make_commit(*state);
  c.battles.push_back(c.battles.front());  // the same battle twice: the key refuses the second
  EXPECT_FALSE(commit_turn(*store_, "britain", c).ok());
  EXPECT_EQ(query("SELECT count(*) FROM revision_bulk"), "0");
  EXPECT_EQ(query("SELECT count(*) FROM battles"), "0");
  auto flag = store_->database().query("PRAGMA ignore_check_constraints", {});
  ASSERT_TRUE(flag.ok());
  EXPECT_EQ(flag->int64(0, 0), 0);
  EXPECT_TRUE(triggers_on(store_->database()));
  commit_open_turn_or_fail();  // and the next try goes through
}

// A database written at the schema before 0016 (with a committed turn and rows by hand) is
// upgraded in place:
// data kept, the guarded triggers in place, and commits and hand-written rows bump as they should.
TEST_F(BulkCommitTest, UpgradesADatabaseAtTheFormerSchema) {
  store_.reset();
  path_ = dir_.file("v15.db");  // the fixture's file is already at the latest schema
  {
    auto db = Database::open(path_);
    ASSERT_TRUE(db.ok());
    auto all = adj::bundled_migrations(sql::Dialect::kSqlite);
    ASSERT_TRUE(all.ok());
    ASSERT_GE(all->size(), 16u);
    ASSERT_EQ((*all)[15].version, 16);
    std::vector<Migration> first15(all->begin(), all->begin() + 15);
    auto v = adj::migrate(*db, first15);
    ASSERT_TRUE(v.ok()) << v.status().to_string();
    ASSERT_EQ(*v, 15);
    ASSERT_TRUE(db->exec("INSERT INTO games(id, name, engine, scenario_json, open_turn, status, "
                         "created_at) VALUES ('britain', 'Britain', 'dark-age', '{}', 2, 'open', "
                         "1600000000);"
                         "INSERT INTO turns(game_id, turn, seed, summary_json, ran_at) VALUES "
                         "('britain', 1, '5', '{}', 1600000001);"
                         "INSERT INTO battles(game_id, turn, battle_id, seed, engine, input_json, "
                         "outcome_json) VALUES ('britain', 1, '1.1.WSX', '6', 'dark-age', '{}', "
                         "'{\"winner\":\"attacker\"}');"
                         "INSERT INTO reports(game_id, turn, player, text, json) VALUES "
                         "('britain', 1, 'WSX', 'Turn 1', '{}');")
                    .ok());
  }
  const auto before = rev();
  EXPECT_GT(before, 3);  // 0013's per-row triggers
  auto opened = SqliteStore::open(path_);
  ASSERT_TRUE(opened.ok()) << opened.status().to_string();
  store_ = std::move(opened).value();
  EXPECT_EQ(query("PRAGMA user_version"),
            std::to_string(adj::bundled_migrations(sql::Dialect::kSqlite)->back().version));
  EXPECT_EQ(rev(), before);
  EXPECT_EQ(query("SELECT outcome_json FROM battles WHERE battle_id = '1.1.WSX'"),
            "{\"winner\":\"attacker\"}");
  EXPECT_EQ(query("SELECT text FROM reports WHERE player = 'WSX'"), "Turn 1");
  EXPECT_EQ(query("SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name IN "
                  "('rev_battles_insert', 'rev_battles_delete', 'rev_reports_insert', "
                  "'rev_reports_delete') AND sql LIKE '%revision_bulk%'"),
            "4");
  ASSERT_TRUE(exec("INSERT INTO reports(game_id, turn, player, text, json) VALUES "
                   "('britain', 1, 'MRC', 'Turn 1', '{}')")
                  .ok());
  EXPECT_EQ(rev(), before + 1);
  ASSERT_TRUE(exec("DELETE FROM battles").ok());
  EXPECT_EQ(rev(), before + 2);
}

TEST(StateTextTest, CutsTheElementsEachAsItsOwnDump) {
  GameState s = make_state("britain");
  s.areas.front().name = "Odd \"name\" with ] and } and \\ inside [{";
  s.normalise();
  const std::string text = to_json(s).dump();
  auto parts = split_state_text(text);
  ASSERT_TRUE(parts.has_value());
  ASSERT_EQ(parts->players.size(), s.players.size());
  ASSERT_EQ(parts->areas.size(), s.areas.size());
  ASSERT_EQ(parts->edges.size(), s.edges.size());
  for (std::size_t i = 0; i < s.players.size(); ++i)
    EXPECT_EQ(parts->players[i], to_json(s.players[i]).dump());
  for (std::size_t i = 0; i < s.areas.size(); ++i)
    EXPECT_EQ(parts->areas[i], to_json(s.areas[i]).dump());
  for (std::size_t i = 0; i < s.edges.size(); ++i)
    EXPECT_EQ(parts->edges[i], to_json(s.edges[i]).dump());

  auto texts = open_state_texts(s, text, "test");
  ASSERT_TRUE(texts.ok());
  EXPECT_TRUE(texts->owned.empty());  // cut out, not serialised again
  auto made = open_state_texts(s, "", "test");
  ASSERT_TRUE(made.ok());
  EXPECT_EQ(made->areas, texts->areas);
  EXPECT_EQ(made->players, texts->players);
  EXPECT_EQ(made->edges, texts->edges);
}

TEST(StateTextTest, TextOfAnotherShapeIsNotCut) {
  for (const char* bad : {"", "{}", "[]", "{\"players\":[],\"areas\":[]}",
                          "{\"players\":[],\"areas\":[],\"adjacency\":[}",
                          "{\"players\":[],\"areas\":[],\"adjacency\":[] }",
                          "{\"players\":[1,],\"areas\":[],\"adjacency\":[]}",
                          "{\"players\":[\"x],\"areas\":[],\"adjacency\":[]}",
                          "{\"players\":[],\"players\":[],\"areas\":[],\"adjacency\":[]}",
                          "{\"players\":[{\"a\":[1]],\"areas\":[],\"adjacency\":[]}"})
    EXPECT_FALSE(split_state_text(bad).has_value()) << bad;
  auto ok = split_state_text("{\"adjacency\":[[\"A\",\"B\"]],\"areas\":[],\"players\":[{}]}");
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(ok->edges.size(), 1u);
  EXPECT_EQ(ok->players.size(), 1u);
  // Counts that disagree with the state: serialised instead.
  GameState s = make_state("britain");
  auto texts = open_state_texts(s, "{\"adjacency\":[],\"areas\":[],\"players\":[]}", "test");
  ASSERT_TRUE(texts.ok());
  EXPECT_EQ(texts->areas.size(), s.areas.size());
  EXPECT_FALSE(texts->owned.empty());
}

}  // namespace
}  // namespace adj::storage_test
