// Mail cannot stall the host, and storage cannot be filled anonymously (issue 10): HTML to text
// and MIME parsing bounded (parse_mail with MimeLimits), refusals only to the envelope sender
// without anything of the incoming header and within a global budget, a poison message marked
// failed after a bounded number of tries without holding the queue, storage budgets per sender
// and per client address, pruning of processed raw mail, and the bytes stored per game.
// Real SQLite files; no timing assertions (speed figures: scripts/bench-mail-bounds.sh).
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>

#include "base/sha256.h"
#include "rules/orders/parser.h"
#include "server/app/stored_text.h"
#include "server/mail/mail_ingest.h"
#include "server/mail/mime.h"
#include "tests/mail/mail_test_util.h"

namespace adj::mail {
namespace {

using mail_test::MailFixture;

const std::string kHead =
    "From: Ann <ann@example.org>\r\nTo: orders@pbm.example.net\r\nSubject: s\r\n"
    "Message-ID: <b1@example.org>\r\nMIME-Version: 1.0\r\n";

// A multipart/mixed message with `n` tiny text parts.
std::string many_parts(std::size_t n, const std::string& boundary = "b") {
  std::string raw = kHead + "Content-Type: multipart/mixed; boundary=\"" + boundary + "\"\r\n\r\n";
  for (std::size_t i = 0; i < n; ++i)
    raw += "--" + boundary + "\r\nContent-Type: text/plain\r\n\r\nx\r\n";
  return raw + "--" + boundary + "--\r\n";
}

// Multiparts nested `levels` deep (each with one inner part), around a text part.
std::string nested(int levels) {
  std::string raw = kHead;
  std::string close;
  for (int i = 0; i < levels; ++i) {
    const std::string b = "n" + std::to_string(i);
    raw += "Content-Type: multipart/mixed; boundary=" + b + "\r\n\r\n--" + b + "\r\n";
    close = "--" + b + "--\r\n" + close;
  }
  raw += "Content-Type: text/plain\r\n\r\nGAME britain-1\r\n";
  return raw + close;
}

TEST(MailBounds, HtmlToTextOfManyAngleBracketsAndAmpersandsIsTheText) {
  // Each of these took a rescan to the end of the input per character before (quadratic).
  const std::string lt(300000, '<');
  EXPECT_EQ(html_to_text(lt), lt + "\n");
  const std::string amp(300000, '&');
  EXPECT_EQ(html_to_text(amp), amp + "\n");
  std::string nbsp;
  for (int i = 0; i < 100000; ++i) nbsp += "a&nbsp;";
  const std::string text = html_to_text(nbsp);
  EXPECT_EQ(text.size(), 200000u + 1u - 1u);  // "a a a ... a" trimmed, plus the line end
  EXPECT_EQ(text.substr(0, 6), "a a a ");
  // Tags and entities are still read as before.
  EXPECT_EQ(html_to_text("<p>GAME x</p><p>A &amp; B &lt;3 &#65;</p>"), "GAME x\n\nA & B <3 A\n");
  EXPECT_EQ(html_to_text("a < b </ c"), "a < b </ c\n");
}

TEST(MailBounds, PartsUpToTheLimitAreReadAndOneMoreIsRefused) {
  MimeLimits limits;
  limits.max_parts = 50;
  auto ok = parse_mail(many_parts(50), limits);
  ASSERT_TRUE(ok.ok()) << ok.status().to_string();
  EXPECT_EQ(ok->texts.size(), 50u);
  auto over = parse_mail(many_parts(51), limits);
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(over.status().message(), "the message has more than 50 MIME parts");
  // The default bound holds for 100,000 tiny parts without GMime building them.
  auto flood = parse_mail(many_parts(100000));
  ASSERT_FALSE(flood.ok());
  EXPECT_EQ(flood.status().code(), StatusCode::kFailedPrecondition);
}

TEST(MailBounds, EncodedBoundaryIsCountedConservatively) {
  // boundary*0= (RFC 2231) is not decoded by the pre-scan: every "--" line counts as a part.
  std::string raw = kHead + "Content-Type: multipart/mixed; boundary*0=\"b\"\r\n\r\n";
  for (int i = 0; i < 30; ++i) raw += "--b\r\n\r\nx\r\n";
  raw += "--b--\r\n";
  MimeLimits limits;
  limits.max_parts = 20;
  auto r = parse_mail(raw, limits);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kFailedPrecondition);
}

TEST(MailBounds, DepthHeaderLinesAndEmbeddedMessagesAreBounded) {
  MimeLimits limits;
  limits.max_depth = 5;
  EXPECT_TRUE(parse_mail(nested(4), limits).ok());  // 4 multiparts + the text part: depth 5
  auto deep = parse_mail(nested(5), limits);
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(deep.status().message().find("levels deep"), std::string::npos);

  std::string headers = kHead;
  for (int i = 0; i < 6000; ++i) headers += "X-Junk: " + std::to_string(i) + "\r\n";
  auto many = parse_mail(headers + "\r\nbody\r\n");
  ASSERT_FALSE(many.ok());
  EXPECT_EQ(many.status().message(), "the message has more than 5000 header lines");

  // message/rfc822 inside message/rfc822 ...: each level is a container.
  std::string chain = kHead;
  for (int i = 0; i < 150; ++i) chain += "Content-Type: message/rfc822\r\n\r\nSubject: x\r\n";
  chain += "\r\nbody\r\n";
  auto msgs = parse_mail(chain);
  ASSERT_FALSE(msgs.ok());
  EXPECT_NE(msgs.status().message().find("attached messages"), std::string::npos);
}

TEST(MailBounds, DecodedTextIsBounded) {
  MimeLimits limits;
  limits.max_decoded_bytes = 1000;
  const std::string raw = kHead + "Content-Type: text/plain\r\n\r\n" + std::string(2000, 'x');
  auto r = parse_mail(raw, limits);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kFailedPrecondition);
  limits.max_decoded_bytes = 5000;
  EXPECT_TRUE(parse_mail(raw, limits).ok());
}

