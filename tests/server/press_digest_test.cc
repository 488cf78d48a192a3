// Press digests (server/app/press_digest.h): press sent through the JSON API (the Router, as
// press_web_test.cc) is mailed to each recipient gathered, at most one mail per interval, each
// bounded in size; what the outbox holds is counted after NoticeMailer has turned the digests
// into mail. The figure of issue 28: 100 press to all in a 200-player game.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <memory>

#include "server/app/press_digest.h"
#include "server/mail/notice_mailer.h"
#include "server/web/routes.h"
#include "server/web/web_context.h"
#include "server/web/web_session.h"
#include "storage/sqlite/sqlite_store.h"
#include "storage/store.h"
#include "tests/support/grid_world.h"
#include "tests/support/sanitized.h"
#include "tests/support/temp_dir.h"

namespace adj::web {
namespace {

constexpr const char* kDigestGm = "gm-token-for-digests";
constexpr UnixTime kDigestStart = 1'700'000'000;

class PressDigestTest : public ::testing::Test {
 protected:
  void make_game(int players) {
    router_ = std::make_unique<http::Router>();
    WebConfig config;
    config.db_path = dir_.file("digest.db");
    config.base_url = "http://127.0.0.1:8080";
    config.gm_token = kDigestGm;
    ctx_ = std::make_unique<WebContext>(config, [this] { return now_; });
    register_routes(*router_, *ctx_);
    Json doc = testing::grid_world::world("big", {players, 100});
    for (auto& p : doc["players"])
      p["email"] = p["code"].get<std::string>() + "@players.example.org";
    auto g = ctx_->admin().create_game(doc, 42, "gm");
    ASSERT_TRUE(g.ok()) << g.status().to_string();
  }
  std::string token(const std::string& player) {
    auto t = ctx_->admin().issue_player_token("big", player, "gm");
    EXPECT_TRUE(t.ok());
    return t.ok() ? *t : "";
  }
  int send(const std::string& tok, const Json& body) {
    http::Request r;
    r.method = "POST";
    r.path = "/api/games/big/press";
    r.headers["host"] = "127.0.0.1:8080";
    r.headers["authorization"] = "Bearer " + tok;
    r.headers["content-type"] = "application/json";
    r.remote = "127.0.0.1";
    r.body = body.dump();
    return router_->route(r).status;
  }
  Store& store() { return ctx_->app().store(); }
  // `deadline`: a deadline that has come (PressDigest::run).
  int digest(UnixTime deadline = 0, PressDigestConfig config = {}) {
    PressDigest d(
        ctx_->services(), store(), [this] { return now_; }, &store(), config);
    auto n = d.run("big", deadline);
    EXPECT_TRUE(n.ok()) << n.status().to_string();
    return n.ok() ? *n : -1;
  }
  // Turns the pending notices into outbox mail; returns the outbox's messages of kind "press".
  std::vector<OutboxMessage> mail() {
    mail::NoticeMailer m(ctx_->services(), store(), store(), {"gm@example.org", "GM"},
                         "http://127.0.0.1:8080", [this] { return now_; });
    auto n = m.deliver(100000);
    EXPECT_TRUE(n.ok());
    auto all = store().outbox("big", 100000);
    EXPECT_TRUE(all.ok());
    std::vector<OutboxMessage> out;
    for (auto& o : *all)
      if (o.kind == "press") out.push_back(o);
    return out;
  }

