// SmtpProtocol (server/http/smtp_protocol.h): the SMTP server state machine, fed bytes directly.
#include "server/http/smtp_protocol.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

namespace adj::http {
namespace {

class SmtpProtocolTest : public ::testing::Test {
 protected:
  SmtpProtocolTest()
      : p_(SmtpLimits{"mx.test", 100, 64, 3, 20},
           [](const std::string& a) { return a.rfind("orders", 0) == 0; }) {}

  // Feeds `bytes`; returns the replies (the message events are kept in messages_).
  std::vector<std::string> feed(const std::string& bytes) {
    std::vector<SmtpEvent> ev;
    p_.receive(bytes, ev);
    std::vector<std::string> replies;
    for (auto& e : ev) {
      if (e.kind == SmtpEvent::kReply) replies.push_back(e.reply);
      if (e.kind == SmtpEvent::kMessage) messages_.push_back(e.message);
      if (e.kind == SmtpEvent::kClose) replies.push_back("<close>");
    }
    return replies;
  }
  std::string one(const std::string& bytes) {
    auto r = feed(bytes);
    EXPECT_EQ(r.size(), 1u) << bytes;
    return r.empty() ? "" : r[0];
  }
  void start() {
    ASSERT_EQ(one("EHLO client.test\r\n").substr(0, 4), "250-");
    ASSERT_EQ(one("MAIL FROM:<a@b.test>\r\n").substr(0, 3), "250");
    ASSERT_EQ(one("RCPT TO:<orders@x.test>\r\n").substr(0, 3), "250");
    ASSERT_EQ(one("DATA\r\n").substr(0, 3), "354");
  }

