// The SMTP listener's connection caps (421), idle timeout before MAIL, and the buffer budget
// shared by all sessions (452), with real sockets from several loopback source addresses.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "server/http/smtp_server.h"
#include "tests/support/raw_socket.h"

namespace adj::http {
namespace {

using namespace std::chrono_literals;
using testing::RawConn;

std::string smtp_addr(int i) { return "127.0.0." + std::to_string(i); }

SmtpServer::BatchHandler store_all() {
  return [](std::vector<http::SmtpMessage>& batch) {
    return std::vector<std::string>(batch.size(), http::SmtpProtocol::reply_stored());
  };
}

// The greeting (or refusal) line a new connection from `source` gets.
std::string greeting(int port, const std::string& source) {
  RawConn c(port, source);
  if (!c.connected()) return "";
  return c.read_until("\r\n", 20s);
}

// Sends `cmd` and returns the reply's last line.
std::string say(RawConn& c, const std::string& cmd) {
  if (!cmd.empty() && !c.send(cmd)) return "";
  std::string got;
  for (;;) {
    got += c.read_until("\r\n", 20s);
    const std::size_t end = got.rfind("\r\n");
    if (end == std::string::npos) return got;
    const std::size_t start = got.rfind("\r\n", end - 1);
    const std::string last = got.substr(start == std::string::npos ? 0 : start + 2);
    if (last.size() < 4 || last[3] == ' ') return last;
  }
}

// Greeting, EHLO, MAIL and RCPT on `c`; the reply to DATA.
std::string open_data(RawConn& c) {
  EXPECT_EQ(c.read_until("\r\n", 20s).substr(0, 4), "220 ");
  EXPECT_EQ(say(c, "EHLO t\r\n").substr(0, 4), "250 ");
  EXPECT_EQ(say(c, "MAIL FROM:<a@b.example>\r\n").substr(0, 4), "250 ");
  EXPECT_EQ(say(c, "RCPT TO:<orders@x.example>\r\n").substr(0, 4), "250 ");
  return say(c, "DATA\r\n");
}

TEST(SmtpLimits, PerAddressAndGlobalCapsAnswer421) {
  http::Metrics metrics;
  SmtpServerOptions o;
  o.max_connections = 6;
  o.max_connections_per_address = 3;
  o.metrics = &metrics;
  SmtpServer server(store_all(), {}, o);
  ASSERT_TRUE(server.start("127.0.0.1", 0).ok());
  const int port = server.port();
  std::vector<RawConn> held;
  for (int i = 0; i < 3; ++i) {
    held.emplace_back(port, smtp_addr(2));
    EXPECT_EQ(held.back().read_until("\r\n", 20s).substr(0, 4), "220 ");
  }
  const std::string refused = greeting(port, smtp_addr(2));
  EXPECT_EQ(refused.rfind("421 4.3.2 Too many connections from your address", 0), 0u) << refused;
  for (int i = 0; i < 3; ++i) {
    held.emplace_back(port, smtp_addr(3));
    EXPECT_EQ(held.back().read_until("\r\n", 20s).substr(0, 4), "220 ");
  }
  const std::string busy = greeting(port, smtp_addr(4));
  EXPECT_EQ(busy.rfind("421 4.3.2 Too many connections, try again later", 0), 0u) << busy;
  for (auto& c : held) EXPECT_TRUE(c.idle_open());
  held.clear();  // closed: room again
  std::string again;
  for (int i = 0; i < 200 && again.rfind("220 ", 0) != 0; ++i) {
    again = greeting(port, smtp_addr(4));
    if (again.rfind("220 ", 0) != 0) std::this_thread::sleep_for(50ms);
  }
  EXPECT_EQ(again.substr(0, 4), "220 ");
  const std::string m = metrics.render();
  EXPECT_NE(m.find("{listener=\"smtp\",reason=\"per_address_cap\"} 1"), std::string::npos) << m;
  EXPECT_NE(m.find("{listener=\"smtp\",reason=\"global_cap\"}"), std::string::npos) << m;
}

TEST(SmtpLimits, IdleBeforeMailIsClosedButATransactionIsNot) {
  SmtpServerOptions o;
  o.idle_timeout = 300ms;
  o.command_timeout = 60s;
  SmtpServer server(store_all(), {}, o);
  ASSERT_TRUE(server.start("127.0.0.1", 0).ok());
  RawConn idle(server.port());
  EXPECT_EQ(idle.read_until("\r\n", 20s).substr(0, 4), "220 ");
  const std::string closing = idle.read_all(20s);  // the server speaks first, then closes
  EXPECT_EQ(closing.rfind("421 4.4.2", 0), 0u) << "[" << closing << "]";

  RawConn busy(server.port());
  EXPECT_EQ(busy.read_until("\r\n", 20s).substr(0, 4), "220 ");
  EXPECT_EQ(say(busy, "EHLO t\r\n").substr(0, 4), "250 ");
  EXPECT_EQ(say(busy, "MAIL FROM:<a@b.example>\r\n").substr(0, 4), "250 ");
  std::this_thread::sleep_for(1s);  // past the idle timeout, inside a transaction
  EXPECT_EQ(say(busy, "NOOP\r\n").substr(0, 4), "250 ");
}

TEST(SmtpLimits, BufferBudgetSharedBySessionsAnswers452) {
  SmtpServerOptions o;
  o.buffer_budget = 1u << 20;              // 1 MiB for every DATA together
  o.buffer_budget_per_address = 1u << 20;  // a and b share one address: the whole is theirs
  o.limits.max_message_bytes = 10u << 20;
  SmtpServer server(store_all(), {}, o);
  ASSERT_TRUE(server.start("127.0.0.1", 0).ok());
  const int port = server.port();
  const std::string line(998, 'x');
  std::string chunk;
  for (int i = 0; i < 100; ++i) chunk += line + "\r\n";  // 100 KB

  RawConn a(port);
  ASSERT_EQ(open_data(a).substr(0, 4), "354 ");
  ASSERT_TRUE(a.send("Subject: big\r\n\r\n"));
  for (int i = 0; i < 9; ++i) ASSERT_TRUE(a.send(chunk));  // 900 KB held, unfinished
  // The budget is (nearly) spent once the server has read a's bytes: a new DATA is then told to
  // come back later. Until it has, b's tiny messages go through.
  RawConn b(port);
  std::string b_reply = open_data(b);
  for (int i = 0; i < 200 && b_reply.rfind("354", 0) == 0; ++i) {
    // 250; or 452 when the server read the rest of a's bytes while this message was under way.
    const std::string tiny = say(b, "Subject: tiny\r\n\r\n.\r\n").substr(0, 4);
    EXPECT_TRUE(tiny == "250 " || tiny == "452 ") << tiny;
    std::this_thread::sleep_for(100ms);
    EXPECT_EQ(say(b, "MAIL FROM:<a@b.example>\r\n").substr(0, 4), "250 ");
    EXPECT_EQ(say(b, "RCPT TO:<orders@x.example>\r\n").substr(0, 4), "250 ");
    b_reply = say(b, "DATA\r\n");
  }
  EXPECT_EQ(b_reply.rfind("452 4.3.1", 0), 0u) << b_reply;
  // a goes over the budget: its message is not acknowledged.
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(a.send(chunk));
  const std::string a_end = say(a, ".\r\n");
  EXPECT_EQ(a_end.rfind("452 4.3.1", 0), 0u) << a_end;
  // The budget is free again: a small message is stored.
  EXPECT_EQ(say(b, "DATA\r\n").substr(0, 4), "354 ");
  EXPECT_EQ(say(b, "Subject: small\r\n\r\nhello\r\n.\r\n").substr(0, 4), "250 ");
  EXPECT_EQ(say(a, "MAIL FROM:<a@b.example>\r\n").substr(0, 4), "250 ");
}

// An IPv6 client is counted per /64: three addresses of one /64 are one client for the cap, and
// their 4th connection is refused, while an address of the next /64 is not.
TEST(SmtpLimits, IPv6ClientsAreCountedPerSlash64) {
  testing::Ipv6LocalPrefix local("2001:db8:28::/63");
  if (!local.ok()) GTEST_SKIP() << "cannot make an IPv6 /63 local to lo (needs root and iproute2)";
  SmtpServerOptions o;
  o.max_connections_per_address = 3;
  SmtpServer server(store_all(), {}, o);
  ASSERT_TRUE(server.start("::1", 0).ok());
  const int port = server.port();
  std::vector<RawConn> held;
  for (int i = 2; i < 5; ++i) {
    held.emplace_back(port, "2001:db8:28::" + std::to_string(i));
    ASSERT_TRUE(held.back().connected());
    EXPECT_EQ(held.back().read_until("\r\n", 20s).substr(0, 4), "220 ");
  }
  const std::string refused = greeting(port, "2001:db8:28::99");
  EXPECT_EQ(refused.rfind("421 4.3.2 Too many connections from your address", 0), 0u) << refused;
  EXPECT_EQ(greeting(port, "2001:db8:28:1::2").substr(0, 4), "220 ");
}

// Many connections from one address hold at most its share (a quarter by default) of the
// budget: another address is still answered 354 and its mail stored while they trickle.
TEST(SmtpLimits, OneAddressHoldsAtMostItsShareOfTheBudget) {
  SmtpServerOptions o;
  o.buffer_budget = 4u << 20;  // 4 MiB; one address's share: 1 MiB
  o.limits.max_message_bytes = 10u << 20;
  SmtpServer server(store_all(), {}, o);
  ASSERT_TRUE(server.start("127.0.0.1", 0).ok());
  const int port = server.port();
  const std::string line(998, 'x');
  std::string chunk;
  for (int i = 0; i < 100; ++i) chunk += line + "\r\n";  // 100 KB
  // The hog: connections from 127.0.0.2, each holding ~1 MB of an unfinished message, until its
  // DATA is refused.
  std::vector<std::unique_ptr<RawConn>> hog;
  int opened = 0;
  for (int i = 0; i < 12; ++i) {
    hog.push_back(std::make_unique<RawConn>(port, smtp_addr(2)));
    const std::string r = open_data(*hog.back());
    if (r.rfind("354", 0) != 0) {
      EXPECT_EQ(r.rfind("452 4.3.1", 0), 0u) << r;
      break;
    }
    ++opened;
    ASSERT_TRUE(hog.back()->send("Subject: hog\r\n\r\n"));
    for (int k = 0; k < 10; ++k) ASSERT_TRUE(hog.back()->send(chunk));
    std::this_thread::sleep_for(200ms);  // read by the server
  }
  EXPECT_LT(opened, 12);  // refused before the twelfth
  // Another address: DATA accepted, its message stored.
  RawConn other(port, smtp_addr(3));
  EXPECT_EQ(open_data(other).substr(0, 4), "354 ");
  EXPECT_EQ(say(other, "Subject: fine\r\n\r\n" + chunk + ".\r\n").substr(0, 4), "250 ");
}

// DATA as a whole ends after data_total_timeout however steadily it trickles.
TEST(SmtpLimits, ADataPhaseEndsAfterItsTotalTimeEvenWhileItTrickles) {
  SmtpServerOptions o;
  o.data_timeout = 10s;
  o.data_total_timeout = 1500ms;
  SmtpServer server(store_all(), {}, o);
  ASSERT_TRUE(server.start("127.0.0.1", 0).ok());
  RawConn c(server.port());
  EXPECT_EQ(open_data(c).substr(0, 4), "354 ");
  const auto t0 = std::chrono::steady_clock::now();
  std::string got;
  for (int i = 0; i < 100 && got.empty(); ++i) {
    if (!c.send("x\r\n")) break;  // a line every 100 ms: never silent for data_timeout
    got = c.read_until("\r\n", 100ms);
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(got.substr(0, 4), "421 ") << got;
  EXPECT_GT(s, 1.0);
  EXPECT_LT(s, 5.0);
}

TEST(SmtpLimits, NewSessionIsGreetedWhileTwoThousandIdleConnectionsAreHeld) {
  if (testing::raise_nofile() < 4500) GTEST_SKIP() << "needs RLIMIT_NOFILE >= 4500";
  SmtpServerOptions o;
  o.max_connections = 2100;
  o.max_connections_per_address = 60;
  SmtpServer server(store_all(), {}, o);
  ASSERT_TRUE(server.start("127.0.0.1", 0).ok());
  std::vector<RawConn> held;
  held.reserve(2000);
  for (int i = 0; i < 2000; ++i) {
    held.emplace_back(server.port(), smtp_addr(2 + i % 40));
    ASSERT_TRUE(held.back().connected()) << i;
  }
  std::string g;
  for (int i = 0; i < 100 && g.rfind("220 ", 0) != 0; ++i)
    g = greeting(server.port(), smtp_addr(1));
  EXPECT_EQ(g.substr(0, 4), "220 ") << g;
  EXPECT_EQ(greeting(server.port(), smtp_addr(1)).substr(0, 4), "220 ");
}

}  // namespace
}  // namespace adj::http
