// The fixture of the HTTP server's tests (http_server_test.cc, http_server_stale_test.cc): the
// real listener (server/http/http_server.h) on 127.0.0.1 with an ephemeral port, driven by a
// minimal blocking HTTP client on plain POSIX sockets (no Beast here: it costs ~10 s per TU).
// Header-only (the test glob compiles *_test.cc only).
#pragma once

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

namespace adj::http::testing {

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

inline std::string raw_get(const std::string& path, const std::string& extra = "") {
  return "GET " + path + " HTTP/1.1\r\nHost: test\r\n" + extra + "\r\n";
}

inline std::string post(const std::string& path, const std::string& body,
                        const std::string& extra = "") {
  return "POST " + path +
         " HTTP/1.1\r\nHost: test\r\nContent-Type: text/plain\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n" + extra + "\r\n" + body;
}

// Revisions for a cache of answers in scope "g": `rev` for it and for everything ("*").
inline RevisionSource revisions_of(const std::atomic<std::int64_t>& rev) {
  return [&rev] {
    return std::make_shared<const Revisions>(Revisions{{"*", rev.load()}, {"g", rev.load()}});
  };
}

// An HTML answer the cache keeps in scope "g".
inline Response page_in_g(const std::string& body) {
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

}  // namespace adj::http::testing