  SmtpProtocol p_;
  std::vector<SmtpMessage> messages_;
};

TEST_F(SmtpProtocolTest, GreetingAndEhloAdvertiseExtensions) {
  EXPECT_EQ(p_.greeting(), "220 mx.test ESMTP Adjutant\r\n");
  const std::string r = one("EHLO client.test\r\n");
  EXPECT_NE(r.find("250-SIZE 100\r\n"), std::string::npos) << r;
  EXPECT_NE(r.find("8BITMIME"), std::string::npos);
  EXPECT_NE(r.find("PIPELINING"), std::string::npos);
  EXPECT_EQ(r.substr(r.size() - 2), "\r\n");
  EXPECT_EQ(one("HELO client.test\r\n"), "250 mx.test\r\n");
  EXPECT_EQ(one("EHLO\r\n").substr(0, 3), "501");
}

TEST_F(SmtpProtocolTest, WholeTransactionWithDotUnstuffing) {
  start();
  EXPECT_TRUE(feed("Subject: x\r\n\r\n..leading dot\r\nline\r\n").empty());
  EXPECT_TRUE(p_.in_data());
  EXPECT_TRUE(feed(".\r\n").empty());
  ASSERT_EQ(messages_.size(), 1u);
  EXPECT_EQ(messages_[0].mail_from, "a@b.test");
  EXPECT_EQ(messages_[0].rcpt_to, std::vector<std::string>{"orders@x.test"});
  EXPECT_EQ(messages_[0].data, "Subject: x\r\n\r\n.leading dot\r\nline\r\n");
  EXPECT_FALSE(messages_[0].oversized);
  EXPECT_EQ(messages_[0].total_bytes, messages_[0].data.size());
  // The transaction is reset; a new one may follow.
  EXPECT_EQ(one("MAIL FROM:<>\r\n").substr(0, 3), "250");
}

TEST_F(SmtpProtocolTest, PipelinedCommandsAreAnsweredInOrder) {
  ASSERT_EQ(one("EHLO c\r\n").substr(0, 4), "250-");
  std::vector<SmtpEvent> ev;
  p_.receive("MAIL FROM:<a@b>\r\nRCPT TO:<orders@x>\r\nDATA\r\nhi\r\n.\r\nQUIT\r\n", ev);
  ASSERT_EQ(ev.size(), 6u);
  EXPECT_EQ(ev[0].reply.substr(0, 3), "250");
  EXPECT_EQ(ev[1].reply.substr(0, 3), "250");
  EXPECT_EQ(ev[2].reply.substr(0, 3), "354");
  EXPECT_EQ(ev[3].kind, SmtpEvent::kMessage);
  EXPECT_EQ(ev[3].message.data, "hi\r\n");
  EXPECT_EQ(ev[4].reply.substr(0, 3), "221");
  EXPECT_EQ(ev[5].kind, SmtpEvent::kClose);
  EXPECT_TRUE(p_.closed());
}

TEST_F(SmtpProtocolTest, BytesSplitAnywhere) {
  const std::string all =
      "EHLO c\r\nMAIL FROM:<a@b>\r\nRCPT TO:<orders@x>\r\nDATA\r\nl1\r\n..\r\n.\r\n";
  for (char ch : all) feed(std::string(1, ch));
  ASSERT_EQ(messages_.size(), 1u);
  EXPECT_EQ(messages_[0].data, "l1\r\n.\r\n");
}

TEST_F(SmtpProtocolTest, BadSequence) {
  EXPECT_EQ(one("MAIL FROM:<a@b>\r\n").substr(0, 3), "503");  // before EHLO
  one("EHLO c\r\n");
  EXPECT_EQ(one("RCPT TO:<orders@x>\r\n").substr(0, 3), "503");
  EXPECT_EQ(one("DATA\r\n").substr(0, 3), "503");
  one("MAIL FROM:<a@b>\r\n");
  EXPECT_EQ(one("MAIL FROM:<a@b>\r\n").substr(0, 3), "503");
  EXPECT_EQ(one("DATA\r\n").substr(0, 3), "554");
  EXPECT_EQ(one("RSET\r\n").substr(0, 3), "250");
  EXPECT_EQ(one("RCPT TO:<orders@x>\r\n").substr(0, 3), "503");
}

TEST_F(SmtpProtocolTest, RecipientsAllowListAndLimit) {
  one("EHLO c\r\n");
  one("MAIL FROM:<a@b>\r\n");
  EXPECT_EQ(one("RCPT TO:<someone@x>\r\n").substr(0, 3), "550");
  EXPECT_EQ(one("RCPT TO:<orders1@x>\r\n").substr(0, 3), "250");
  EXPECT_EQ(one("RCPT TO:<orders2@x>\r\n").substr(0, 3), "250");
  EXPECT_EQ(one("RCPT TO:<orders3@x>\r\n").substr(0, 3), "250");
  EXPECT_EQ(one("RCPT TO:<orders4@x>\r\n").substr(0, 3), "452");
  EXPECT_EQ(one("RCPT TO:garbage<\r\n").substr(0, 3), "501");
}

TEST_F(SmtpProtocolTest, OtherCommands) {
  EXPECT_EQ(one("NOOP\r\n").substr(0, 3), "250");
  EXPECT_EQ(one("VRFY bob\r\n").substr(0, 3), "252");
  EXPECT_EQ(one("EXPN list\r\n").substr(0, 3), "502");
  EXPECT_EQ(one("STARTTLS\r\n").substr(0, 3), "502");
  EXPECT_EQ(one("FROB\r\n").substr(0, 3), "500");
  EXPECT_EQ(one("MAIL TO:<x>\r\n").substr(0, 3), "503");
  one("EHLO c\r\n");
  EXPECT_EQ(one("MAIL TO:<x>\r\n").substr(0, 3), "501");
  EXPECT_EQ(one("MAIL FROM:<a@b> FOO=1\r\n").substr(0, 3), "555");
  auto r = feed("quit\r\nNOOP\r\n");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].substr(0, 3), "221");
  EXPECT_EQ(r[1], "<close>");
}

TEST_F(SmtpProtocolTest, SizeLimits) {
  one("EHLO c\r\n");
  EXPECT_EQ(one("MAIL FROM:<a@b> SIZE=101\r\n").substr(0, 3), "552");
  EXPECT_EQ(one("MAIL FROM:<a@b> SIZE=abc\r\n").substr(0, 3), "501");
  EXPECT_EQ(one("MAIL FROM:<a@b> SIZE=100 BODY=8BITMIME\r\n").substr(0, 3), "250");
  one("RCPT TO:<orders@x>\r\n");
  one("DATA\r\n");
  feed("Subject: big\r\n\r\n");
  for (int i = 0; i < 20; ++i) feed("0123456789\r\n");
  feed(".\r\n");
  ASSERT_EQ(messages_.size(), 1u);
  EXPECT_TRUE(messages_[0].oversized);
  EXPECT_EQ(messages_[0].total_bytes, 16u + 20u * 12u);
  EXPECT_EQ(messages_[0].data.substr(0, 16), "Subject: big\r\n\r\n");
}

