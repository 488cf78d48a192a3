// What the Asio servers (http_server.cc, smtp_server.cc) share: binding a listening socket,
// running an io_context on its own thread, ListenerCore (their start/stop skeleton, connection
// caps and refusals) and the spare descriptor that lets a listener out of file descriptors still
// refuse politely. Included only by those Asio TUs.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "rules/core/status.h"
#include "server/http/conn_caps.h"
#include "server/http/metrics.h"
#include "server/http/thread_setup.h"

namespace adj::http {

// Resolves host:port, opens, binds (SO_REUSEADDR) and listens on `acceptor`. Returns the bound
// port (useful with port 0). On failure the acceptor is closed and the error names host:port.
inline Result<int> listen_on(boost::asio::ip::tcp::acceptor& acceptor, boost::asio::io_context& io,
                             const std::string& host, int port) {
  namespace asio = boost::asio;
  using tcp = asio::ip::tcp;
  if (port < 0 || port > 65535) return Status::InvalidArgument("bad port " + std::to_string(port));
  boost::system::error_code ec;
  tcp::resolver resolver(io);
  const auto results = resolver.resolve(host, std::to_string(port), ec);
  if (ec || results.empty())
    return Status::InvalidArgument("cannot resolve " + host + ": " + ec.message());
  const tcp::endpoint ep = results.begin()->endpoint();
  acceptor.open(ep.protocol(), ec);
  if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(ep, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    boost::system::error_code ignored;
    acceptor.close(ignored);
    return Status::IOError("cannot listen on " + host + ":" + std::to_string(port) + ": " +
                           ec.message());
  }
  return static_cast<int>(acceptor.local_endpoint(ec).port());
}

// Whether a failed accept means the process (EMFILE) or the system (ENFILE) is out of file
// descriptors, or the kernel out of socket memory: back off and refuse with the spare descriptor.
inline bool is_resource_exhaustion(const boost::system::error_code& ec) {
  if (ec.category() != boost::system::system_category()) return false;
  const int v = ec.value();
  return v == EMFILE || v == ENFILE || v == ENOBUFS || v == ENOMEM;
}

// One file descriptor (on /dev/null) held in reserve. When accept fails for want of descriptors,
// the listener gives it up for a moment to accept one waiting client, write it a refusal and
// close it, then takes it back (so clients are told "busy" instead of hanging in the backlog).
// Thread-safety: none (the listener's I/O thread).
class SpareFd {
 public:
  SpareFd() { take(); }
  ~SpareFd() { give_up(); }
  SpareFd(const SpareFd&) = delete;
  SpareFd& operator=(const SpareFd&) = delete;
  void take() {
    if (fd_ < 0) fd_ = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  }
  void give_up() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  // With the spare given up: accepts one pending connection on `listen_fd` (if one waits), sends
  // it `refusal` without blocking (best effort), closes it. Takes the spare back. True when a
  // connection was refused.
  bool refuse_one(int listen_fd, const std::string& refusal) {
    give_up();
    bool refused = false;
    pollfd p{listen_fd, POLLIN, 0};
    if (::poll(&p, 1, 0) == 1 && (p.revents & POLLIN)) {
      const int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd >= 0) {
        (void)!::send(fd, refusal.data(), refusal.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
        ::shutdown(fd, SHUT_WR);
        char scratch[4096];  // what the client already sent: read, so close does not reset
        while (::recv(fd, scratch, sizeof scratch, MSG_DONTWAIT) > 0) {
        }
        ::close(fd);
        refused = true;
      }
    }
    take();
    return refused;
  }

 private:
  int fd_ = -1;
};

// A thread running `io` until it is stopped, named "<tag>-io"; an exception escaping a handler is
// logged with `tag` and the loop goes on. REQUIRES: `io` outlives the thread (join it before
// destroying).
inline std::thread run_io_thread(boost::asio::io_context& io, const char* tag) {
  return std::thread([&io, tag] {
    name_this_thread(std::string(tag) + "-io");
    for (;;) {
      try {
        io.run();
        return;
      } catch (const std::exception& e) {
        spdlog::error("event={}_io_exception what=\"{}\"", tag, e.what());
      }
    }
  });
}

// The start/stop skeleton of an Asio server: an io_context on its own thread, the listening
// acceptor, the count of live connection coroutines, and a bounded stop that runs once.
// Thread-safety: start() and stop() on the owner's thread; connection_opened/closed on the I/O
// thread; port() anywhere.
class ListenerCore {
 public:
  boost::asio::io_context io{1};
  boost::asio::ip::tcp::acceptor acceptor{io};

  // Binds host:port (0: ephemeral), spawns `accept_loop` on io and starts the thread "<tag>-io".
  Status start(const std::string& host, int port, boost::asio::awaitable<void> accept_loop,
               const char* tag) {
    if (started_)
      return Status::FailedPrecondition(std::string("the ") + tag + " server is already started");
    Result<int> bound = listen_on(acceptor, io, host, port);
    if (!bound.ok()) return bound.status();
    bound_port_ = *bound;
    started_ = true;
    io_work_.emplace(boost::asio::make_work_guard(io));
    boost::asio::co_spawn(io, std::move(accept_loop), [tag](std::exception_ptr e) {
      if (e) spdlog::error("event={}_accept_loop_ended_with_exception", tag);
    });
    io_thread_ = run_io_thread(io, tag);
    return Status::Ok();
  }

