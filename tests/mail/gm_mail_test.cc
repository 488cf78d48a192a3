// MailIngest's mail between the players and the GM (server/mail/mail_gm.cc): a player's letter
// that is neither orders nor a command reaches the GM inbox and the GM's address, and the player
// is told; a signed letter keeps the orders on file; a mistyped order is still orders; the GM's
// own mail (GM line, GM address) sends press as the GM. A real SQLite file, MIME parsed and
// composed for real.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "server/app/press.h"
#include "server/app/press_digest.h"
#include "server/mail/notice_mailer.h"
#include "server/render/state_map.h"
#include "storage/press_store.h"
#include "tests/mail/mail_test_util.h"

namespace adj {
namespace {

using mail_test::ingest_contains;

const std::string kGmAddress = "gm@example.org";

class GmMail : public mail_test::MailFixture {
 protected:
  void SetUp() override {
    MailFixture::SetUp();
    PressOptions o;
    o.gm_address = kGmAddress;
    ASSERT_TRUE(store_->set_press_options("britain-1", o).ok());
  }
  static std::string message(const std::string& from, const std::string& subject,
                             const std::string& id, const std::string& body) {
    return "From: " + from + "\r\nTo: orders@pbm.example.net\r\nSubject: " + subject +
           "\r\nMessage-ID: <" + id + "@example.org>\r\nMIME-Version: 1.0\r\n\r\n" + body;
  }
  std::vector<PressMessage> press() {
    auto all = store_->press_messages_after("britain-1", 0);
    EXPECT_TRUE(all.ok());
    return all.ok() ? *all : std::vector<PressMessage>{};
  }
  std::vector<Notice> notices(const std::string& kind) {
    auto all = store_->notices("britain-1");
    EXPECT_TRUE(all.ok());
    std::vector<Notice> out;
    if (all.ok())
      for (const Notice& n : *all)
        if (n.kind == kind) out.push_back(n);
    return out;
  }
  // The one queued message of `kind`, parsed.
  mail::ParsedMail only(const std::string& kind) {
    std::vector<OutboxMessage> found;
    for (const OutboxMessage& m : outbox())
      if (m.kind == kind) found.push_back(m);
    EXPECT_EQ(found.size(), 1u) << kind;
    return found.empty() ? mail::ParsedMail{} : parse(found[0]);
  }
};

TEST_F(GmMail, AnUnsignedLetterFromAPlayersAddressReachesTheGmAndIsAnswered) {
  const auto r = ingest(message("Wessex <wessex@example.org>",
                                "Re: Dark Age Britain (britain-1): turn 1 report for WSX", "l1",
                                "Can you extend the deadline? I'm travelling until Friday.\r\n"
                                "\r\nThanks,\r\nAlfred\r\n"));
  EXPECT_EQ(r.action, "to-gm") << r.outcome;
  const auto kept = press();
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].sender, "WSX");
  EXPECT_EQ(kept[0].recipients, std::vector<std::string>{kGmPressCode});
  EXPECT_NE(kept[0].body.find("I'm travelling until Friday"), std::string::npos);
  EXPECT_NE(kept[0].body.find("Subject: Re: Dark Age Britain"), std::string::npos);
  EXPECT_NE(kept[0].source.find("#gm-unsigned"), std::string::npos);
  EXPECT_TRUE(submissions().empty()) << "not read as orders";
  // Forwarded to the GM's address, saying it was not signed.
  const auto fwd = notices("gm-message");
  ASSERT_EQ(fwd.size(), 1u);
  EXPECT_EQ(fwd[0].addresses, std::vector<std::string>{kGmAddress});
  EXPECT_NE(fwd[0].text.find("without the secret"), std::string::npos) << fwd[0].text;
  // The player is told, with the GM's address.
  const mail::ParsedMail told = only("to-gm");
  EXPECT_TRUE(ingest_contains(told.text, "Your message was passed to the GM of britain-1"));
  EXPECT_TRUE(ingest_contains(told.text, kGmAddress));
  EXPECT_TRUE(ingest_contains(told.text, "To reach the game master: write to " + kGmAddress));
}