using BoundsIngest = MailFixture;

OutboxMessage only(const std::vector<OutboxMessage>& out) {
  EXPECT_EQ(out.size(), 1u);
  return out.empty() ? OutboxMessage{} : out.front();
}

TEST_F(BoundsIngest, PastAMimeBoundTheSenderIsToldWhich) {
  config_.mime.max_parts = 10;
  make_ingest();
  const ProcessResult r = ingest(many_parts(11), "smtp", "ann-bounces@example.org");
  EXPECT_EQ(r.action, "refusal");
  EXPECT_EQ(r.state, "processed");
  const OutboxMessage m = only(outbox());
  EXPECT_EQ(m.to, "ann-bounces@example.org");
  EXPECT_NE(parse(m).text.find("more than 10 MIME parts"), std::string::npos) << parse(m).text;
}

TEST_F(BoundsIngest, RefusalsGoToTheEnvelopeSenderWithoutTheIncomingHeader) {
  const std::string forged =
      "From: \"Your Bank\" <victim@example.com>\r\nReply-To: other-victim@example.com\r\n"
      "Subject: CLICK http://evil.example/phish NOW\r\nMessage-ID: <f1@evil>\r\n\r\n"
      "GAME britain-1\r\nPLAYER WSX guess\r\n";
  const ProcessResult r = ingest(forged, "smtp", "attacker@evil.example");
  EXPECT_EQ(r.action, "orders");
  const OutboxMessage m = only(outbox());
  EXPECT_EQ(m.kind, "refusal");
  EXPECT_EQ(m.to, "attacker@evil.example");
  for (const char* s :
       {"CLICK", "phish", "Your Bank", "victim@example.com", "other-victim", "f1@evil"})
    EXPECT_EQ(m.raw.find(s), std::string::npos) << s << "\n" << m.raw;
  EXPECT_EQ(parse(m).subject, "Your message to Adjutant was not read");

  // Without MAIL FROM, the Return-Path an MTA wrote; without either, no answer at all.
  ingest("Return-Path: <rp@example.net>\r\nFrom: x@example.com\r\nMessage-ID: <f2@x>\r\n\r\nhi\r\n",
         "maildir", "");
  EXPECT_EQ(outbox().at(1).to, "rp@example.net");
  const ProcessResult none =
      ingest("From: y@example.com\r\nMessage-ID: <f3@x>\r\n\r\nhi\r\n", "maildir", "");
  EXPECT_EQ(none.queued, 0);
  EXPECT_NE(none.outcome.find("no envelope sender"), std::string::npos) << none.outcome;
  EXPECT_EQ(outbox().size(), 2u);
}

