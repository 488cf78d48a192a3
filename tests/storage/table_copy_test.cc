// `adjutant copy` (storage/table_copy.h, server/cli/copy_commands.cc) end to end: a real game
// built through the command line (demo turns, mail in and out, press, audit entries, player
// secrets) copied SQLite -> SQLite and SQLite -> PostgreSQL -> SQLite, every table compared and
// the games loaded through the Store on every backend; refusals and a row changed behind the
// copy's back.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <map>
#include <sstream>

#include "rules/game/state.h"
#include "storage/open_database.h"
#include "storage/table_copy.h"
#include "tests/support/cli_runner.h"
#include "tests/support/pg_test_db.h"
#include "tests/support/temp_dir.h"

namespace adj {
namespace {

using ::adj::testing::run_cli;

const std::string kPressMail =
    "From: Wessex <wessex@example.org>\r\nTo: orders@pbm.example.net\r\nSubject: britain-1\r\n"
    "Message-ID: <press.1@example.org>\r\nDate: Sat, 21 Nov 2026 10:13:58 +0100\r\n\r\n"
    "GAME britain-1\nPLAYER WSX cerdic\nPRESS TO ALL\nHear ye, all kings\nENDPRESS\nEND\n";

// The URL form of a test conninfo "host=DIR port=P user=U dbname=D".
std::string pg_url(const std::string& conninfo) {
  std::map<std::string, std::string> kv;
  std::istringstream in(conninfo);
  for (std::string word; in >> word;)
    if (auto eq = word.find('='); eq != std::string::npos)
      kv[word.substr(0, eq)] = word.substr(eq + 1);
  return "postgresql:///" + kv["dbname"] + "?host=" + kv["host"] + "&port=" + kv["port"] +
         "&user=" + kv["user"];
}

// Runs one SQL statement on a SQLite file directly (behind the store's back).
void sqlite_exec(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  const std::string msg = err ? err : "";
  sqlite3_free(err);
  sqlite3_close(db);
  ASSERT_EQ(rc, SQLITE_OK) << msg;
}

std::int64_t rows_of(const std::vector<TableCount>& counts, const std::string& table) {
  for (const auto& c : counts)
    if (c.table == table) return c.rows;
  return -1;
}

class TableCopy : public ::testing::Test {
 protected:
  ::adj::testing::CliResult cli(const std::string& db, std::vector<std::string> args,
                                const std::string& input = "") {
    args.insert(args.begin(), {"--db", db});
    return run_cli(args, input);
  }

