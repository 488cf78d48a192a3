// Asio implementation of smtp_server.h: an accept loop and one coroutine per connection on the
// I/O thread; message handlers on an asio::thread_pool.
#include "server/http/smtp_server.h"

#include "server/http/asio_listen.h"

#include <spdlog/spdlog.h>

#include <atomic>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

namespace adj::http {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;
using asio::awaitable;
using asio::redirect_error;
using asio::use_awaitable;

struct SmtpConnection {
  explicit SmtpConnection(tcp::socket s) : stream(std::move(s)) {}
  beast::tcp_stream stream;
};

// Runs the handler on `pool` and completes on the awaiting coroutine's executor.
template <class Token>
auto async_store(asio::thread_pool& pool, const SmtpServer::MessageHandler& h, mail::SmtpMessage m,
                 Token&& token) {
  return asio::async_initiate<Token, void(std::string)>(
      [&pool, &h](auto handler, mail::SmtpMessage msg) {
        asio::post(pool, [&h, handler = std::move(handler), msg = std::move(msg)]() mutable {
          std::string reply;
          try {
            reply = h(std::move(msg));
          } catch (const std::exception& e) {
            spdlog::error("event=smtp_handler_exception what=\"{}\"", e.what());
            reply = mail::SmtpProtocol::reply_temp_failure();
          }
          auto ex = asio::get_associated_executor(handler);
          asio::post(ex, [handler = std::move(handler), r = std::move(reply)]() mutable {
            std::move(handler)(std::move(r));
          });
        });
      },
      token, std::move(m));
}

}  // namespace

struct SmtpServer::Impl {
  Impl(MessageHandler h, RecipientFilter a, SmtpServerOptions o)
      : handler(std::move(h)),
        allow(std::move(a)),
        opts(std::move(o)),
        acceptor(io),
        pool(static_cast<std::size_t>(std::max(1, opts.worker_threads))) {}

  MessageHandler handler;
  RecipientFilter allow;
  SmtpServerOptions opts;
  asio::io_context io;
  tcp::acceptor acceptor;
  asio::thread_pool pool;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> io_work;
  std::thread io_thread;
  std::atomic<int> bound_port{0};
  bool started = false;
  bool stopping = false;  // I/O thread only
  std::mutex mu;
  std::condition_variable cv;
  bool stopped = false;             // under mu
  int active = 0;                   // under mu
  std::set<SmtpConnection*> conns;  // I/O thread only

  awaitable<void> accept_loop();
  awaitable<void> session(std::shared_ptr<SmtpConnection> c);
  void begin_stop();
};

awaitable<void> SmtpServer::Impl::accept_loop() {
  for (;;) {
    beast::error_code ec;
    tcp::socket sock = co_await acceptor.async_accept(redirect_error(use_awaitable, ec));
    if (stopping) co_return;
    if (ec) {
      if (ec == asio::error::operation_aborted) co_return;
      asio::steady_timer pause(io, std::chrono::milliseconds(100));
      co_await pause.async_wait(redirect_error(use_awaitable, ec));
      continue;
    }
    auto conn = std::make_shared<SmtpConnection>(std::move(sock));
    {
      std::lock_guard<std::mutex> lock(mu);
      ++active;
    }
    conns.insert(conn.get());
    asio::co_spawn(io, session(conn), [this, conn](std::exception_ptr e) {
      if (e) spdlog::warn("event=smtp_session_exception");
      conns.erase(conn.get());
      beast::error_code ignored;
      conn->stream.socket().close(ignored);
      std::lock_guard<std::mutex> lock(mu);
      --active;
      cv.notify_all();
    });
  }
}

awaitable<void> SmtpServer::Impl::session(std::shared_ptr<SmtpConnection> c) {
  beast::error_code ec;
  auto write = [&](const std::string& s) -> awaitable<bool> {
    c->stream.expires_after(opts.command_timeout);
    co_await asio::async_write(c->stream, asio::buffer(s), redirect_error(use_awaitable, ec));
    co_return !ec;
  };
  if (conns.size() > static_cast<std::size_t>(opts.max_connections)) {
    co_await write("421 4.3.2 Too many connections, try again later\r\n");
    co_return;
  }
  mail::SmtpProtocol proto(opts.limits, allow);
  if (!co_await write(proto.greeting())) co_return;
  std::vector<char> buf(64 * 1024);
  std::vector<mail::SmtpEvent> events;
  for (;;) {
    c->stream.expires_after(proto.in_data() ? opts.data_timeout : opts.command_timeout);
    const std::size_t n =
        co_await c->stream.async_read_some(asio::buffer(buf), redirect_error(use_awaitable, ec));
    if (ec == beast::error::timeout) {
      co_await write(mail::SmtpProtocol::reply_timeout());
      co_return;
    }
    if (ec || stopping) co_return;
    events.clear();
    proto.receive(std::string_view(buf.data(), n), events);
    std::string out;
    for (auto& e : events) {
      if (e.kind == mail::SmtpEvent::kReply) {
        out += e.reply;
      } else if (e.kind == mail::SmtpEvent::kMessage) {
        out += co_await async_store(pool, handler, std::move(e.message), use_awaitable);
      } else {
        if (!out.empty()) co_await write(out);
        co_return;
      }
    }
    if (!out.empty() && !co_await write(out)) co_return;
  }
}

void SmtpServer::Impl::begin_stop() {
  stopping = true;
  beast::error_code ignored;
  acceptor.close(ignored);
  for (SmtpConnection* c : conns) c->stream.socket().cancel(ignored);
}

SmtpServer::SmtpServer(MessageHandler handler, RecipientFilter allow, SmtpServerOptions options)
    : impl_(std::make_unique<Impl>(std::move(handler), std::move(allow), std::move(options))) {}

SmtpServer::~SmtpServer() { stop(); }

int SmtpServer::port() const { return impl_->bound_port.load(); }

Status SmtpServer::start(const std::string& host, int port) {
  Impl& s = *impl_;
  if (s.started) return Status::FailedPrecondition("the SMTP server is already started");
  Result<int> bound = listen_on(s.acceptor, s.io, host, port);
  if (!bound.ok()) return bound.status();
  s.bound_port = *bound;
  s.started = true;
  s.io_work.emplace(asio::make_work_guard(s.io));
  asio::co_spawn(s.io, s.accept_loop(), [](std::exception_ptr e) {
    if (e) spdlog::error("event=smtp_accept_loop_ended_with_exception");
  });
  s.io_thread = run_io_thread(s.io, "smtp");
  return Status::Ok();
}

void SmtpServer::stop() {
  Impl& s = *impl_;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    if (s.stopped) return;
    s.stopped = true;
  }
  if (s.started) {
    asio::post(s.io, [&s] { s.begin_stop(); });
    {
      std::unique_lock<std::mutex> lock(s.mu);
      if (!s.cv.wait_for(lock, s.opts.shutdown_grace, [&s] { return s.active == 0; }))
        spdlog::warn("event=smtp_shutdown_grace_expired connections={}", s.active);
    }
    s.io_work.reset();
    s.io.stop();
    s.io_thread.join();
  }
  s.pool.join();
}

}  // namespace adj::http
