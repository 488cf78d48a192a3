// MembershipStore on every backend: sign-ups and contacts, and contacts applied to every loaded
// state.
#include <gtest/gtest.h>

#include "tests/storage/store_test_util.h"

namespace adj::storage_test {
namespace {

class MembershipStoreTest : public BackendTest {
 protected:
  Store& store() { return *store_; }
};

Signup signup(const std::string& email, std::vector<std::string> prefs = {}) {
  Signup s;
  s.game = "g1";
  s.email = email;
  s.preferences = std::move(prefs);
  s.channel = "mail";
  s.created_at = 100;
  return s;
}

TEST_P(MembershipStoreTest, SignupsAreOnePerAddressAndBounded) {
  ASSERT_TRUE(store().create_game(make_state("g1"), make_scenario("g1"), 1).ok());
  auto a = store().add_signup(signup("Ann@Example.net", {"WSX", "MRC"}), 2);
  ASSERT_TRUE(a.ok()) << a.status().to_string();
  EXPECT_EQ(store().add_signup(signup("ann@example.NET"), 2).status().code(),
            StatusCode::kAlreadyExists);
  ASSERT_TRUE(store().add_signup(signup("bob@example.net"), 2).ok());
  EXPECT_EQ(store().add_signup(signup("cy@example.net"), 2).status().code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(store().add_signup(signup(""), 2).status().code(), StatusCode::kInvalidArgument);
  Signup other = signup("ann@example.net");
  other.game = "nope";
  EXPECT_EQ(store().add_signup(other, 2).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store().signups("nope").status().code(), StatusCode::kNotFound);

  auto list = store().signups("g1");
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].email, "Ann@Example.net");
  EXPECT_EQ((*list)[0].preferences, (std::vector<std::string>{"WSX", "MRC"}));
  EXPECT_EQ((*list)[0].state, "pending");
  ASSERT_TRUE(store().set_signup_state("g1", *a, "assigned", "WSX").ok());
  EXPECT_EQ((*store().signups("g1"))[0].player, "WSX");
  EXPECT_EQ(store().set_signup_state("g1", 999, "approved", "").code(), StatusCode::kNotFound);
  EXPECT_FALSE(store().set_signup_state("g1", *a, "bogus", "").ok()) << "CHECK on state";
  auto full = store().add_signup(signup("cy@example.net"), 2);
  EXPECT_EQ(full.status().message(), "the sign-up list is full (2 sign-ups)");
  EXPECT_EQ(store().add_signup(signup("ANN@example.net"), 5).status().message(),
            "ANN@example.net is already on the sign-up list");
}

TEST_P(MembershipStoreTest, ContactsOverrideTheEmailOfEveryLoadedState) {
  ASSERT_TRUE(store().create_game(make_state("g1"), make_scenario("g1"), 1).ok());
  ASSERT_TRUE(store().set_contact("g1", Contact{"WSX", "new@example.net", "Ann", 5}).ok());
  ASSERT_TRUE(store().set_contact("g1", Contact{"MRC", "", "", 5}).ok());
  auto st = store().load_state("g1", std::nullopt);
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->players[0].code, "MRC");
  EXPECT_EQ(st->players[0].email, "");
  EXPECT_EQ(st->players[1].email, "new@example.net");
  // Replaced, not added.
  ASSERT_TRUE(store().set_contact("g1", Contact{"WSX", "newer@example.net", "Ann", 6}).ok());
  auto cs = store().contacts("g1");
  ASSERT_TRUE(cs.ok());
  ASSERT_EQ(cs->size(), 2u);
  EXPECT_EQ((*cs)[1].email, "newer@example.net");
  EXPECT_EQ((*cs)[1].name, "Ann");
  EXPECT_EQ(store().set_contact("nope", Contact{"WSX", "a@b.c", "", 1}).code(),
            StatusCode::kNotFound);
  EXPECT_EQ(store().contacts("nope").status().code(), StatusCode::kNotFound);
}

PendingConfirmation pending(const std::string& address, const std::string& client, char hash,
                            UnixTime at) {
  PendingConfirmation p;
  p.game = "g1";
  p.kind = "standby";
  p.address = address;
  p.client = client;
  p.payload = "{}";
  p.code_hash = std::string(64, hash);
  p.created_at = at;
  p.expires_at = at + 1000;
  return p;
}

// Requests are bounded per client and per address within the window, and per game while
// unconfirmed; a code is used once and not after it expired; removing a sign-up.
TEST_P(MembershipStoreTest, ConfirmationsAreBoundedSingleUseAndExpire) {
  ASSERT_TRUE(store().create_game(make_state("g1"), make_scenario("g1"), 1).ok());
  const ConfirmationLimits l{3, 2, 100, 4};
  ASSERT_TRUE(store().add_confirmation(pending("a@example.net", "c1", 'a', 10), l).ok());
  ASSERT_TRUE(store().add_confirmation(pending("A@example.NET", "c2", 'b', 11), l).ok());
  auto third = store().add_confirmation(pending("a@example.net", "c3", 'c', 12), l);
  EXPECT_EQ(third.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(third.status().message().rfind("address:", 0), 0u) << third.status().message();
  ASSERT_TRUE(store().add_confirmation(pending("b@example.net", "c1", 'd', 13), l).ok());
  ASSERT_TRUE(store().add_confirmation(pending("c@example.net", "c1", 'e', 14), l).ok());
  auto fourth = store().add_confirmation(pending("d@example.net", "c1", 'f', 15), l);
  EXPECT_EQ(fourth.status().message().rfind("client:", 0), 0u) << fourth.status().message();
  auto game = store().add_confirmation(pending("d@example.net", "c4", 'f', 15), l);
  EXPECT_EQ(game.status().message().rfind("game:", 0), 0u) << game.status().message();
  // Past the window the client may ask again (the game's bound still counts the four).
  EXPECT_EQ(store().add_confirmation(pending("e@example.net", "c1", '1', 120), l).status().code(),
            StatusCode::kUnavailable);
  // Used once.
  auto used = store().use_confirmation(std::string(64, 'a'), 50);
  ASSERT_TRUE(used.ok()) << used.status().to_string();
  ASSERT_TRUE(used->has_value());
  EXPECT_EQ((*used)->address, "a@example.net");
  EXPECT_EQ((*used)->kind, "standby");
  EXPECT_FALSE(store().use_confirmation(std::string(64, 'a'), 51)->has_value());
  EXPECT_FALSE(store().use_confirmation(std::string(64, '9'), 51)->has_value());
  // Expired: not usable, and purged by the next request.
  EXPECT_FALSE(store().use_confirmation(std::string(64, 'b'), 1011)->has_value());
  ASSERT_TRUE(store().add_confirmation(pending("e@example.net", "c1", '2', 2000), l).ok());
  EXPECT_EQ(store().add_confirmation(pending("", "c1", '3', 2000), l).status().code(),
            StatusCode::kInvalidArgument);
  PendingConfirmation other = pending("x@example.net", "c9", '4', 2000);
  other.game = "nope";
  EXPECT_EQ(store().add_confirmation(other, l).status().code(), StatusCode::kNotFound);

  auto id = store().add_signup(signup("ann@example.net"), 5);
  ASSERT_TRUE(id.ok());
  ASSERT_TRUE(store().remove_signup("g1", *id).ok());
  EXPECT_EQ(store().remove_signup("g1", *id).code(), StatusCode::kNotFound);
  EXPECT_TRUE(store().signups("g1")->empty());
}

ADJ_ON_EVERY_BACKEND(MembershipStoreTest);

}  // namespace
}  // namespace adj::storage_test
