// MailIngest over a real SQLite store: dedupe, commands, the From-address warning, rate limits,
// the size limit, leases, and the mail the game sends on its own (turn reports, reminders). The
// corpus of single messages is in mail_corpus_test.cc.
#include "server/mail/mail_ingest.h"

#include <gtest/gtest.h>

#include <map>

#include <sys/wait.h>
#include <unistd.h>
#include <cstring>

#include <set>
#include <thread>

#include "tests/mail/mail_test_util.h"

namespace adj::mail {
namespace {

using mail_test::corpus;
using mail_test::ingest_contains;
using mail_test::kStart;
using mail_test::MailFixture;

using Ingest = MailFixture;

TEST_F(Ingest, SameMessageTwiceIsOneSubmissionAndOneReply) {
  const std::string raw = corpus("plain.eml");
  bool dup = true;
  auto first =
      ingest_->accept(raw, "smtp", {"wessex@example.org", {"orders@pbm.example.net"}, ""}, &dup);
  ASSERT_TRUE(first.ok());
  EXPECT_FALSE(dup);
  ASSERT_TRUE(ingest_->process(*first).ok());
  // The same message again (e.g. the sender's MTA retried after a lost 250), even as LF text.
  std::string lf;
  for (char c : raw)
    if (c != '\r') lf.push_back(c);
  auto second = ingest_->accept(lf, "pipe", {}, &dup);
  ASSERT_TRUE(second.ok());
  EXPECT_TRUE(dup);
  EXPECT_EQ(*second, *first);
  auto again = ingest_->process(*second);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->already_done);
  EXPECT_EQ(submissions().size(), 1u);
  EXPECT_EQ(outbox().size(), 1u);
  auto in = store_->inbox_message(*first);
  ASSERT_TRUE(in.ok());
  EXPECT_EQ(in->channel, "smtp");
  EXPECT_EQ(in->envelope_from, "wessex@example.org");
  EXPECT_EQ(in->envelope_to, std::vector<std::string>{"orders@pbm.example.net"});
}

TEST_F(Ingest, ReprocessingAfterACrashSubmitsAndRepliesOnce) {
  // A crash after the submission and the reply were written but before the inbox row was
  // marked: the message is still "new" and is processed again.
  auto id = ingest_->accept(corpus("latin1_subject.eml"), "pipe", {});
  ASSERT_TRUE(id.ok());
  auto first = ingest_->process(*id);
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE(store_->set_inbox_state(*id, "new", "").ok());
  auto second = ingest_->process(*id);
  ASSERT_TRUE(second.ok());
  EXPECT_FALSE(second->already_done);
  EXPECT_EQ(second->submission_id, first->submission_id);
  EXPECT_EQ(second->queued, 0);
  EXPECT_EQ(submissions().size(), 1u);
  EXPECT_EQ(outbox().size(), 2u);  // the ack and the warning, once each
}

TEST_F(Ingest, MessageWithoutMessageIdIsKeyedByItsContent) {
  const std::string raw =
      "From: wessex@example.org\nSubject: x\n\nGAME britain-1\nPLAYER WSX cerdic\nDEFEND WIN\n";
  bool dup = false;
  auto a = ingest_->accept(raw, "pipe", {}, &dup);
  auto b = ingest_->accept(raw, "pipe", {}, &dup);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a, *b);
  EXPECT_TRUE(dup);
  auto r = ingest_->process(*a);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->action, "orders");
  // Without a Message-ID there is nothing to thread to.
  const ParsedMail reply = parse(outbox().at(0));
  EXPECT_TRUE(reply.in_reply_to.empty());
  EXPECT_TRUE(submissions().at(0).source.starts_with("email:sha256-"));
}