TEST_F(SmtpProtocolTest, OverlongCommandLineIsRefusedWithoutBuffering) {
  EXPECT_EQ(one(std::string(1000, 'x') + "\r\n").substr(0, 3), "500");
  EXPECT_TRUE(feed(std::string(100000, 'y')).empty());
  EXPECT_EQ(one("\r\n").substr(0, 3), "500");
  EXPECT_EQ(one("NOOP\r\n").substr(0, 3), "250");
}

TEST_F(SmtpProtocolTest, LongDataLineWithoutNewlineIsNotHeldBack) {
  start();
  feed(std::string(40000, 'z'));
  feed("\r\n.\r\n");
  ASSERT_EQ(messages_.size(), 1u);
  EXPECT_TRUE(messages_[0].oversized);
  EXPECT_EQ(messages_[0].total_bytes, 40002u);
}

TEST_F(SmtpProtocolTest, TooManyErrorsClose) {
  SmtpProtocol p(SmtpLimits{"mx", 100, 512, 10, 3});
  std::vector<SmtpEvent> ev;
  p.receive("A\r\nB\r\nC\r\nD\r\n", ev);
  ASSERT_EQ(ev.size(), 4u);
  EXPECT_EQ(ev[2].reply.substr(0, 3), "421");
  EXPECT_EQ(ev[3].kind, SmtpEvent::kClose);
}

// Drives one protocol object over a shared budget.
struct BudgetSession {
  BudgetSession(SmtpDataBudget& b, std::size_t max_message)
      : p(SmtpLimits{"mx.test", max_message, 512, 10, 20}, {}, &b) {}
  std::vector<SmtpEvent> feed(const std::string& bytes) {
    std::vector<SmtpEvent> ev;
    p.receive(bytes, ev);
    return ev;
  }
  std::string last_reply(const std::string& bytes) {
    auto ev = feed(bytes);
    for (auto it = ev.rbegin(); it != ev.rend(); ++it)
      if (it->kind == SmtpEvent::kReply) return it->reply;
    return "";
  }
  std::string open_data() {
    last_reply("EHLO c.test\r\nMAIL FROM:<a@b.test>\r\nRCPT TO:<o@x.test>\r\n");
    return last_reply("DATA\r\n");
  }
  SmtpProtocol p;
};

std::string lines(std::size_t kb) {
  std::string out;
  for (std::size_t i = 0; i < kb; ++i) out += std::string(1022, 'y') + "\r\n";
  return out;
}

TEST(SmtpBudget, DataIsRefusedWhenTheSharedBudgetIsSpent) {
  SmtpDataBudget budget(600 * 1024);
  BudgetSession a(budget, 10u << 20), b(budget, 10u << 20);
  ASSERT_EQ(a.open_data().substr(0, 3), "354");
  a.feed(lines(400));  // 400 KB buffered: less than kDataStartFree left
  EXPECT_GE(budget.used(), 400u * 1024);
  EXPECT_LE(budget.used(), budget.limit());
  EXPECT_EQ(b.open_data().substr(0, 9), "452 4.3.1");
  // a runs past the budget: dropped, its "." answered 452, no message event; the budget is free.
  a.feed(lines(400));
  auto ev = a.feed(".\r\n");
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].kind, SmtpEvent::kReply);
  EXPECT_EQ(ev[0].reply.substr(0, 9), "452 4.3.1");
  EXPECT_EQ(budget.used(), 0u);
  // Now b may send; its message carries its charge for the listener to give back.
  EXPECT_EQ(b.last_reply("DATA\r\n").substr(0, 3), "354");
  b.feed("Subject: x\r\n\r\n" + lines(10));
  ev = b.feed(".\r\n");
  ASSERT_EQ(ev.size(), 1u);
  ASSERT_EQ(ev[0].kind, SmtpEvent::kMessage);
  EXPECT_GE(ev[0].budget_charge, ev[0].message.data.size());
  EXPECT_EQ(budget.used(), ev[0].budget_charge);
  budget.give_back(ev[0].budget_charge);
  EXPECT_EQ(budget.used(), 0u);
}

TEST(SmtpBudget, ADroppedConnectionOrOversizedMessageGivesTheBudgetBack) {
  SmtpDataBudget budget(8u << 20);
  {
    BudgetSession a(budget, 10u << 20);
    ASSERT_EQ(a.open_data().substr(0, 3), "354");
    a.feed(lines(300));
    EXPECT_GT(budget.used(), 0u);
  }  // the connection ends mid-DATA
  EXPECT_EQ(budget.used(), 0u);
  BudgetSession big(budget, 100 * 1024);  // messages over 100 KB keep their head only
  ASSERT_EQ(big.open_data().substr(0, 3), "354");
  big.feed("Subject: big\r\n\r\n" + lines(500));
  EXPECT_LE(budget.used(), 2 * SmtpProtocol::kOversizedHead);
  auto ev = big.feed(".\r\n");
  ASSERT_EQ(ev.size(), 1u);
  ASSERT_EQ(ev[0].kind, SmtpEvent::kMessage);
  EXPECT_TRUE(ev[0].message.oversized);
  budget.give_back(ev[0].budget_charge);
  EXPECT_EQ(budget.used(), 0u);
}