  testing::TempDir dir_;
  UnixTime now_ = kDigestStart;
  std::unique_ptr<WebContext> ctx_;
  std::unique_ptr<http::Router> router_;
};

// Issue 28: 100 messages of 8 KiB to everyone from 100 players of a 200-player game were 19,900
// mails (173 MB). Now: one digest per recipient, each at most 64 KiB of text.
TEST_F(PressDigestTest, HundredPressToAllInATwoHundredPlayerGameIsOneBoundedMailEach) {
  // Fewer under the sanitizers (tests/support/sanitized.h): 20 players and 16 messages, still
  // more text than one digest holds (it took 312 s there with 200 and 100).
  const int players = testing::sanitized_count(200),
            messages = std::max(16, testing::sanitized_count(100));
  const auto n = static_cast<std::size_t>(players);
  make_game(players);
  const std::string body(8000, 'x');
  for (int i = 0; i < messages; ++i)
    ASSERT_EQ(send(token(testing::grid_world::player(i)),
                   {{"to", "ALL"}, {"body", "Message " + std::to_string(i) + " " + body}}),
              201);
  EXPECT_TRUE(mail().empty());  // sending mails nothing itself
  EXPECT_EQ(digest(), players);
  // Another pass (another thread or process) finds nothing left to claim.
  EXPECT_EQ(digest(), 0);
  const auto out = mail();
  ASSERT_EQ(out.size(), n);
  std::size_t bytes = 0, biggest = 0;
  for (const auto& m : out) {
    bytes += m.raw.size();
    biggest = std::max(biggest, m.raw.size());
  }
  EXPECT_LE(biggest, 72u * 1024);  // 64 KiB of text, headers and quoted-printable
  EXPECT_LE(bytes, n * 72 * 1024);
  std::printf("press digests: %zu mails, %zu bytes (was 19,900 mails, 173 MB)\n", out.size(),
              bytes);
  // The rest is not lost: each mail says so, and the web holds every message.
  auto notices = store().notices("big");
  ASSERT_TRUE(notices.ok());
  ASSERT_EQ(notices->size(), n);
  EXPECT_NE(notices->front().text.find("more messages, not in this mail"), std::string::npos);
  // More press within the interval waits; after it, one mail more each.
  ASSERT_EQ(send(token("P0000"), {{"to", "ALL"}, {"body", "Late news"}}), 201);
  now_ += 60;
  EXPECT_EQ(digest(), 0);
  now_ += 15 * 60;
  EXPECT_EQ(digest(), players - 1);
  EXPECT_EQ(mail().size(), 2 * n - 1);
}

TEST_F(PressDigestTest, GathersPerRecipientAndSendsOnceWhenTheDeadlineComes) {
  make_game(4);
  const std::string a = token("P0000"), b = token("P0001");
  ASSERT_EQ(send(a, {{"to", {"P0001"}}, {"body", "First to one"}}), 201);
  EXPECT_EQ(digest(), 1);  // the first message goes out at once
  ASSERT_EQ(send(a, {{"to", {"P0001", "P0002"}}, {"body", "Second"}}), 201);
  ASSERT_EQ(send(b, {{"to", {"P0002"}}, {"body", "Third"}}), 201);
  now_ += 60;
  // P0002 never had a digest: at once; P0001 waits for the interval.
  EXPECT_EQ(digest(), 1);
  // When the deadline has come every waiting message goes out, once per deadline.
  EXPECT_EQ(digest(now_), 1);
  auto out = mail();
  ASSERT_EQ(out.size(), 3u);
  int with_two = 0;
  for (const auto& m : out) with_two += m.raw.find("2 new messages") != std::string::npos;
  EXPECT_EQ(with_two, 1);  // P0002: Second and Third in one mail
  ASSERT_EQ(send(a, {{"to", {"P0001"}}, {"body", "Fourth"}}), 201);
  EXPECT_EQ(digest(now_), 0);  // P0001 had its mail for this deadline
  now_ += 60;
  EXPECT_EQ(digest(now_), 1);  // the next deadline
}

TEST_F(PressDigestTest, AnonymousPressNamesNoSenderInTheDigest) {
  make_game(3);
  ASSERT_TRUE(store().set_press_options("big", {"anonymous", false, false, ""}).ok());
  ASSERT_EQ(send(token("P0000"), {{"to", {"P0001"}}, {"body", "Beware"}, {"anonymous", true}}),
            201);
  EXPECT_EQ(digest(), 1);
  const auto out = mail();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NE(out[0].raw.find("From: anonymous"), std::string::npos);
  EXPECT_EQ(out[0].raw.find("P0000"), std::string::npos);
}

}  // namespace
}  // namespace adj::web