TEST_F(Ingest, GameFromTheSubjectOrTheRecipientTag) {
  // No GAME line: the subject names the game, so the sender is answered with the full
  // acknowledgement, which explains that the file needs a GAME line.
  auto r = ingest(
      "From: wessex@example.org\nSubject: Orders for BRITAIN-1\nMessage-ID: <s1@x>\n\n"
      "PLAYER WSX cerdic\nDEFEND WIN\n");
  EXPECT_EQ(r.action, "orders");
  auto reply = parse(outbox().at(0));
  EXPECT_EQ(outbox().at(0).kind, "ack");
  EXPECT_TRUE(ingest_contains(reply.text, "the file has no GAME line")) << reply.text;

  // orders+britain-1@host as the envelope recipient.
  auto id =
      ingest_->accept("From: wessex@example.org\nSubject: hi\nMessage-ID: <s2@x>\n\nHELP\n", "smtp",
                      {"wessex@example.org", {"orders+britain-1@pbm.example.net"}, ""});
  ASSERT_TRUE(id.ok());
  auto help = ingest_->process(*id);
  ASSERT_TRUE(help.ok());
  EXPECT_EQ(help->action, "help");
  EXPECT_TRUE(ingest_contains(help->outcome, "for britain-1")) << help->outcome;
}

TEST_F(Ingest, UnknownGameAndNoGameAreRefused) {
  auto r = ingest("From: a@example.org\nMessage-ID: <u1@x>\n\nGAME nowhere-9\nPLAYER X y\n");
  EXPECT_EQ(r.action, "refusal");
  EXPECT_TRUE(ingest_contains(parse(outbox().at(0)).text, "There is no game \"nowhere-9\""));
  auto r2 = ingest("From: b@example.org\nMessage-ID: <u2@x>\n\nPLAYER WSX cerdic\nLEVY HAM\n");
  EXPECT_EQ(r2.action, "refusal");
  const ParsedMail reply = parse(outbox().at(1));
  EXPECT_TRUE(ingest_contains(reply.text, "did not say which game")) << reply.text;
  EXPECT_FALSE(ingest_contains(outbox().at(1).raw, "cerdic"));
  EXPECT_TRUE(submissions().empty());
}

TEST_F(Ingest, RefusalsAreRateLimitedPerSender) {
  config_.refusals_per_window = 2;
  make_ingest();
  for (int i = 0; i < 4; ++i)
    ingest("From: Mallory <mallory@evil.example>\nMessage-ID: <rl" + std::to_string(i) +
           "@evil>\n\nGAME britain-1\nPLAYER WSX wrong" + std::to_string(i) + "\n");
  EXPECT_EQ(outbox().size(), 2u);
  auto in = store_->inbox_message(last_inbox_);
  EXPECT_TRUE(ingest_contains(in->outcome, "rate limit")) << in->outcome;
  // Another sender is not affected, and the limit lifts after the window.
  ingest("From: other@example.org\nMessage-ID: <rl-other@x>\n\nGAME britain-1\nPLAYER WSX no\n");
  EXPECT_EQ(outbox().size(), 3u);
  now_ += 3601;
  ingest("From: MALLORY@evil.example\nMessage-ID: <rl-later@evil>\n\nGAME britain-1\nPLAYER A b\n");
  EXPECT_EQ(outbox().size(), 4u);
  // An authenticated sender's acknowledgements are never limited.
  for (int i = 0; i < 4; ++i)
    ingest("From: wessex@example.org\nMessage-ID: <ok" + std::to_string(i) +
           "@x>\n\nGAME britain-1\nPLAYER WSX cerdic\nDEFEND WIN\n");
  EXPECT_EQ(outbox().size(), 8u);
}

TEST_F(Ingest, AuthenticatedButRefusedFileGetsTheFullAcknowledgement) {
  auto r = ingest(
      "From: wessex@example.org\nMessage-ID: <t9@x>\n\nGAME britain-1\nPLAYER WSX cerdic\n"
      "TURN 9\nDEFEND WIN\n");
  EXPECT_EQ(r.action, "orders");
  const OutboxMessage m = outbox().at(0);
  EXPECT_EQ(m.kind, "ack");
  const ParsedMail reply = parse(m);
  EXPECT_TRUE(ingest_contains(reply.text, "Refused: orders are for turn 9; turn 1 is open"))
      << reply.text;
  EXPECT_TRUE(ingest_contains(reply.text, "DEFEND WIN"));
  EXPECT_FALSE(ingest_contains(m.raw, "cerdic"));
}

