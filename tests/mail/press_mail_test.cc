// PRESS blocks in mail (server/mail/press_mail.h) through MailIngest over a real SQLite file:
// alone and inside an orders mail, the answers, the notices they queue and the mail NoticeMailer
// makes of them (threaded; anonymous press never names its sender).
#include <gtest/gtest.h>

#include "server/app/press_digest.h"
#include "server/mail/notice_mailer.h"
#include "server/mail/press_mail.h"
#include "tests/mail/mail_test_util.h"

namespace adj {
namespace {

using mail::extract_press_blocks;

std::string eml(const std::string& id, const std::string& body,
                const std::string& from = "wessex@example.org") {
  return "From: Player <" + from + ">\r\nTo: orders@pbm.example.net\r\nSubject: britain-1\r\n" +
         "Message-ID: <" + id + "@example.org>\r\nDate: Thu, 19 Nov 2026 10:00:00 +0000\r\n\r\n" +
         body;
}

TEST(PressBlocks, ExtractsBlocksAndBlanksTheirLines) {
  const auto x = extract_press_blocks(
      "GAME britain-1\nPLAYER WSX cerdic\npress to MRC, East Anglia anonymous\nHello\n\n"
      "there\nENDPRESS\n1. DEFEND WIN\nPRESS TO ALL\nHear ye\nEndPress\nEND\n");
  ASSERT_EQ(x.blocks.size(), 2u);
  EXPECT_EQ(x.blocks[0].line, 3);
  EXPECT_EQ(x.blocks[0].to, (std::vector<std::string>{"MRC", "East Anglia"}));
  EXPECT_TRUE(x.blocks[0].anonymous);
  EXPECT_EQ(x.blocks[0].body, "Hello\n\nthere\n");
  EXPECT_EQ(x.blocks[0].error, "");
  EXPECT_EQ(x.blocks[1].to, (std::vector<std::string>{"ALL"}));
  EXPECT_FALSE(x.blocks[1].anonymous);
  // The orders keep their line numbers.
  EXPECT_EQ(x.rest, "GAME britain-1\nPLAYER WSX cerdic\n\n\n\n\n\n1. DEFEND WIN\n\n\n\nEND\n");
}

TEST(PressBlocks, BadBlocksSayWhy) {
  auto x = extract_press_blocks("PRESS MRC\nhi\nENDPRESS\n");
  ASSERT_EQ(x.blocks.size(), 1u);
  EXPECT_NE(x.blocks[0].error.find("PRESS TO <kingdoms>"), std::string::npos);
  x = extract_press_blocks("PRESS TO MRC\nhi\n1. DEFEND WIN\n");
  ASSERT_EQ(x.blocks.size(), 1u);
  EXPECT_NE(x.blocks[0].error.find("no ENDPRESS"), std::string::npos);
  EXPECT_EQ(x.rest.find("DEFEND"), std::string::npos);  // never read as orders
  x = extract_press_blocks("PRESS TO\nhi\nENDPRESS");
  EXPECT_NE(x.blocks[0].error.find("names no recipient"), std::string::npos);
}

class PressMail : public mail_test::MailFixture {
 protected:
  void set_press(const std::string& level, bool gm_reads = true) {
    ASSERT_TRUE(
        store_->set_press_options("britain-1", PressOptions{level, gm_reads, false, ""}).ok());
  }
  // Queues every recipient's press digest (as when a deadline has come) and turns the pending
  // notices into outbox mail; the outbox's press mail, oldest first.
  std::vector<OutboxMessage> press_mail() {
    PressDigest digest(*services_, *store_, [this] { return now_; }, store_.get(), {});
    EXPECT_TRUE(digest.run("britain-1", now_ + 1).ok());
    mail::NoticeMailer m(*services_, *store_, *store_, config_.from, config_.base_url,
                         [this] { return now_; });
    EXPECT_TRUE(m.deliver().ok());
    std::vector<OutboxMessage> out;
    for (auto& o : outbox())
      if (o.kind == "press") out.push_back(o);
    return out;
  }
  OutboxMessage answer(const std::string& kind) {
    for (auto& o : outbox())
      if (o.kind == kind) return o;
    ADD_FAILURE() << "no " << kind << " answer";
    return {};
  }
};

TEST_F(PressMail, PressAloneIsSentAndLeavesTheOrdersAlone) {
  const auto r = ingest(eml("p1",
                            "GAME britain-1\nPLAYER WSX cerdic\nPRESS TO MRC,NUM\n"
                            "Shall we share Mercia?\nENDPRESS\n"));
  EXPECT_EQ(r.action, "press");
  EXPECT_NE(r.outcome.find("1 of 1 sent"), std::string::npos) << r.outcome;
  EXPECT_TRUE(submissions().empty());  // no order file stored
  const auto a = parse(answer("press-ack"));
  EXPECT_NE(a.text.find("sent to Mercia (MRC), Northumbria (NUM)"), std::string::npos) << a.text;
  EXPECT_NE(a.text.find("orders on file are unchanged"), std::string::npos);
  EXPECT_EQ(a.text.find("cerdic"), std::string::npos);

  const auto sent = press_mail();
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[0].to, "mercia@example.org");
  EXPECT_EQ(sent[1].to, "northumbria@example.org");
  const auto m = parse(sent[0]);
  EXPECT_NE(m.subject.find("Press: 1 new message"), std::string::npos) << m.subject;
  EXPECT_NE(m.text.find("From: Wessex (WSX)"), std::string::npos);
  EXPECT_NE(m.text.find("Shall we share Mercia?"), std::string::npos);
  EXPECT_NE(m.text.find("PRESS TO <kingdom codes"), std::string::npos);  // how to answer
  ASSERT_EQ(m.references.size(), 1u);

