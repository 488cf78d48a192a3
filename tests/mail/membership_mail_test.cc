// The membership commands found in a mail's text (server/mail/membership_mail.h): an ADDRESS
// line is the command only when its word is meant as an address (it holds an '@'), so a
// signature such as "Address London" under an orders mail does not move the player's address.
#include <gtest/gtest.h>

#include <string>

#include "rules/game/scenario.h"
#include "server/app/membership.h"
#include "server/mail/membership_mail.h"
#include "tests/mail/mail_test_util.h"

namespace adj {
namespace {

TEST(MembershipMail, AnAddressLineNeedsAnAddress) {
  EXPECT_EQ(mail::address_command_in("ADDRESS ann@new.example"), "ann@new.example");
  EXPECT_EQ(mail::address_command_in("hello\n  address   ann@new.example \nbye"),
            "ann@new.example");
  EXPECT_EQ(mail::address_command_in("ADDRESS ann@"), "ann@");  // refused later, naming why
  EXPECT_FALSE(mail::address_command_in("Address London"));
  EXPECT_FALSE(mail::address_command_in("Ann Smith\nAddress London\nTel 0123"));
  EXPECT_FALSE(mail::address_command_in("ADDRESS 10 Downing Street"));
}

using MembershipMailIngest = ::adj::mail_test::MailFixture;

TEST_F(MembershipMailIngest, OrdersSignedAddressLondonAreOrders) {
  const auto r = ingest(
      "From: wessex@example.org\nMessage-ID: <sig1@x>\n\nGAME britain-1\nPLAYER WSX cerdic\n"
      "DEFEND WIN\n\n-- \nCerdic of Wessex\nAddress London\n");
  EXPECT_EQ(r.action, "orders");
  ASSERT_EQ(submissions().size(), 1u);
  EXPECT_NE(submissions().front().raw_text.find("DEFEND WIN"), std::string::npos);
}

// A JOIN without a game is answered with an example: a game open for sign-ups and two of its
// own kingdoms, placeholders when none is open (never another scenario's codes).
TEST_F(MembershipMailIngest, AJoinWithoutAGameShowsAnOpenGamesOwnCodes) {
  ingest("From: ann@example.net\nMessage-ID: <j1@x>\nSubject: hi\n\nJOIN\n");
  ASSERT_EQ(outbox().size(), 1u);
  const std::string none_open = parse(outbox().at(0)).text;
  EXPECT_NE(none_open.find("  JOIN <game-id> <kingdom> <kingdom>\n"), std::string::npos)
      << none_open;
  EXPECT_EQ(none_open.find("WSX"), std::string::npos) << none_open;

  auto crt = bundled_scenario("crt-river-crossing");
  ASSERT_TRUE(crt.ok());
  ASSERT_TRUE(services_->create_game(*crt, 7).ok());
  ASSERT_TRUE(app_->membership(config_.base_url).open_signups("river-crossing-1", "gm").ok());
  ingest("From: bob@example.net\nMessage-ID: <j2@x>\nSubject: hi\n\nJOIN\n");
  ASSERT_EQ(outbox().size(), 2u);
  const std::string open = parse(outbox().at(1)).text;
  EXPECT_NE(open.find("  JOIN river-crossing-1 BLU RED\n"), std::string::npos) << open;
  EXPECT_EQ(open.find("WSX"), std::string::npos) << open;
}

}  // namespace
}  // namespace adj
