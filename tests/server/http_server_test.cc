// The real listener (server/http/http_server.h) on 127.0.0.1 with an ephemeral port, driven by a
// minimal blocking HTTP client on plain POSIX sockets (no Beast here: it costs ~10 s per TU).
#include "server/http/http_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace adj::http {
namespace {

using namespace std::chrono_literals;

// ---- a tiny blocking client ----

struct RawResponse {
  int status = 0;                              // 0: no (complete) response
  std::map<std::string, std::string> headers;  // lower-case names; repeated ones joined by "\n"
  std::string body;
};

class Client {
 public:
  explicit Client(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~Client() {
    if (fd_ >= 0) ::close(fd_);
  }
  bool connected() const { return fd_ >= 0; }

  bool send(const std::string& data) {
    std::size_t off = 0;
    while (off < data.size()) {
      const ssize_t n = ::send(fd_, data.data() + off, data.size() - off, MSG_NOSIGNAL);
      if (n <= 0) return false;
      off += static_cast<std::size_t>(n);
    }
    return true;
  }

  // Reads one response (Content-Length framed, or until close). status 0 on timeout/close.
  RawResponse read_response(std::chrono::milliseconds timeout = 5000ms, bool head = false) {
    RawResponse r;
    std::size_t end;
    while ((end = buf_.find("\r\n\r\n")) == std::string::npos)
      if (!fill(timeout)) return r;
    const std::string head_text = buf_.substr(0, end);
    buf_.erase(0, end + 4);
    std::size_t pos = head_text.find("\r\n");
    const std::string status_line = head_text.substr(0, pos);
    if (status_line.size() < 12) return r;
    const int status = std::stoi(status_line.substr(9, 3));
    while (pos != std::string::npos) {
      const std::size_t next = head_text.find("\r\n", pos + 2);
      const std::string line =
          head_text.substr(pos + 2, next == std::string::npos ? std::string::npos : next - pos - 2);
      const std::size_t colon = line.find(':');
      if (colon != std::string::npos) {
        std::string name = line.substr(0, colon);
        for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        std::string value = line.substr(colon + 1);
        while (!value.empty() && value.front() == ' ') value.erase(0, 1);
        auto& slot = r.headers[name];
        slot = slot.empty() ? value : slot + "\n" + value;
      }
      pos = next;
    }
    if (status == 100) return read_response(timeout, head);
    std::size_t length = 0;
    if (r.headers.count("content-length")) length = std::stoul(r.headers["content-length"]);
    if (head) length = 0;
    while (buf_.size() < length)
      if (!fill(timeout)) return r;
    r.body = buf_.substr(0, length);
    buf_.erase(0, length);
    r.status = status;
    return r;
  }

  // True when the server closes the connection (EOF or reset) within `timeout`.
  bool closed_within(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
      char tmp[4096];
      const ssize_t n = ::recv(fd_, tmp, sizeof tmp, 0);
      if (n <= 0) return true;
    }
  }

 private:
  bool fill(std::chrono::milliseconds timeout) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(timeout.count())) <= 0) return false;
    char tmp[16384];
    const ssize_t n = ::recv(fd_, tmp, sizeof tmp, 0);
    if (n <= 0) return false;
    buf_.append(tmp, static_cast<std::size_t>(n));
    return true;
  }

  int fd_ = -1;
  std::string buf_;
};

std::string raw_get(const std::string& path, const std::string& extra = "") {
  return "GET " + path + " HTTP/1.1\r\nHost: test\r\n" + extra + "\r\n";
}

std::string post(const std::string& path, const std::string& body, const std::string& extra = "") {
  return "POST " + path +
         " HTTP/1.1\r\nHost: test\r\nContent-Type: text/plain\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n" + extra + "\r\n" + body;
}

// Revisions for a cache of answers in scope "g": `rev` for it and for everything ("*").
RevisionSource revisions_of(const std::atomic<std::int64_t>& rev) {
  return [&rev] {
    return std::make_shared<const Revisions>(Revisions{{"*", rev.load()}, {"g", rev.load()}});
  };
}

