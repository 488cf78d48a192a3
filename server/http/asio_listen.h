// What the Asio servers (http_server.cc, smtp_server.cc) share: binding a listening socket,
// running an io_context on its own thread, and ListenerCore, their start/stop skeleton. Included
// only by those Asio TUs.
#pragma once

#include <spdlog/spdlog.h>

#include <atomic>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "rules/core/status.h"
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