TEST_F(GmMail, ASignedLetterKeepsTheOrdersOnFileAndNeverCarriesTheSecret) {
  ingest(mail_test::corpus("plain.eml"));  // WSX's orders
  ASSERT_EQ(submissions().size(), 1u);
  const auto r = ingest(message("wessex@example.org", "a question", "l2",
                                "GAME britain-1\r\nPLAYER WSX cerdic\r\n"
                                "When does turn 2 run? I would like to plan ahead.\r\n"));
  EXPECT_EQ(r.action, "to-gm") << r.outcome;
  EXPECT_EQ(submissions().size(), 1u) << "the orders on file stay";
  const auto kept = press();
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].body.find("cerdic"), std::string::npos) << kept[0].body;
  EXPECT_EQ(kept[0].body.find("PLAYER"), std::string::npos) << kept[0].body;
  EXPECT_NE(kept[0].source.find("#gm"), std::string::npos);
  EXPECT_EQ(kept[0].source.find("unsigned"), std::string::npos);
}

TEST_F(GmMail, OrdersAWrongSecretAndStrangersAreNotLetters) {
  // A mistyped order is orders (answered with "did you mean"), not a letter.
  auto r = ingest(message("wessex@example.org", "orders", "o1",
                          "GAME britain-1\r\nPLAYER WSX cerdic\r\nMOVVE HAM KNT 2\r\n"));
  EXPECT_EQ(r.action, "orders") << r.outcome;
  // A letter with a wrong secret is refused as such.
  r = ingest(message("wessex@example.org", "hello", "w1",
                     "GAME britain-1\r\nPLAYER WSX wrong-secret\r\nPlease tell me the news.\r\n"));
  EXPECT_NE(r.action, "to-gm") << r.outcome;
  // A stranger's letter is not passed on.
  r = ingest(message("someone@example.com", "hello", "s1", "Please tell me about this game.\r\n"));
  EXPECT_NE(r.action, "to-gm") << r.outcome;
  EXPECT_TRUE(press().empty());
  EXPECT_TRUE(notices("gm-message").empty());
}

TEST_F(GmMail, TheGmsOwnMailSendsPressAsTheGm) {
  config_.gm_token = "the-gm-token";
  make_ingest();
  const std::string body =
      "GAME britain-1\r\nGM the-gm-token\r\nPRESS TO ALL\r\nTurn 2 runs a day "
      "late.\r\nENDPRESS\r\n";
  // From elsewhere: read as any mail (no GM press); with a wrong token: refused, nothing sent.
  auto r = ingest(message("mallory@example.net", "press", "g1", body));
  EXPECT_NE(r.action, "gm-press") << r.outcome;
  r = ingest(message(kGmAddress, "press", "g2",
                     "GAME britain-1\r\nGM wrong\r\nPRESS TO ALL\r\nx\r\nENDPRESS\r\n"));
  EXPECT_EQ(r.action, "refusal") << r.outcome;
  EXPECT_TRUE(press().empty());
  for (const OutboxMessage& m : outbox()) EXPECT_FALSE(ingest_contains(m.raw, "the-gm-token"));

  // A player's letter with a line starting with GM is a letter, not GM mail.
  r = ingest(message("wessex@example.org", "thanks", "g4", "GM thanks\r\nFor the extension.\r\n"));
  EXPECT_EQ(r.action, "to-gm") << r.outcome;
  ASSERT_EQ(press().size(), 1u);
  EXPECT_EQ(press()[0].recipients, std::vector<std::string>{kGmPressCode});

  r = ingest(message(kGmAddress, "press", "g3", body));
  EXPECT_EQ(r.action, "gm-press") << r.outcome;
  const auto kept = press();
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[1].sender, kGmPressCode);
  EXPECT_TRUE(kept[1].to_all);
  EXPECT_EQ(kept[1].body, "Turn 2 runs a day late.");
  const mail::ParsedMail ack = only("gm-press-ack");
  EXPECT_TRUE(ingest_contains(ack.text, "sent to everyone"));
  EXPECT_FALSE(ingest_contains(ack.text, "the-gm-token"));
}

