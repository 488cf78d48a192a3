// The MailStore contract (storage/mail_store.h) on every backend: the inbox (raw bytes kept
// exactly, dedupe by Message-ID, batches all or nothing, leases, budgets, pruning, masking) and
// the outbox (dedupe keys, claims in priority order with leases, sent and retried messages).
// Moved here from tests/mail/outbox_test.cc, which keeps the worker against real relays.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "storage/sqlite/database.h"
#include "tests/storage/store_test_util.h"

namespace adj::storage_test {
namespace {

constexpr UnixTime kStart = 1795046400;  // 2026-11-19 00:00 UTC

class MailStoreTest : public BackendTest {
 protected:
  // Queues a message to `to` (dedupe key `key`), due and created at `at`.
  std::int64_t queue(const std::string& key, UnixTime at,
                     const std::string& to = "wessex@example.org",
                     const std::string& kind = "test") {
    OutboxMessage o;
    o.kind = kind;
    o.game = "britain-1";
    o.to = to;
    o.raw = "To: " + to + "\r\nSubject: Test " + key + "\r\n\r\nHello from the outbox.\r\n";
    o.dedupe_key = key;
    o.next_attempt_at = at;
    o.created_at = at;
    auto id = store_->enqueue(o);
    EXPECT_TRUE(id.ok()) << id.status().to_string();
    return id.ok() ? *id : 0;
  }
  std::vector<OutboxMessage> all_outbox() {
    auto all = store_->outbox("", 1000);
    EXPECT_TRUE(all.ok()) << all.status().to_string();
    return all.ok() ? *all : std::vector<OutboxMessage>{};
  }
  OutboxMessage row(std::int64_t id) {
    auto m = store_->outbox_message(id);
    EXPECT_TRUE(m.ok()) << m.status().to_string();
    return m.ok() ? *m : OutboxMessage{};
  }
};

InboxMessage inbox_row(const std::string& id) {
  InboxMessage m;
  m.message_id = id;
  m.channel = "smtp";
  m.raw = "Message-ID: <" + id + ">\r\n\r\nbody\r\n";
  return m;
}

TEST_P(MailStoreTest, EnqueueDedupesOnTheKey) {
  const auto id = queue("same", kStart);
  OutboxMessage o = row(id);
  auto again = store_->enqueue(o);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(again.status().message(), "outbox message same");
  EXPECT_EQ(all_outbox().size(), 1u);
  o.dedupe_key = "";
  EXPECT_EQ(store_->enqueue(o).status().code(), StatusCode::kInvalidArgument);
  auto none = store_->outbox_message(id + 100);
  EXPECT_EQ(none.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(none.status().message(),
            "There is no outgoing message " + std::to_string(id + 100) + ".");
}

TEST_P(MailStoreTest, EnqueueBatchIsOneTransactionWithTakenKeysSkipped) {
  const auto first = queue("r1", kStart);
  std::vector<OutboxMessage> batch = {row(first), row(first), row(first)};
  batch[1].dedupe_key = "r2";
  batch[2].dedupe_key = "r3";
  batch[2].to = "mercia@example.org";
  auto ids = store_->enqueue_batch(batch);
  ASSERT_TRUE(ids.ok()) << ids.status().to_string();
  ASSERT_EQ(ids->size(), 3u);
  EXPECT_EQ(ids->at(0), 0) << "r1 was queued before";
  EXPECT_GT(ids->at(1), first);
  EXPECT_GT(ids->at(2), ids->at(1));
  EXPECT_EQ(row(ids->at(2)).to, "mercia@example.org");
  EXPECT_EQ(all_outbox().size(), 3u);
  // A bad message anywhere: nothing of the batch is stored, and the error names it.
  batch = {row(first), row(first)};
  batch[0].dedupe_key = "r4";
  batch[1].dedupe_key = "r5";
  batch[1].kind = "";
  auto bad = store_->enqueue_batch(batch);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.status().message().rfind("message 1: enqueue:", 0), 0u) << bad.status().message();
  EXPECT_EQ(all_outbox().size(), 3u);
  EXPECT_TRUE(store_->enqueue_batch({})->empty());
}

TEST_P(MailStoreTest, ClaimIsOldestDueFirstAndLeased) {
  const auto a = queue("c1", kStart);
  const auto b = queue("c2", kStart + 10);
  queue("c3", kStart + 20);  // due later than the claim time below
  auto first = store_->claim(kStart + 15, 1, 60);
  ASSERT_TRUE(first.ok()) << first.status().to_string();
  ASSERT_EQ(first->size(), 1u);
  EXPECT_EQ(first->at(0).id, a);
  EXPECT_EQ(first->at(0).state, "sending");
  EXPECT_EQ(first->at(0).attempts, 1);
  auto second = store_->claim(kStart + 15, 10, 60);
  ASSERT_EQ(second->size(), 1u);
  EXPECT_EQ(second->at(0).id, b);
  EXPECT_EQ(*store_->pending_count(), 3);
  ASSERT_TRUE(store_->mark_sent(a, kStart + 16).ok());
  ASSERT_TRUE(store_->mark_retry(b, "later", kStart + 100, false).ok());
  EXPECT_EQ(row(b).last_error, "later");
  EXPECT_EQ(row(b).state, "pending");
  EXPECT_EQ(row(b).next_attempt_at, kStart + 100);
  // A message already sent stays sent even if a late worker reports a failure.
  ASSERT_TRUE(store_->mark_retry(a, "late failure", kStart + 100, true).ok());
  EXPECT_EQ(row(a).state, "sent");
  EXPECT_EQ(store_->mark_sent(9999, kStart).code(), StatusCode::kNotFound);
  EXPECT_EQ(store_->mark_retry(9999, "x", kStart, false).code(), StatusCode::kNotFound);
  EXPECT_EQ(store_->outbox("britain-1", 10)->size(), 3u);
  EXPECT_EQ(store_->outbox("other-game", 10)->size(), 0u);
  EXPECT_EQ(store_->outbox("", 2)->size(), 2u);
  EXPECT_EQ(store_->outbox("", 10)->front().dedupe_key, "c3");  // newest first
  EXPECT_EQ(*store_->outbox_count("WESSEX@example.org", "test", kStart), 3);
  EXPECT_EQ(*store_->outbox_count("wessex@example.org", "test", kStart + 1), 2);
  EXPECT_EQ(*store_->outbox_count("", "test", kStart), 3);
  EXPECT_EQ(*store_->outbox_count("", "ack", kStart), 0);
  ASSERT_TRUE(store_->mark_retry(b, "refused", kStart, true).ok());
  EXPECT_EQ(row(b).state, "failed");
  EXPECT_EQ(*store_->pending_count(), 1);
}

TEST_P(MailStoreTest, ClaimPutsPlayersMailBeforeRefusalsAndRetakesExpiredLeases) {
  const auto refusal = queue("r1", kStart, "x@example.org", "refusal");
  const auto help = queue("h1", kStart + 1, "y@example.org", "help");
  const auto report = queue("p1", kStart + 5, "wessex@example.org", "report");
  auto first = store_->claim(kStart + 10, 2, 60);
  ASSERT_TRUE(first.ok()) << first.status().to_string();
  ASSERT_EQ(first->size(), 2u);
  EXPECT_EQ(first->at(0).id, report);
  EXPECT_EQ(first->at(1).id, refusal);
  EXPECT_TRUE(store_->claim(kStart + 69, 10, 60)->size() == 1u) << "only help is still pending";
  // The first two leases ran out at kStart + 70 (help's runs to kStart + 129): claimable again,
  // with a second attempt.
  auto again = store_->claim(kStart + 70, 10, 60);
  ASSERT_EQ(again->size(), 2u);
  EXPECT_EQ(again->at(0).id, report);
  EXPECT_EQ(again->at(0).attempts, 2);
  EXPECT_EQ(again->at(1).id, refusal);
  auto last = store_->claim(kStart + 129, 10, 60);
  ASSERT_EQ(last->size(), 1u);
  EXPECT_EQ(last->at(0).id, help);
  EXPECT_TRUE(store_->claim(kStart + 70, 0, 60)->empty());
  EXPECT_TRUE(store_->claim(kStart + 70, -3, 60)->empty());
}

TEST_P(MailStoreTest, ACredentialMailKeepsOnlyItsHeaderOnceSent) {
  const auto secret = queue("s1", kStart, "wessex@example.org", "secret");
  const auto plain = queue("t1", kStart);
  ASSERT_TRUE(store_->mark_sent(secret, kStart + 1).ok());
  ASSERT_TRUE(store_->mark_sent(plain, kStart + 1).ok());
  EXPECT_EQ(row(secret).raw,
            "To: wessex@example.org\r\nSubject: Test s1\r\n\r\n[The body of this message held a "
            "credential and was removed once it was delivered.]\r\n");
  EXPECT_EQ(row(plain).raw,
            "To: wessex@example.org\r\nSubject: Test t1\r\n\r\nHello from the outbox.\r\n");
  EXPECT_EQ(row(secret).state, "sent");
}

// Migration 0026: a part stored once, named by many messages, put in each at delivery.
TEST_P(MailStoreTest, AStoredPartIsKeptOnceAndPutInEachClaimedMessage) {
  const std::string key = "0123456789abcdef0123456789abcdef01234567";
  const std::string body = "iVBORw0KGgo=\r\nAAAA\r\n";
  EXPECT_EQ(store_->mail_part(key).status().code(), StatusCode::kNotFound);
  ASSERT_TRUE(store_->put_mail_part(key, body, kStart).ok());
  ASSERT_TRUE(store_->put_mail_part(key, "another body", kStart + 1).ok()) << "writes nothing";
  EXPECT_EQ(*store_->mail_part(key), body);
  for (const std::string& bad :
       std::vector<std::string>{"", "a-b", "ab cd", std::string(65, 'a'), "a\xc3\xa9"})
    EXPECT_EQ(store_->put_mail_part(bad, body, kStart).code(), StatusCode::kInvalidArgument) << bad;

  const auto message = [&](const std::string& dedupe, const std::string& part) {
    OutboxMessage o;
    o.kind = "report";
    o.game = "britain-1";
    o.to = dedupe + "@example.org";
    o.raw =
        "Subject: " + dedupe + "\r\n\r\n--b\r\n\r\n" + mail_part_placeholder(key) + "\r\n--b--\r\n";
    o.dedupe_key = dedupe;
    o.part_key = part;
    o.next_attempt_at = o.created_at = kStart;
    return o;
  };
  const std::string stored_raw = message("a", key).raw;
  ASSERT_TRUE(store_->enqueue(message("a", key)).ok());
  ASSERT_TRUE(store_->enqueue(message("b", key)).ok());
  // A part not stored, or a message without its place, is refused; nothing is queued.
  auto missing = store_->enqueue(message("c", "feedface"));
  EXPECT_EQ(missing.status().code(), StatusCode::kInvalidArgument) << "the placeholder is key's";
  OutboxMessage unstored = message("c", "feedface");
  unstored.raw = mail_part_placeholder("feedface");
  EXPECT_EQ(store_->enqueue(unstored).status().code(), StatusCode::kNotFound);
  OutboxMessage placeless = message("d", key);
  placeless.raw = "Subject: d\r\n\r\nno place\r\n";
  EXPECT_EQ(store_->enqueue(placeless).status().code(), StatusCode::kInvalidArgument);
  ASSERT_EQ(all_outbox().size(), 2u);

  // Listed as stored; claimed with the body in place.
  for (const OutboxMessage& m : all_outbox()) {
    EXPECT_EQ(m.part_key, key);
    EXPECT_NE(m.raw.find(mail_part_placeholder(key)), std::string::npos);
  }
  EXPECT_EQ(row(all_outbox().back().id).raw, stored_raw);
  auto claimed = store_->claim(kStart, 10, 60);
  ASSERT_TRUE(claimed.ok()) << claimed.status().to_string();
  ASSERT_EQ(claimed->size(), 2u);
  for (const OutboxMessage& m : *claimed)
    EXPECT_EQ(m.raw, "Subject: " + m.dedupe_key + "\r\n\r\n--b\r\n\r\n" + body + "\r\n--b--\r\n");
  // Once delivered and old, a message lets go of its part, and the part goes.
  EXPECT_EQ(*store_->prune_mail_parts(kStart), 0) << "queued at kStart: not before it";
  ASSERT_TRUE(store_->mark_sent(claimed->at(0).id, kStart + 5).ok());
  EXPECT_EQ(*store_->prune_mail_parts(kStart + 1), 0) << "the other message still names it";
  EXPECT_TRUE(row(claimed->at(0).id).part_key.empty());
  EXPECT_EQ(row(claimed->at(0).id).raw,
            "Subject: " + claimed->at(0).dedupe_key + "\r\n\r\n--b\r\n\r\n\r\n--b--\r\n");
  EXPECT_EQ(row(claimed->at(1).id).part_key, key) << "sending, not delivered";
  ASSERT_TRUE(store_->mark_retry(claimed->at(1).id, "550 no", kStart + 5, true).ok());
  EXPECT_EQ(*store_->prune_mail_parts(kStart + 1), 1);
  EXPECT_EQ(store_->mail_part(key).status().code(), StatusCode::kNotFound);
  // A message without a part is claimed as it is.
  queue("plain", kStart);
  auto plain = store_->claim(kStart, 10, 60);
  ASSERT_TRUE(plain.ok());
  ASSERT_EQ(plain->size(), 1u);
  EXPECT_TRUE(plain->at(0).part_key.empty());
  EXPECT_EQ(plain->at(0).raw, row(plain->at(0).id).raw);
}

TEST_P(MailStoreTest, InboxKeepsRawBytesExactly) {
  InboxMessage m;
  m.message_id = "bytes@x";
  m.channel = "smtp";
  m.raw = std::string("Subject: \xe9t\xe9\r\n\r\n\x00\xff body", 20);
  m.envelope_to = {"a@b", "c@d"};
  bool dup = true;
  auto id = store_->put_inbox(m, &dup);
  ASSERT_TRUE(id.ok()) << id.status().to_string();
  EXPECT_FALSE(dup);
  auto back = store_->inbox_message(*id);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->raw, m.raw);
  EXPECT_EQ(back->raw_bytes, 20);
  EXPECT_EQ(back->envelope_to, m.envelope_to);
  EXPECT_EQ(back->state, "new");
  EXPECT_FALSE(back->pruned_at.has_value());
  EXPECT_EQ(store_->set_inbox_state(*id, "bogus", "").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->set_inbox_state(*id + 1, "processed", "").code(), StatusCode::kNotFound);
  auto none = store_->inbox_message(*id + 1);
  EXPECT_EQ(none.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(none.status().message(), "inbox message " + std::to_string(*id + 1));
  // The same Message-ID again: nothing written, the first id returned.
  m.raw = "other";
  auto again = store_->put_inbox(m, &dup);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(dup);
  EXPECT_EQ(*again, *id);
  EXPECT_EQ(store_->inbox_message(*id)->raw.size(), 20u);
  m.message_id = "";
  EXPECT_EQ(store_->put_inbox(m, nullptr).status().code(), StatusCode::kInvalidArgument);
}

TEST_P(MailStoreTest, InboxBatchIsOneTransactionWithDuplicatesResolved) {
  bool dup = false;
  auto first = store_->put_inbox(inbox_row("old@x"), &dup);
  ASSERT_TRUE(first.ok());
  auto put = store_->put_inbox_batch(
      {inbox_row("a@x"), inbox_row("old@x"), inbox_row("b@x"), inbox_row("a@x")});
  ASSERT_TRUE(put.ok()) << put.status().to_string();
  ASSERT_EQ(put->size(), 4u);
  EXPECT_FALSE((*put)[0].duplicate);
  EXPECT_TRUE((*put)[1].duplicate);
  EXPECT_EQ((*put)[1].id, *first);
  EXPECT_FALSE((*put)[2].duplicate);
  EXPECT_TRUE((*put)[3].duplicate);  // a repeat inside the batch is a duplicate of the first
  EXPECT_EQ((*put)[3].id, (*put)[0].id);
  EXPECT_NE((*put)[0].id, (*put)[2].id);
  auto fresh = store_->inbox_list("new", 10, false);
  ASSERT_TRUE(fresh.ok());
  ASSERT_EQ(fresh->size(), 3u);
  EXPECT_EQ(fresh->at(0).id, *first);  // oldest first
  EXPECT_EQ(store_->inbox_list("new", 2, false)->size(), 2u);
  auto empty = store_->put_inbox_batch({});
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

TEST_P(MailStoreTest, InboxLeaseIsOneHolderAtATime) {
  bool dup = false;
  auto id = store_->put_inbox(inbox_row("lease@x"), &dup);
  ASSERT_TRUE(id.ok());
  EXPECT_TRUE(*store_->lease_inbox(*id, "a", 100, 60));
  EXPECT_FALSE(*store_->lease_inbox(*id, "b", 159, 60));  // a holds it until 160
  EXPECT_TRUE(*store_->lease_inbox(*id, "a", 150, 60));   // renewed by its holder: until 210
  EXPECT_EQ(store_->inbox_message(*id)->attempts, 1) << "a renewal is not a new try";
  auto leases = store_->inbox_leases();
  ASSERT_TRUE(leases.ok());
  ASSERT_EQ(leases->size(), 1u);
  EXPECT_EQ(leases->at(0).inbox_id, *id);
  EXPECT_EQ(leases->at(0).holder, "a");
  EXPECT_EQ(leases->at(0).until, 210);
  EXPECT_FALSE(*store_->lease_inbox(*id, "b", 200, 60));
  EXPECT_TRUE(store_->release_inbox(*id, "b").ok());  // not b's: left alone
  EXPECT_FALSE(*store_->lease_inbox(*id, "b", 200, 60));
  EXPECT_TRUE(store_->release_inbox(*id, "a").ok());
  EXPECT_TRUE(*store_->lease_inbox(*id, "b", 200, 60));
  EXPECT_TRUE(*store_->lease_inbox(*id, "c", 261, 60));  // b's ran out at 260
  EXPECT_EQ(store_->inbox_message(*id)->attempts, 3);
  ASSERT_TRUE(store_->set_inbox_state(*id, "processed", "done").ok());
  EXPECT_TRUE(store_->inbox_leases()->empty()) << "leaving 'new' drops the lease";
  EXPECT_EQ(store_->inbox_message(*id)->outcome, "done");
  EXPECT_FALSE(*store_->lease_inbox(*id, "d", 0, 60));  // no longer "new"
  EXPECT_EQ(store_->lease_inbox(*id + 100, "d", 0, 60).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store_->lease_inbox(*id, "", 0, 60).status().code(), StatusCode::kInvalidArgument);
}

TEST_P(MailStoreTest, RetryLaterUncountsTheTryOfItsHolderOnly) {
  auto id = store_->put_inbox(inbox_row("retry@x"), nullptr);
  ASSERT_TRUE(id.ok());
  ASSERT_TRUE(*store_->lease_inbox(*id, "a", 100, 60));
  ASSERT_TRUE(store_->retry_inbox_later(*id, "b").ok());  // not b's
  EXPECT_EQ(store_->inbox_message(*id)->attempts, 1);
  EXPECT_EQ(store_->inbox_leases()->size(), 1u);
  ASSERT_TRUE(store_->retry_inbox_later(*id, "a").ok());
  EXPECT_EQ(store_->inbox_message(*id)->attempts, 0);
  EXPECT_TRUE(store_->inbox_leases()->empty());
  ASSERT_TRUE(store_->retry_inbox_later(*id, "a").ok());  // nothing held: nothing uncounted
  EXPECT_EQ(store_->inbox_message(*id)->attempts, 0);
  EXPECT_TRUE(*store_->lease_inbox(*id, "b", 101, 60));
}

TEST_P(MailStoreTest, InboxBatchWithABadRowStoresNothing) {
  InboxMessage bad = inbox_row("c@x");
  bad.message_id = "";
  auto put = store_->put_inbox_batch({inbox_row("ok@x"), bad});
  ASSERT_FALSE(put.ok());
  EXPECT_EQ(put.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(put.status().message().find("message 1"), std::string::npos) << put.status().message();
  InboxMessage odd = inbox_row("d@x");
  odd.state = "weird";
  put = store_->put_inbox_batch({inbox_row("ok@x"), odd});
  ASSERT_FALSE(put.ok());
  EXPECT_NE(put.status().message().find("weird"), std::string::npos) << put.status().message();
  auto fresh = store_->inbox_list("new", 10, false);
  ASSERT_TRUE(fresh.ok());
  EXPECT_TRUE(fresh->empty());
}

TEST_P(MailStoreTest, InboxListUsagePruneAndMask) {
  InboxMessage a = inbox_row("a@x");
  a.envelope_from = "Ann@Example.org";
  a.peer = "192.0.2.1";
  a.received_at = 100;
  InboxMessage b = inbox_row("b@x");
  b.envelope_from = "ann@example.ORG";
  b.peer = "192.0.2.2";
  b.received_at = 200;
  InboxMessage c = inbox_row("c@x");
  c.envelope_from = "bob@example.org";
  c.peer = "192.0.2.1";
  c.received_at = 300;
  auto put = store_->put_inbox_batch({a, b, c});
  ASSERT_TRUE(put.ok()) << put.status().to_string();
  const std::int64_t ida = (*put)[0].id, idb = (*put)[1].id, idc = (*put)[2].id;

  auto from = store_->inbox_usage_from("ANN@example.org", 0);
  ASSERT_TRUE(from.ok()) << from.status().to_string();
  EXPECT_EQ(from->messages, 2);
  EXPECT_EQ(from->bytes, static_cast<std::int64_t>(a.raw.size() + b.raw.size()));
  EXPECT_EQ(store_->inbox_usage_from("ann@example.org", 150)->messages, 1);
  EXPECT_EQ(store_->inbox_usage_from("", 0)->messages, 0);
  EXPECT_EQ(store_->inbox_usage_peer("192.0.2.1", 0)->messages, 2);
  EXPECT_EQ(store_->inbox_usage_peer("192.0.2.1", 301)->bytes, 0);
  EXPECT_EQ(store_->inbox_usage_peer("", 0)->messages, 0);

  ASSERT_TRUE(store_->set_inbox_state(ida, "processed", "ok").ok());
  ASSERT_TRUE(store_->set_inbox_state(idb, "failed", "bad").ok());
  auto newest = store_->inbox_list("", 10, true);
  ASSERT_TRUE(newest.ok()) << newest.status().to_string();
  ASSERT_EQ(newest->size(), 3u);
  EXPECT_EQ(newest->at(0).id, idc);
  EXPECT_EQ(newest->at(0).raw, "") << "listed without the raw bytes";
  EXPECT_EQ(newest->at(0).raw_bytes, static_cast<std::int64_t>(c.raw.size()));
  EXPECT_EQ(newest->at(0).peer, "192.0.2.1");
  auto oldest = store_->inbox_list("", 2, false);
  ASSERT_EQ(oldest->size(), 2u);
  EXPECT_EQ(oldest->at(0).id, ida);
  auto failed = store_->inbox_list("failed", 10, true);
  ASSERT_EQ(failed->size(), 1u);
  EXPECT_EQ(failed->at(0).outcome, "bad");

  // Pruning drops the raw bytes of messages no longer new received before the cut.
  auto pruned = store_->prune_inbox(250, 1000);
  ASSERT_TRUE(pruned.ok()) << pruned.status().to_string();
  EXPECT_EQ(*pruned, 2);
  EXPECT_EQ(*store_->prune_inbox(250, 1001), 0) << "pruned once";
  auto gone = store_->inbox_message(ida);
  EXPECT_EQ(gone->raw, "");
  EXPECT_EQ(gone->pruned_at, std::optional<UnixTime>(1000));
  EXPECT_EQ(gone->raw_bytes, static_cast<std::int64_t>(a.raw.size())) << "the size is kept";
  EXPECT_EQ(store_->inbox_message(idc)->raw, c.raw) << "still new: kept";

  ASSERT_TRUE(store_->mask_inbox_raw(idc, "Subject: [masked]\r\n\r\n").ok());
  EXPECT_EQ(store_->inbox_message(idc)->raw, "Subject: [masked]\r\n\r\n");
  EXPECT_EQ(store_->mask_inbox_raw(idc + 100, "x").code(), StatusCode::kNotFound);
}

TEST_P(MailStoreTest, AnOddSenderAddressIsStoredCountedAndAnswered) {
  InboxMessage m = inbox_row("odd@x");
  m.envelope_from = std::string("b\xff\x00y@example.org", 16);
  auto id = store_->put_inbox(m, nullptr);
  ASSERT_TRUE(id.ok()) << id.status().to_string();
  EXPECT_EQ(store_->inbox_usage_from(m.envelope_from, 0)->messages, 1);
  EXPECT_EQ(store_->inbox_message(*id)->raw, m.raw);
  // The refusal goes back to that address, and counts against it.
  queue("refusal-odd", kStart, m.envelope_from, "refusal");
  EXPECT_EQ(*store_->outbox_count(m.envelope_from, "refusal", kStart), 1);
  ASSERT_EQ(store_->claim(kStart, 10, 60)->size(), 1u);
}

TEST_P(MailStoreTest, BytesStoredPerGame) {
  create_game_or_fail("britain-1");
  create_game_or_fail("gaul");
  const auto id = queue("g1", kStart);
  const std::int64_t mail_bytes = static_cast<std::int64_t>(row(id).raw.size());
  SubmissionRecord file;
  file.game = "britain-1";
  file.player = "WSX";
  file.turn = 1;
  file.source = "web";
  file.raw_text = std::string("PLAYER WSX\n\xe9\x00\xff\n", 15);
  file.ack = {{"lines", 2}};
  ASSERT_TRUE(store_->put_submission(file).ok());
  const auto state = store_->load_state("britain-1", std::nullopt);
  ASSERT_TRUE(state.ok());
  const TurnCommit commit = make_commit(*state);
  commit_open_turn_or_fail("britain-1");
  std::int64_t report_bytes = 0;
  for (const auto& r : commit.reports)
    report_bytes += static_cast<std::int64_t>(r.text.size() + r.json.dump().size());

  auto by_game = store_->storage_by_game();
  ASSERT_TRUE(by_game.ok()) << by_game.status().to_string();
  ASSERT_EQ(by_game->size(), 2u);
  EXPECT_EQ(by_game->at(0).game, "britain-1");
  EXPECT_EQ(by_game->at(0).mail, mail_bytes);
  EXPECT_EQ(by_game->at(0).submissions,
            static_cast<std::int64_t>(file.raw_text.size() + file.ack.dump().size()));
  EXPECT_EQ(by_game->at(0).reports, report_bytes);
  EXPECT_EQ(by_game->at(1).game, "gaul");
  EXPECT_EQ(by_game->at(1).mail, 0);
  EXPECT_EQ(by_game->at(1).reports, 0);
  EXPECT_EQ(by_game->at(1).submissions, 0);
}

ADJ_ON_EVERY_BACKEND(MailStoreTest);

// ---- SQLite only ----------------------------------------------------------------------------

// A message whose stored part has no place in it (only a damaged database has one) is marked
// failed with the reason when claimed; the messages beside it are claimed as ever.
TEST_F(StoreTest, AClaimedMessageWithoutThePlaceOfItsPartFailsAlone) {
  const std::string key = "feedface";
  ASSERT_TRUE(store_->put_mail_part(key, "Ym9keQ==", kStart).ok());
  std::vector<OutboxMessage> ms(3);
  for (int i = 0; i < 3; ++i) {
    ms[i].kind = "report";
    ms[i].to = "p" + std::to_string(i) + "@example.org";
    ms[i].raw = "Subject: " + std::to_string(i) + "\r\n\r\n" + mail_part_placeholder(key) + "\r\n";
    ms[i].dedupe_key = "r" + std::to_string(i);
    ms[i].part_key = key;
    ms[i].next_attempt_at = ms[i].created_at = kStart;
  }
  auto ids = store_->enqueue_batch(ms);
  ASSERT_TRUE(ids.ok()) << ids.status().to_string();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_path().c_str(), &db), SQLITE_OK);
  const std::string damage =
      "UPDATE outbox SET raw = 'Subject: 1' WHERE id = " + std::to_string(ids->at(1));
  EXPECT_EQ(sqlite3_exec(db, damage.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  auto claimed = store_->claim(kStart, 10, 60);
  ASSERT_TRUE(claimed.ok()) << claimed.status().to_string();
  ASSERT_EQ(claimed->size(), 2u);
  EXPECT_EQ(claimed->at(0).raw, "Subject: 0\r\n\r\nYm9keQ==\r\n");
  EXPECT_EQ(claimed->at(1).raw, "Subject: 2\r\n\r\nYm9keQ==\r\n");
  auto damaged = store_->outbox_message(ids->at(1));
  ASSERT_TRUE(damaged.ok());
  EXPECT_EQ(damaged->state, "failed");
  EXPECT_NE(damaged->last_error.find("feedface"), std::string::npos) << damaged->last_error;
  EXPECT_TRUE(store_->claim(kStart + 100, 10, 60)->size() == 2u) << "the two, their lease over";
}

TEST_F(StoreTest, Migration0003AddsStrictMailTables) {
  EXPECT_GE(*store_->schema_version(), 3);
  auto db = sqlite::Database::open(db_path());
  ASSERT_TRUE(db.ok());
  for (const char* t : {"inbox", "outbox"}) {
    auto strict = db->query("SELECT strict FROM pragma_table_list WHERE name = ?", {t});
    ASSERT_TRUE(strict.ok() && !strict->empty()) << t;
    EXPECT_EQ(strict->int64(0, 0), 1) << t;
  }
  auto name = db->query("SELECT name FROM schema_migrations WHERE version = 3", {});
  ASSERT_TRUE(name.ok() && !name->empty());
  EXPECT_EQ(name->text(0, 0), "mail");
}

}  // namespace
}  // namespace adj::storage_test