TEST_F(Ingest, SecretInTheSubjectIsMasked) {
  ingest(
      "From: wessex@example.org\nSubject: PLAYER WSX cerdic\nMessage-ID: <m1@x>\n\n"
      "GAME britain-1\nPLAYER WSX cerdic\nDEFEND WIN\n");
  const OutboxMessage m = outbox().at(0);
  EXPECT_FALSE(ingest_contains(m.raw, "cerdic"));
  EXPECT_EQ(parse(m).subject, "Re: PLAYER WSX ********");
}

TEST_F(Ingest, StatusShowsTheOrdersOnFile) {
  auto none = ingest(corpus("status.eml"));
  EXPECT_EQ(none.action, "status");
  EXPECT_TRUE(ingest_contains(parse(outbox().at(0)).text, "No orders are on file for WSX"));
  ingest(corpus("plain.eml"));
  // The same STATUS text as a new message (another Message-ID).
  std::string again = corpus("status.eml");
  again.replace(again.find("<status-1@"), 10, "<status-2@");
  auto r = ingest(again);
  EXPECT_EQ(r.action, "status");
  const auto out = outbox();
  ASSERT_EQ(out.size(), 3u);
  const ParsedMail reply = parse(out[2]);
  EXPECT_TRUE(ingest_contains(reply.text, "The orders on file for WSX in game britain-1, turn 1"))
      << reply.text;
  EXPECT_TRUE(ingest_contains(reply.text, "7 accepted, 2 rejected"));
  EXPECT_TRUE(ingest_contains(reply.text, ", by mail)")) << reply.text;  // never the Message-ID
  EXPECT_FALSE(ingest_contains(reply.text, "email:plain.7f3a@mail.example.org"));
  EXPECT_FALSE(ingest_contains(out[2].raw, "cerdic"));
}

TEST_F(Ingest, StatusAndResendNeedTheSecret) {
  auto r = ingest(
      "From: x@evil.example\nSubject: STATUS\nMessage-ID: <st1@x>\n\nGAME britain-1\n"
      "PLAYER WSX nope\n");
  EXPECT_EQ(r.action, "refusal");
  EXPECT_TRUE(ingest_contains(parse(outbox().at(0)).text, "code or secret is not right"));
  auto r2 = ingest("From: x@evil.example\nSubject: resend\nMessage-ID: <st2@x>\n\nRESEND\n");
  EXPECT_EQ(r2.action, "refusal");
  EXPECT_TRUE(ingest_contains(parse(outbox().at(1)).text, "RESEND needs the lines"));
}

TEST_F(Ingest, TheInboxKeepsNoSecretOnceProcessed) {
  const std::string original = corpus("plain.eml");
  ASSERT_TRUE(ingest_contains(original, "cerdic"));
  auto r = ingest(original);
  EXPECT_EQ(r.state, "processed");
  const std::string raw = store_->inbox_message(last_inbox_)->raw;
  EXPECT_FALSE(ingest_contains(raw, "cerdic")) << raw;
  EXPECT_TRUE(ingest_contains(raw, "********"));
  // Processing the stored message again finds the submission it made (nothing twice).
  EXPECT_EQ(submissions().size(), 1u);
}

TEST_F(Ingest, AnEncodedPartWithASecretIsNotKeptOnceProcessed) {
  const std::string original = corpus("attachment_base64.eml");
  auto r = ingest(original);
  EXPECT_EQ(r.state, "processed");
  EXPECT_EQ(submissions().size(), 1u);
  const std::string raw = store_->inbox_message(last_inbox_)->raw;
  EXPECT_EQ(raw.find("base64\r\n\r\n"), std::string::npos) << raw;
  EXPECT_LT(raw.size(), original.size());
  EXPECT_TRUE(ingest_contains(raw, "carried a secret in an encoded part")) << raw;
  EXPECT_TRUE(ingest_contains(raw, "Message-ID:") || ingest_contains(raw, "Message-Id:")) << raw;
}