// (Not GM mail, but mail-only play: the start mail and HELP name what a mail-only player needs.)
TEST_F(GmMail, TheStartMailCarriesThePositionTheMapAndTheDeadlineAndHelpNamesTheAddress) {
  config_.map_painter = render::map_painter(render::PngLimits{});
  make_ingest();
  Schedule s;
  s.kind = "fixed";
  s.deadline = mail_test::kStart + 86400;
  ASSERT_TRUE(store_->set_schedule("britain-1", s).ok());
  auto n = ingest_->queue_new_secrets("britain-1", {{"WSX", "new-secret-1"}}, true);
  ASSERT_TRUE(n.ok()) << n.status().to_string();
  const mail::ParsedMail start = only("secret");
  EXPECT_TRUE(ingest_contains(start.text, "Your position at the start of turn 1"));
  EXPECT_TRUE(ingest_contains(start.text, "BPs for turn 1:"));
  auto st = store_->load_state("britain-1", std::nullopt);
  ASSERT_TRUE(st.ok());
  for (const Area& a : st->areas) {
    if (a.owner == "WSX") {
      EXPECT_TRUE(ingest_contains(start.text, "  " + a.code + " ")) << a.code;
    }
  }
  EXPECT_TRUE(ingest_contains(start.text, "Orders for turn 1 are due by 2026-11-20 00:00 UTC"));
  bool png = false;
  for (const OutboxMessage& m : outbox())
    png = png || (m.kind == "secret" && ingest_contains(m.raw, "map-turn-1-start.png"));
  EXPECT_TRUE(png) << "the map is attached";

  ingest(mail_test::corpus("help.eml"));
  bool named = false;
  for (const OutboxMessage& m : outbox())
    named = named || (m.kind == "help" && ingest_contains(parse(m).text,
                                                          "Send orders and commands to "
                                                          "orders@pbm.example.net"));
  EXPECT_TRUE(named);
}

TEST_F(GmMail, AReplyToAPressMailAnswersItsSendersWithoutTheSecret) {
  // Mercia writes to Wessex; Wessex's digest is mailed.
  Press press(
      *services_, *store_, [this] { return now_; }, store_.get());
  PressDraft d;
  d.to = {"WSX"};
  d.body = "Shall we share Oxfordshire?";
  ASSERT_TRUE(press.send("britain-1", "MRC", d).ok());
  PressDigest digest(*services_, *store_, [this] { return now_; }, store_.get(), {});
  ASSERT_EQ(*digest.run("britain-1"), 1);
  mail::NoticeMailer mailer(*services_, *store_, *store_, config_.from, config_.base_url,
                            [this] { return now_; });
  ASSERT_TRUE(mailer.deliver().ok());
  std::string digest_id;
  for (const OutboxMessage& m : outbox())
    if (m.kind == "press" && m.to == "wessex@example.org") digest_id = parse(m).message_id;
  ASSERT_FALSE(digest_id.empty());
  const std::string reply_body =
      "Agreed: you take the north.\r\n\r\n> Shall we share Oxfordshire?\r\n";
  const std::string headers =
      "In-Reply-To: <" + digest_id + ">\r\nReferences: <" + digest_id + ">\r\n";

  // From another address: not press, not a letter to the GM.
  std::string forged = message("mallory@example.net", "Re: Press: 1 new message", "r1", reply_body);
  forged.insert(forged.find("MIME-Version"), headers);
  auto r = ingest(forged);
  EXPECT_NE(r.action, "press") << r.outcome;
  EXPECT_NE(r.action, "to-gm") << r.outcome;

  std::string mail = message("wessex@example.org", "Re: Press: 1 new message", "r2", reply_body);
  mail.insert(mail.find("MIME-Version"), headers);
  r = ingest(mail);
  EXPECT_EQ(r.action, "press") << r.outcome;
  const auto kept = this->press();
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[1].sender, "WSX");
  EXPECT_EQ(kept[1].recipients, std::vector<std::string>{"MRC"});
  EXPECT_EQ(kept[1].body, "Agreed: you take the north.");
  EXPECT_TRUE(notices("gm-message").empty()) << "a reply to press is not a letter to the GM";
}

}  // namespace
}  // namespace adj
