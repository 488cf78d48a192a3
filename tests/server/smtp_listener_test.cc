// server/http/smtp_server in process, with plain blocking socket clients: the store thread's
// group commit (messages completed while a batch is being stored go together in the next one),
// max_batch, each reply reaching its own message's client, and a failing handler answered 451.
#include "server/http/smtp_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace adj::http {
namespace {

using namespace std::chrono_literals;

// One SMTP transaction over a fresh connection; returns the reply to the final "." (first line,
// without CRLF), or "" on a socket error.
std::string send_one(int port, const std::string& tag) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return "";
  }
  std::string buf;
  const auto reply = [&]() -> std::string {  // one whole (possibly multi-line) reply
    for (;;) {
      std::size_t start = 0;
      for (std::size_t nl = buf.find("\r\n"); nl != std::string::npos;
           nl = buf.find("\r\n", start)) {
        const std::string line = buf.substr(start, nl - start);
        start = nl + 2;
        if (line.size() < 4 || line[3] == ' ') {
          buf.erase(0, start);
          return line;
        }
      }
      char chunk[4096];
      const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
      if (n <= 0) return "";
      buf.append(chunk, static_cast<std::size_t>(n));
    }
  };
  const auto say = [&](const std::string& s) {
    return ::send(fd, s.data(), s.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(s.size());
  };
  std::string last;
  if (reply().starts_with("220") && say("EHLO t\r\n") && reply().starts_with("250") &&
      say("MAIL FROM:<" + tag + "@example.org>\r\n") && reply().starts_with("250") &&
      say("RCPT TO:<orders@example.net>\r\n") && reply().starts_with("250") && say("DATA\r\n") &&
      reply().starts_with("354") && say("Subject: " + tag + "\r\n\r\nbody\r\n.\r\n"))
    last = reply();
  say("QUIT\r\n");
  ::close(fd);
  return last;
}

// A handler that records each batch's senders and, while `hold` is set, blocks its first call
// until release().
class RecordingHandler {
 public:
  std::vector<std::string> operator()(std::vector<http::SmtpMessage>& batch) {
    std::unique_lock<std::mutex> lock(mu_);
    std::vector<std::string> senders;
    for (const auto& m : batch) senders.push_back(m.mail_from);
    batches_.push_back(senders);
    cv_.notify_all();
    if (batches_.size() == 1 && hold_) cv_.wait(lock, [&] { return !hold_; });
    std::vector<std::string> replies;
    for (const auto& s : senders) replies.push_back(http::SmtpProtocol::reply_stored("for " + s));
    return replies;
  }
  void hold() { hold_ = true; }
  void release() {
    std::lock_guard<std::mutex> lock(mu_);
    hold_ = false;
    cv_.notify_all();
  }
  // Waits until `n` calls were made (up to 10 s).
  bool wait_calls(std::size_t n) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, 10s, [&] { return batches_.size() >= n; });
  }
  std::vector<std::vector<std::string>> batches() {
    std::lock_guard<std::mutex> lock(mu_);
    return batches_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::vector<std::string>> batches_;
  bool hold_ = false;
};

TEST(SmtpListener, MessagesCompletedDuringAStoreShareTheNextBatch) {
  RecordingHandler rec;
  rec.hold();
  SmtpServer server([&](std::vector<http::SmtpMessage>& b) { return rec(b); }, {});
  ASSERT_TRUE(server.start("127.0.0.1", 0).ok());
  const int port = server.port();

  std::vector<std::string> replies(7);
  std::vector<std::thread> clients;
  clients.emplace_back([&] { replies[0] = send_one(port, "first"); });
  ASSERT_TRUE(rec.wait_calls(1));  // the first message is being "stored" (held)
  for (int i = 1; i < 7; ++i)
    clients.emplace_back([&, i] { replies[i] = send_one(port, "c" + std::to_string(i)); });
  std::this_thread::sleep_for(500ms);  // the six complete their DATA and queue up
  rec.release();
  for (auto& t : clients) t.join();

  const auto batches = rec.batches();
  ASSERT_EQ(batches.size(), 2u);
  EXPECT_EQ(batches[0], std::vector<std::string>{"first@example.org"});
  EXPECT_EQ(batches[1].size(), 6u);  // one handler call (one transaction) for all six
  // Each client got the reply for its own message.
  EXPECT_TRUE(replies[0].starts_with("250")) << replies[0];
  EXPECT_NE(replies[0].find("for first@example.org"), std::string::npos) << replies[0];
  for (int i = 1; i < 7; ++i) {
    EXPECT_TRUE(replies[i].starts_with("250")) << replies[i];
    EXPECT_NE(replies[i].find("for c" + std::to_string(i) + "@example.org"), std::string::npos)
        << replies[i];
  }
  server.stop();
}

TEST(SmtpListener, BatchesAreCutAtMaxBatch) {
  RecordingHandler rec;
  rec.hold();
  SmtpServerOptions o;
  o.max_batch = 2;
  SmtpServer server([&](std::vector<http::SmtpMessage>& b) { return rec(b); }, {}, o);
  ASSERT_TRUE(server.start("127.0.0.1", 0).ok());
  std::vector<std::thread> clients;
  std::atomic<int> stored{0};
  clients.emplace_back([&] { stored += send_one(server.port(), "first").starts_with("250"); });
  ASSERT_TRUE(rec.wait_calls(1));
  for (int i = 1; i < 6; ++i)
    clients.emplace_back(
        [&, i] { stored += send_one(server.port(), "c" + std::to_string(i)).starts_with("250"); });
  std::this_thread::sleep_for(500ms);
  rec.release();
  for (auto& t : clients) t.join();
  EXPECT_EQ(stored.load(), 6);
  std::size_t total = 0;
  for (const auto& b : rec.batches()) {
    EXPECT_LE(b.size(), 2u);
    total += b.size();
  }
  EXPECT_EQ(total, 6u);
  EXPECT_GE(rec.batches().size(), 4u);  // 1 + 5 cut into batches of at most 2
}

TEST(SmtpListener, AFailingHandlerIsATemporaryFailureForItsMessages) {
  std::atomic<int> calls{0};
  SmtpServer server(
      [&](std::vector<http::SmtpMessage>& b) -> std::vector<std::string> {
        const int n = ++calls;
        if (n == 1) throw std::runtime_error("disk on fire");
        if (n == 2) return {};  // a wrong number of replies
        return std::vector<std::string>(b.size(), http::SmtpProtocol::reply_stored());
      },
      {});
  ASSERT_TRUE(server.start("127.0.0.1", 0).ok());
  EXPECT_TRUE(send_one(server.port(), "a").starts_with("451"));
  EXPECT_TRUE(send_one(server.port(), "b").starts_with("451"));
  EXPECT_TRUE(send_one(server.port(), "c").starts_with("250"));  // the server goes on
  server.stop();
}

}  // namespace
}  // namespace adj::http