TEST(SmtpBudget, ManyInterleavedSessionsStayWithinTheBudget) {
  SmtpDataBudget budget(4u << 20);
  std::vector<std::unique_ptr<BudgetSession>> sessions;
  int started = 0;
  for (int i = 0; i < 20; ++i) {
    sessions.push_back(std::make_unique<BudgetSession>(budget, 10u << 20));
    started += sessions.back()->open_data().substr(0, 3) == "354" ? 1 : 0;
  }
  EXPECT_EQ(started, 20);  // nothing buffered yet
  const std::string chunk = lines(64);
  std::size_t peak = 0;
  for (int round = 0; round < 16; ++round)
    for (auto& s : sessions) {
      s->feed(chunk);
      peak = std::max(peak, budget.used());
    }
  EXPECT_LE(peak, budget.limit());
  EXPECT_GE(peak, budget.limit() / 2);
  sessions.clear();
  EXPECT_EQ(budget.used(), 0u);
}

// STARTTLS (RFC 3207) as offered by a listener with a certificate.
class SmtpStartTlsProtocol : public ::testing::Test {
 protected:
  explicit SmtpStartTlsProtocol(bool require = false)
      : p_(SmtpLimits{"mx.test", 1000, 512, 3, 20, true, require}) {}

  std::vector<SmtpEvent> feed(const std::string& bytes) {
    std::vector<SmtpEvent> ev;
    p_.receive(bytes, ev);
    return ev;
  }
  std::string one(const std::string& bytes) {
    auto ev = feed(bytes);
    EXPECT_EQ(ev.size(), 1u) << bytes;
    return ev.empty() ? "" : ev[0].reply;
  }
  // STARTTLS accepted: the 220 reply, then the kStartTls event, last.
  void starttls() {
    auto ev = feed("STARTTLS\r\n");
    ASSERT_EQ(ev.size(), 2u);
    EXPECT_EQ(ev[0].reply, "220 2.0.0 Ready to start TLS\r\n");
    EXPECT_EQ(ev[1].kind, SmtpEvent::kStartTls);
  }

  SmtpProtocol p_;
};

class SmtpRequireTlsProtocol : public SmtpStartTlsProtocol {
 protected:
  SmtpRequireTlsProtocol() : SmtpStartTlsProtocol(true) {}
};

TEST_F(SmtpStartTlsProtocol, EhloOffersStartTlsUntilTlsIsUp) {
  const std::string before = one("EHLO client.test\r\n");
  EXPECT_NE(before.find("250-STARTTLS\r\n"), std::string::npos) << before;
  EXPECT_TRUE(before.ends_with("250-STARTTLS\r\n250 ENHANCEDSTATUSCODES\r\n")) << before;
  starttls();
  EXPECT_FALSE(p_.tls());
  p_.tls_started();
  EXPECT_TRUE(p_.tls());
  const std::string after = one("EHLO client.test\r\n");
  EXPECT_EQ(after.find("STARTTLS"), std::string::npos) << after;
  EXPECT_NE(after.find("250-PIPELINING"), std::string::npos) << after;
}

TEST_F(SmtpStartTlsProtocol, NotOfferedWithoutACertificate) {
  SmtpProtocol plain(SmtpLimits{"mx.test", 1000, 512, 3, 20});
  std::vector<SmtpEvent> ev;
  plain.receive("EHLO c\r\nSTARTTLS\r\n", ev);
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].reply.find("STARTTLS"), std::string::npos) << ev[0].reply;
  EXPECT_EQ(ev[1].reply.substr(0, 3), "502");
}

