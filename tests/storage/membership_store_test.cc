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

ADJ_ON_EVERY_BACKEND(MembershipStoreTest);

}  // namespace
}  // namespace adj::storage_test
