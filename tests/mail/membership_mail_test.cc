// The membership commands found in a mail's text (server/mail/membership_mail.h): an ADDRESS
// line is the command only when its word is meant as an address (it holds an '@'), so a
// signature such as "Address London" under an orders mail does not move the player's address.
#include <gtest/gtest.h>

#include <string>

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

}  // namespace
}  // namespace adj
