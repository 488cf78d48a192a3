// The HTTP listener's connection caps, refusals and descriptor exhaustion, with real sockets on
// loopback from several source addresses (127.0.0.2, 127.0.0.3 ... reach lo on Linux).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <thread>
#include <vector>

#include "server/http/conn_caps.h"
#include "server/http/http_server.h"
#include "tests/support/raw_socket.h"

namespace adj::http {
namespace {

using namespace std::chrono_literals;
using testing::http_get;
using testing::RawConn;

std::string conn_addr(int i) { return "127.0.0." + std::to_string(i); }

Router test_router() {
  Router r;
  r.add(
      "GET", "/healthz", [](const Request&, const Params&) { return Response::text("ok\n"); },
      "healthz");
  r.add(
      "GET", "/db",
      [](const Request&, const Params&) -> Response {
        throw ServiceUnavailable("cannot open the database: out of descriptors");
      },
      "db");
  return r;
}

// Polls /healthz from `source` until it answers `want` (a connection being closed on the server
// side is noticed asynchronously).
bool eventually_status(int port, int want, const std::string& source = "127.0.0.1") {
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (std::chrono::steady_clock::now() < deadline) {
    if (http_get(port, "/healthz", nullptr, source) == want) return true;
    std::this_thread::sleep_for(50ms);
  }
  return false;
}

TEST(ConnectionCaps, CountsPerAddressAndInAll) {
  ConnectionCaps caps(3, 2);
  EXPECT_EQ(caps.admit("a"), ConnectionCaps::Verdict::kAdmitted);
  EXPECT_EQ(caps.admit("a"), ConnectionCaps::Verdict::kAdmitted);
  EXPECT_EQ(caps.admit("a"), ConnectionCaps::Verdict::kPerAddressCap);
  EXPECT_EQ(caps.admit("b"), ConnectionCaps::Verdict::kAdmitted);
  EXPECT_EQ(caps.admit("c"), ConnectionCaps::Verdict::kGlobalCap);
  EXPECT_EQ(caps.open(), 3);
  caps.release("a");
  EXPECT_EQ(caps.open_from("a"), 1);
  EXPECT_EQ(caps.admit("c"), ConnectionCaps::Verdict::kAdmitted);
  caps.release("zzz");  // unknown: ignored
  EXPECT_EQ(caps.open(), 3);
}

TEST(ConnectionCaps, FitToFileLimit) {
  const FittedCaps same = fit_caps_to_fd_limit(4096, 256, 1 << 20);
  EXPECT_FALSE(same.lowered);
  EXPECT_EQ(same.http, 4096);
  EXPECT_EQ(same.smtp, 256);
  EXPECT_FALSE(fit_caps_to_fd_limit(4096, 256, -1).lowered);  // no limit
  const FittedCaps low = fit_caps_to_fd_limit(4096, 256, 1024);
  EXPECT_TRUE(low.lowered);
  EXPECT_LE(low.http + low.smtp + kReservedDescriptors, 1024);
  EXPECT_GT(low.http, low.smtp);
  EXPECT_GE(low.smtp, 1);
  const FittedCaps tiny = fit_caps_to_fd_limit(4096, 0, 10);
  EXPECT_GE(tiny.http, 1);
  EXPECT_LE(tiny.http, 2);
  EXPECT_EQ(tiny.smtp, 0);
}

TEST(HttpConnLimits, PerAddressAndGlobalCapsAnswer503AndHeldConnectionsStay) {
  Router router = test_router();
  http::Metrics metrics;
  ServerOptions o;
  o.max_connections = 30;
  o.max_connections_per_address = 10;
  o.read_timeout = 60s;
  HttpServer server(router, metrics, o);
  ASSERT_TRUE(server.start("127.0.0.1", 0).ok());
  const int port = server.port();

  std::vector<RawConn> held;
  for (int i = 0; i < 10; ++i) held.emplace_back(port, conn_addr(2));
  // The 11th from the same address: a clear refusal, not a silent close.
  std::string resp;
  EXPECT_EQ(http_get(port, "/healthz", &resp, conn_addr(2)), 503);
  EXPECT_NE(resp.find("Retry-After: 5"), std::string::npos) << resp;
  EXPECT_NE(resp.find("too many connections from your address"), std::string::npos) << resp;
  // Another address is served.
  EXPECT_EQ(http_get(port, "/healthz", nullptr, conn_addr(1)), 200);

  for (int i = 0; i < 10; ++i) held.emplace_back(port, conn_addr(3));
  for (int i = 0; i < 10; ++i) held.emplace_back(port, conn_addr(4));
  ASSERT_TRUE(eventually_status(port, 503, conn_addr(5)));  // the global cap: 30 held
  EXPECT_EQ(http_get(port, "/healthz", &resp, conn_addr(5)), 503);
  EXPECT_NE(resp.find("server busy"), std::string::npos) << resp;
  for (auto& c : held) EXPECT_TRUE(c.idle_open());

  // Freeing connections from one address lets others in again.
  for (int i = 0; i < 10; ++i) held[static_cast<std::size_t>(i)].close();
  EXPECT_TRUE(eventually_status(port, 200, conn_addr(5)));

  const std::string m = metrics.render();
  EXPECT_NE(
      m.find("adjutant_connections_refused_total{listener=\"http\",reason=\"per_address_cap\"} 1"),
      std::string::npos)
      << m;
  EXPECT_NE(m.find("adjutant_connections_refused_total{listener=\"http\",reason=\"global_cap\"}"),
            std::string::npos)
      << m;
  server.stop();
}

TEST(HttpConnLimits, HealthzAnswersWhileTwoThousandIdleConnectionsAreHeld) {
  if (testing::raise_nofile() < 4500) GTEST_SKIP() << "needs RLIMIT_NOFILE >= 4500";
  Router router = test_router();
  http::Metrics metrics;
  ServerOptions o;
  o.max_connections = 2100;
  o.max_connections_per_address = 60;
  o.read_timeout = 120s;
  HttpServer server(router, metrics, o);
  ASSERT_TRUE(server.start("127.0.0.1", 0).ok());
  const int port = server.port();

  std::vector<RawConn> held;
  held.reserve(2200);
  for (int i = 0; i < 2000; ++i) {  // 50 from each of 127.0.0.2 .. 127.0.0.41
    held.emplace_back(port, conn_addr(2 + i % 40));
    ASSERT_TRUE(held.back().connected()) << i;
  }
  EXPECT_TRUE(eventually_status(port, 200));
  std::string resp;
  EXPECT_EQ(http_get(port, "/healthz", &resp), 200) << resp;

  // Per address: 10 more from 127.0.0.2 fit (60), the 11th is refused.
  for (int i = 0; i < 10; ++i) held.emplace_back(port, conn_addr(2));
  EXPECT_EQ(http_get(port, "/healthz", &resp, conn_addr(2)), 503);
  EXPECT_NE(resp.find("your address"), std::string::npos) << resp;
  EXPECT_EQ(http_get(port, "/healthz"), 200);

  // In all: 90 more (2100) fill the global cap; then even 127.0.0.1 gets a clear 503.
  for (int i = 0; i < 90; ++i) held.emplace_back(port, conn_addr(50 + i % 3));
  ASSERT_TRUE(eventually_status(port, 503));
  EXPECT_EQ(http_get(port, "/healthz", &resp), 503);
  EXPECT_NE(resp.find("Retry-After"), std::string::npos);
  std::size_t open = 0;
  for (auto& c : held) open += c.idle_open() ? 1 : 0;
  EXPECT_EQ(open, held.size());

  while (held.size() > 1000) held.pop_back();  // half go away: served again
  EXPECT_TRUE(eventually_status(port, 200));
  server.stop();
}

TEST(HttpConnLimits, ServiceUnavailableFromAHandlerIs503WithRetryAfter) {
  Router router = test_router();
  http::Metrics metrics;
  HttpServer server(router, metrics);
  ASSERT_TRUE(server.start("127.0.0.1", 0).ok());
  std::string resp;
  EXPECT_EQ(http_get(server.port(), "/db", &resp), 503);
  EXPECT_NE(resp.find("Retry-After: 5"), std::string::npos) << resp;
  EXPECT_EQ(resp.find("out of descriptors"), std::string::npos) << resp;  // details only logged
  EXPECT_EQ(http_get(server.port(), "/healthz"), 200);
  server.stop();
}

// The process runs out of file descriptors: the listener answers the next client 503 from its
// spare descriptor, keeps running, and serves again once descriptors are free.
TEST(HttpConnLimits, OutOfDescriptorsRefusesPolitelyAndRecovers) {
  Router router = test_router();
  http::Metrics metrics;
  ServerOptions o;
  o.max_connections = 100000;
  o.max_connections_per_address = 100000;
  o.read_timeout = 60s;
  HttpServer server(router, metrics, o);
  ASSERT_TRUE(server.start("127.0.0.1", 0).ok());
  const int port = server.port();
  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &saved), 0);
  if (saved.rlim_max < 3000) GTEST_SKIP() << "needs a hard RLIMIT_NOFILE of 3000";