TEST_F(BoundsIngest, ForgedSendersFloodStopsAtTheGlobalBudget) {
  config_.refusals_per_window_total = 20;
  make_ingest();
  for (int i = 0; i < 60; ++i) {
    const std::string n = std::to_string(i);
    ingest("From: \"Spam " + n + "\" <v" + n + "@victims.example>\r\nSubject: BUY PILLS " + n +
               "\r\nMessage-ID: <flood" + n + "@evil>\r\n\r\nGAME britain-1\r\nPLAYER WSX w" + n +
               "\r\n",
           "smtp", "v" + n + "@victims.example");
  }
  const auto out = outbox();
  EXPECT_EQ(out.size(), 20u);
  for (const OutboxMessage& m : out) {
    EXPECT_EQ(m.raw.find("BUY PILLS"), std::string::npos);
    EXPECT_EQ(m.raw.find("Spam "), std::string::npos);
  }
  auto in = store_->inbox_message(last_inbox_);
  ASSERT_TRUE(in.ok());
  EXPECT_NE(in->outcome.find("rate limit for all refusals together"), std::string::npos)
      << in->outcome;
  // An authenticated player is still answered.
  ingest(
      "From: wessex@example.org\r\nMessage-ID: <ok@x>\r\n\r\nGAME britain-1\r\n"
      "PLAYER WSX cerdic\r\nDEFEND WIN\r\n");
  EXPECT_EQ(outbox().size(), 21u);
  // The budget lifts after the window.
  now_ += 3601;
  ingest(
      "From: late@example.org\r\nMessage-ID: <late@x>\r\n\r\nGAME britain-1\r\nPLAYER WSX no\r\n");
  EXPECT_EQ(outbox().size(), 22u);
}

// Makes every outbox insert for `recipient` fail (a trigger through a second connection to the
// same file), so that answering a message from it fails with a store error.
void poison(const std::string& db, const std::string& recipient) {
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  const std::string sql = "CREATE TRIGGER poison BEFORE INSERT ON outbox WHEN NEW.recipient = '" +
                          recipient + "' BEGIN SELECT RAISE(ABORT, 'poisoned'); END;";
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(h, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(h);
}

TEST_F(BoundsIngest, PoisonMessageFailsAfterTheTriesAndDoesNotHoldTheQueue) {
  config_.max_process_attempts = 3;
  make_ingest();
  poison(db_, "poison@example.org");
  const Envelope env{"poison@example.org", {}, ""};
  auto bad =
      ingest_->accept("From: poison@example.org\r\nMessage-ID: <p@x>\r\n\r\nHELP\r\n", "smtp", env);
  ASSERT_TRUE(bad.ok());
  auto good = ingest_->accept(
      "From: wessex@example.org\r\nMessage-ID: <g@x>\r\n\r\nGAME britain-1\r\nPLAYER WSX cerdic\r\n"
      "DEFEND WIN\r\n",
      "smtp", {"wessex@example.org", {}, ""});
  ASSERT_TRUE(good.ok());

  // The first pass: the poison message fails, the next one is answered all the same.
  auto n = ingest_->process_pending(100);
  ASSERT_TRUE(n.ok()) << n.status().to_string();
  EXPECT_EQ(*n, 1);
  EXPECT_EQ(store_->inbox_message(*good)->state, "processed");
  auto p = store_->inbox_message(*bad);
  EXPECT_EQ(p->state, "new");
  EXPECT_EQ(p->attempts, 1);
  EXPECT_NE(p->outcome.find("try 1 failed"), std::string::npos) << p->outcome;

  // Two more tries (as after two restarts: a new MailIngest each time), then failed for good.
  for (int i = 0; i < 2; ++i) {
    make_ingest();
    ASSERT_TRUE(ingest_->process_pending(100).ok());
  }
  EXPECT_EQ(store_->inbox_message(*bad)->state, "new");
  make_ingest();
  ASSERT_TRUE(ingest_->process_pending(100).ok());
  p = store_->inbox_message(*bad);
  EXPECT_EQ(p->state, "failed");
  EXPECT_EQ(p->attempts, 4);
  EXPECT_NE(p->outcome.find("gave up after 3 tries"), std::string::npos) << p->outcome;
  EXPECT_NE(p->outcome.find("poisoned"), std::string::npos) << p->outcome;
  // Never tried again; the GM's list shows it.
  make_ingest();
  EXPECT_EQ(*ingest_->process_pending(100), 0);
  auto failed = store_->inbox_list("failed", 10, true);
  ASSERT_TRUE(failed.ok());
  ASSERT_EQ(failed->size(), 1u);
  EXPECT_EQ(failed->front().id, *bad);
  EXPECT_TRUE(failed->front().raw.empty());  // the list leaves the bytes out
}

TEST_F(BoundsIngest, ALeaseThatRunsOutCountsAsATry) {
  auto id = ingest_->accept("From: a@example.org\r\nMessage-ID: <l@x>\r\n\r\nHELP\r\n", "smtp",
                            {"a@example.org", {}, ""});
  ASSERT_TRUE(id.ok());
  // Three processes took the lease and died (or ran past it) one after the other.
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(*store_->lease_inbox(*id, "elsewhere:1:" + std::to_string(i), now_ + i * 200, 120));
  EXPECT_EQ(store_->inbox_message(*id)->attempts, 3);
  // A holder renewing its own lease is the same try.
  ASSERT_TRUE(*store_->lease_inbox(*id, "elsewhere:1:2", now_ + 450, 120));
  EXPECT_EQ(store_->inbox_message(*id)->attempts, 3);
  now_ += 1000;
  auto r = ingest_->process(*id);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->state, "failed");
  EXPECT_TRUE(outbox().empty());
}

