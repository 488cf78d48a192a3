// `adjutant serve --trusted-proxy` against a real daemon on loopback, curl standing in for a
// reverse proxy on 127.0.0.1 that forwards many clients (X-Forwarded-For): one forwarded
// client's wrong guesses lock that client only, never another client's right secret, sign-in
// link or token, nor the GM's sign-in; a wrong guess while the player's key is locked locks its
// client at once. Without the flag the header is never believed, and a proxy-looking peer gets
// one warning in the log. A bad flag value is a startup error naming it.
#include <gtest/gtest.h>

#include <map>
#include <regex>

#include "tests/mail/mail_test_util.h"

namespace adj::mail_test {
namespace {

using ::adj::testing::run_shell;
using ::adj::testing::shell_quote;

constexpr const char* kProxyGmToken = "gm-token-for-proxy-tests";
constexpr const char* kProxyCsrf = "0123456789abcdef0123456789abcdef";

// The status of a curl request from 127.0.0.1 forwarding `client` ("" sends no header).
int forwarded_status(const std::string& client, const std::string& args) {
  const std::string xff =
      client.empty() ? "" : "-H " + shell_quote("X-Forwarded-For: " + client) + " ";
  const std::string out =
      run_shell("curl -s -o /dev/null -w '%{http_code}' -m 20 " + xff + args + " 2>/dev/null");
  return out.empty() ? 0 : std::atoi(out.c_str());
}

class ServeProxyFixture : public MailFixture {
 protected:
  void start(std::vector<std::string> extra) {
    extra.insert(extra.end(), {"--tick", "0", "--auth-first-lock", "600"});
    serve_ = std::make_unique<ServeProcess>(db_, free_port(), free_port(), log_, kProxyGmToken,
                                            std::move(extra));
    ASSERT_TRUE(serve_->wait_ready()) << ::adj::testing::read_file(log_);
  }
  std::string url(const std::string& path) { return shell_quote(serve_->url(path)); }
  std::string basic(const std::string& secret) {
    return "-u WSX:" + secret + " " + url("/api/games/britain-1/reports/WSX");
  }
  std::string gm_sign_in(const std::string& token) {
    return "-b adj_csrf=" + std::string(kProxyCsrf) + " --data " +
           shell_quote("csrf=" + std::string(kProxyCsrf) + "&token=" + token) + " " +
           url("/gm/login");
  }
  std::string log_ = dir_.file("serve.log");
  std::unique_ptr<ServeProcess> serve_;
};

class ServeTrustedProxyTest : public ServeProxyFixture {
 protected:
  void SetUp() override {
    ServeProxyFixture::SetUp();
    start({"--trusted-proxy", "127.0.0.1", "--trusted-proxy", "10.0.0.0/8"});
  }
};

TEST_F(ServeTrustedProxyTest, OneForwardedClientsGuessesLockThatClientOnly) {
  const std::string player = "198.51.100.7", guesser = "203.0.113.66";
  // The GM issues Wessex a sign-in link (its token is also the API token).
  const std::string issued =
      run_shell("curl -s -m 20 -X POST -H " +
                shell_quote(std::string("Authorization: Bearer ") + kProxyGmToken) + " -H " +
                shell_quote("X-Forwarded-For: " + player) + " " +
                url("/api/games/britain-1/players/WSX/token"));
  std::smatch m;
  ASSERT_TRUE(std::regex_search(issued, m, std::regex("\"token\"\\s*:\\s*\"([^\"]+)\""))) << issued;
  const std::string token = m[1].str();

  // 20 wrong guesses at Wessex's secret from one forwarded client (behind a second trusted
  // proxy, which is skipped), and 20 at the GM token from another: the first five of each are
  // checked, the rest refused (429).
  // Statuses of 20 wrong guesses from `client`, the i-th made by `args(i)`: status -> count.
  const auto twenty = [](const std::string& client, const auto& args) {
    std::map<int, int> seen;
    for (int i = 0; i < 20; ++i)
      ++seen[forwarded_status(client, args("guess" + std::to_string(i)))];
    return seen;
  };
  const std::string chain = guesser + ", 10.1.2.3";
  EXPECT_EQ(twenty(chain, [&](const std::string& g) { return basic(g); }),
            (std::map<int, int>{{401, 5}, {429, 15}}));
  EXPECT_EQ(forwarded_status(chain, basic("cerdic")), 429);  // locked: not even checked
  const std::string gm_guesser = "203.0.113.67";
  EXPECT_EQ(twenty(gm_guesser, [&](const std::string& g) { return gm_sign_in(g); }),
            (std::map<int, int>{{403, 5}, {429, 15}}));
  EXPECT_EQ(forwarded_status(gm_guesser, gm_sign_in(kProxyGmToken)), 429);

  // Another forwarded client: the player's secret, link and token, and the GM's sign-in, work.
  EXPECT_EQ(forwarded_status(player, basic("cerdic")), 404) << "authenticated, no report yet";
  EXPECT_EQ(forwarded_status(player, url("/games/britain-1/p/" + token)), 303);
  EXPECT_EQ(forwarded_status(player, "-H " + shell_quote("Authorization: Bearer " + token) + " " +
                                         url("/api/games/britain-1/reports/WSX")),
            404);
  EXPECT_EQ(forwarded_status("198.51.100.8", gm_sign_in(kProxyGmToken)), 303);

  // While Wessex's key is locked, one wrong guess locks a fresh client at once.
  EXPECT_EQ(forwarded_status("198.51.100.9", basic("wrong")), 401);
  EXPECT_EQ(forwarded_status("198.51.100.9", basic("cerdic")), 429);
  EXPECT_EQ(forwarded_status("198.51.100.10", basic("cerdic")), 404);

  // The log names the forwarded client, not the proxy.
  const std::string log = ::adj::testing::read_file(log_);
  EXPECT_NE(log.find("key=\"addr:203.0.113.66\""), std::string::npos) << log;
  EXPECT_EQ(log.find("key=\"addr:127.0.0.1\""), std::string::npos) << log;
  EXPECT_EQ(log.find("event=untrusted_forwarding"), std::string::npos) << log;
}

class ServeUntrustedForwardingTest : public ServeProxyFixture {
 protected:
  void SetUp() override {
    ServeProxyFixture::SetUp();
    start({});
  }
};

TEST_F(ServeUntrustedForwardingTest, AClientCannotEscapeItsLockByForwardingAndTheLogWarnsOnce) {
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(
        forwarded_status("203.0.113." + std::to_string(i), basic("guess" + std::to_string(i))),
        401);
  // A new X-Forwarded-For each time changes nothing: the peer is the client, and it is locked.
  EXPECT_EQ(forwarded_status("203.0.113.99", basic("cerdic")), 429);
  EXPECT_EQ(forwarded_status("198.51.100.1, 203.0.113.98", basic("cerdic")), 429);
  EXPECT_EQ(forwarded_status("", basic("cerdic")), 429);
  const std::string log = ::adj::testing::read_file(log_);
  std::size_t warnings = 0;
  for (auto at = log.find("event=untrusted_forwarding"); at != std::string::npos;
       at = log.find("event=untrusted_forwarding", at + 1))
    ++warnings;
  EXPECT_EQ(warnings, 1u) << log;
  EXPECT_NE(log.find("--trusted-proxy"), std::string::npos) << log;
}

TEST(ServeTrustedProxyFlag, ABadValueIsAStartupErrorNamingTheFlagAndValue) {
  for (const char* bad : {"10.0.0.0/33", "proxy.example.net"}) {
    const std::string out = run_shell(
        std::string(ADJ_BINARY) + " --db /nonexistent/never.db serve --tick 0 --trusted-proxy " +
        shell_quote(bad) + " 2>&1; echo rc=$?");
    EXPECT_NE(out.find("--trusted-proxy"), std::string::npos) << out;
    EXPECT_NE(out.find("not an IP address or CIDR"), std::string::npos) << out;
    EXPECT_NE(out.find(bad), std::string::npos) << out;
    EXPECT_EQ(out.find("rc=0"), std::string::npos) << out;
  }
}

}  // namespace
}  // namespace adj::mail_test