TEST_F(Ingest, SecretCommandChangesTheSecret) {
  auto wrong = ingest(
      "From: x@evil.example\nSubject: hi\nMessage-ID: <sc1@x>\n\nGAME britain-1\n"
      "PLAYER WSX nope\nSECRET attacker-choice\n");
  EXPECT_EQ(wrong.action, "refusal");
  EXPECT_TRUE(services_->authenticate_player("britain-1", "WSX", "cerdic").ok());

  auto shortone = ingest(
      "From: wessex@example.org\nSubject: hi\nMessage-ID: <sc2@x>\n\nGAME britain-1\n"
      "PLAYER WSX cerdic\nSECRET tiny\n");
  EXPECT_EQ(shortone.action, "secret");
  EXPECT_TRUE(services_->authenticate_player("britain-1", "WSX", "cerdic").ok());

  auto ok = ingest(
      "From: wessex@example.org\nSubject: new secret\nMessage-ID: <sc3@x>\n\nGAME britain-1\n"
      "PLAYER WSX cerdic\nSECRET Kent-and-Sussex-9\n");
  EXPECT_EQ(ok.action, "secret");
  EXPECT_FALSE(services_->authenticate_player("britain-1", "WSX", "cerdic").ok());
  EXPECT_TRUE(services_->authenticate_player("britain-1", "WSX", "Kent-and-Sussex-9").ok());
  const auto out = outbox();
  ASSERT_EQ(out.size(), 3u);
  EXPECT_TRUE(ingest_contains(parse(out[2]).text, "is changed")) << parse(out[2]).text;
  for (const auto& m : out) {
    EXPECT_FALSE(ingest_contains(m.raw, "Kent-and-Sussex-9"));
    EXPECT_FALSE(ingest_contains(m.raw, "cerdic"));
  }
  EXPECT_EQ(store_->audit_log("britain-1")->back().action, "secret");
  // The stored message keeps neither secret once processed.
  const std::string raw = store_->inbox_message(last_inbox_)->raw;
  EXPECT_FALSE(ingest_contains(raw, "Kent-and-Sussex-9")) << raw;
  EXPECT_FALSE(ingest_contains(raw, "cerdic")) << raw;
  EXPECT_TRUE(ingest_contains(raw, "PLAYER WSX ********")) << raw;
}

TEST_F(Ingest, NewSecretsAreMailedToPlayersWithAnAddress) {
  auto n = ingest_->queue_new_secrets("britain-1", {{"WSX", "abcd-efgh-jkmn"}, {"XXX", "x"}});
  ASSERT_TRUE(n.ok()) << n.status().to_string();
  EXPECT_EQ(*n, 1);
  const auto out = outbox();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].kind, "secret");
  EXPECT_EQ(out[0].to, "wessex@example.org");
  EXPECT_EQ(out[0].dedupe_key.find("abcd-efgh-jkmn"), std::string::npos);
  const ParsedMail p = parse(out[0]);
  EXPECT_TRUE(ingest_contains(p.text, "PLAYER WSX abcd-efgh-jkmn")) << p.text;
  EXPECT_FALSE(ingest_contains(p.text, "cerdic"));
  // Before turn 1 runs, a game the GM created tells its players their position and deadline
  // too, as a start from sign-ups does.
  EXPECT_TRUE(ingest_contains(p.text, "Send your orders for turn 1")) << p.text;
  EXPECT_TRUE(ingest_contains(p.text, "HAM")) << p.text;
  // Once delivered, the database keeps the header only: the secret is nowhere in clear.
  ASSERT_TRUE(store_->mark_sent(out[0].id, now_).ok());
  const auto sent = outbox();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_FALSE(ingest_contains(sent[0].raw, "abcd-efgh-jkmn")) << sent[0].raw;
  EXPECT_TRUE(ingest_contains(sent[0].raw, "To: "));
  // A second reset is mailed too.
  EXPECT_EQ(*ingest_->queue_new_secrets("britain-1", {{"WSX", "mnpq-rstu-vwxy"}}), 1);
  EXPECT_EQ(ingest_->queue_new_secrets("nope", {{"WSX", "x"}}).status().code(),
            StatusCode::kNotFound);
}

using mail_test::WithTurn;

TEST_F(WithTurn, ResendSendsTheLatestReport) {
  auto r = ingest(corpus("resend.eml"));
  EXPECT_EQ(r.action, "resend");
  const OutboxMessage m = outbox().at(0);
  EXPECT_EQ(m.kind, "resend");
  const ParsedMail reply = parse(m);
  auto report = services_->report("britain-1", "WSX", 1);
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE(ingest_contains(reply.text, report->text));
  EXPECT_TRUE(ingest_contains(reply.text, "https://pbm.example.net/games/britain-1/me/reports/1"));
  EXPECT_TRUE(reply.has_html);
  EXPECT_FALSE(ingest_contains(m.raw, "cerdic"));
}