  // Client sockets live above the limit set below (dup2), so only the server's accepts hit it.
  constexpr int kClients = 40;
  constexpr int kHigh = 2500;
  std::vector<int> clients;
  for (int i = 0; i < kClients; ++i) {
    RawConn c(port, conn_addr(2));
    ASSERT_TRUE(c.connected());
    const int high = kHigh + i;
    ASSERT_EQ(::dup2(c.fd(), high), high);
    clients.push_back(high);
  }  // the low descriptors close here; the server has accepted (or will accept) 40 connections
  ASSERT_TRUE(eventually_status(port, 200));
  // Lowest free descriptor now: the limit leaves ~10 for the server.
  int probe = ::dup(0);
  ASSERT_GE(probe, 0);
  ::close(probe);
  rlimit low = saved;
  low.rlim_cur = static_cast<rlim_t>(probe + 10);
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &low), 0);

  // 20 more clients whose sockets were made before the limit bites (and moved high), then
  // connected: the server can accept ~10 of them; the others meet its spare descriptor.
  rlimit hi = saved;
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &hi), 0);
  std::vector<int> more;
  for (int i = 0; i < 20; ++i) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ASSERT_GE(fd, 0);
    const int high = kHigh + 100 + i;
    ASSERT_EQ(::dup2(fd, high), high);
    ::close(fd);
    more.push_back(high);
  }
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &low), 0);
  for (int fd : more) {
    sockaddr_in dst{};
    dst.sin_family = AF_INET;
    dst.sin_port = htons(static_cast<std::uint16_t>(port));
    dst.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&dst), sizeof dst), 0);
  }
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (metrics.render().find("reason=\"fd_limit\"") == std::string::npos &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(50ms);
  EXPECT_NE(metrics.render().find("reason=\"fd_limit\""), std::string::npos);
  std::this_thread::sleep_for(300ms);
  int refused = 0;
  for (int fd : more) {
    char buf[1024];
    const ssize_t n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n > 0 && std::string(buf, static_cast<std::size_t>(n)).find("503 Service Unavailable") !=
                     std::string::npos)
      ++refused;
  }
  EXPECT_GE(refused, 1);

  // Descriptors back: everything is served again, nothing crashed.
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &saved), 0);
  for (int fd : clients) ::close(fd);
  for (int fd : more) ::close(fd);
  EXPECT_TRUE(eventually_status(port, 200));
  server.stop();
}

}  // namespace
}  // namespace adj::http
