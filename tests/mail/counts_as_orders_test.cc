// A file whose every line was rejected is no orders (one definition, Services::counts_as_orders):
// the answer says so, its player is reminded, counted without orders by the turn run and the
// submission status, and the rejected lines of every file are in the turn report.
#include <gtest/gtest.h>

#include <algorithm>

#include "server/app/admin.h"
#include "tests/mail/mail_test_util.h"

namespace adj {
namespace {

using mail_test::MailFixture;

class CountsAsOrders : public MailFixture {};

std::string mail_from(const std::string& from, const std::string& id, const std::string& body) {
  return "From: " + from + "\r\nTo: orders@pbm.example.net\r\nSubject: orders\r\nMessage-ID: <" +
         id + "@example.org>\r\n\r\n" + body;
}

TEST_F(CountsAsOrders, AFileWithEveryLineRejectedIsNoOrders) {
  // Mercia: every line rejected. Wessex: one of its lines rejected (MOVVE).
  auto r = ingest(mail_from("mercia@example.org", "all-bad",
                            "GAME britain-1\r\nPLAYER MRC penda\r\n1. MOVVE XXX YYY\r\n"
                            "2. LEVY QQQ 2\r\nEND\r\n"));
  EXPECT_EQ(r.action, "orders");
  auto out = outbox();
  ASSERT_FALSE(out.empty());
  const std::string answer = parse(out.back()).text;
  EXPECT_NE(answer.find("does not count as orders for"), std::string::npos) << answer;
  EXPECT_EQ(answer.find("submission"), std::string::npos) << answer;
  ingest(mail_test::corpus("plain.eml"));
  const std::string wsx_answer = parse(outbox().back()).text;
  EXPECT_NE(wsx_answer.find("Your orders for turn 1 are on file"), std::string::npos) << wsx_answer;

  auto on_file = services_->orders_on_file("britain-1", 1);
  ASSERT_TRUE(on_file.ok());
  ASSERT_EQ(on_file->size(), 1u);
  EXPECT_EQ((*on_file)[0].player, "WSX");

  GameAdmin admin(*services_, Stores{*store_, *store_, *store_, *store_, *store_, *store_}, *store_,
                  [this] { return now_; });
  auto status = admin.submission_status("britain-1");
  ASSERT_TRUE(status.ok());
  for (const auto& s : *status) EXPECT_EQ(s.has_orders, s.player == "WSX") << s.player;

  auto reminded = ingest_->queue_reminders("britain-1", "");
  ASSERT_TRUE(reminded.ok()) << reminded.status().to_string();
  EXPECT_EQ(*reminded, 4);  // everyone but Wessex, Mercia included
  int to_mercia = 0;
  for (const auto& m : outbox()) {
    if (m.kind != "reminder" || m.to != "mercia@example.org") continue;
    ++to_mercia;
    const std::string text = parse(m).text;
    EXPECT_NE(text.find("has no line that can be carried out"), std::string::npos) << text;
  }
  EXPECT_EQ(to_mercia, 1);

  auto ran = admin.run_turn("britain-1", false, "gm");
  ASSERT_TRUE(ran.ok()) << ran.status().to_string();
  const auto& without = ran->players_without_orders;
  EXPECT_NE(std::find(without.begin(), without.end(), "MRC"), without.end());
  EXPECT_EQ(std::find(without.begin(), without.end(), "WSX"), without.end());

  auto wsx = services_->report("britain-1", "WSX", 1);
  ASSERT_TRUE(wsx.ok());
  EXPECT_NE(wsx->text.find("ORDERS NOT CARRIED OUT"), std::string::npos) << wsx->text;
  EXPECT_NE(wsx->text.find("MOVVE HAM KNT"), std::string::npos) << wsx->text;
  auto mrc = services_->report("britain-1", "MRC", 1);
  ASSERT_TRUE(mrc.ok());
  EXPECT_NE(mrc->text.find("line 3: "), std::string::npos) << mrc->text;
  EXPECT_NE(mrc->text.find("unknown area \"QQQ\""), std::string::npos) << mrc->text;
  auto ean = services_->report("britain-1", "EAN", 1);
  ASSERT_TRUE(ean.ok());
  EXPECT_EQ(ean->text.find("ORDERS NOT CARRIED OUT"), std::string::npos);
}

}  // namespace
}  // namespace adj
