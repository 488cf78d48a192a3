// Notices (storage/notice_store.h) become outbox mail through NoticeMailer: one message per
// recipient, players by their address on file, threaded by thread key, queued once.
#include <gtest/gtest.h>

#include <set>

#include "server/mail/notice_mailer.h"
#include "tests/mail/mail_test_util.h"

namespace adj {
namespace {

class NoticeMailerTest : public mail_test::MailFixture {
 protected:
  Notice notice(const std::string& key, const std::string& thread = "") {
    Notice n;
    n.game = "britain-1";
    n.kind = "press";
    n.players = {"WSX", "MRC"};
    n.addresses = {"standby@example.net", "wessex@example.org"};
    n.subject = "press from Northumbria";
    n.text = "Shall we share Mercia?";
    n.dedupe_key = key;
    n.thread = thread;
    return n;
  }
  mail::NoticeMailer mailer() {
    return mail::NoticeMailer(*services_, *store_, *store_, config_.from, config_.base_url,
                              [this] { return now_; });
  }
};

TEST_F(NoticeMailerTest, EachRecipientGetsOneThreadedMessage) {
  ASSERT_TRUE(services_->notify(notice("press:1", "press-a")).ok());
  ASSERT_TRUE(services_->notify(notice("press:2", "press-a")).ok());
  auto m = mailer();
  auto n = m.deliver();
  ASSERT_TRUE(n.ok()) << n.status().to_string();
  // WSX's address is also listed plainly: it gets each notice once.
  EXPECT_EQ(*n, 6);
  auto again = m.deliver();
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, 0);
  auto out = outbox();
  ASSERT_EQ(out.size(), 6u);
  std::set<std::string> to;
  for (const auto& o : out) to.insert(o.to);
  EXPECT_EQ(to, (std::set<std::string>{"wessex@example.org", "mercia@example.org",
                                       "standby@example.net"}));
  const auto first = parse(out[0]);
  const auto second = parse(out[3]);
  ASSERT_FALSE(first.references.empty());
  EXPECT_EQ(first.references, second.references);
  EXPECT_NE(first.message_id, second.message_id);
  EXPECT_NE(first.subject.find("press from Northumbria"), std::string::npos);
  ASSERT_FALSE(first.texts.empty());
  EXPECT_NE(first.texts[0].text.find("Shall we share Mercia?"), std::string::npos);
}

TEST_F(NoticeMailerTest, TheSameDedupeKeyIsQueuedOnce) {
  ASSERT_TRUE(services_->notify(notice("once")).ok());
  ASSERT_TRUE(services_->notify(notice("once")).ok());
  auto all = store_->notices("britain-1");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 1u);
}

TEST_F(NoticeMailerTest, BadNoticesAreRefusedWithTheReason) {
  Notice n = notice("x");
  n.players.clear();
  n.addresses.clear();
  EXPECT_EQ(services_->notify(n).code(), StatusCode::kInvalidArgument);
  n = notice("y");
  n.addresses = {"a@b\r\nBcc: c@d"};
  EXPECT_EQ(services_->notify(n).code(), StatusCode::kInvalidArgument);
  n = notice("z");
  n.game = "no-such-game";
  EXPECT_EQ(services_->notify(n).code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace adj

namespace adj {
namespace {

// A takeover offer carries a code: the notice keeps it only until it is queued, the outbox copy
// only until it is delivered.
TEST_F(NoticeMailerTest, TakeoverCodesAreKeptInClearOnlyUntilDelivered) {
  Notice n = notice("offer:1");
  n.kind = "takeover";
  n.players.clear();
  n.addresses = {"standby@example.net"};
  n.text = "Your takeover code is zq7-unguessable-code";
  ASSERT_TRUE(services_->notify(n).ok());
  auto m = mailer();
  ASSERT_TRUE(m.deliver().ok());
  auto kept = store_->notices("britain-1");
  ASSERT_TRUE(kept.ok());
  ASSERT_EQ(kept->size(), 1u);
  EXPECT_EQ((*kept)[0].text.find("zq7-unguessable-code"), std::string::npos);
  auto out = outbox();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NE(out[0].raw.find("zq7-unguessable-code"), std::string::npos);
  ASSERT_TRUE(store_->mark_sent(out[0].id, now_).ok());
  auto after = outbox();
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(after[0].raw.find("zq7-unguessable-code"), std::string::npos);
  EXPECT_NE(after[0].raw.find("removed once it was delivered"), std::string::npos);
}

}  // namespace
}  // namespace adj