TEST_F(BoundsIngest, StorageBudgetsPerSenderAndPerClientAddress) {
  config_.max_messages_per_sender = 3;
  config_.max_messages_per_peer = 5;
  config_.max_bytes_per_sender = 0;
  config_.max_bytes_per_peer = 0;
  make_ingest();
  const auto msg = [](int i) {
    return "From: s@example.org\r\nMessage-ID: <sb" + std::to_string(i) + "@x>\r\n\r\nhi\r\n";
  };
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(ingest_->accept(msg(i), "smtp", {"s@example.org", {}, "192.0.2.7"}).ok());
  auto over = ingest_->accept(msg(3), "smtp", {"S@example.org", {}, "192.0.2.7"});
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(over.status().message().find("this sender"), std::string::npos);
  // Other senders from the same address, up to the address's budget.
  ASSERT_TRUE(ingest_->accept(msg(4), "smtp", {"t@example.org", {}, "192.0.2.7"}).ok());
  ASSERT_TRUE(ingest_->accept(msg(5), "smtp", {"u@example.org", {}, "192.0.2.7"}).ok());
  auto peer = ingest_->accept(msg(6), "smtp", {"v@example.org", {}, "192.0.2.7"});
  ASSERT_FALSE(peer.ok());
  EXPECT_NE(peer.status().message().find("this address"), std::string::npos);
  auto all = store_->inbox_list("", 100, false);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 5u);  // nothing stored past a budget
  // Another address is not affected; the budgets lift after the window.
  EXPECT_TRUE(ingest_->accept(msg(7), "smtp", {"w@example.org", {}, "198.51.100.1"}).ok());
  now_ += 3601;
  EXPECT_TRUE(ingest_->accept(msg(8), "smtp", {"s@example.org", {}, "192.0.2.7"}).ok());

  // Bytes count too.
  config_.max_bytes_per_sender = 1000;
  make_ingest();
  auto big = ingest_->accept(
      "From: big@example.org\r\nMessage-ID: <big@x>\r\n\r\n" + std::string(2000, 'x'), "smtp",
      {"big@example.org", {}, ""});
  EXPECT_FALSE(big.ok());
}

TEST_F(BoundsIngest, TrustedPeersHaveNoPerAddressBudget) {
  config_.max_messages_per_peer = 2;
  make_ingest();  // trusted_peers: loopback by default (a front MTA)
  for (int i = 0; i < 5; ++i) {
    const std::string n = std::to_string(i);
    EXPECT_TRUE(ingest_
                    ->accept("From: a@example.org\r\nMessage-ID: <tp" + n + "@x>\r\n\r\nhi\r\n",
                             "smtp", {"s" + n + "@example.org", {}, "127.0.0.1"})
                    .ok());
  }
  config_.trusted_peers.clear();
  make_ingest();
  EXPECT_FALSE(ingest_
                   ->accept("From: a@example.org\r\nMessage-ID: <tp9@x>\r\n\r\nhi\r\n", "smtp",
                            {"s9@example.org", {}, "127.0.0.1"})
                   .ok());
}

TEST_F(BoundsIngest, ProcessedRawMailIsPrunedAfterTheKeepDays) {
  config_.keep_raw_days = 7;
  make_ingest();
  const std::string raw = "From: a@example.org\r\nMessage-ID: <old@x>\r\n\r\nHELP\r\n";
  ingest(raw);
  const std::int64_t old_id = last_inbox_;
  now_ += 6 * 86400;
  const std::string fresh = "From: b@example.org\r\nMessage-ID: <new@x>\r\n\r\nHELP\r\n";
  auto pending = ingest_->accept(fresh, "smtp", {"b@example.org", {}, ""});  // stays "new"
  ASSERT_TRUE(pending.ok());
  auto none = ingest_->prune();
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, 0);  // 6 days: kept
  now_ += 2 * 86400;
  auto n = ingest_->prune();
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 1);
  auto old = store_->inbox_message(old_id);
  ASSERT_TRUE(old.ok());
  EXPECT_TRUE(old->raw.empty());
  ASSERT_TRUE(old->pruned_at.has_value());
  EXPECT_EQ(old->raw_bytes, static_cast<std::int64_t>(raw.size()));
  EXPECT_NE(old->outcome.find("HELP"), std::string::npos);  // the result stays
  EXPECT_EQ(store_->inbox_message(*pending)->raw, fresh);   // "new": never pruned
  // The Message-ID row stays, so the same message again is still a duplicate.
  bool dup = false;
  auto again = ingest_->accept(raw, "smtp", {"a@example.org", {}, ""}, &dup);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(dup);
  EXPECT_EQ(*again, old_id);
}