  // A host with one game that has run turns, mail, press, audit entries and secrets, and an
  // order file whose bytes are not UTF-8 text (NUL, 0xFF).
  void build_host(const std::string& db) {
    auto r = cli(db, {"demo", "--turns", "2"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    r = cli(db, {"press", "options", "britain-1", "--press", "public"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    r = cli(db,
            {"ingest", "--mail-from", "orders@pbm.example.net", "--base-url",
             "https://pbm.example.net"},
            ::adj::testing::read_file(std::string(ADJ_SOURCE_DIR) + "/tests/data/mail/plain.eml"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    r = cli(db, {"ingest"}, kPressMail);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    r = cli(db, {"turn", "run", "britain-1"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    sqlite_exec(db,
                "UPDATE submissions SET raw_text = CAST(X'4741000AFFFE0D0A454E44' AS TEXT) "
                "WHERE id = (SELECT min(id) FROM submissions)");
  }

  // Every table of `a` and `b` equal; the counts.
  std::vector<TableCount> compare(const std::string& a, const std::string& b) {
    auto x = open_table_access(a, true);
    auto y = open_table_access(b, true);
    EXPECT_TRUE(x.ok() && y.ok());
    if (!x.ok() || !y.ok()) return {};
    auto counts = compare_tables(**x, **y);
    EXPECT_TRUE(counts.ok()) << counts.status().message();
    return counts.ok() ? *counts : std::vector<TableCount>{};
  }

  // Every game's states (each turn, whole and through the open-turn view) and reports, as JSON
  // text, through the Store.
  std::string games_as_loaded(const std::string& db) {
    auto store = open_database(db);
    EXPECT_TRUE(store.ok()) << store.status().message();
    if (!store.ok()) return "";
    std::string out;
    auto games = (*store)->list_games();
    EXPECT_TRUE(games.ok());
    for (const auto& g : *games) {
      out += g.id + " turn " + std::to_string(g.turn) + " " + g.status + "\n";
      for (int t = 1; t <= g.turn; ++t) {
        auto s = (*store)->load_state(g.id, t);
        EXPECT_TRUE(s.ok()) << s.status().message();
        if (!s.ok()) continue;
        const Json state = to_json(*s);
        out += state.dump() + "\n";
        for (const auto& p : state.at("players")) {
          auto rep = (*store)->report(g.id, p.at("code").get<std::string>(), t);
          if (rep.ok()) out += rep->text + rep->json.dump() + "\n";
        }
      }
      auto view = (*store)->load_view(g.id, std::nullopt, {"WSX"}, {"HAM", "OXF"});
      if (view.ok()) out += "view " + to_json(*view).dump() + "\n";
      auto subs = (*store)->all_submissions(g.id);
      EXPECT_TRUE(subs.ok());
      for (const auto& s : *subs) out += s.player + "|" + s.raw_text + "\n";
    }
    return out;
  }

  ::adj::testing::TempDir dir_;
  std::string a_ = dir_.file("a.db");
  std::string b_ = dir_.file("b.db");
};

TEST_F(TableCopy, SqliteToSqliteCopiesEveryTableAndTheGamesLoadTheSame) {
  build_host(a_);
  auto r = run_cli({"copy", "--from", "sqlite:" + a_, "--to", "sqlite:" + b_});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("every row equal"), std::string::npos) << r.out;
  const auto counts = compare(a_, b_);
  for (const char* t :
       {"games", "turn_states", "turns", "reports", "submissions", "audit_log", "inbox", "outbox",
        "press", "player_secrets", "revisions", "open_states", "open_state_areas"})
    EXPECT_GT(rows_of(counts, t), 0) << t;
  EXPECT_EQ(rows_of(counts, "pending_upgrades"), 0);
  EXPECT_EQ(rows_of(counts, "schema_migrations"), -1);  // each side's own
  EXPECT_EQ(games_as_loaded(a_), games_as_loaded(b_));
}

TEST_F(TableCopy, SqliteToPostgresAndBackIsTheSameToTheByte) {
  auto conninfo = ::adj::testing::fresh_pg_database();
  if (!conninfo.ok()) GTEST_SKIP() << "PostgreSQL unavailable: " << conninfo.status().message();
  const std::string pg = pg_url(*conninfo);
  build_host(a_);
  auto r = run_cli({"copy", "--from", a_, "--to", pg});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  // Both backends have the open-state index: copied like any table, not skipped.
  EXPECT_EQ(r.out.find("skipped"), std::string::npos) << r.out;
  {
    const auto to_pg = compare(a_, pg);
    for (const char* t : {"open_states", "open_state_players", "open_state_areas"})
      EXPECT_GT(rows_of(to_pg, t), 0) << t;
  }
  // Once it holds games, PostgreSQL is refused as a destination too; and as its own source.
  auto again = run_cli({"copy", "--from", a_, "--to", pg});
  EXPECT_EQ(again.exit_code, 2) << again.out << again.err;
  EXPECT_NE(again.err.find("the destination already holds 1 game(s)"), std::string::npos)
      << again.err;
  again = run_cli({"copy", "--from", pg, "--to", pg + "&connect_timeout=5"});
  EXPECT_EQ(again.exit_code, 2) << again.out << again.err;
  EXPECT_NE(again.err.find("are the same database"), std::string::npos) << again.err;
  r = run_cli({"copy", "--from", pg, "--to", "sqlite:" + b_});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find("rebuilt"), std::string::npos) << r.out;

  // The two SQLite files hold the same rows in every table, the open-state index included
  // (copied both ways), and the revisions as the source had them.
  const auto counts = compare(a_, b_);
  EXPECT_GT(rows_of(counts, "open_state_areas"), 0);
  EXPECT_GT(rows_of(counts, "submissions"), 0);
  const std::string loaded = games_as_loaded(a_);
  EXPECT_NE(loaded.find(std::string("GA\0\n\xff\xfe", 6)), std::string::npos);
  EXPECT_EQ(loaded, games_as_loaded(pg));
  EXPECT_EQ(loaded, games_as_loaded(b_));

  // The identity sequences were moved past the copied ids: a new row gets the next id.
  auto store = open_database(pg);
  ASSERT_TRUE(store.ok());
  const auto before = (*store)->all_submissions("britain-1");
  ASSERT_TRUE(before.ok());
  SubmissionRecord s = before->back();
  s.id = 0;
  s.turn = (*store)->game_summary("britain-1")->turn;
  s.current = false;
  s.accepted = false;
  auto id = (*store)->put_submission(s);
  ASSERT_TRUE(id.ok()) << id.status().message();
  EXPECT_EQ(*id, before->back().id + 1);
}

TEST_F(TableCopy, ADestinationWithGamesIsRefusedAndLeftAlone) {
  build_host(a_);
  ASSERT_EQ(
      cli(b_, {"game", "create", "bundled:dark-age-britain", "--demo-secrets", "--id", "other-1"})
          .exit_code,
      0);
  auto before = open_table_access(b_, true);
  ASSERT_TRUE(before.ok());
  ASSERT_TRUE((*before)->begin_read().ok());
  const auto games_before = (*before)->count("games");
  const auto audit_before = (*before)->count("audit_log");
  (*before)->end_read();
  auto r = run_cli({"copy", "--from", a_, "--to", b_});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("the destination already holds 1 game(s)"), std::string::npos) << r.err;
  ASSERT_TRUE((*before)->begin_read().ok());
  EXPECT_EQ(*(*before)->count("games"), *games_before);
  EXPECT_EQ(*(*before)->count("audit_log"), *audit_before);
  EXPECT_EQ(*(*before)->count("submissions"), 0);
  (*before)->end_read();
}

TEST_F(TableCopy, TheSameDatabaseTwiceIsRefused) {
  build_host(a_);
  auto r = run_cli({"copy", "--from", a_, "--to", "sqlite:" + dir_.path().string() + "/./a.db"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("are the same database"), std::string::npos) << r.err;
  r = run_cli({"copy", "--from", dir_.file("missing.db"), "--to", b_});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("no such file"), std::string::npos) << r.err;
}

TEST_F(TableCopy, ARowChangedBehindTheCopysBackIsFoundAndNoSecretIsShown) {
  build_host(a_);
  ASSERT_EQ(run_cli({"copy", "--from", a_, "--to", b_}).exit_code, 0);
  // A secret hash changed in the copy: the table and key are named, the hash is not.
  sqlite_exec(b_,
              "UPDATE player_secrets SET secret_hash = '$argon2id$changed' "
              "WHERE player = 'WSX'");
  auto x = open_table_access(a_, true);
  auto y = open_table_access(b_, true);
  ASSERT_TRUE(x.ok() && y.ok());
  auto diff = compare_tables(**x, **y);
  ASSERT_FALSE(diff.ok());
  const std::string m = diff.status().message();
  EXPECT_NE(m.find("table player_secrets: row (game_id=\"britain-1\", player=\"WSX\") differs in "
                   "column secret_hash"),
            std::string::npos)
      << m;
  EXPECT_EQ(m.find("argon2"), std::string::npos) << m;

  // A row only in the copy.
  sqlite_exec(b_,
              "UPDATE player_secrets SET secret_hash = (SELECT secret_hash FROM "
              "player_secrets WHERE player = 'MRC') WHERE player = 'WSX'");
  sqlite_exec(b_, "INSERT INTO auth_throttle(key) VALUES ('sender:zz@example.org')");
  auto y2 = open_table_access(b_, true);
  ASSERT_TRUE(y2.ok());
  diff = compare_tables(**x, **y2);
  ASSERT_FALSE(diff.ok());
  EXPECT_NE(diff.status().message().find("table "), std::string::npos);
}

TEST_F(TableCopy, ASourceWithAPendingCredentialUpgradeIsRefused) {
  build_host(a_);
  sqlite_exec(a_, "INSERT INTO pending_upgrades(name) VALUES ('hash_credentials')");
  auto r = run_cli({"copy", "--from", a_, "--to", b_});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("pending upgrade step"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(b_));  // created for the copy, removed when refused
}

TEST_F(TableCopy, ATableOrColumnOnOneSideOnlyIsRefusedByName) {
  build_host(a_);
  sqlite_exec(a_, "ALTER TABLE games ADD COLUMN note TEXT");
  ASSERT_EQ(cli(b_, {"game", "list"}).exit_code, 0);  // b: migrated, empty
  sqlite_exec(b_, "CREATE TABLE extra (x INTEGER)");
  auto r = run_cli({"copy", "--from", a_, "--to", b_});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("column games.note is only in the source"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("table extra is only in the destination"), std::string::npos) << r.err;
  auto y = open_table_access(b_, true);
  ASSERT_TRUE(y.ok());
  ASSERT_TRUE((*y)->begin_read().ok());
  EXPECT_EQ(*(*y)->count("games"), 0);
  (*y)->end_read();
}

}  // namespace
}  // namespace adj