  int port() const { return bound_port_.load(); }

  // Refuses a connection turned away by the caps: writes `text`, stops sending, reads (and
  // drops) what the client still sends for up to a second so that closing does not reset the
  // connection before the refusal is read, then closes. At most kMaxRefusing of these run at a
  // time; beyond that the refusal is sent without waiting and the socket closed at once. Counts
  // the refusal in `metrics` (`listener`, `reason`). I/O thread only.
  static constexpr int kMaxRefusing = 64;
  void refuse(boost::asio::ip::tcp::socket sock, std::string text, http::Metrics& metrics,
              const char* listener, const char* reason) {
    metrics.connection_refused(listener, reason);
    spdlog::debug("event=connection_refused listener={} reason={}", listener, reason);
    if (refusing_ >= kMaxRefusing) {
      boost::system::error_code ec;
      sock.non_blocking(true, ec);
      sock.send(boost::asio::buffer(text), 0, ec);
      sock.shutdown(boost::asio::ip::tcp::socket::shutdown_send, ec);
      sock.close(ec);
      return;
    }
    ++refusing_;
    // On the socket's own context (an I/O shard's, or io): its timer and handlers then hold work
    // only on the context that owns them, so no context's teardown touches another's.
    auto ex = sock.get_executor();
    boost::asio::co_spawn(ex, refuse_slowly(std::move(sock), std::move(text)),
                          [this](std::exception_ptr) { --refusing_; });
  }

  // After a failed accept that is resource exhaustion: refuse one waiting client with the spare
  // descriptor (counted as reason "fd_limit"); logs at most once a minute.
  void refuse_without_descriptors(const boost::system::error_code& ec, const std::string& text,
                                  http::Metrics& metrics, const char* listener) {
    const auto now = std::chrono::steady_clock::now();
    if (now - last_exhaustion_log_ > std::chrono::minutes(1)) {
      last_exhaustion_log_ = now;
      spdlog::warn(
          "event=accept_failed listener={} error=\"{}\" action=\"refusing new clients "
          "until descriptors are free\"",
          listener, ec.message());
    }
    if (spare_.refuse_one(acceptor.native_handle(), text))
      metrics.connection_refused(listener, "fd_limit");
  }

  void connection_opened() {
    std::lock_guard<std::mutex> lock(mu_);
    ++active_;
  }
  void connection_closed() {
    std::lock_guard<std::mutex> lock(mu_);
    --active_;
    cv_.notify_all();
  }

  // The first call returns true (later ones false at once). When started: posts `begin_stop`
  // (stop accepting, cancel idle connections) to the I/O thread, waits up to `grace` for every
  // connection to end (logging "event=<tag>_shutdown_grace_expired" if they do not), then stops
  // and joins the I/O thread.
  bool stop(std::function<void()> begin_stop, std::chrono::milliseconds grace, const char* tag) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopped_) return false;
      stopped_ = true;
    }
    if (!started_) return true;
    boost::asio::post(io, std::move(begin_stop));
    {
      std::unique_lock<std::mutex> lock(mu_);
      if (!cv_.wait_for(lock, grace, [this] { return active_ == 0; }))
        spdlog::warn("event={}_shutdown_grace_expired connections={}", tag, active_);
    }
    io_work_.reset();
    io.stop();
    io_thread_.join();
    return true;
  }

  bool started() const { return started_; }

 private:
  static boost::asio::awaitable<void> refuse_slowly(boost::asio::ip::tcp::socket sock,
                                                    std::string text) {
    namespace asio = boost::asio;
    boost::beast::tcp_stream s(std::move(sock));
    boost::system::error_code ec;
    s.expires_after(std::chrono::seconds(1));
    co_await asio::async_write(s, asio::buffer(text),
                               asio::redirect_error(asio::use_awaitable, ec));
    if (!ec) {
      s.socket().shutdown(asio::ip::tcp::socket::shutdown_send, ec);
      s.expires_after(std::chrono::seconds(1));
      char scratch[4096];
      std::size_t total = 0;
      while (!ec && total < (64u << 10))
        total += co_await s.async_read_some(asio::buffer(scratch),
                                            asio::redirect_error(asio::use_awaitable, ec));
    }
    s.close();
  }

  SpareFd spare_;
  // refuse_slowly coroutines running; started on the accept thread, finished on the socket's.
  std::atomic<int> refusing_{0};
  std::chrono::steady_clock::time_point last_exhaustion_log_{};
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> io_work_;
  std::thread io_thread_;
  std::atomic<int> bound_port_{0};
  bool started_ = false;
  std::mutex mu_;
  std::condition_variable cv_;
  int active_ = 0;  // connection coroutines not yet finished
  bool stopped_ = false;
};

}  // namespace adj::http
