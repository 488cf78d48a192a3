// The HTTP server's kept pages while they are made again (ServerOptions::stale_wait,
// ResponseCache::Lookup::stale): who waits for the new page, who is served the old one, how
// many makes one connection may leave behind, and when the old page is dropped.
#include "tests/server/http_server_fixture.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

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

// Holds the handlers that pass() it while closed; open() lets them all through.
class Gate {
 public:
  void pass() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return open_; });
  }
  void close() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = false;
  }
  void open() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      open_ = true;
    }
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = true;
};

// A kept page whose scope changed is made again on the pool. A reader without credentials waits
// at most stale_wait for it and is then served the page kept before; a reader with credentials
// (who may have just written) waits for the new one; once made, the new one is served to all.
TEST_F(HttpServerTest, AReaderWithoutCredentialsIsServedTheKeptPageWhileItIsMadeAgain) {
  std::atomic<std::int64_t> rev{1};
  ResponseCache cache(revisions_of(rev));
  Gate gate;
  std::atomic<int> made{0};
  router_.add(
      "GET", "/kept",
      [&](const Request&, const Params&) {
        gate.pass();
        return page_in_g("made " + std::to_string(++made));
      },
      "kept");
  start_cached(cache);
  const std::string bearer = "Authorization: Bearer reader\r\n";
  EXPECT_EQ(request(raw_get("/kept")).body, "made 1");
  EXPECT_EQ(request(raw_get("/kept", bearer)).body, "made 2");  // kept apart, with credentials

  rev = 2;
  gate.close();  // every make now waits at the gate
  // Without credentials: the page kept before, while its make waits at the gate.
  EXPECT_EQ(request(raw_get("/kept")).body, "made 1");
  EXPECT_EQ(cache.stats().stale, 1u);
  EXPECT_EQ(cache.stats().misses, 2u) << "the reader served the old page was counted as a miss too";
  // With credentials: no old page, however long the make takes.
  Client signed_in(port_);
  ASSERT_TRUE(signed_in.send(raw_get("/kept", bearer)));
  EXPECT_EQ(signed_in.read_response(300ms).status, 0) << "answered before its page was made";
  gate.open();
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
  EXPECT_EQ(made, 4);
}

// A request served the old page leaves its make running; while it runs, the same connection's
// next out-of-date page is served old at once and starts no make (one client cannot queue a
// make every stale_wait). And a make whose answer is not kept (here a 404: the page went away)
// drops the old page: no reader is served it again.
TEST_F(HttpServerTest, AConnectionLeavesAtMostOneMakeBehindAndAPageThatWentAwayIsNotServedOld) {
  std::atomic<std::int64_t> rev{1};
  ResponseCache cache(revisions_of(rev));
  Gate gate;
  std::atomic<bool> gone{false};
  std::atomic<int> made{0};
  for (const std::string path : {"/a", "/b"})
    router_.add(
        "GET", path,
        [&, path](const Request&, const Params&) {
          gate.pass();
          if (gone && path == "/b") {  // slower than stale_wait: its maker is served the old page
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
  gate.close();
  Client c(port_);
  ASSERT_TRUE(c.send(raw_get("/a")));
  EXPECT_EQ(c.read_response(5s).body, "/a made 1");  // the old page; /a's make waits at the gate
  // The same connection's next out-of-date page: the old one at once, and no second make.
  ASSERT_TRUE(c.send(raw_get("/b")));
  EXPECT_EQ(c.read_response(5s).body, "/b made 2");
  gate.open();
  std::string a;
  for (int i = 0; i < 100 && a != "/a made 3"; ++i) {
    a = request(raw_get("/a")).body;
    if (a != "/a made 3") std::this_thread::sleep_for(50ms);
  }
  EXPECT_EQ(a, "/a made 3") << "the make left behind did not keep its page";
  EXPECT_EQ(made, 3) << "a second make was queued from the same connection";
  EXPECT_EQ(request(raw_get("/b")).body, "/b made 4");  // the next reader makes it

  // The page goes away while its old answer is kept: the reader who makes it is served the old
  // one (the make is slow), and the make's 404 drops it, so the next reader gets the 404.
  rev = 3;
  gate.close();
  gone = true;
  const std::string before = request(raw_get("/b")).body;
  EXPECT_NE(before, "gone");
  gate.open();
  int status = 0;
  for (int i = 0; i < 100 && status != 404; ++i) {
    const RawResponse r = request(raw_get("/b"));
    status = r.status;
    if (status != 404) std::this_thread::sleep_for(50ms);
  }
  EXPECT_EQ(status, 404) << "the old page was still served after its make answered 404";
}

// Keeps what is logged, for a test to search from another thread.
class CaptureSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  bool holds(const std::string& text) {
    std::lock_guard<std::mutex> lock(mutex_);
    return kept_.find(text) != std::string::npos;
  }

 private:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    spdlog::memory_buf_t line;
    formatter_->format(msg, line);
    kept_.append(line.data(), line.size());
  }
  void flush_() override {}
  std::string kept_;
};

// A make whose reader was served the old page goes on behind it; its answer, when it comes, is
// written to the request log as a waited-for one is (a warning for a 5xx).
TEST_F(HttpServerTest, AMakeLeftBehindIsWrittenToTheRequestLog) {
  const auto before = spdlog::default_logger();
  const auto log = std::make_shared<CaptureSink>();
  // Kept for the process: the server's threads may still log through it after the test.
  static std::shared_ptr<spdlog::logger> capture;
  capture = std::make_shared<spdlog::logger>("capture", log);
  spdlog::set_default_logger(capture);
  struct Restore {
    std::shared_ptr<spdlog::logger> logger;
    ~Restore() { spdlog::set_default_logger(logger); }
  } restore{before};

  std::atomic<std::int64_t> rev{1};
  ResponseCache cache(revisions_of(rev));
  Gate gate;
  std::atomic<int> made{0};
  router_.add(
      "GET", "/kept",
      [&](const Request&, const Params&) {
        gate.pass();
        return ++made == 1 ? page_in_g("made 1") : Response::error(503, "down", false);
      },
      "kept");
  start_cached(cache);
  EXPECT_EQ(request(raw_get("/kept")).body, "made 1");
  rev = 2;
  gate.close();
  EXPECT_EQ(request(raw_get("/kept")).body, "made 1");  // the make waits at the gate
  EXPECT_FALSE(log->holds("status=503"));
  gate.open();
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (!log->holds("status=503") && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(5ms);
  EXPECT_TRUE(log->holds("event=request route=\"kept\" status=503"));
  EXPECT_TRUE(log->holds("left_behind=true")) << "the line says its reader got the kept page";
}

}  // namespace
}  // namespace adj::http