  // The answer from Mercia to Wessex and Northumbria joins the same thread.
  ingest(eml("p2", "GAME britain-1\nPLAYER MRC penda\nPRESS TO WSX, Northumbria\nYes.\nENDPRESS\n",
             "mercia@example.org"));
  const auto again = press_mail();
  ASSERT_EQ(again.size(), 4u);
  EXPECT_EQ(parse(again[2]).references, m.references);

  // The blocks of a mail processed again (a crash before it was marked answered) are stored and
  // mailed once: the same source gives the stored message, whose notice was queued already.
  Press press(*services_, *store_, [this] { return now_; });
  auto re = mail::send_press_blocks(
      press, "britain-1", "MRC",
      extract_press_blocks("PRESS TO WSX, Northumbria\nYes.\nENDPRESS\n").blocks,
      "email:p2@example.org");
  ASSERT_TRUE(re.ok()) << re.status().to_string();
  EXPECT_NE(re->find("sent to"), std::string::npos);
  EXPECT_EQ(press_mail().size(), 4u);
  auto p = store_->press_messages_after("britain-1", 0);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->size(), 2u);
}

TEST_F(PressMail, PressInsideAnOrdersMailNeverCountsAsRejectedLines) {
  const std::string orders = ::adj::testing::read_file(
      std::string(ADJ_SOURCE_DIR) + "/schemas/scenarios/dark-age-britain/turn1-WSX.txt");
  std::string text = orders;
  text.insert(text.find("\nEND\n") + 1, "PRESS TO ALL\nThe West stands firm.\nENDPRESS\n");
  const auto r = ingest(eml("o1", text));
  EXPECT_EQ(r.action, "orders");
  EXPECT_NE(r.outcome.find("7 accepted, 1 rejected"), std::string::npos)
      << r.outcome;  // as without
  ASSERT_EQ(submissions().size(), 1u);
  EXPECT_TRUE(submissions()[0].accepted);
  const auto ack = parse(answer("ack"));
  EXPECT_NE(ack.text.find("sent to everyone"), std::string::npos) << ack.text;
  EXPECT_EQ(ack.text.find("PRESS TO ALL"), std::string::npos);  // not echoed as an order line
  EXPECT_EQ(press_mail().size(), 4u);  // every other kingdom with an address
}

