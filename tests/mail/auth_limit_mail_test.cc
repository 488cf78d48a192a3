// Guessing limits on mail (MailIngest::set_throttle over the SQLite counters of migration 0008):
// wrong secrets by mail lock the sender (and the player's key, which then locks a wrong sender at
// once but refuses nobody), a locked attempt is answered "too many failed attempts" and not
// stored, the player is alerted once, and separate `adjutant ingest` processes add their
// failures up.
#include <gtest/gtest.h>

#include <fstream>

#include "server/app/auth_throttle.h"
#include "storage/sqlite/sqlite_store.h"
#include "tests/mail/mail_test_util.h"

namespace adj::mail_test {
namespace {

using mail::ProcessResult;

std::string orders_mail(const std::string& from, const std::string& secret, int n,
                        const std::string& first_line = "") {
  return "From: <" + from + ">\r\nTo: orders@pbm.example.net\r\nSubject: orders\r\n" +
         "Message-ID: <limit-" + std::to_string(n) + "@example.org>\r\n\r\n" + first_line +
         "GAME britain-1\r\nPLAYER WSX " + secret + "\r\nEND\r\n";
}

class MailLimitTest : public MailFixture {
 protected:
  void SetUp() override {
    MailFixture::SetUp();
    auto ts = SqliteStore::open(db_);
    ASSERT_TRUE(ts.ok()) << ts.status().to_string();
    throttle_store_ = std::move(ts).value();
    ThrottleConfig c;
    c.max_failures = 3;
    c.first_lock_seconds = 60;
    throttle_ = std::make_unique<StoredThrottle>(*throttle_store_, c);
    ingest_->set_throttle(throttle_.get());
  }
  std::vector<OutboxMessage> of_kind(const std::string& kind) {
    std::vector<OutboxMessage> out;
    for (auto& m : outbox())
      if (m.kind == kind) out.push_back(m);
    return out;
  }
  std::unique_ptr<SqliteStore> throttle_store_;
  std::unique_ptr<StoredThrottle> throttle_;
  int n_ = 0;
};

TEST_F(MailLimitTest, WrongSecretsLockTheSenderButNeverThePlayersOwnSecret) {
  for (int i = 0; i < 3; ++i) {
    const ProcessResult r =
        ingest(orders_mail("eve@example.org", "guess" + std::to_string(i), ++n_));
    EXPECT_EQ(r.action, "orders");
    EXPECT_NE(r.outcome.find("secret"), std::string::npos) << r.outcome;
  }
  const std::size_t stored = submissions().size();
  // Locked: even the right secret is not checked, and nothing is stored.
  ProcessResult r = ingest(orders_mail("eve@example.org", "cerdic", ++n_));
  EXPECT_EQ(r.action, "refusal");
  EXPECT_NE(r.outcome.find("too many failed attempts"), std::string::npos) << r.outcome;
  EXPECT_EQ(submissions().size(), stored);
  // The player's lock refuses nobody: another sender's right secret is checked and gets in ...
  r = ingest(orders_mail("wessex@example.org", "cerdic", ++n_));
  EXPECT_NE(r.outcome.find("accepted"), std::string::npos) << r.outcome;
  // ... while a wrong one from a fresh sender locks that sender at once (one strike).
  r = ingest(orders_mail("mallory@example.net", "guess9", ++n_));
  EXPECT_NE(r.outcome.find("secret"), std::string::npos) << r.outcome;
  r = ingest(orders_mail("mallory@example.net", "cerdic", ++n_));
  EXPECT_NE(r.outcome.find("too many failed attempts"), std::string::npos) << r.outcome;
  // The answer says when to try again and nothing about the secret.
  bool told = false;
  for (const auto& m : of_kind("refusal")) {
    const std::string text = parse(m).text;
    if (text.find("too many failed attempts") != std::string::npos) {
      told = true;
      EXPECT_NE(text.find("try again after"), std::string::npos) << text;
      EXPECT_NE(text.find("2026-11-19 00:01 UTC"), std::string::npos) << text;
      EXPECT_EQ(text.find("cerdic"), std::string::npos);
    }
  }
  EXPECT_TRUE(told);
  // After the lock, the right secret gets in from the guessing sender too.
  now_ += 60;
  r = ingest(orders_mail("eve@example.org", "cerdic", ++n_));
  EXPECT_NE(r.outcome.find("accepted"), std::string::npos) << r.outcome;
}

TEST_F(MailLimitTest, ThePlayerIsAlertedOnceWithTheAddressesTried) {
  for (int i = 0; i < 3; ++i)
    ingest(orders_mail(i == 1 ? "mallory@example.net" : "eve@example.org",
                       "guess" + std::to_string(i), ++n_));
  const auto alerts = of_kind("auth_alert");
  ASSERT_EQ(alerts.size(), 1u);
  EXPECT_EQ(alerts[0].to, "wessex@example.org");
  const std::string text = parse(alerts[0]).text;
  EXPECT_NE(text.find("3 failed attempts to use your secret"), std::string::npos) << text;
  EXPECT_NE(text.find("eve@example.org, mallory@example.net"), std::string::npos) << text;
  EXPECT_EQ(text.find("guess"), std::string::npos);  // nothing the attacker sent
  // A second lockout within the same hour sends nothing more.
  now_ += 60;
  for (int i = 0; i < 3; ++i)
    ingest(orders_mail("eve@example.org", "again" + std::to_string(i), ++n_));
  EXPECT_EQ(of_kind("auth_alert").size(), 1u);
}

TEST_F(MailLimitTest, ASenderThatSucceededBeforeIsNotHeldBackByThePlayersLock) {
  ProcessResult r = ingest(orders_mail("wessex@example.org", "cerdic", ++n_));
  ASSERT_NE(r.outcome.find("accepted"), std::string::npos) << r.outcome;
  for (int i = 0; i < 3; ++i) ingest(orders_mail("eve@example.org", "g" + std::to_string(i), ++n_));
  EXPECT_NE(ingest(orders_mail("eve@example.org", "cerdic", ++n_)).outcome.find("too many"),
            std::string::npos);
  r = ingest(orders_mail("wessex@example.org", "cerdic", ++n_));
  EXPECT_NE(r.outcome.find("accepted"), std::string::npos) << r.outcome;
}

TEST_F(MailLimitTest, ResendWithWrongSecretsCountsToo) {
  for (int i = 0; i < 3; ++i)
    ingest(orders_mail("eve@example.org", "g" + std::to_string(i), ++n_, "RESEND\r\n"));
  const ProcessResult r = ingest(orders_mail("eve@example.org", "cerdic", ++n_, "RESEND\r\n"));
  EXPECT_NE(r.outcome.find("too many failed attempts"), std::string::npos) << r.outcome;
}

TEST_F(MailLimitTest, UnknownPlayerCodesCountAgainstTheSenderOnly) {
  for (int i = 0; i < 3; ++i) {
    std::string raw = orders_mail("eve@example.org", "x", ++n_);
    raw.replace(raw.find("PLAYER WSX"), 10, "PLAYER Q" + std::to_string(i) + "Z");
    ingest(raw);
  }
  // Eve is locked; the player WSX is not (wessex gets in at once).
  EXPECT_NE(ingest(orders_mail("eve@example.org", "cerdic", ++n_)).outcome.find("too many"),
            std::string::npos);
  EXPECT_NE(ingest(orders_mail("wessex@example.org", "cerdic", ++n_)).outcome.find("accepted"),
            std::string::npos);
  EXPECT_TRUE(of_kind("auth_alert").empty());
}

// `adjutant ingest` runs once per message (an MTA pipe): the count lives in the database.
TEST_F(MailLimitTest, SeparateIngestProcessesAddTheirFailuresUp) {
  auto run = [&](const std::string& secret) {
    const std::string file = dir_.file("m" + std::to_string(++n_) + ".eml");
    std::ofstream(file, std::ios::binary) << orders_mail("eve@example.org", secret, n_);
    return ::adj::testing::run_shell(std::string(ADJ_BINARY) + " --db " +
                                     ::adj::testing::shell_quote(db_) +
                                     " ingest --sender eve@example.org --auth-max-failures 2 "
                                     "--auth-first-lock 600 < " +
                                     ::adj::testing::shell_quote(file) + " 2>&1");
  };
  EXPECT_NE(run("one").find("wrong"), std::string::npos);
  EXPECT_NE(run("two").find("wrong"), std::string::npos);
  const std::string third = run("cerdic");
  EXPECT_NE(third.find("too many failed attempts"), std::string::npos) << third;
}

}  // namespace
}  // namespace adj::mail_test
