// Migration 0005 and its C++ step (SqliteStore::upgrade_credentials, run by open_store) on a
// database laid out as the code before it wrote one: secrets in clear in the scenario copy and
// every turn state, link tokens in clear, PLAYER secrets in stored order files.
#include "server/app/open_store.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "rules/game/scenario.h"
#include "server/app/secrets.h"
#include "server/app/services.h"
#include "storage/sqlite/database.h"
#include "storage/sqlite/migrator.h"
#include "storage/sqlite/sqlite_store.h"
#include "tests/support/cli_runner.h"
#include "tests/support/temp_dir.h"

namespace adj {
namespace {

constexpr UnixTime kUpgradeNow = 1'800'000'000;
constexpr char kOldToken[] = "0123456789abcdef0123456789abcdef";

// A version-4 database with one game as the code before migration 0005 stored it.
void make_old_database(const std::string& path) {
  auto db = sqlite::Database::open(path);
  ASSERT_TRUE(db.ok()) << db.status().to_string();
  auto all = adj::bundled_migrations(sql::Dialect::kSqlite);
  ASSERT_TRUE(all.ok());
  std::vector<Migration> first4(all->begin(), all->begin() + 4);
  ASSERT_EQ(*adj::migrate(*db, first4), 4);

  Json scenario = *bundled_scenario_published("dark-age-britain");
  auto state = state_from_scenario(scenario, 42);
  ASSERT_TRUE(state.ok());
  const std::string state_json = to_json(*state).dump();
  ASSERT_NE(state_json.find("cerdic"), std::string::npos);  // as the old code stored it
  auto ins = db->prepare(
      "INSERT INTO games(id, name, engine, scenario_json, status, open_turn, created_at) "
      "VALUES ('britain-1', 'Dark Age Britain', 'dark-age', ?, 'open', 1, 1)");
  ASSERT_TRUE(ins.ok());
  ins->bind(1, scenario.dump());
  ASSERT_TRUE(ins->run().ok());
  auto st = db->prepare(
      "INSERT INTO turn_states(game_id, turn, state_json) VALUES "
      "('britain-1', 1, ?)");
  st->bind(1, state_json);
  ASSERT_TRUE(st->run().ok());
  auto tok = db->prepare(
      "INSERT INTO player_tokens(token, game_id, player) VALUES "
      "(?, 'britain-1', 'MRC')");
  tok->bind(1, kOldToken);
  ASSERT_TRUE(tok->run().ok());
  auto sub = db->prepare(
      "INSERT INTO submissions(game_id, player, turn, source, received_at, raw_text, ack_json, "
      "accepted, current) VALUES ('britain-1', 'WSX', 1, 'cli', 1, ?, '{}', 0, 0)");
  sub->bind(1, "GAME britain-1\nPLAYER WSX cerdic # mine\nDEFEND WIN cerdic\n");
  ASSERT_TRUE(sub->run().ok());
}

TEST(CredentialsUpgrade, AnOldDatabaseEndsWithHashesOnly) {
  ::adj::testing::TempDir dir;
  const std::string path = dir.file("old.db");
  make_old_database(path);
  if (HasFatalFailure()) return;

  auto store = open_store(path, kUpgradeNow);
  ASSERT_TRUE(store.ok()) << store.status().to_string();
  Store& s = **store;
  EXPECT_EQ(*s.schema_version(),
            static_cast<int>(adj::bundled_migrations(sql::Dialect::kSqlite)->size()));

  // Nothing in clear is left: not in the states, the scenario copy, the tokens or the files.
  EXPECT_EQ(to_json(*s.load_state("britain-1", 1)).dump().find("cerdic"), std::string::npos);
  EXPECT_EQ(s.scenario("britain-1")->dump().find("\"secret\""), std::string::npos);
  auto subs = s.all_submissions("britain-1");
  ASSERT_EQ(subs->size(), 1u);
  // Only the PLAYER line's secret is masked; the rest of the file is kept as it was.
  EXPECT_EQ(subs->front().raw_text,
            "GAME britain-1\nPLAYER WSX ******** # mine\nDEFEND WIN cerdic\n");
  // The same secrets and the same link keep working.
  Services svc(Stores{s, s, s, s, s, s}, [] { return kUpgradeNow; });
  EXPECT_TRUE(svc.authenticate_player("britain-1", "WSX", "cerdic").ok());
  EXPECT_TRUE(svc.authenticate_player("britain-1", "GWN", "cadwallon").ok());
  EXPECT_FALSE(svc.authenticate_player("britain-1", "WSX", "penda").ok());
  EXPECT_EQ(svc.token_owner(kOldToken)->second, "MRC");
  auto sub = svc.check_orders("britain-1", "GAME britain-1\nPLAYER MRC penda\nDEFEND LIN\n");
  ASSERT_TRUE(sub.ok());
  EXPECT_FALSE(sub->ack.refused) << sub->ack.refusal;

  // Closing checkpoints the WAL into the file, which then holds no secret or token in clear
  // (SQLite overwrites the pages it rewrote; secure_delete is not needed for that).
  store->reset();
  const std::string raw =
      ::adj::testing::read_file(path) + ::adj::testing::read_file(path + "-wal");
  EXPECT_EQ(raw.find(kOldToken), std::string::npos);
  for (const char* secret : {"penda", "oswald", "raedwald", "cadwallon"})
    EXPECT_EQ(raw.find(secret), std::string::npos) << secret;

  // Opening again does nothing more (the step ran once).
  auto again = SqliteStore::open(path);
  ASSERT_TRUE(again.ok());
  auto hashed = (*again)->upgrade_credentials(
      [](std::string_view) -> Result<std::string> { return Status::Internal("not again"); },
      [](std::string_view t) { return hash_token(t); }, kUpgradeNow);
  ASSERT_TRUE(hashed.ok()) << hashed.status().to_string();
  EXPECT_EQ(*hashed, 0);
}

TEST(CredentialsUpgrade, AFailingStepChangesNothingAndStaysPending) {
  ::adj::testing::TempDir dir;
  const std::string path = dir.file("old.db");
  make_old_database(path);
  if (HasFatalFailure()) return;
  auto store = SqliteStore::open(path);
  ASSERT_TRUE(store.ok());
  auto failed = (*store)->upgrade_credentials(
      [](std::string_view) -> Result<std::string> { return Status::Internal("no memory"); },
      [](std::string_view t) { return hash_token(t); }, kUpgradeNow);
  EXPECT_FALSE(failed.ok());
  EXPECT_NE(to_json(*(*store)->load_state("britain-1", 1)).dump().find("cerdic"),
            std::string::npos);
  store->reset();
  auto fixed = open_store(path, kUpgradeNow);
  ASSERT_TRUE(fixed.ok()) << fixed.status().to_string();
  EXPECT_EQ(to_json(*(*fixed)->load_state("britain-1", 1)).dump().find("cerdic"),
            std::string::npos);
}

TEST(Secrets, HashesAreSaltedArgon2idAndTokensAreHexHashes) {
  auto a = hash_secret("cerdic");
  auto b = hash_secret("cerdic");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(*a, *b);  // salted
  EXPECT_EQ(a->rfind("$argon2id$v=19$", 0), 0u);
  EXPECT_TRUE(verify_secret("cerdic", *a));
  EXPECT_FALSE(verify_secret("Cerdic", *a));
  EXPECT_FALSE(verify_secret("cerdic", ""));
  EXPECT_FALSE(verify_secret("cerdic", "$argon2id$garbage"));
  EXPECT_EQ(hash_token(kOldToken).size(), 64u);
  EXPECT_EQ(hash_token(kOldToken), hash_token(kOldToken));
  EXPECT_NE(new_token(), new_token());
  const std::string s = new_secret();
  EXPECT_TRUE(acceptable_secret(s, nullptr)) << s;
  EXPECT_FALSE(acceptable_secret("short", nullptr));
  EXPECT_FALSE(acceptable_secret("has space in", nullptr));
  EXPECT_FALSE(acceptable_secret("hash#inside", nullptr));
  // The default cost (unless the environment lowers it, as the test suite does for speed).
  const SecretHashCost defaults;
  EXPECT_EQ(defaults.opslimit, 2u);
  EXPECT_EQ(defaults.memlimit, std::size_t{64} << 20);
  EXPECT_EQ(defaults.max_concurrent, 2);
  EXPECT_FALSE(set_secret_hash_cost({1, 1024, 2}).ok());  // below libsodium's 8 KiB
  EXPECT_FALSE(set_secret_hash_cost({2, 1 << 20, 0}).ok());
}

}  // namespace
}  // namespace adj
