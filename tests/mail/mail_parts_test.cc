// A map stored once for many mails (--mail-maps game, the default): compose.h's stored parts,
// ReportMaps painting and storing the turn's map once, and the outbox putting it into each
// message at delivery (MailStore::claim), byte for byte what a copy in each mail would be.
#include <set>
#include <string>
#include <vector>

#include "server/mail/compose.h"
#include "server/mail/notice_mailer.h"
#include "tests/mail/report_map_fixture.h"

namespace adj {
namespace {

using mail::MailAttachment;
using mail::OutgoingMail;
using report_map_test::pngs;
using report_map_test::read_message;
using report_map_test::ReportMapMail;

TEST(ComposeStoredPart, PuttingTheBodyInItsPlaceGivesTheBytesOfACopy) {
  // Sizes around base64's groups of 3 and its lines of 57 bytes.
  for (std::size_t size : {0u, 1u, 2u, 3u, 56u, 57u, 58u, 114u, 5000u, 70001u}) {
    std::string bytes;
    for (std::size_t i = 0; i < size; ++i) bytes += static_cast<char>(i * 7 % 256);
    const MailAttachment copy{"map-turn-1.png", "image/png", bytes, {}};
    const auto whole = mail::compose(report_map_test::report_mail(copy));
    ASSERT_TRUE(whole.ok()) << whole.status().to_string();

    MailAttachment shared = copy;
    const mail::StoredPart part = mail::make_stored_part(shared);
    ASSERT_EQ(part.key.size(), 40u) << size;
    EXPECT_EQ(shared.stored_part, part.key);
    EXPECT_TRUE(shared.data.empty());
    const OutgoingMail m = report_map_test::report_mail(shared);
    EXPECT_EQ(mail::stored_part_key(m), part.key);
    auto marked = mail::compose(m);
    ASSERT_TRUE(marked.ok()) << marked.status().to_string();
    const std::string placeholder = mail_part_placeholder(part.key);
    const std::size_t at = marked->find(placeholder);
    ASSERT_NE(at, std::string::npos) << size;
    EXPECT_EQ(marked->find(placeholder, at + 1), std::string::npos) << "once";
    std::string delivered = *marked;
    delivered.replace(at, placeholder.size(), part.body);
    EXPECT_EQ(delivered, *whole) << size << " bytes";
    // The same bytes, the same key; other bytes, another.
    MailAttachment again = copy;
    EXPECT_EQ(mail::make_stored_part(again).key, part.key);
    MailAttachment other{"map-turn-1.png", "image/png", bytes + "x", {}};
    EXPECT_NE(mail::make_stored_part(other).key, part.key);
  }
  // One stored part per message.
  MailAttachment a{"a.png", "image/png", "a", {}}, b{"b.png", "image/png", "b", {}};
  mail::make_stored_part(a);
  mail::make_stored_part(b);
  OutgoingMail two = report_map_test::report_mail(a);
  two.attachments.push_back(b);
  EXPECT_EQ(mail::compose(two).status().code(), StatusCode::kInvalidArgument);
}

// --mail-maps game: the map after the turn is painted once for the game, stored once, and every
// player's mail names it; delivered, each carries the plain map (no player's arrows).
TEST_F(ReportMapMail, GameMapsArePaintedAndStoredOnceForEveryMail) {
  config_.map_arrows = false;
  make_ingest();
  auto n = ingest_->queue_turn_reports("britain-1", 1);
  ASSERT_TRUE(n.ok()) << n.status().to_string();
  ASSERT_EQ(*n, 5);
  EXPECT_EQ(prepared_, 1);
  EXPECT_EQ(painted_, 1) << "one map for the game and turn, not one per player";
  const std::string plain = expected_map(1);

  auto stored = store_->outbox("", 100);
  ASSERT_TRUE(stored.ok());
  ASSERT_EQ(stored->size(), 5u);
  std::set<std::string> keys;
  for (const OutboxMessage& m : *stored) {
    keys.insert(m.part_key);
    EXPECT_LT(m.raw.size(), 32u * 1024) << m.to << ": the outbox row holds no copy of the map";
  }
  ASSERT_EQ(keys.size(), 1u);
  ASSERT_FALSE(keys.begin()->empty());
  auto body = store_->mail_part(*keys.begin());
  ASSERT_TRUE(body.ok());
  EXPECT_GT(body->size(), plain.size()) << "the base64 of the PNG";

  // What the relay is handed: claim() puts the map in each message.
  auto claimed = store_->claim(now_, 100, 60);
  ASSERT_TRUE(claimed.ok()) << claimed.status().to_string();
  ASSERT_EQ(claimed->size(), 5u);
  std::set<std::string> recipients;
  for (const OutboxMessage& m : *claimed) {
    recipients.insert(m.to);
    EXPECT_EQ(m.raw.find("AdjutantStoredPart"), std::string::npos);
    const auto maps = pngs(read_message(m.raw));
    ASSERT_EQ(maps.size(), 1u) << m.to;
    EXPECT_EQ(maps[0].filename, "map-turn-1.png");
    EXPECT_EQ(maps[0].data, plain) << m.to << ": the map after the turn, no one's arrows";
  }
  EXPECT_EQ(recipients.size(), 5u);
}

// A correction's mails share their run's map too, and RESEND names the same stored map as the
// turn's reports (the key is the map's hash).
TEST_F(ReportMapMail, CorrectionsAndResendShareTheStoredMap) {
  config_.map_arrows = false;
  make_ingest();
  ASSERT_TRUE(ingest_->queue_turn_reports("britain-1", 1).ok());
  auto n = ingest_->queue_corrections("britain-1", 1, 2);
  ASSERT_TRUE(n.ok()) << n.status().to_string();
  mail::NoticeMailer mailer(*services_, *store_, *store_, config_.from, config_.base_url,
                            [this] { return now_; });
  mailer.set_map_painter(config_.map_painter);
  prepared_ = painted_ = 0;
  auto sent = mailer.deliver();
  ASSERT_TRUE(sent.ok()) << sent.status().to_string();
  EXPECT_EQ(*sent, 5);
  EXPECT_EQ(painted_, 1);
  const auto r = ingest(mail_test::corpus("resend.eml"));
  EXPECT_EQ(r.action, "resend");
  auto stored = store_->outbox("", 100);
  ASSERT_TRUE(stored.ok());
  std::set<std::string> keys;
  int corrections = 0, resends = 0;
  for (const OutboxMessage& m : *stored) {
    keys.insert(m.part_key);
    corrections += m.kind == "correction" ? 1 : 0;
    resends += m.kind == "resend" ? 1 : 0;
  }
  EXPECT_EQ(corrections, 5);
  EXPECT_EQ(resends, 1);
  EXPECT_EQ(keys.size(), 1u) << "one stored map for the turn, whatever mail carries it";
  for (const OutboxMessage& m : outbox()) {
    const auto maps = pngs(read_message(m.raw));
    ASSERT_EQ(maps.size(), 1u) << m.kind;
    EXPECT_EQ(maps[0].data, expected_map(1)) << m.kind;
  }
}

}  // namespace
}  // namespace adj
