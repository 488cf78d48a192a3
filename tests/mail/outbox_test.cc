// The persistent outbox against real peers: a python3-aiosmtpd relay (/usr/bin/aiosmtpd writing
// a Maildir), the relay down and back up, a relay that refuses for good, and the MaildirSender.
// The MailStore contract itself is tested on every backend in tests/storage/mail_store_test.cc.
#include "server/app/mail_delivery.h"
#include "server/mail/outbox_worker.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>

#include "server/mail/compose.h"
#include "tests/mail/mail_test_util.h"

namespace adj::mail {
namespace {

using ::adj::testing::read_file;
using ::adj::testing::write_file;
using mail_test::Aiosmtpd;
using mail_test::free_port;
using mail_test::kStart;
using mail_test::maildir_new;
using mail_test::MailFixture;

class Outbox : public MailFixture {
 protected:
  // Queues one composed message (dedupe key `key`) due now.
  std::int64_t queue(const std::string& key, const std::string& to = "wessex@example.org",
                     const std::string& text = "Hello from the outbox.\n") {
    OutgoingMail m;
    m.from = config_.from;
    m.to = {to, ""};
    m.subject = "Test " + key + " \u00e9t\u00e9";
    m.date = now_;
    m.message_id = make_message_id(key, "pbm.example.net");
    m.text = text;
    auto raw = compose(m);
    EXPECT_TRUE(raw.ok());
    OutboxMessage o;
    o.kind = "test";
    o.game = "britain-1";
    o.to = to;
    o.raw = *raw;
    o.dedupe_key = key;
    o.next_attempt_at = now_;
    o.created_at = now_;
    auto id = store_->enqueue(o);
    EXPECT_TRUE(id.ok()) << id.status().to_string();
    return id.ok() ? *id : 0;
  }
  OutboxMessage row(std::int64_t id) {
    for (const auto& m : outbox())
      if (m.id == id) return m;
    ADD_FAILURE() << "no outbox row " << id;
    return {};
  }
  // A real aiosmtpd on a free port whose handler answers every RCPT with `reply`; started.
  Aiosmtpd rcpt_answering(const std::string& module, const std::string& reply) {
    const auto pydir = dir_.path() / "py";
    std::filesystem::create_directories(pydir);
    write_file((pydir / (module + ".py")).string(),
               "class Handler:\n"
               "    async def handle_RCPT(self, server, session, envelope, address, options):\n"
               "        return '" +
                   reply + "'\n");
    Aiosmtpd relay(free_port(), {module + ".Handler"}, pydir.string());
    EXPECT_TRUE(relay.start());
    return relay;
  }
  static SmtpRelayOptions relay_at(int port) {
    SmtpRelayOptions o;
    o.url = "smtp://127.0.0.1:" + std::to_string(port);
    return o;
  }
};

TEST(Backoff, DoublesUpToTheCap) {
  BackoffPolicy p;
  EXPECT_EQ(backoff_delay(1, p), 30);
  EXPECT_EQ(backoff_delay(2, p), 60);
  EXPECT_EQ(backoff_delay(3, p), 120);
  EXPECT_EQ(backoff_delay(7, p), 1920);
  EXPECT_EQ(backoff_delay(8, p), 3600);
  EXPECT_EQ(backoff_delay(30, p), 3600);
  EXPECT_EQ(backoff_delay(1000, p), 3600);
}

TEST_F(Outbox, DeliversToARealRelay) {
  if (!Aiosmtpd::available()) GTEST_SKIP() << "python3-aiosmtpd is not installed";
  const int port = free_port();
  const auto maildir = dir_.path() / "relay";
  Aiosmtpd relay(port, {"aiosmtpd.handlers.Mailbox", maildir.string()});
  ASSERT_TRUE(relay.start());
  // A report-sized message with a line that starts with a dot (SMTP dot-stuffing).
  std::string text = ".hidden? no: dot-stuffed\n";
  for (int i = 0; i < 2000; ++i) text += "line " + std::to_string(i) + " of the report\n";
  const auto a = queue("k1", "wessex@example.org", text);
  const auto b = queue("k2", "mercia@example.org");
  SmtpRelaySender sender(relay_at(port));
  OutboxWorker worker(*store_, sender);
  auto stats = worker.run_once(now_);
  ASSERT_TRUE(stats.ok()) << stats.status().to_string();
  EXPECT_EQ(stats->sent, 2);
  EXPECT_EQ(row(a).state, "sent");
  EXPECT_EQ(row(b).state, "sent");
  EXPECT_EQ(*store_->pending_count(), 0);

  const auto files = maildir_new(maildir);
  ASSERT_EQ(files.size(), 2u);
  std::set<std::string> rcpts, subjects;
  for (const auto& f : files) {
    const std::string got = read_file(f.string());
    EXPECT_NE(got.find("X-MailFrom: orders@pbm.example.net"), std::string::npos) << got;
    auto p = parse_mail(got);
    ASSERT_TRUE(p.ok());
    subjects.insert(p->subject);
    rcpts.insert(p->to.at(0));
    if (p->to.at(0) == "wessex@example.org") {
      EXPECT_EQ(p->text, text);
    }
  }
  EXPECT_EQ(rcpts, (std::set<std::string>{"wessex@example.org", "mercia@example.org"}));
  EXPECT_TRUE(subjects.count("Test k1 \u00e9t\u00e9"));
  // Nothing is due any more: a second pass sends nothing.
  EXPECT_EQ(worker.run_once(now_ + 5000)->claimed, 0);
  EXPECT_EQ(maildir_new(maildir).size(), 2u);
}

// The client port aiosmtpd's Mailbox handler records in a message's X-Peer header.
std::string x_peer(const std::filesystem::path& file) {
  const std::string got = read_file(file.string());
  const std::size_t at = got.find("X-Peer: ");
  return at == std::string::npos ? "" : got.substr(at, got.find('\n', at) - at);
}

TEST_F(Outbox, SmtpRelaySenderSendsABacklogOverOneConnection) {
  if (!Aiosmtpd::available()) GTEST_SKIP() << "python3-aiosmtpd is not installed";
  const int port = free_port();
  const auto maildir = dir_.path() / "relay";
  Aiosmtpd relay(port, {"aiosmtpd.handlers.Mailbox", maildir.string()});
  ASSERT_TRUE(relay.start());
  for (const char* k : {"c1", "c2", "c3"}) queue(k);
  SmtpRelaySender sender(relay_at(port));
  OutboxWorker worker(*store_, sender);
  ASSERT_EQ(worker.run_once(now_)->sent, 3);
  std::set<std::string> peers;
  for (const auto& f : maildir_new(maildir)) peers.insert(x_peer(f));
  ASSERT_EQ(peers.size(), 1u) << "one client port for the three messages";
  EXPECT_NE(peers.begin()->find("127.0.0.1"), std::string::npos) << *peers.begin();
}

TEST_F(Outbox, SmtpRelaySenderOpensANewConnectionWhenTheRelayClosedItsOwn) {
  if (!Aiosmtpd::available()) GTEST_SKIP() << "python3-aiosmtpd is not installed";
  const int port = free_port();
  const auto maildir = dir_.path() / "relay";
  SmtpRelaySender sender(relay_at(port));
  OutboxWorker worker(*store_, sender);
  {
    Aiosmtpd relay(port, {"aiosmtpd.handlers.Mailbox", maildir.string()});
    ASSERT_TRUE(relay.start());
    queue("before-restart");
    ASSERT_EQ(worker.run_once(now_)->sent, 1);
  }  // the relay stops: the kept connection is closed at its end
  Aiosmtpd relay(port, {"aiosmtpd.handlers.Mailbox", maildir.string()});
  ASSERT_TRUE(relay.start());
  const auto id = queue("after-restart");
  auto s = worker.run_once(now_);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  EXPECT_EQ(s->sent, 1) << row(id).last_error;
  EXPECT_EQ(s->retried, 0);
  EXPECT_EQ(row(id).attempts, 1);
  EXPECT_EQ(maildir_new(maildir).size(), 2u);
}

TEST_F(Outbox, RelayDownThenUpDeliversExactlyOnce) {
  if (!Aiosmtpd::available()) GTEST_SKIP() << "python3-aiosmtpd is not installed";
  const int port = free_port();
  const auto maildir = dir_.path() / "relay";
  const auto id = queue("down-up");
  SmtpRelaySender sender(relay_at(port));
  OutboxWorker worker(*store_, sender);

  // Down: the attempt fails, the message goes back to pending with a 30 s backoff.
  auto s1 = worker.run_once(now_);
  ASSERT_TRUE(s1.ok());
  EXPECT_EQ(s1->retried, 1);
  OutboxMessage m = row(id);
  EXPECT_EQ(m.state, "pending");
  EXPECT_EQ(m.attempts, 1);
  EXPECT_EQ(m.next_attempt_at, now_ + 30);
  EXPECT_NE(m.last_error.find("onnect"), std::string::npos) << m.last_error;
  // Still down at the next attempt: the backoff doubles.
  auto s2 = worker.run_once(now_ + 30);
  EXPECT_EQ(s2->retried, 1);
  m = row(id);
  EXPECT_EQ(m.attempts, 2);
  EXPECT_EQ(m.next_attempt_at, now_ + 30 + 60);
  // Not yet due: nothing is claimed.
  EXPECT_EQ(worker.run_once(now_ + 60)->claimed, 0);

  // Up: delivered once, and never again.
  Aiosmtpd relay(port, {"aiosmtpd.handlers.Mailbox", maildir.string()});
  ASSERT_TRUE(relay.start());
  auto s3 = worker.run_once(now_ + 90);
  ASSERT_TRUE(s3.ok());
  EXPECT_EQ(s3->sent, 1);
  EXPECT_EQ(row(id).state, "sent");
  EXPECT_EQ(row(id).attempts, 3);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(worker.run_once(now_ + 10000 * (i + 1))->claimed, 0);
  EXPECT_EQ(maildir_new(maildir).size(), 1u);
}

TEST_F(Outbox, AWorkerThatDiedMidSendIsTakenOverAfterTheLease) {
  if (!Aiosmtpd::available()) GTEST_SKIP() << "python3-aiosmtpd is not installed";
  const int port = free_port();
  const auto maildir = dir_.path() / "relay";
  const auto id = queue("lease");
  // A worker claims the message and dies before sending (no mark).
  auto claimed = store_->claim(now_, 10, 300);
  ASSERT_EQ(claimed->size(), 1u);
  Aiosmtpd relay(port, {"aiosmtpd.handlers.Mailbox", maildir.string()});
  ASSERT_TRUE(relay.start());
  SmtpRelaySender sender(relay_at(port));
  OutboxWorker worker(*store_, sender);
  EXPECT_EQ(worker.run_once(now_ + 299)->claimed, 0);  // still leased
  EXPECT_EQ(worker.run_once(now_ + 300)->sent, 1);
  EXPECT_EQ(row(id).state, "sent");
  EXPECT_EQ(maildir_new(maildir).size(), 1u);
}

TEST_F(Outbox, PermanentRefusalIsFinal) {
  if (!Aiosmtpd::available()) GTEST_SKIP() << "python3-aiosmtpd is not installed";
  // A real aiosmtpd that refuses every recipient with 550.
  Aiosmtpd relay = rcpt_answering("refusing", "550 5.1.1 no such mailbox");
  const auto id = queue("refused");
  SmtpRelaySender sender(relay_at(relay.port()));
  OutboxWorker worker(*store_, sender);
  auto s = worker.run_once(now_);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->failed, 1);
  const OutboxMessage m = row(id);
  EXPECT_EQ(m.state, "failed");
  EXPECT_NE(m.last_error.find("550"), std::string::npos) << m.last_error;
  EXPECT_EQ(worker.run_once(now_ + 100000)->claimed, 0);
}

TEST_F(Outbox, StartTlsToARelayThatRequiresIt) {
  if (!Aiosmtpd::available()) GTEST_SKIP() << "python3-aiosmtpd is not installed";
  if (::access("/usr/bin/openssl", X_OK) != 0) GTEST_SKIP() << "openssl is not installed";
  const std::string cert = dir_.file("cert.pem"), key = dir_.file("key.pem");
  const std::string make_cert =
      "/usr/bin/openssl req -x509 -newkey rsa:2048 -nodes -days 1 "
      "-subj /CN=127.0.0.1 -keyout " +
      key + " -out " + cert + " >/dev/null 2>&1";
  ASSERT_EQ(std::system(make_cert.c_str()), 0);
  const int port = free_port();
  const auto maildir = dir_.path() / "relay";
  // aiosmtpd with --tlscert requires STARTTLS before MAIL FROM.
  Aiosmtpd relay(
      port, {"aiosmtpd.handlers.Mailbox", "--tlscert", cert, "--tlskey", key, maildir.string()});
  ASSERT_TRUE(relay.start());
  const auto id = queue("tls");

  // Without STARTTLS the relay answers 530: a configuration problem, so retried, not failed.
  SmtpRelaySender plain(relay_at(port));
  OutboxWorker w1(*store_, plain);
  EXPECT_EQ(w1.run_once(now_)->retried, 1);
  EXPECT_EQ(row(id).state, "pending");
  EXPECT_NE(row(id).last_error.find("530"), std::string::npos) << row(id).last_error;

  // STARTTLS, but verifying a self-signed certificate: a TLS failure, retried.
  SmtpRelayOptions tls = relay_at(port);
  tls.starttls = true;
  SmtpRelaySender verifying(tls);
  OutboxWorker w2(*store_, verifying);
  EXPECT_EQ(w2.run_once(row(id).next_attempt_at)->retried, 1);

  // STARTTLS without verification (a test certificate): delivered.
  tls.verify_tls = false;
  SmtpRelaySender trusting(tls);
  OutboxWorker w3(*store_, trusting);
  EXPECT_EQ(w3.run_once(row(id).next_attempt_at)->sent, 1);
  EXPECT_EQ(row(id).state, "sent");
  ASSERT_EQ(maildir_new(maildir).size(), 1u);
  EXPECT_TRUE(parse_mail(read_file(maildir_new(maildir)[0].string())).ok());
}

TEST_F(Outbox, AuthToARelayThatRequiresIt) {
  if (!Aiosmtpd::available()) GTEST_SKIP() << "python3-aiosmtpd is not installed";
  const int port = free_port();
  const auto maildir = dir_.path() / "relay";
  Aiosmtpd relay = Aiosmtpd::script(port, std::string(ADJ_SOURCE_DIR) + "/tests/mail/auth_relay.py",
                                    {maildir.string(), "adjutant", "s3cret pass"});
  ASSERT_TRUE(relay.start());
  const auto id = queue("auth");

  // No AUTH: the relay answers 530 to MAIL FROM; a configuration problem, so retried.
  SmtpRelaySender anonymous(relay_at(port));
  OutboxWorker w1(*store_, anonymous);
  EXPECT_EQ(w1.run_once(now_)->retried, 1);
  EXPECT_EQ(row(id).state, "pending");
  EXPECT_NE(row(id).last_error.find("530"), std::string::npos) << row(id).last_error;

  // A wrong password: 535, retried (the GM fixes the configuration; nothing is lost).
  SmtpRelayOptions wrong = relay_at(port);
  wrong.user = "adjutant";
  wrong.password = "guess";
  SmtpRelaySender refused(wrong);
  OutboxWorker w2(*store_, refused);
  EXPECT_EQ(w2.run_once(row(id).next_attempt_at)->retried, 1);
  EXPECT_EQ(row(id).state, "pending");
  EXPECT_TRUE(maildir_new(maildir).empty());

  // The right user and password: delivered once.
  SmtpRelayOptions right = wrong;
  right.password = "s3cret pass";
  SmtpRelaySender accepted(right);
  OutboxWorker w3(*store_, accepted);
  EXPECT_EQ(w3.run_once(row(id).next_attempt_at)->sent, 1);
  EXPECT_EQ(row(id).state, "sent");
  ASSERT_EQ(maildir_new(maildir).size(), 1u);
  EXPECT_TRUE(parse_mail(read_file(maildir_new(maildir)[0].string())).ok());
}

TEST_F(Outbox, ARelayThatCannotBeReachedNeverUsesUpTheAttempts) {
  const auto id = queue("kept");
  SmtpRelaySender sender(relay_at(free_port()));  // nobody listens
  BackoffPolicy p;
  p.max_attempts = 3;
  OutboxWorker worker(*store_, sender, p);
  UnixTime t = now_;
  for (int i = 0; i < 6; ++i) {
    ASSERT_EQ(worker.run_once(t)->claimed, 1);
    t = row(id).next_attempt_at;
  }
  EXPECT_EQ(row(id).state, "pending") << "kept for when the relay is back";
  EXPECT_EQ(row(id).attempts, 6);
  EXPECT_GT(t, now_);  // still scheduled
  EXPECT_EQ(*store_->failing_count(), 1);
  EXPECT_GE(mail_delivery().snapshot().failures_in_a_row, 6);
}

TEST_F(Outbox, GivesUpAfterMaxAttemptsOnAMessageTheRelayDefers) {
  if (!Aiosmtpd::available()) GTEST_SKIP() << "python3-aiosmtpd is not installed";
  // A real aiosmtpd that defers every recipient (451): the message's own trouble, not the way's.
  Aiosmtpd relay = rcpt_answering("deferring", "451 4.2.0 try again later");
  const auto id = queue("give-up");
  SmtpRelaySender sender(relay_at(relay.port()));
  BackoffPolicy p;
  p.max_attempts = 3;
  OutboxWorker worker(*store_, sender, p);
  UnixTime t = now_;
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(worker.run_once(t)->claimed, 1);
    t = row(id).next_attempt_at;
  }
  EXPECT_EQ(row(id).state, "failed");
  EXPECT_EQ(row(id).attempts, 3);
  EXPECT_NE(row(id).last_error.find("451"), std::string::npos) << row(id).last_error;
}

