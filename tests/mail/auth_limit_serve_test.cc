// Guessing limits on the web, against a real `adjutant serve` on loopback with real curl clients
// from different loopback source addresses (127.0.0.x): HTTP Basic, the sign-in form and the GM
// bearer token lock the guessing address after --auth-max-failures (429 with Retry-After even to
// the right secret from there; never to the player or GM from another address), /metrics
// counts, and the player is mailed about the lockout.
#include <gtest/gtest.h>

#include <regex>

#include "tests/mail/mail_test_util.h"

namespace adj::mail_test {
namespace {

using ::adj::testing::run_shell;
using ::adj::testing::shell_quote;

constexpr const char* kGmToken = "gm-token-for-limit-tests";

struct LimitAnswer {
  int status = 0;
  std::string retry_after;
  std::string body;
};

// curl from source address `from` (127.0.0.x); `args` are curl options and the URL, quoted.
LimitAnswer limit_curl(const std::string& from, const std::string& args) {
  const std::string out =
      run_shell("curl -s -i -m 20 --interface " + from + " " + args + " 2>/dev/null");
  LimitAnswer a;
  std::smatch m;
  if (std::regex_search(out, m, std::regex("^HTTP/1\\.1 (\\d+)"))) a.status = std::stoi(m[1]);
  if (std::regex_search(out, m, std::regex("[Rr]etry-[Aa]fter: (\\d+)"))) a.retry_after = m[1];
  const auto blank = out.find("\r\n\r\n");
  if (blank != std::string::npos) a.body = out.substr(blank + 4);
  return a;
}

class ServeLimitTest : public MailFixture {
 protected:
  void SetUp() override {
    MailFixture::SetUp();
    serve_ = std::make_unique<ServeProcess>(
        db_, free_port(), free_port(), log_, kGmToken,
        std::vector<std::string>{"--tick", "0", "--auth-max-failures", "3", "--auth-first-lock",
                                 "600"});
    ASSERT_TRUE(serve_->wait_ready()) << ::adj::testing::read_file(log_);
  }
  std::string url(const std::string& path) { return shell_quote(serve_->url(path)); }
  // /metrics, which needs the GM token.
  std::string gm_metrics() {
    return run_shell("curl -s -H " + shell_quote(std::string("Authorization: Bearer ") + kGmToken) +
                     " " + url("/metrics"));
  }
  std::string log_ = dir_.file("serve.log");
  std::unique_ptr<ServeProcess> serve_;
};

TEST_F(ServeLimitTest, HttpBasicLocksAndAnswers429EvenToTheRightSecret) {
  const std::string report = url("/api/games/britain-1/reports/WSX");
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(limit_curl("127.0.0.2", "-u WSX:guess" + std::to_string(i) + " " + report).status,
              401);
  const LimitAnswer a = limit_curl("127.0.0.2", "-u WSX:cerdic " + report);
  EXPECT_EQ(a.status, 429) << a.body;
  ASSERT_FALSE(a.retry_after.empty());
  EXPECT_GT(std::stoi(a.retry_after), 500);
  EXPECT_NE(a.body.find("too many failed attempts"), std::string::npos) << a.body;
  // The player's lock refuses nobody: the right secret from another address gets in (404: no
  // report yet, not 401 or 429) ...
  EXPECT_EQ(limit_curl("127.0.0.3", "-u WSX:cerdic " + report).status, 404);
  // ... and another player is not held back either.
  EXPECT_NE(limit_curl("127.0.0.3", "-u MRC:penda " + report).status, 429);

  const std::string metrics = gm_metrics();
  EXPECT_NE(
      metrics.find("adjutant_auth_refusals_total{channel=\"api_basic\",reason=\"wrong_secret\"} 3"),
      std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("adjutant_auth_refusals_total{channel=\"api_basic\",reason=\"locked\"} 1"),
            std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("adjutant_auth_locked_keys 2"), std::string::npos) << metrics;

  // The player hears of it, at their address on file.
  EXPECT_TRUE(eventually([&] {
    for (const auto& m : outbox())
      if (m.kind == "auth_alert" && m.to == "wessex@example.org" &&
          parse(m).text.find("3 failed attempts to use your secret") != std::string::npos &&
          parse(m).text.find("127.0.0.2") != std::string::npos)
        return true;
    return false;
  })) << ::adj::testing::read_file(log_);
}

TEST_F(ServeLimitTest, TheSignInFormLocksWith429AndRetryAfter) {
  const std::string csrf = "0123456789abcdef0123456789abcdef";
  auto sign_in = [&](const std::string& secret) {
    return limit_curl("127.0.0.4",
                      "-b adj_csrf=" + csrf + " --data " +
                          shell_quote("csrf=" + csrf + "&player=NUM&secret=" + secret) + " " +
                          url("/games/britain-1/login"));
  };
  for (int i = 0; i < 3; ++i) EXPECT_EQ(sign_in("nope" + std::to_string(i)).status, 403);
  const LimitAnswer a = sign_in("oswald");
  EXPECT_EQ(a.status, 429);
  EXPECT_FALSE(a.retry_after.empty());
  EXPECT_NE(a.body.find("Too many failed attempts"), std::string::npos);
}

TEST_F(ServeLimitTest, TheGmTokenLocksTheGuesserButNeverTheGm) {
  const std::string pause = "-X POST " + url("/api/games/britain-1/pause");
  const std::string resume = "-X POST " + url("/api/games/britain-1/resume");
  const std::string gm = "-H " + shell_quote(std::string("Authorization: Bearer ") + kGmToken);
  ASSERT_EQ(limit_curl("127.0.0.5", gm + " " + pause).status, 200);  // the GM, from their address
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(limit_curl("127.0.0.6",
                         "-H 'Authorization: Bearer wrong" + std::to_string(i) + "' " + resume)
                  .status,
              401);
  EXPECT_EQ(limit_curl("127.0.0.6", gm + " " + resume).status, 429);  // the attacker's address
  EXPECT_EQ(limit_curl("127.0.0.7", gm + " " + resume).status, 200);  // the GM from anywhere
  EXPECT_EQ(limit_curl("127.0.0.5", gm + " " + pause).status, 200);   // and from their own
}

// A page that shows more to the GM (the "GM desk" link) is no oracle for guessing the GM cookie.
TEST_F(ServeLimitTest, GmCookiesOnPublicPagesAreLimitedToo) {
  const std::string page = url("/games/britain-1");
  EXPECT_NE(limit_curl("127.0.0.10", "-b adj_gm=" + std::string(kGmToken) + " " + page)
                .body.find("GM desk"),
            std::string::npos);
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(limit_curl("127.0.0.11", "-b adj_gm=wrong" + std::to_string(i) + " " + page)
                  .body.find("GM desk"),
              std::string::npos);
  // From the guessing address, even the right cookie now shows nothing more.
  EXPECT_EQ(limit_curl("127.0.0.11", "-b adj_gm=" + std::string(kGmToken) + " " + page)
                .body.find("GM desk"),
            std::string::npos);
  const std::string metrics = gm_metrics();
  EXPECT_NE(metrics.find("adjutant_auth_refusals_total{channel=\"web_gm\",reason=\"locked\"} 1"),
            std::string::npos)
      << metrics;
}

TEST_F(ServeLimitTest, BearerTokensAndOrderChecksAreLimitedPerAddress) {
  const std::string orders = url("/api/games/britain-1/orders?check=1");
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(limit_curl("127.0.0.8", "-H 'Content-Type: text/plain' --data-binary " +
                                          shell_quote("GAME britain-1\nPLAYER EAN w" +
                                                      std::to_string(i) + "\nEND\n") +
                                          " " + orders)
                  .status,
              422);
  EXPECT_EQ(limit_curl("127.0.0.8", "-H 'Content-Type: text/plain' --data-binary " +
                                        shell_quote("GAME britain-1\nPLAYER EAN raedwald\nEND\n") +
                                        " " + orders)
                .status,
            429);
  const std::string report = url("/api/games/britain-1/reports/GWN");
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(limit_curl("127.0.0.9", "-H 'Authorization: Bearer 0000000000000000000000000000000" +
                                          std::to_string(i) + "' " + report)
                  .status,
              401);
  const LimitAnswer a = limit_curl(
      "127.0.0.9", "-H 'Authorization: Bearer 00000000000000000000000000000009' " + report);
  EXPECT_EQ(a.status, 429);
  EXPECT_FALSE(a.retry_after.empty());
}

}  // namespace
}  // namespace adj::mail_test
