// The HTTP server (server/http/http_server.h) on a real socket: requests, limits, keep-alive,
// fairness between clients, timeouts, stopping and metrics (the fixture:
// http_server_fixture.h). Its page cache's stale answers: http_server_stale_test.cc.
#include "tests/server/http_server_fixture.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace adj::http {
namespace {

using namespace std::chrono_literals;
using namespace adj::http::testing;

TEST_F(HttpServerTest, GetWithQueryAndSecurityHeaders) {
  start();
  RawResponse r = request(raw_get("/hello?name=Penda%20of+Mercia"));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "hello Penda of Mercia");
  EXPECT_EQ(r.headers["content-type"], "text/plain; charset=utf-8");
  EXPECT_EQ(r.headers["x-content-type-options"], "nosniff");
  EXPECT_EQ(r.headers.count("content-security-policy"), 0u);  // not HTML

  r = request(raw_get("/page"));
  EXPECT_EQ(r.status, 200);
  EXPECT_NE(r.headers["content-security-policy"].find("default-src 'none'"), std::string::npos);
  EXPECT_EQ(r.headers["x-frame-options"], "DENY");
  EXPECT_EQ(r.headers["referrer-policy"], "no-referrer");
}

TEST_F(HttpServerTest, PostBodyAndPathParameters) {
  start();
  RawResponse r = request(post("/echo", "GAME britain-1\nPLAYER WSX cerdic\n"));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "text/plain|GAME britain-1\nPLAYER WSX cerdic\n");
  r = request(raw_get("/items/42"));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.headers["content-type"], "application/json");
}

TEST_F(HttpServerTest, NotFoundAndMethodNotAllowed) {
  start();
  EXPECT_EQ(request(raw_get("/nowhere")).status, 404);
  EXPECT_EQ(request(post("/hello", "x")).status, 405);
  EXPECT_EQ(request(raw_get("/../../etc/passwd")).status, 404);
  RawResponse r = request(raw_get("/api/nothing"));
  EXPECT_EQ(r.status, 404);
  EXPECT_NE(r.body.find("\"error\""), std::string::npos);
}

TEST_F(HttpServerTest, HeadHasLengthButNoBody) {
  start();
  Client c(port_);
  c.send("HEAD /hello HTTP/1.1\r\nHost: t\r\n\r\n");
  RawResponse r = c.read_response(5000ms, /*head=*/true);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.headers["content-length"], "11");
  // The connection is still usable: the next response is not polluted by a body.
  c.send(raw_get("/hello"));
  EXPECT_EQ(c.read_response().body, "hello world");
}

TEST_F(HttpServerTest, BodyOverLimitIs413) {
  ServerOptions o;
  o.body_limit = 1024;
  start(o);
  // Announced by Content-Length: refused before the body is read.
  RawResponse r = request(post("/echo", std::string(5000, 'x')));
  EXPECT_EQ(r.status, 413);
  EXPECT_EQ(r.headers["connection"], "close");
  // Chunked, so the size is only known while reading.
  std::string chunked = "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (int i = 0; i < 4; ++i) chunked += "200\r\n" + std::string(512, 'y') + "\r\n";
  chunked += "0\r\n\r\n";
  EXPECT_EQ(request(chunked).status, 413);
  // Exactly at the limit is fine.
  r = request(post("/echo", std::string(1024, 'z')));
  EXPECT_EQ(r.status, 200);
  EXPECT_NE(metrics_.render().find("route=\"payload_too_large\",status=\"413\"} 2"),
            std::string::npos);
}

TEST_F(HttpServerTest, OversizedHeadersAre431) {
  ServerOptions o;
  o.header_limit = 4096;
  start(o);
  RawResponse r = request(raw_get("/hello", "X-Big: " + std::string(8000, 'a') + "\r\n"));
  EXPECT_EQ(r.status, 431);
}