TEST_F(Outbox, MaildirSenderWritesFilesGMimeReadsBack) {
  const auto dir = dir_.path() / "outbox";
  const auto a = queue("md-1");
  queue("md-2", "mercia@example.org");
  MaildirSender sender(dir.string());
  OutboxWorker worker(*store_, sender);
  auto s = worker.run_once(now_);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->sent, 2);
  for (const char* sub : {"cur", "new", "tmp"})
    EXPECT_TRUE(std::filesystem::is_directory(dir / sub));
  EXPECT_TRUE(std::filesystem::is_empty(dir / "tmp"));
  const auto files = maildir_new(dir);
  ASSERT_EQ(files.size(), 2u);
  for (const auto& f : files) {
    const std::string got = read_file(f.string());
    EXPECT_EQ(got.find('\r'), std::string::npos);  // LF in a Maildir
    auto p = parse_mail(got);
    ASSERT_TRUE(p.ok());
    EXPECT_EQ(p->text, "Hello from the outbox.\n");
    EXPECT_EQ(p->from_address, "orders@pbm.example.net");
  }
  // The same message again (a crash before it was marked sent) is not written twice.
  EXPECT_TRUE(sender.send(row(a)).ok);
  EXPECT_EQ(maildir_new(dir).size(), 2u);
  // Also when the GM's mail reader has moved it to cur/.
  const std::string name = sender.file_name(row(a));
  std::filesystem::rename(dir / "new" / name, dir / "cur" / (name + ":2,S"));
  EXPECT_TRUE(sender.send(row(a)).ok);
  EXPECT_EQ(maildir_new(dir).size(), 1u);
}

TEST_F(Outbox, MaildirFailureIsRetried) {
  const auto file = dir_.path() / "not-a-dir";
  write_file(file.string(), "x");
  const auto id = queue("md-fail");
  MaildirSender sender(file.string());
  OutboxWorker worker(*store_, sender);
  EXPECT_EQ(worker.run_once(now_)->retried, 1);
  EXPECT_EQ(row(id).state, "pending");
  EXPECT_FALSE(row(id).last_error.empty());
}

}  // namespace
}  // namespace adj::mail