TEST_F(WithTurn, TurnReportsGoToEveryPlayerOnce) {
  auto n = ingest_->queue_turn_reports("britain-1", 1);
  ASSERT_TRUE(n.ok()) << n.status().to_string();
  EXPECT_EQ(*n, 5);
  auto again = ingest_->queue_turn_reports("britain-1", 1);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, 0);
  const auto out = outbox();
  ASSERT_EQ(out.size(), 5u);

  for (const OutboxMessage& m : out) {
    EXPECT_EQ(m.kind, "report");
    EXPECT_EQ(m.game, "britain-1");
    EXPECT_EQ(m.dedupe_key.rfind("report:britain-1:1:", 0), 0u);
    const ParsedMail p = parse(m);
    EXPECT_TRUE(p.has_html);
    EXPECT_EQ(p.auto_submitted, "auto-generated");
    ASSERT_EQ(p.texts.size(), 2u);
    EXPECT_TRUE(ingest_contains(p.text, "https://pbm.example.net/games/britain-1/me/reports/1"));
    EXPECT_TRUE(ingest_contains(p.texts[1].text, "Your report on the web"));
    // When turn 2 is due: the game is run by hand here, and the mail says so.
    EXPECT_TRUE(ingest_contains(p.text, "No deadline is set for turn 2: the game master runs it"));
    // The HTML part links to the web report (it may be quoted-printable: undo soft breaks).
    std::string unfolded = m.raw;
    for (std::size_t at; (at = unfolded.find("=\r\n")) != std::string::npos;) unfolded.erase(at, 3);
    const std::string url = "\"https://pbm.example.net/games/britain-1/me/reports/1\"";
    EXPECT_TRUE(ingest_contains(unfolded, "href=" + url) ||
                ingest_contains(unfolded, "href=3D" + url));
    for (const char* secret : {"cerdic", "penda", "oswald", "raedwald", "cadwallon"})
      EXPECT_FALSE(ingest_contains(m.raw, secret)) << secret;
    if (m.to == "mercia@example.org") {
      auto report = services_->report("britain-1", "MRC", 1);
      ASSERT_TRUE(report.ok());
      EXPECT_TRUE(ingest_contains(p.text, report->text));
      // No sign-in link: tokens are stored only hashed, and the mail waits in the outbox.
      EXPECT_FALSE(ingest_contains(m.raw, "/games/britain-1/p/"));
      EXPECT_EQ(p.subject, "Dark Age Britain (britain-1): turn 1 report for MRC");
    }
  }
}

TEST_F(Ingest, RemindersGoToPlayersWithoutOrders) {
  Schedule s;
  s.kind = "fixed";
  s.deadline = kStart + 86400;
  ASSERT_TRUE(store_->set_schedule("britain-1", s).ok());
  ingest(corpus("plain.eml"));  // WSX has orders
  auto n = ingest_->queue_reminders("britain-1");
  ASSERT_TRUE(n.ok()) << n.status().to_string();
  EXPECT_EQ(*n, 4);
  EXPECT_EQ(*ingest_->queue_reminders("britain-1"), 0);
  EXPECT_EQ(*ingest_->queue_reminders("britain-1", "last-call"), 4);
  int reminders = 0;
  for (const OutboxMessage& m : outbox()) {
    if (m.kind != "reminder") continue;
    ++reminders;
    EXPECT_NE(m.to, "wessex@example.org");
    EXPECT_TRUE(ingest_contains(parse(m).text, "Orders for turn 1 are due by 2026-11-20 00:00 UTC"))
        << parse(m).text;
  }
  EXPECT_EQ(reminders, 8);
}