TEST_F(HttpServerTest, MalformedRequestsAre400AndServerKeepsServing) {
  start();
  EXPECT_EQ(request("GARBAGE\r\n\r\n").status, 400);
  EXPECT_EQ(request("GET nopath HTTP/1.1\r\nHost: t\r\n\r\n").status, 400);
  EXPECT_EQ(request("POST /echo HTTP/1.1\r\nContent-Length: abc\r\n\r\n").status, 400);
  EXPECT_EQ(request("GET /a%00b HTTP/1.1\r\nHost: t\r\n\r\n").status, 400);
  std::string binary = "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03";  // a TLS hello
  binary += std::string(64, '\0');
  EXPECT_EQ(request(binary).status, 400);
  EXPECT_EQ(request(raw_get("/hello")).status, 200);
}

TEST_F(HttpServerTest, HandlerExceptionIs500AndHeadersCannotBeInjected) {
  start();
  EXPECT_EQ(request(raw_get("/throw")).status, 500);
  RawResponse r = request(raw_get("/inject"));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.headers.count("set-cookie"), 0u);
  EXPECT_EQ(r.headers["x-evil"], "aSet-Cookie: pwned=1");
}

TEST_F(HttpServerTest, KeepAliveServesSeveralRequestsOnOneConnection) {
  start();
  Client c(port_);
  ASSERT_TRUE(c.connected());
  // Two requests sent back to back (pipelined), then a third after the answers.
  c.send(raw_get("/hello?name=one") + raw_get("/hello?name=two"));
  EXPECT_EQ(c.read_response().body, "hello one");
  EXPECT_EQ(c.read_response().body, "hello two");
  c.send(raw_get("/hello?name=three", "Connection: close\r\n"));
  RawResponse r = c.read_response();
  EXPECT_EQ(r.body, "hello three");
  EXPECT_EQ(r.headers["connection"], "close");
  EXPECT_TRUE(c.closed_within(2000ms));
}

TEST_F(HttpServerTest, Http10ClosesAfterTheResponse) {
  start();
  Client c(port_);
  c.send("GET /hello HTTP/1.0\r\n\r\n");
  EXPECT_EQ(c.read_response().status, 200);
  EXPECT_TRUE(c.closed_within(2000ms));
}

TEST_F(HttpServerTest, SlowHandlerDoesNotBlockOthers) {
  slow_ms_ = 1500;
  start();
  Client slow(port_);
  slow.send(raw_get("/slow"));
  while (slow_started_ == 0) std::this_thread::sleep_for(5ms);
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(request(raw_get("/hello")).status, 200);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 1000ms);
  EXPECT_EQ(slow.read_response().body, "slow done");
}

// One worker; its first request holds it at a gate while client A (10.0.0.1, through a trusted
// proxy) queues five more and client B (10.0.0.2) one: B's waits for one of A's, not five
// (server/http/fair_queue.h).
TEST_F(HttpServerTest, OneClientsManyRequestsTakeTurnsWithAnothersOne) {
  std::mutex mu;
  std::condition_variable cv;
  bool open = false;
  std::vector<std::string> order;  // the clients, in the order the handler saw them
  router_.add(
      "GET", "/turn",
      [&](const Request& req, const Params&) {
        std::unique_lock<std::mutex> lock(mu);
        order.push_back(req.remote);
        cv.notify_all();
        cv.wait(lock, [&] { return open; });
        return Response::text("done");
      },
      "turn");
  ServerOptions o;
  o.worker_threads = 1;
  ASSERT_TRUE(o.trusted_proxies.add("127.0.0.0/8"));
  start(o);
  const auto from = [](const char* ip) { return std::string("X-Forwarded-For: ") + ip + "\r\n"; };
  std::vector<std::unique_ptr<Client>> clients;
  const auto send = [&](const char* ip) {
    clients.push_back(std::make_unique<Client>(port_));
    ASSERT_TRUE(clients.back()->send(raw_get("/turn", from(ip))));
  };
  send("10.0.0.1");
  {
    std::unique_lock<std::mutex> lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, 10s, [&] { return order.size() == 1; }));
  }
  for (int i = 0; i < 5; ++i) send("10.0.0.1");
  std::this_thread::sleep_for(300ms);  // A's five are read and queued
  send("10.0.0.2");
  std::this_thread::sleep_for(300ms);
  {
    std::lock_guard<std::mutex> lock(mu);
    open = true;
  }
  cv.notify_all();
  for (auto& c : clients) EXPECT_EQ(c->read_response(10s).body, "done");
  ASSERT_EQ(order.size(), 7u);
  const auto b = std::find(order.begin(), order.end(), "10.0.0.2");
  ASSERT_NE(b, order.end());
  EXPECT_LE(b - order.begin(), 2) << "B's request waited behind " << (b - order.begin())
                                  << " of A's";  // first come, first served: 6
  EXPECT_EQ(std::count(order.begin(), order.end(), "10.0.0.1"), 6);
}

