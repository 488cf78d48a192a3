// CredentialStore (SQLite migrations 0005 and 0021, PostgreSQL 0002_admin.sql and
// 0011_session_activity.sql) on every backend: secret and token hashes per player, link
// replacement, the session bound, session use and revocation, and errors that never echo what was
// refused.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "tests/storage/backend_sql.h"
#include "tests/storage/shared_db.h"
#include "tests/storage/store_test_util.h"

namespace adj::storage_test {
namespace {

class CredentialStoreTest : public BackendTest {
 protected:
  std::string sql_text(const std::string& sql) { return query_text(*store_, dir_, sql); }
};
ADJ_ON_EVERY_BACKEND(CredentialStoreTest);

TEST_P(CredentialStoreTest, TokenHashesOpenOnlyTheirPlayer) {
  create_game_or_fail("britain");
  create_game_or_fail("albion");
  CredentialStore& creds = *store_;
  const std::string h1(64, 'a'), h2(64, 'b'), h3(64, 'c');
  ASSERT_TRUE(creds.set_link_token("britain", "WSX", h1, 1).ok());
  EXPECT_EQ(creds.token_record(h1)->game, "britain");
  EXPECT_EQ(creds.token_record(h1)->player, "WSX");
  // A new link replaces the old one; sessions are kept until revoked.
  ASSERT_TRUE(creds.add_session_token("britain", "WSX", h3, 2).ok());
  ASSERT_TRUE(creds.set_link_token("britain", "WSX", h2, 3).ok());
  EXPECT_EQ(creds.token_record(h1).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(creds.token_record(h2)->player, "WSX");
  EXPECT_EQ(creds.token_record(h3)->player, "WSX");
  ASSERT_TRUE(creds.revoke_tokens("britain", "WSX").ok());
  EXPECT_EQ(creds.token_record(h2).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(creds.token_record(h3).status().code(), StatusCode::kNotFound);
  // Only hash-shaped values are stored.
  EXPECT_FALSE(creds.set_link_token("britain", "WSX", "0123456789abcdef0123456789abcdef", 4).ok());
  EXPECT_EQ(creds.set_link_token("nope", "WSX", h1, 4).code(), StatusCode::kNotFound);
  EXPECT_EQ(creds.set_link_token("britain", "", h1, 4).code(), StatusCode::kInvalidArgument);
  // Sessions are bounded per player.
  for (int i = 0; i < CredentialStore::kMaxSessions + 5; ++i) {
    std::string h = std::to_string(1000 + i);
    h += std::string(64 - h.size(), 'd');
    ASSERT_TRUE(creds.add_session_token("albion", "MRC", h, 10 + i).ok());
  }
  EXPECT_EQ(sql_text("SELECT count(*) FROM player_token_hashes WHERE game_id = 'albion'"),
            std::to_string(CredentialStore::kMaxSessions));
  EXPECT_EQ(creds.token_record("1000" + std::string(60, 'd')).status().code(),
            StatusCode::kNotFound);  // the oldest went
}

TEST_P(CredentialStoreTest, SessionUseIsRecordedAndOtherSessionsRevoked) {
  create_game_or_fail("britain");
  CredentialStore& creds = *store_;
  const std::string link(64, 'a'), mine(64, 'b'), other(64, 'c'), theirs(64, 'f');
  ASSERT_TRUE(creds.set_link_token("britain", "WSX", link, 1).ok());
  ASSERT_TRUE(creds.add_session_token("britain", "WSX", mine, 10).ok());
  ASSERT_TRUE(creds.add_session_token("britain", "WSX", other, 11).ok());
  ASSERT_TRUE(creds.add_session_token("britain", "MRC", theirs, 12).ok());
  auto r = creds.token_record(mine);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_TRUE(r->session);
  EXPECT_EQ(r->player, "WSX");
  EXPECT_EQ(r->created_at, 10);
  EXPECT_EQ(r->last_used_at, 10);  // never used yet: its creation counts
  ASSERT_TRUE(creds.touch_session(mine, 500).ok());
  ASSERT_TRUE(creds.touch_session(mine, 400).ok());  // never back in time
  EXPECT_EQ(creds.token_record(mine)->last_used_at, 500);
  ASSERT_TRUE(creds.touch_session(link, 600).ok());  // a link has no recorded use
  EXPECT_FALSE(creds.token_record(link)->session);
  EXPECT_EQ(creds.token_record(link)->last_used_at, 1);
  EXPECT_EQ(creds.token_record(std::string(64, 'd')).status().code(), StatusCode::kNotFound);
  // Every other session of the player goes; the link and the other player's stay.
  ASSERT_TRUE(creds.revoke_sessions("britain", "WSX", mine).ok());
  EXPECT_TRUE(creds.token_record(mine).ok());
  EXPECT_EQ(creds.token_record(other).status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(creds.token_record(link).ok());
  EXPECT_TRUE(creds.token_record(theirs).ok());
  ASSERT_TRUE(creds.revoke_sessions("britain", "WSX", "").ok());
  EXPECT_EQ(creds.token_record(mine).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(sql_text("SELECT count(*) FROM session_activity"), "0");  // gone with its token
}

TEST_P(CredentialStoreTest, SecretHashesArePerPlayer) {
  create_game_or_fail("britain");
  CredentialStore& creds = *store_;
  EXPECT_EQ(creds.secret_hash("britain", "WSX").status().code(), StatusCode::kNotFound);
  ASSERT_TRUE(creds.set_secret_hash("britain", "WSX", "$argon2id$v=19$x", 1).ok());
  ASSERT_TRUE(creds.set_secret_hash("britain", "WSX", "$argon2id$v=19$y", 2).ok());
  EXPECT_EQ(*creds.secret_hash("britain", "WSX"), "$argon2id$v=19$y");
  EXPECT_FALSE(creds.set_secret_hash("britain", "MRC", "penda", 3).ok());  // never in clear
  EXPECT_EQ(creds.set_secret_hash("nope", "WSX", "$argon2id$v=19$x", 1).code(),
            StatusCode::kNotFound);
}

TEST_P(CredentialStoreTest, SessionsOfOneSecondKeepTheNewest) {
  // Every session made in the same second: the bound still holds and the one just added stays.
  create_game_or_fail("britain");
  CredentialStore& creds = *store_;
  std::string last;
  for (int i = 0; i < CredentialStore::kMaxSessions + 3; ++i) {
    last = std::to_string(9000 - i);  // each hash sorts below the one before
    last += std::string(64 - last.size(), 'e');
    ASSERT_TRUE(creds.add_session_token("britain", "WSX", last, 50).ok());
    EXPECT_EQ(creds.token_record(last)->player, "WSX") << i;
  }
  EXPECT_EQ(sql_text("SELECT count(*) FROM player_token_hashes WHERE player = 'WSX'"),
            std::to_string(CredentialStore::kMaxSessions));
}

TEST_P(CredentialStoreTest, RefusedValuesAreNotEchoedInErrors) {
  create_game_or_fail("britain");
  CredentialStore& creds = *store_;
  const Status clear = creds.set_secret_hash("britain", "MRC", "penda-the-strong", 3);
  EXPECT_EQ(clear.code(), StatusCode::kInvalidArgument) << clear.to_string();
  EXPECT_EQ(clear.to_string().find("penda-the-strong"), std::string::npos) << clear.to_string();

  const std::string short_hash = "0123456789abcdef0123456789abcdef";
  const Status shape = creds.set_link_token("britain", "WSX", short_hash, 4);
  EXPECT_EQ(shape.code(), StatusCode::kInvalidArgument) << shape.to_string();
  EXPECT_EQ(shape.to_string().find(short_hash), std::string::npos) << shape.to_string();

  // A hash that is already another player's token.
  const std::string h(64, 'f');
  ASSERT_TRUE(creds.add_session_token("britain", "WSX", h, 5).ok());
  const Status taken = creds.add_session_token("britain", "MRC", h, 6);
  EXPECT_EQ(taken.code(), StatusCode::kAlreadyExists) << taken.to_string();
  EXPECT_EQ(taken.to_string().find(h), std::string::npos) << taken.to_string();
  EXPECT_EQ(creds.token_record(h)->player, "WSX");

  const auto unknown = creds.token_record(std::string(64, '9'));
  EXPECT_EQ(unknown.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(unknown.status().to_string().find(std::string(64, '9')), std::string::npos);
}

// Two connections replacing one player's link at once leave exactly one link.
class CredentialConcurrencyTest : public SharedDatabaseTest {};
ADJ_ON_EVERY_BACKEND(CredentialConcurrencyTest);

TEST_P(CredentialConcurrencyTest, ConcurrentLinkReplacementsLeaveOneLink) {
  create_game_or_fail("britain");
  std::vector<std::thread> threads;
  for (char c : {'a', 'b'})
    threads.emplace_back([this, c] {
      auto store = open();
      ASSERT_TRUE(store);
      for (int i = 0; i < 30; ++i) {
        std::string h = std::to_string(100 + i);
        h = h + std::string(64 - h.size(), c);
        const Status s = store->set_link_token("britain", "WSX", h, i);
        ASSERT_TRUE(s.ok()) << s.to_string();
      }
    });
  for (auto& t : threads) t.join();
  auto store = open();
  ASSERT_TRUE(store);
  int links = 0;
  for (char c : {'a', 'b'})
    for (int i = 0; i < 30; ++i) {
      std::string h = std::to_string(100 + i);
      h = h + std::string(64 - h.size(), c);
      if (store->token_record(h).ok()) ++links;
    }
  EXPECT_EQ(links, 1);
}

}  // namespace
}  // namespace adj::storage_test