TEST_F(Ingest, OversizedMessageIsStoredAsHeadersAndRefused) {
  // 30 MB: an attachment-sized body after ordinary headers.
  std::string raw =
      "From: Wessex <wessex@example.org>\r\nTo: orders@pbm.example.net\r\nSubject: map scan\r\n"
      "Message-ID: <huge-1@mail.example.org>\r\nMIME-Version: 1.0\r\n"
      "Content-Type: application/octet-stream\r\nContent-Transfer-Encoding: base64\r\n\r\n";
  const std::string line = std::string(76, 'A') + "\r\n";
  while (raw.size() < 30u * 1024 * 1024) raw += line;
  auto r = ingest(raw);
  EXPECT_EQ(r.action, "refusal");
  auto in = store_->inbox_message(last_inbox_);
  ASSERT_TRUE(in.ok());
  EXPECT_EQ(in->message_id, "huge-1@mail.example.org");
  EXPECT_LT(in->raw.size(), 1024u);
  EXPECT_TRUE(in->raw.starts_with("X-Adjutant-Truncated: " + std::to_string(raw.size()) + "\r\n"));
  const ParsedMail reply = parse(outbox().at(0));
  EXPECT_TRUE(ingest_contains(reply.text, "Your message was 30 MiB")) << reply.text;
  EXPECT_TRUE(ingest_contains(reply.text, "up to 10 MiB"));
  EXPECT_EQ(reply.in_reply_to, "");  // a refusal carries nothing of the incoming header
  // The same oversized message again is a duplicate.
  bool dup = false;
  auto again = ingest_->accept(raw, "smtp", {}, &dup);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(dup);
}

TEST_F(Ingest, RecipientAllowList) {
  config_.allowed_recipients = {"orders@pbm.example.net"};
  make_ingest();
  EXPECT_TRUE(ingest_->recipient_allowed("ORDERS@pbm.example.net"));
  EXPECT_TRUE(ingest_->recipient_allowed("orders+britain-1@pbm.example.net"));
  EXPECT_FALSE(ingest_->recipient_allowed("gm@pbm.example.net"));
  auto denied = ingest_->accept(corpus("plain.eml"), "smtp", {"a@b", {"gm@pbm.example.net"}, ""});
  ASSERT_FALSE(denied.ok());
  EXPECT_EQ(denied.status().code(), StatusCode::kPermissionDenied);
  auto ok = ingest_->accept(corpus("plain.eml"), "smtp",
                            {"a@b", {"gm@pbm.example.net", "orders@pbm.example.net"}, ""});
  EXPECT_TRUE(ok.ok());
}

TEST_F(Ingest, ProcessPendingHandlesEveryNewMessage) {
  for (const char* f : {"plain.eml", "alternative_qp.eml", "empty.eml", "bounce.eml"})
    ASSERT_TRUE(ingest_->accept(corpus(f), "maildir", {}).ok());
  // Each message answered is reported once with its action (the daemon logs it).
  std::map<std::int64_t, std::string> answered;
  auto n = ingest_->process_pending(
      100, [&](std::int64_t id, const ProcessResult& r) { answered[id] = r.action; });
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 4);
  EXPECT_EQ(answered.size(), 4u);
  for (const auto& [id, action] : answered) EXPECT_FALSE(action.empty()) << id;
  EXPECT_TRUE(store_->inbox_list("new", 10, false)->empty());
  EXPECT_EQ(store_->inbox_list("failed", 10, false)->size(), 1u);  // the empty one
  answered.clear();
  EXPECT_EQ(*ingest_->process_pending(
                100, [&](std::int64_t id, const ProcessResult& r) { answered[id] = r.action; }),
            0);
  EXPECT_TRUE(answered.empty()) << "answered before: not reported again";
  EXPECT_EQ(outbox().size(), 2u);
}