TEST_F(SmtpStartTlsProtocol, RefusedWithArgumentsTwiceOrInATransaction) {
  one("EHLO c\r\n");
  EXPECT_EQ(one("STARTTLS now\r\n").substr(0, 4), "501 ");
  EXPECT_EQ(one("MAIL FROM:<a@b>\r\n").substr(0, 3), "250");
  EXPECT_EQ(one("STARTTLS\r\n"), "503 5.5.1 STARTTLS not allowed during a mail transaction\r\n");
  EXPECT_EQ(one("RCPT TO:<orders@x>\r\n").substr(0, 3), "250");  // the transaction goes on
  EXPECT_EQ(one("RSET\r\n").substr(0, 3), "250");
  starttls();
  p_.tls_started();
  one("EHLO c\r\n");
  EXPECT_EQ(one("STARTTLS\r\n"), "503 5.5.1 TLS already active\r\n");
}

TEST_F(SmtpStartTlsProtocol, TlsForgetsEhloAndTheTransaction) {
  one("EHLO c\r\n");
  starttls();
  p_.tls_started();
  // RFC 3207 4.2: the client must EHLO again; nothing from before carries over.
  EXPECT_EQ(one("MAIL FROM:<a@b>\r\n"), "503 5.5.1 Send EHLO first\r\n");
  one("EHLO c\r\n");
  EXPECT_EQ(one("RCPT TO:<orders@x>\r\n").substr(0, 3), "503");
  EXPECT_EQ(one("MAIL FROM:<a@b>\r\n").substr(0, 3), "250");
  EXPECT_EQ(one("RCPT TO:<orders@x>\r\n").substr(0, 3), "250");
  EXPECT_EQ(one("DATA\r\n").substr(0, 3), "354");
  auto ev = feed("Subject: s\r\n\r\nbody\r\n.\r\n");
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].kind, SmtpEvent::kMessage);
  EXPECT_EQ(ev[0].message.data, "Subject: s\r\n\r\nbody\r\n");
}

// CVE-2011-0411: commands pipelined behind STARTTLS in the same packet are plaintext an attacker
// could inject; they must be dropped, not run once TLS is up.
TEST_F(SmtpStartTlsProtocol, BytesPipelinedAfterStartTlsAreDiscarded) {
  one("EHLO c\r\n");
  auto ev = feed("STARTTLS\r\nMAIL FROM:<evil@x>\r\nRCPT TO:<orders@x>\r\nNOOP\r\nRSET");
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].reply.substr(0, 3), "220");
  EXPECT_EQ(ev[1].kind, SmtpEvent::kStartTls);
  EXPECT_TRUE(feed("NOOP\r\n").empty());  // before the handshake is done: ignored too
  p_.tls_started();
  EXPECT_EQ(one("\r\n").substr(0, 3), "500");  // no partial line ("RSET") left to complete
  one("EHLO c\r\n");
  // The injected MAIL did not open a transaction: a fresh MAIL is not "nested".
  EXPECT_EQ(one("MAIL FROM:<a@b>\r\n"), "250 2.1.0 OK\r\n");
  EXPECT_EQ(one("RCPT TO:<orders@x>\r\n").substr(0, 3), "250");
  EXPECT_EQ(one("DATA\r\n").substr(0, 3), "354");
  ev = feed("x\r\n.\r\n");
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].message.mail_from, "a@b");
}

TEST_F(SmtpRequireTlsProtocol, MailRcptDataNeedStartTlsFirst) {
  EXPECT_EQ(one("EHLO c\r\n").substr(0, 4), "250-");
  EXPECT_EQ(one("HELO c\r\n").substr(0, 3), "250");
  EXPECT_EQ(one("NOOP\r\n").substr(0, 3), "250");
  EXPECT_EQ(one("RSET\r\n").substr(0, 3), "250");
  const std::string must = "530 5.7.0 Must issue a STARTTLS command first\r\n";
  EXPECT_EQ(one("MAIL FROM:<a@b>\r\n"), must);
  EXPECT_EQ(one("RCPT TO:<orders@x>\r\n"), must);
  EXPECT_EQ(one("DATA\r\n"), must);
  starttls();
  p_.tls_started();
  one("EHLO c\r\n");
  EXPECT_EQ(one("MAIL FROM:<a@b>\r\n").substr(0, 3), "250");
  EXPECT_EQ(one("RCPT TO:<orders@x>\r\n").substr(0, 3), "250");
  EXPECT_EQ(one("DATA\r\n").substr(0, 3), "354");
  auto ev = feed("QUIT\r\n");  // message data now, not a command
  EXPECT_TRUE(ev.empty());
}

TEST_F(SmtpRequireTlsProtocol, QuitWorksBeforeTls) {
  auto ev = feed("QUIT\r\n");
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].reply.substr(0, 3), "221");
  EXPECT_EQ(ev[1].kind, SmtpEvent::kClose);
}

}  // namespace
}  // namespace adj::http