TEST_F(PressMail, RefusalsNameTheReasonAndSendNothing) {
  set_press("public");
  ingest(eml("r1",
             "GAME britain-1\nPLAYER WSX cerdic\nPRESS TO MRC\nPsst\nENDPRESS\n"
             "PRESS TO ALL ANONYMOUS\nBoo\nENDPRESS\nPRESS TO XYZ\nHi\nENDPRESS\n"
             "PRESS TO ALL\n" +
                 std::string(9000, 'y') + "\nENDPRESS\n"));
  const auto a = parse(answer("press-ack"));
  EXPECT_NE(a.text.find("line 3: not sent: this game allows public press only"), std::string::npos)
      << a.text;
  EXPECT_NE(a.text.find("does not allow anonymous press"), std::string::npos);
  EXPECT_NE(a.text.find("no kingdom \"XYZ\" in this game"), std::string::npos);
  EXPECT_NE(a.text.find("at most 8192 bytes"), std::string::npos);
  EXPECT_TRUE(press_mail().empty());

  set_press("none");
  ingest(eml("r2", "GAME britain-1\nPLAYER WSX cerdic\nPRESS TO ALL\nHello\nENDPRESS\n"));
  EXPECT_NE(parse(outbox().back()).text.find("this game has no press"), std::string::npos);
  EXPECT_TRUE(press_mail().empty());
}

TEST_F(PressMail, WrongSecretIsRefusedAndSendsNothing) {
  const auto r = ingest(eml("w1",
                            "GAME britain-1\nPLAYER WSX wrongsecret\nPRESS TO MRC\n"
                            "Forged\nENDPRESS\n"));
  EXPECT_EQ(r.action, "refusal");
  EXPECT_TRUE(press_mail().empty());
  auto p = store_->press_messages_after("britain-1", 0);
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->empty());
}

TEST_F(PressMail, AnonymousPressNeverNamesItsSender) {
  set_press("anonymous");
  ingest(eml("a1",
             "GAME britain-1\nPLAYER WSX cerdic\nPRESS TO MRC ANONYMOUS\n"
             "Beware the north.\nENDPRESS\n"));
  // The sender's answer, which the GM's outbox view may show, names no recipient.
  const std::string ack = parse(answer("press-ack")).text;
  EXPECT_NE(ack.find("without your name"), std::string::npos);
  EXPECT_EQ(ack.find("Mercia"), std::string::npos) << ack;
  EXPECT_EQ(ack.find("MRC"), std::string::npos) << ack;
  const auto sent = press_mail();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].raw.find("WSX"), std::string::npos) << sent[0].raw;
  EXPECT_EQ(sent[0].raw.find("Wessex"), std::string::npos);
  EXPECT_EQ(sent[0].raw.find("wessex@"), std::string::npos);
  EXPECT_NE(parse(sent[0]).text.find("Beware the north."), std::string::npos);
  EXPECT_NE(parse(sent[0]).text.find("From: anonymous"), std::string::npos);
}

TEST_F(PressMail, APressLineSaysSecretIsNotACommand) {
  const auto r = ingest(eml("s1",
                            "GAME britain-1\nPLAYER WSX cerdic\nPRESS TO MRC\n"
                            "secret plans\nENDPRESS\n"));
  EXPECT_EQ(r.action, "press");
  EXPECT_TRUE(services_->authenticate_player("britain-1", "WSX", "cerdic").ok());
}

// Likewise ADDRESS and ABSENCE: a press message's own lines are never commands.
TEST_F(PressMail, PressLinesSayingAddressOrAbsenceAreNotCommands) {
  const auto r = ingest(eml("s2",
                            "GAME britain-1\nPLAYER WSX cerdic\nPRESS TO MRC\n"
                            "Address unknown\nAbsence of mind\nENDPRESS\n"));
  EXPECT_EQ(r.action, "press");
}

}  // namespace
}  // namespace adj
