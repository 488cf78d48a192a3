// Membership::fit_world_to_signups (membership_world.cc): a generated world "for sign-ups" is made
// again at the start for the players who joined; other games keep their positions.
#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "rules/world/world_generator.h"
#include "server/app/admin.h"
#include "server/app/membership.h"
#include "server/app/world_request.h"
#include "tests/server/admin_fixture.h"

namespace adj {
namespace {

class MembershipWorld : public ::adj::testing::AdminWorld {
 protected:
  void SetUp() override {
    AdminWorld::SetUp();
    members_ = std::make_unique<Membership>(
        *svc_, *stores_, *store_, *store_, [this] { return now_; }, "");
  }

  // A world of up to `most` players, opened for sign-ups.
  void create(bool for_signups, int most = 8) {
    auto doc = world_from_request(nlohmann::json{{"engine", "dark-age"},
                                                 {"players", most},
                                                 {"seed", 77},
                                                 {"id", "gen-1"},
                                                 {"for_signups", for_signups}});
    ASSERT_TRUE(doc.ok()) << doc.status().to_string();
    ASSERT_TRUE(admin_->create_game(*doc, 5, "gm", true).ok());
    const Status opened = members_->open_signups("gen-1", "gm");
    ASSERT_TRUE(opened.ok()) << opened.to_string();
  }
  void join(int n) {
    for (int i = 0; i < n; ++i)
      ASSERT_TRUE(
          members_->join("gen-1", "p" + std::to_string(i) + "@example.net", "", "web").ok());
  }
  std::size_t players() { return store_->load_state("gen-1", std::nullopt)->players.size(); }

  std::unique_ptr<Membership> members_;
};

TEST_F(MembershipWorld, TheWorldIsMadeAgainForThePlayersWhoJoined) {
  create(true);
  const auto before = store_->load_state("gen-1", std::nullopt);
  ASSERT_EQ(before->players.size(), 8u);
  join(3);
  auto out = members_->start("gen-1", "gm");
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ(out->assigned.size(), 3u);
  EXPECT_TRUE(out->vacant.empty());
  const auto after = store_->load_state("gen-1", std::nullopt);
  ASSERT_EQ(after->players.size(), 3u);
  EXPECT_EQ(after->seed, before->seed);  // the game's dice, not the world's seed
  EXPECT_LT(after->areas.size(), before->areas.size());
  // The first kingdoms keep their codes: what sign-ups chose still names them.
  auto three = world::regenerate_world(*store_->scenario("gen-1"), 3);
  ASSERT_TRUE(three.ok());
  EXPECT_EQ((*three)["areas"].size(), after->areas.size());
  for (const auto& [code, secret] : out->secrets)
    EXPECT_TRUE(svc_->authenticate_player("gen-1", code, secret).ok()) << code;
  bool audited = false;
  const auto log = admin_->audit_log("gen-1");
  ASSERT_TRUE(log.ok());
  for (const auto& e : *log)
    if (e.action == "world-fitted") {
      audited = true;
      EXPECT_EQ(e.detail["players"], 3);
      EXPECT_EQ(e.detail["players_before"], 8);
    }
  EXPECT_TRUE(audited);
  // Only before the first turn: a turn runs on the fitted world.
  EXPECT_TRUE(admin_->run_turn("gen-1", false, "gm").ok());
}

TEST_F(MembershipWorld, AChoiceOfAKingdomTheFittedWorldLacksIsPassedOver) {
  create(true);
  const auto scenario = store_->scenario("gen-1");
  ASSERT_TRUE(scenario.ok());
  const std::string last = (*scenario)["players"][7]["code"];
  const std::string first = (*scenario)["players"][0]["code"];
  ASSERT_TRUE(members_->join("gen-1", "wants-last@example.net", last + " " + first, "web").ok());
  join(2);
  auto out = members_->start("gen-1", "gm");
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  ASSERT_EQ(players(), 3u);
  for (const auto& a : out->assigned) {
    EXPECT_NE(a.player, last);
    if (a.email == "wants-last@example.net") {
      EXPECT_EQ(a.player, first);  // the second choice, which the fitted world has
      EXPECT_EQ(a.preference_rank, 2);
    }
  }
  EXPECT_EQ(out->secrets.size(), 3u);
}

TEST_F(MembershipWorld, AWorldEditedByHandIsNotMadeAgain) {
  auto doc = world_from_request(
      nlohmann::json{{"players", 8}, {"seed", 77}, {"id", "gen-1"}, {"for_signups", true}});
  ASSERT_TRUE(doc.ok());
  for (auto& a : (*doc)["areas"])  // the GM's own touch: the digest no longer matches
    if (a["kind"] == "land" && a["owner"].is_null()) {
      a["population"] = 4;
      break;
    }
  const auto created = admin_->create_game(*doc, 5, "gm", true);
  ASSERT_TRUE(created.ok()) << created.status().to_string();
  ASSERT_TRUE(members_->open_signups("gen-1", "gm").ok());
  join(3);
  auto out = members_->start("gen-1", "gm");
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ(players(), 8u);
  EXPECT_EQ(out->vacant.size(), 5u);
}

TEST_F(MembershipWorld, OnePlayerIsNotEnoughForAGeneratedWorld) {
  create(true);
  join(1);
  auto out = members_->start("gen-1", "gm");
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(out.status().message().find("at least 2 players and only 1 signed up"),
            std::string::npos)
      << out.status().message();
  EXPECT_EQ(players(), 8u);  // nothing changed
  EXPECT_EQ(store_->game_summary("gen-1")->status, "signup");
}

TEST_F(MembershipWorld, AWorldNotForSignupsKeepsItsPositions) {
  create(false);
  join(3);
  auto out = members_->start("gen-1", "gm");
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ(players(), 8u);
  EXPECT_EQ(out->vacant.size(), 5u);
}

TEST_F(MembershipWorld, MoreSignupsThanPlacesKeepTheLargestWorld) {
  create(true, 4);
  join(6);
  auto out = members_->start("gen-1", "gm");
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ(players(), 4u);
  EXPECT_EQ(out->assigned.size(), 4u);
  EXPECT_EQ(out->unassigned.size(), 2u);
}

}  // namespace
}  // namespace adj