TEST_F(HttpServerTest, ConcurrentClients) {
  slow_ms_ = 20;
  start();
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      Client c(port_);
      for (int i = 0; i < 10; ++i) {
        const std::string name = std::to_string(t) + "-" + std::to_string(i);
        c.send(raw_get(i % 3 == 0 ? "/slow" : "/hello?name=" + name));
        RawResponse r = c.read_response();
        if (r.status == 200 && (i % 3 == 0 ? r.body == "slow done" : r.body == "hello " + name))
          ++ok;
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(ok, 80);
  EXPECT_NE(metrics_.render().find("route=\"hello\",status=\"200\"} 48"), std::string::npos);
}

TEST_F(HttpServerTest, SlowlorisIsDisconnected) {
  ServerOptions o;
  o.read_timeout = 300ms;
  start(o);
  Client c(port_);
  c.send("GET /hello HTTP/1.1\r\nHost: t\r\n");  // never finishes its headers
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_TRUE(c.closed_within(3000ms));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 2000ms);
  Client silent(port_);  // connects and sends nothing
  EXPECT_TRUE(silent.closed_within(3000ms));
  EXPECT_EQ(request(raw_get("/hello")).status, 200);
}

TEST_F(HttpServerTest, IdleKeepAliveConnectionTimesOut) {
  ServerOptions o;
  o.idle_timeout = 300ms;
  start(o);
  Client c(port_);
  c.send(raw_get("/hello"));
  EXPECT_EQ(c.read_response().status, 200);
  EXPECT_TRUE(c.closed_within(3000ms));
}

TEST_F(HttpServerTest, ExpectContinue) {
  start();
  Client c(port_);
  c.send(
      "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n"
      "Expect: 100-continue\r\n\r\n");
  RawResponse r = c.read_response(500ms);  // the 100 is skipped once the body is sent
  EXPECT_EQ(r.status, 0);                  // nothing final yet: the server waits for the body
  c.send("hello");
  r = c.read_response();
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "text/plain|hello");
}

TEST_F(HttpServerTest, StopFinishesRequestsInHandAndClosesIdleConnections) {
  slow_ms_ = 800;
  start();
  Client idle(port_);
  idle.send(raw_get("/hello"));
  ASSERT_EQ(idle.read_response().status, 200);  // now idle on keep-alive
  Client busy(port_);
  busy.send(raw_get("/slow"));
  while (slow_started_ == 0) std::this_thread::sleep_for(5ms);
  const auto t0 = std::chrono::steady_clock::now();
  server_->stop();
  const auto took = std::chrono::steady_clock::now() - t0;
  EXPECT_LT(took, 5000ms);
  RawResponse r = busy.read_response();
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "slow done");
  EXPECT_EQ(r.headers["connection"], "close");
  EXPECT_TRUE(idle.closed_within(1000ms));
  Client late(port_);
  EXPECT_FALSE(late.connected() && late.send(raw_get("/hello")) &&
               late.read_response(500ms).status);
  server_->stop();  // idempotent
}

TEST_F(HttpServerTest, MetricsCountRequestsByRouteAndStatus) {
  start();
  request(raw_get("/hello"));
  request(raw_get("/hello"));
  request(raw_get("/nowhere"));
  const std::string m = metrics_.render();
  EXPECT_NE(m.find("adjutant_http_requests_total{route=\"hello\",status=\"200\"} 2"),
            std::string::npos);
  EXPECT_NE(m.find("adjutant_http_requests_total{route=\"not_found\",status=\"404\"} 1"),
            std::string::npos);
}

TEST_F(HttpServerTest, StartFailsOnAPortInUse) {
  start();
  HttpServer other(router_, metrics_);
  Status s = other.start("127.0.0.1", port_);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(other.port(), 0);
}

}  // namespace
}  // namespace adj::http