TEST_F(BoundsIngest, PlayersMailIsDeliveredBeforeRefusals) {
  const auto put = [&](const std::string& kind, int i) {
    OutboxMessage m;
    m.kind = kind;
    m.to = "p" + std::to_string(i) + "@example.org";
    m.raw = "Subject: x\r\n\r\nx\r\n";
    m.dedupe_key = kind + std::to_string(i);
    m.next_attempt_at = now_ + i;
    m.created_at = now_ + i;
    ASSERT_TRUE(store_->enqueue(m).ok());
  };
  for (int i = 0; i < 5; ++i) put("refusal", i);
  put("help", 5);
  put("report", 6);  // queued last, due last
  auto first = store_->claim(now_ + 100, 2, 300);
  ASSERT_TRUE(first.ok());
  ASSERT_EQ(first->size(), 2u);
  EXPECT_EQ((*first)[0].kind, "report");
  EXPECT_EQ((*first)[1].kind, "refusal");
  EXPECT_EQ((*first)[1].dedupe_key, "refusal0");  // then oldest first
}

TEST_F(BoundsIngest, BytesStoredPerGame) {
  auto before = store_->storage_by_game();
  ASSERT_TRUE(before.ok());
  ASSERT_EQ(before->size(), 1u);
  EXPECT_EQ(before->front().game, "britain-1");
  EXPECT_EQ(before->front().submissions, 0);
  ingest(
      "From: wessex@example.org\r\nMessage-ID: <sz@x>\r\n\r\nGAME britain-1\r\n"
      "PLAYER WSX cerdic\r\nDEFEND WIN\r\n");
  auto after = store_->storage_by_game();
  ASSERT_TRUE(after.ok());
  EXPECT_GT(after->front().submissions, 30);
  EXPECT_GT(after->front().mail, 200);  // the acknowledgement queued for the game
  EXPECT_EQ(after->front().reports, 0);
}

TEST(StoredText, Sha256KnownVectors) {
  EXPECT_EQ(sha256_hex_of(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex_of("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex_of(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  // 56 bytes: the padding needs a second block.
  EXPECT_EQ(sha256_hex_of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST_F(BoundsIngest, ARefusedFileKeepsAnExcerptAndItsHashOnEveryChannel) {
  std::string file = "GAME britain-1\nPLAYER WSX wrong-secret\n";
  while (file.size() < 200000) file += "# filler line to fill the disk of the host\n";
  auto out = services_->submit_orders("britain-1", file, "web");
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(out->ack.refused);
  auto subs = submissions();
  ASSERT_EQ(subs.size(), 1u);
  EXPECT_LE(subs[0].raw_text.size(), kRefusedExcerptBytes + 200);
  EXPECT_EQ(subs[0].raw_text.rfind("GAME britain-1\nPLAYER WSX", 0), 0u);
  // Size and hash are of the file as stored: its PLAYER secret masked (a hash of the text with
  // a real secret in it would let anyone with the database guess the secret offline).
  const std::string masked = mask_player_secret(file);
  EXPECT_NE(subs[0].raw_text.find("[refused file of " + std::to_string(masked.size()) +
                                  " bytes, SHA-256 " + sha256_hex_of(masked)),
            std::string::npos)
      << subs[0].raw_text;
  EXPECT_LT(subs[0].ack.dump().size(), 20000u);
  // An accepted file is stored whole.
  std::string good = "GAME britain-1\nPLAYER WSX cerdic\nDEFEND WIN\n";
  while (good.size() < 10000) good += "# a long comment kept as the player wrote it\n";
  ASSERT_TRUE(services_->submit_orders("britain-1", good, "web").ok());
  EXPECT_EQ(submissions().back().raw_text, mask_player_secret(good));
  // A short refused file is kept as it is.
  EXPECT_EQ(refused_excerpt("GAME x\n"), "GAME x\n");
}

}  // namespace
}  // namespace adj::mail