// An HTML answer the cache keeps in scope "g".
Response page_in_g(const std::string& body) {
  Response r = Response::html(body);
  r.cache_scope = "g";
  return r;
}

// ---- fixture ----

class HttpServerTest : public ::testing::Test {
 protected:
  HttpServerTest() {
    router_.add(
        "GET", "/hello",
        [](const Request& req, const Params&) {
          auto it = req.query.find("name");
          return Response::text("hello " + (it == req.query.end() ? "world" : it->second));
        },
        "hello");
    router_.add(
        "GET", "/page", [](const Request&, const Params&) { return Response::html("<p>hi</p>"); },
        "page");
    router_.add(
        "POST", "/echo",
        [](const Request& req, const Params&) {
          return Response::text(req.header("content-type") + "|" + req.body);
        },
        "echo");
    router_.add(
        "GET", "/items/{id}",
        [](const Request&, const Params& p) {
          return Response::json("{\"id\": \"" + p.at("id") + "\"}");
        },
        "item");
    router_.add(
        "GET", "/slow",
        [this](const Request&, const Params&) {
          ++slow_started_;
          std::this_thread::sleep_for(std::chrono::milliseconds(slow_ms_));
          return Response::text("slow done");
        },
        "slow");
    router_.add(
        "GET", "/throw",
        [](const Request&, const Params&) -> Response { throw std::runtime_error("boom"); },
        "throw");
    router_.add(
        "GET", "/inject",
        [](const Request&, const Params&) {
          Response r = Response::text("x");
          r.headers.emplace_back("X-Evil", "a\r\nSet-Cookie: pwned=1");
          return r;
        },
        "inject");
  }

  void start(ServerOptions o = {}, ResponseCache* cache = nullptr) {
    server_ = std::make_unique<HttpServer>(router_, metrics_, o, cache);
    ASSERT_TRUE(server_->start("127.0.0.1", 0).ok());
    port_ = server_->port();
    ASSERT_GT(port_, 0);
  }

  // Starts the server over `cache`, readers without credentials waiting at most 50 ms.
  void start_cached(ResponseCache& cache) {
    ServerOptions o;
    o.stale_wait = 50ms;
    start(o, &cache);
  }

  RawResponse request(const std::string& raw) {
    Client c(port_);
    EXPECT_TRUE(c.connected());
    c.send(raw);
    return c.read_response();
  }

  Router router_;
  http::Metrics metrics_;
  std::unique_ptr<HttpServer> server_;
  int port_ = 0;
  int slow_ms_ = 1000;
  std::atomic<int> slow_started_{0};
};

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

// A kept page whose scope changed is made again on the pool. A reader without credentials waits
// at most stale_wait for it and is then served the page kept before; a reader with credentials
// (who may have just written) waits for the new one; once made, the new one is served to all.
TEST_F(HttpServerTest, AReaderWithoutCredentialsIsServedTheKeptPageWhileItIsMadeAgain) {
  std::atomic<std::int64_t> rev{1};
  ResponseCache cache(revisions_of(rev));
  std::mutex mu;
  std::condition_variable cv;
  bool open = true;
  int made = 0;
  router_.add(
      "GET", "/kept",
      [&](const Request&, const Params&) {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return open; });
        return page_in_g("made " + std::to_string(++made));
      },
      "kept");
  start_cached(cache);
  const std::string bearer = "Authorization: Bearer reader\r\n";
  EXPECT_EQ(request(raw_get("/kept")).body, "made 1");
  EXPECT_EQ(request(raw_get("/kept", bearer)).body, "made 2");  // kept apart, with credentials

  rev = 2;
  {
    std::lock_guard<std::mutex> lock(mu);
    open = false;  // every make now waits for the gate
  }
  // Without credentials: the page kept before, while its make waits at the gate.
  EXPECT_EQ(request(raw_get("/kept")).body, "made 1");
  EXPECT_GE(cache.stats().stale, 1u);
  // With credentials: no old page, however long the make takes.
  Client signed_in(port_);
  ASSERT_TRUE(signed_in.send(raw_get("/kept", bearer)));
  EXPECT_EQ(signed_in.read_response(300ms).status, 0) << "answered before its page was made";
  {
    std::lock_guard<std::mutex> lock(mu);
    open = true;
  }
  cv.notify_all();
  const std::string fresh = signed_in.read_response(10s).body;
  EXPECT_TRUE(fresh == "made 3" || fresh == "made 4") << fresh;
  // The make that ran behind the old page kept its answer: the next reader gets it.
  std::string anonymous;
  for (int i = 0; i < 100 && (anonymous.empty() || anonymous == "made 1"); ++i) {
    anonymous = request(raw_get("/kept")).body;
    if (anonymous == "made 1") std::this_thread::sleep_for(50ms);
  }
  EXPECT_TRUE(anonymous == "made 3" || anonymous == "made 4") << anonymous;
  EXPECT_NE(anonymous, fresh);
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(made, 4);
}