TEST_F(Ingest, AMessageLeasedByAnotherProcessIsLeftToIt) {
  // A second process (its own connection and MailIngest) holds the lease: this one leaves the
  // message alone until the lease runs out, then answers it once.
  auto other = SqliteStore::open(db_);
  ASSERT_TRUE(other.ok());
  auto id = ingest_->accept(corpus("plain.eml"), "pipe", {});
  ASSERT_TRUE(id.ok());
  auto taken = (*other)->lease_inbox(*id, "elsewhere:1:1", now_, config_.lease_seconds);
  ASSERT_TRUE(taken.ok() && *taken);

  auto r = ingest_->process(*id);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_TRUE(r->already_done);
  EXPECT_EQ(r->state, "new");
  EXPECT_EQ(r->outcome, "being answered by another process");
  EXPECT_EQ(*ingest_->process_pending(), 0);  // skipped, not counted
  EXPECT_TRUE(outbox().empty());
  EXPECT_TRUE(submissions().empty());

  now_ += config_.lease_seconds + 1;  // the other process died: its lease ran out
  auto late = ingest_->process(*id);
  ASSERT_TRUE(late.ok());
  EXPECT_FALSE(late->already_done);
  EXPECT_EQ(late->state, "processed");
  EXPECT_EQ(submissions().size(), 1u);
  EXPECT_EQ(outbox().size(), 1u);
  // The lease went with the "new" state: nobody can take it now.
  auto after = (*other)->lease_inbox(*id, "elsewhere:1:1", now_, 60);
  ASSERT_TRUE(after.ok());
  EXPECT_FALSE(*after);
}

TEST_F(Ingest, LeasesOfDeadProcessesOnThisHostAreGivenBack) {
  auto id = ingest_->accept(corpus("plain.eml"), "pipe", {});
  ASSERT_TRUE(id.ok());
  auto id2 = ingest_->accept(corpus("alternative_qp.eml"), "pipe", {});
  ASSERT_TRUE(id2.ok());
  char host[256] = {};
  ASSERT_EQ(::gethostname(host, sizeof host - 1), 0);
  // A child that has exited (and been reaped) is a pid that no longer runs here.
  const pid_t child = ::fork();
  if (child == 0) std::_Exit(0);
  ASSERT_GT(child, 0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  const std::string dead = std::string(host) + ":" + std::to_string(child) + ":1";
  const std::string elsewhere = "some-other-host:" + std::to_string(child) + ":1";
  ASSERT_TRUE(*store_->lease_inbox(*id, dead, now_, 3600));
  ASSERT_TRUE(*store_->lease_inbox(*id2, elsewhere, now_, 3600));

  auto released = ingest_->release_dead_leases();
  ASSERT_TRUE(released.ok()) << released.status().to_string();
  EXPECT_EQ(*released, 1);  // the other host's lease is left to run out
  auto r = ingest_->process(*id);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->already_done);
  auto r2 = ingest_->process(*id2);
  ASSERT_TRUE(r2.ok());
  EXPECT_TRUE(r2->already_done);
  EXPECT_EQ(*ingest_->release_dead_leases(), 0);
}

TEST_F(Ingest, TwoProcessesRacingAnswerEachMessageOnce) {
  // Two MailIngests on two connections (as the daemon and `adjutant ingest` would be) run
  // process_pending over the same 12 messages at once, on two threads.
  const std::vector<std::string> files = {"plain.eml",  "alternative_qp.eml", "help.eml",
                                          "status.eml", "wrong_secret.eml",   "resend.eml"};
  for (int copy = 0; copy < 2; ++copy)
    for (const std::string& f : files) {
      std::string raw = corpus(f);
      const std::size_t at = raw.find("Message-ID: <");
      ASSERT_NE(at, std::string::npos) << f;
      raw.insert(at + 13, "copy" + std::to_string(copy) + ".");
      ASSERT_TRUE(ingest_->accept(raw, "pipe", {}).ok());
    }
  // A second process: a runtime (and so a connection) of its own.
  AppConfig second_config;
  second_config.db_path = db_;
  AppRuntime second_app(second_config, [this] { return now_; });
  Result<int> a = 0, b = 0;
  std::thread t([&] {
    MailIngest second(second_app, config_);  // made and used on its thread
    b = second.process_pending(100);
  });
  a = ingest_->process_pending(100);
  t.join();
  ASSERT_TRUE(a.ok()) << a.status().to_string();
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  EXPECT_EQ(*a + *b, 12);
  EXPECT_TRUE(store_->inbox_list("new", 100, false)->empty());
  // Every answer was queued once: one outbox row per inbox message's reply key.
  std::set<std::string> keys;
  for (const OutboxMessage& m : outbox())
    EXPECT_TRUE(keys.insert(m.dedupe_key).second) << m.dedupe_key;
}

}  // namespace
}  // namespace adj::mail
