// MailDeliveryStatus and its words (server/app/mail_delivery.h).
#include "server/app/mail_delivery.h"

#include <gtest/gtest.h>

namespace adj {
namespace {

TEST(MailDelivery, ModesHaveTheNamesHealthzUses) {
  EXPECT_STREQ(mail_delivery_name(MailDeliveryMode::kRelay), "relay");
  EXPECT_STREQ(mail_delivery_name(MailDeliveryMode::kMaildir), "maildir");
  EXPECT_STREQ(mail_delivery_name(MailDeliveryMode::kOff), "off");
}

TEST(MailDelivery, MailedWordsSayWhenMailStaysHere) {
  EXPECT_EQ(mailed_words(MailDeliveryMode::kRelay), "was mailed");
  EXPECT_EQ(mailed_words(MailDeliveryMode::kOff, "has been"), "has been mailed");
  EXPECT_EQ(mailed_words(MailDeliveryMode::kMaildir, "were"),
            "were queued in the local Maildir (not sent)");
}

TEST(MailDelivery, TheMaildirWarningNamesTheDirectoryAndTheFlag) {
  MailDeliveryStatus s;
  EXPECT_EQ(mail_delivery_warning(s.snapshot()), "");  // off: nothing to say
  s.set_mode(MailDeliveryMode::kMaildir, "/var/lib/adjutant/outbox");
  const std::string w = mail_delivery_warning(s.snapshot());
  EXPECT_NE(w.find("/var/lib/adjutant/outbox"), std::string::npos) << w;
  EXPECT_NE(w.find("--relay"), std::string::npos) << w;
  EXPECT_NE(w.find("ADJUTANT_RELAY"), std::string::npos) << w;
}

TEST(MailDelivery, RelayFailuresAreCountedUntilOneGoesThrough) {
  MailDeliveryStatus s;
  s.set_mode(MailDeliveryMode::kRelay, "smtp://user:hunter2@mail.example.net:587");
  EXPECT_EQ(s.snapshot().target, "smtp://mail.example.net:587") << "no credentials kept";
  EXPECT_EQ(mail_delivery_warning(s.snapshot()), "");
  s.note_failed(100, "Couldn't connect to server");
  s.note_failed(130, "Login denied (SMTP 535)");
  auto snap = s.snapshot();
  EXPECT_EQ(snap.failures_in_a_row, 2);
  EXPECT_EQ(snap.last_error_at, 130);
  const std::string w = mail_delivery_warning(snap);
  EXPECT_NE(w.find("Login denied (SMTP 535)"), std::string::npos) << w;
  EXPECT_NE(w.find("the last 2 deliveries"), std::string::npos) << w;
  EXPECT_EQ(w.find("hunter2"), std::string::npos);
  s.note_sent(200);
  EXPECT_EQ(s.snapshot().failures_in_a_row, 0);
  EXPECT_EQ(mail_delivery_warning(s.snapshot()), "");
  s.note_failed(300, std::string(2000, 'x'));
  EXPECT_LE(s.snapshot().last_error.size(), 500u) << "bounded";
}

}  // namespace
}  // namespace adj