// A request served the old page leaves its make running; while it runs, the same connection's
// next out-of-date page is served old at once and starts no make (one client cannot queue a
// make every stale_wait). And a make whose answer is not kept (here a 404: the page went away)
// drops the old page: no reader is served it again.
TEST_F(HttpServerTest, AConnectionLeavesAtMostOneMakeBehindAndAPageThatWentAwayIsNotServedOld) {
  std::atomic<std::int64_t> rev{1};
  ResponseCache cache(revisions_of(rev));
  std::mutex mu;
  std::condition_variable cv;
  bool open = true, gone = false;
  int made = 0;
  for (const std::string path : {"/a", "/b"})
    router_.add(
        "GET", path,
        [&, path](const Request&, const Params&) {
          std::unique_lock<std::mutex> lock(mu);
          cv.wait(lock, [&] { return open; });
          if (gone && path == "/b") {  // slower than stale_wait: its maker is served the old page
            lock.unlock();
            std::this_thread::sleep_for(120ms);
            return Response::text("gone", 404);
          }
          return page_in_g(path + " made " + std::to_string(++made));
        },
        "kept");
  start_cached(cache);
  EXPECT_EQ(request(raw_get("/a")).body, "/a made 1");
  EXPECT_EQ(request(raw_get("/b")).body, "/b made 2");

  rev = 2;
  {
    std::lock_guard<std::mutex> lock(mu);
    open = false;
  }
  Client c(port_);
  ASSERT_TRUE(c.send(raw_get("/a")));
  EXPECT_EQ(c.read_response(5s).body, "/a made 1");  // the old page; /a's make waits at the gate
  // The same connection's next out-of-date page: the old one at once, and no second make.
  ASSERT_TRUE(c.send(raw_get("/b")));
  EXPECT_EQ(c.read_response(5s).body, "/b made 2");
  {
    std::lock_guard<std::mutex> lock(mu);
    open = true;
  }
  cv.notify_all();
  std::string a;
  for (int i = 0; i < 100 && a != "/a made 3"; ++i) {
    a = request(raw_get("/a")).body;
    if (a != "/a made 3") std::this_thread::sleep_for(50ms);
  }
  EXPECT_EQ(a, "/a made 3") << "the make left behind did not keep its page";
  {
    std::lock_guard<std::mutex> lock(mu);
    EXPECT_EQ(made, 3) << "a second make was queued from the same connection";
  }
  EXPECT_EQ(request(raw_get("/b")).body, "/b made 4");  // the next reader makes it

  // The page goes away while its old answer is kept: the reader who makes it is served the old
  // one (the make is slow), and the make's 404 drops it, so the next reader gets the 404.
  rev = 3;
  {
    std::lock_guard<std::mutex> lock(mu);
    open = false;
    gone = true;
  }
  const std::string before = request(raw_get("/b")).body;
  EXPECT_NE(before, "gone");
  {
    std::lock_guard<std::mutex> lock(mu);
    open = true;
  }
  cv.notify_all();
  int status = 0;
  for (int i = 0; i < 100 && status != 404; ++i) {
    const RawResponse r = request(raw_get("/b"));
    status = r.status;
    if (status != 404) std::this_thread::sleep_for(50ms);
  }
  EXPECT_EQ(status, 404) << "the old page was still served after its make answered 404";
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
