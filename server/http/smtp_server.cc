// Asio implementation of smtp_server.h: an accept loop and one coroutine per connection on the
// I/O thread; a store thread that runs the batch handler over a queue of completed messages.
#include "server/http/smtp_server.h"

#include "base/client_address.h"
#include "base/log_escape.h"
#include "server/http/asio_listen.h"
#include "server/http/tls_context.h"

#include <spdlog/spdlog.h>

#include <atomic>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <cassert>
#include <condition_variable>
#include <deque>
#include <functional>
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
  SmtpConnection(tcp::socket s, std::string r)
      : stream(std::move(s)), remote(std::move(r)), read_timer(stream.get_executor()) {}
  beast::tcp_stream stream;
  const std::string remote;  // the peer's client_key (an IPv6 peer's /64), its key in the caps
  // A read's timeout cancels the read (beast's own expiry would close the socket, and the 421
  // could not be written). read_gen tells a stale expiry from the current one.
  asio::steady_timer read_timer;
  unsigned read_gen = 0;
  bool timed_out = false;
  // After STARTTLS: the TLS layer over `stream` and the context it was made with (kept alive
  // while it is used, a reload notwithstanding). Declared last: destroyed first.
  std::shared_ptr<asio::ssl::context> tls_context;
  std::optional<asio::ssl::stream<beast::tcp_stream&>> tls;
};

std::string smtp_refusal(const char* text) { return std::string("421 4.3.2 ") + text + "\r\n"; }

// A completed message waiting for the store thread, and how to deliver its reply.
struct StoreJob {
  http::SmtpMessage message;
  std::function<void(std::string)> done;  // posts the reply to the session's executor
};

// The store thread's queue (group commit: the thread takes everything queued at once).
class StoreQueue {
 public:
  void push(StoreJob job) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      jobs_.push_back(std::move(job));
    }
    cv_.notify_one();
  }
  // Blocks until there are jobs (up to `max` taken, oldest first) or close() was called and
  // nothing is left (then empty).
  std::vector<StoreJob> take(std::size_t max) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return !jobs_.empty() || closed_; });
    std::vector<StoreJob> out;
    while (!jobs_.empty() && out.size() < max) {
      out.push_back(std::move(jobs_.front()));
      jobs_.pop_front();
    }
    return out;
  }
  void close() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      closed_ = true;
    }
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<StoreJob> jobs_;
  bool closed_ = false;
};

// Queues the message for the store thread and completes, on the awaiting coroutine's executor,
// with its final reply.
template <class Token>
auto async_store(StoreQueue& queue, http::SmtpMessage m, Token&& token) {
  return asio::async_initiate<Token, void(std::string)>(
      [&queue](auto handler, http::SmtpMessage msg) {
        using Handler = decltype(handler);
        auto held = std::make_shared<Handler>(std::move(handler));
        queue.push(StoreJob{std::move(msg), [held](std::string reply) {
                              auto ex = asio::get_associated_executor(*held);
                              asio::post(ex, [held, r = std::move(reply)]() mutable {
                                std::move (*held)(std::move(r));
                              });
                            }});
      },
      token, std::move(m));
}

}  // namespace

struct SmtpServer::Impl {
  Impl(BatchHandler h, RecipientFilter a, SmtpServerOptions o)
      : handler(std::move(h)),
        allow(std::move(a)),
        opts(std::move(o)),
        caps(opts.max_connections, opts.max_connections_per_address),
        budget(opts.buffer_budget, opts.buffer_budget_per_address) {
    opts.max_batch = std::max<std::size_t>(1, opts.max_batch);
    metrics = opts.metrics ? opts.metrics : &own_metrics;
    opts.limits.starttls = !opts.tls_cert_file.empty() || !opts.tls_key_file.empty();
    opts.limits.require_tls = opts.require_tls;
  }

  BatchHandler handler;
  RecipientFilter allow;
  SmtpServerOptions opts;
  // Before core: the sessions' coroutine frames (destroyed with core.io) give budget back.
  ConnectionCaps caps;          // I/O thread only
  http::SmtpDataBudget budget;  // I/O thread only
  http::Metrics own_metrics;    // when the options name none
  http::Metrics* metrics = nullptr;
  ListenerCore core;
  StoreQueue store_queue;
  std::thread store_thread;
  bool stopping = false;            // I/O thread only
  std::set<SmtpConnection*> conns;  // I/O thread only
  std::mutex tls_mu;
  std::shared_ptr<asio::ssl::context> tls_context;  // guarded by tls_mu; null: no STARTTLS

  std::shared_ptr<asio::ssl::context> current_tls() {
    std::lock_guard<std::mutex> lock(tls_mu);
    return tls_context;
  }
  Status load_tls();

  awaitable<void> accept_loop();
  awaitable<void> session(std::shared_ptr<SmtpConnection> c);
  // The server side of the TLS handshake on `c`, within idle_timeout; false: failed (logged).
  awaitable<bool> start_tls(SmtpConnection& c);
  void store_loop();
  void begin_stop();
};

void SmtpServer::Impl::store_loop() {
  for (;;) {
    std::vector<StoreJob> jobs = store_queue.take(opts.max_batch);
    if (jobs.empty()) return;  // closed and drained
    std::vector<http::SmtpMessage> batch;
    batch.reserve(jobs.size());
    for (auto& j : jobs) batch.push_back(std::move(j.message));
    std::vector<std::string> replies;
    try {
      replies = handler(batch);
    } catch (const std::exception& e) {
      spdlog::error("event=smtp_handler_exception what=\"{}\"", log_escape(e.what()));
      replies.clear();
    }
    if (replies.size() != jobs.size()) {
      if (!replies.empty())
        spdlog::error("event=smtp_handler_bad_reply_count got={} want={}", replies.size(),
                      jobs.size());
      replies.assign(jobs.size(), http::SmtpProtocol::reply_temp_failure());
    }
    for (std::size_t i = 0; i < jobs.size(); ++i) jobs[i].done(std::move(replies[i]));
  }
}

awaitable<void> SmtpServer::Impl::accept_loop() {
  for (;;) {
    beast::error_code ec;
    tcp::socket sock = co_await core.acceptor.async_accept(redirect_error(use_awaitable, ec));
    if (stopping) co_return;
    if (ec) {
      if (ec == asio::error::operation_aborted) co_return;
      if (is_resource_exhaustion(ec))
        core.refuse_without_descriptors(ec, smtp_refusal("Service busy, try again later"), *metrics,
                                        "smtp");
      else
        spdlog::warn("event=accept_error listener=smtp error=\"{}\"", log_escape(ec.message()));
      asio::steady_timer pause(core.io, std::chrono::milliseconds(50));
      co_await pause.async_wait(redirect_error(use_awaitable, ec));
      continue;
    }
    std::string remote;
    if (const auto ep = sock.remote_endpoint(ec); !ec)
      remote = client_key(ep.address().to_string());
    const ConnectionCaps::Verdict verdict = caps.admit(remote);
    if (verdict != ConnectionCaps::Verdict::kAdmitted) {
      core.refuse(std::move(sock),
                  smtp_refusal(verdict == ConnectionCaps::Verdict::kPerAddressCap
                                   ? "Too many connections from your address, try again later"
                                   : "Too many connections, try again later"),
                  *metrics, "smtp", ConnectionCaps::reason(verdict));
      continue;
    }
    auto conn = std::make_shared<SmtpConnection>(std::move(sock), remote);
    core.connection_opened();
    conns.insert(conn.get());
    asio::co_spawn(core.io, session(conn), [this, conn](std::exception_ptr e) {
      if (e) spdlog::warn("event=smtp_session_exception");
      conns.erase(conn.get());
      caps.release(conn->remote);
      beast::error_code ignored;
      conn->stream.socket().close(ignored);
      core.connection_closed();
    });
  }
}

awaitable<void> SmtpServer::Impl::session(std::shared_ptr<SmtpConnection> c) {
  beast::error_code ec;
  auto write = [&](const std::string& s) -> awaitable<bool> {
    c->stream.expires_after(opts.command_timeout);  // bounds the TLS layer's writes too
    if (c->tls)
      co_await asio::async_write(*c->tls, asio::buffer(s), redirect_error(use_awaitable, ec));
    else
      co_await asio::async_write(c->stream, asio::buffer(s), redirect_error(use_awaitable, ec));
    co_return !ec;
  };
  http::SmtpProtocol proto(opts.limits, allow, &budget);
  std::string peer;  // for the storage budget per client address (MailIngest)
  if (auto ep = c->stream.socket().remote_endpoint(ec); !ec) peer = ep.address().to_string();
  proto.set_client(client_key(peer));  // its share of the data budget (an IPv6 client per /64)
  std::optional<std::chrono::steady_clock::time_point> data_deadline;
  if (!co_await write(proto.greeting())) co_return;
  std::vector<char> buf(16 * 1024);
  std::vector<http::SmtpEvent> events;
  for (;;) {
    c->stream.expires_never();
    c->timed_out = false;
    const unsigned gen = ++c->read_gen;
    auto wait = proto.in_data()          ? opts.data_timeout
                : proto.in_transaction() ? opts.command_timeout
                                         : opts.idle_timeout;
    if (!proto.in_data()) {
      data_deadline.reset();
    } else {
      const auto now = std::chrono::steady_clock::now();
      if (!data_deadline) data_deadline = now + opts.data_total_timeout;
      wait = std::min(wait, std::chrono::duration_cast<std::chrono::milliseconds>(std::max(
                                *data_deadline - now, std::chrono::steady_clock::duration{})));
    }
    c->read_timer.expires_after(wait);
    c->read_timer.async_wait([c, gen](const beast::error_code& e) {
      if (e || c->read_gen != gen) return;
      c->timed_out = true;
      beast::error_code ignored;
      c->stream.socket().cancel(ignored);
    });
    const std::size_t n = c->tls ? co_await c->tls->async_read_some(
                                       asio::buffer(buf), redirect_error(use_awaitable, ec))
                                 : co_await c->stream.async_read_some(
                                       asio::buffer(buf), redirect_error(use_awaitable, ec));
    ++c->read_gen;
    c->read_timer.cancel();
    if (c->timed_out) {
      co_await write(http::SmtpProtocol::reply_timeout());
      co_return;
    }
    if (ec || stopping) co_return;
    events.clear();
    proto.receive(std::string_view(buf.data(), n), events);
    std::string out;
    for (auto& e : events) {
      if (e.kind == http::SmtpEvent::kReply) {
        out += e.reply;
      } else if (e.kind == http::SmtpEvent::kStartTls) {
        // The last event: the protocol dropped whatever followed STARTTLS in `buf`, and the
        // handshake reads afresh from the socket.
        if (!co_await write(out)) co_return;
        out.clear();
        if (!co_await start_tls(*c)) co_return;
        proto.tls_started();
      } else if (e.kind == http::SmtpEvent::kMessage) {
        e.message.peer = peer;
        // The budget the message holds is given back once it is stored (or the session ends).
        struct GiveBack {
          http::SmtpDataBudget& b;
          std::size_t n;
          const std::string& client;
          ~GiveBack() { b.give_back(n, client); }
        } give_back{budget, e.budget_charge, peer};
        out += co_await async_store(store_queue, std::move(e.message), use_awaitable);
      } else {
        if (!out.empty()) co_await write(out);
        co_return;
      }
    }
    if (!out.empty() && !co_await write(out)) co_return;
  }
}

awaitable<bool> SmtpServer::Impl::start_tls(SmtpConnection& c) {
  c.tls_context = current_tls();
  assert(c.tls_context);  // STARTTLS is offered only with a context loaded by start()
  c.tls.emplace(c.stream, *c.tls_context);
  c.stream.expires_after(opts.idle_timeout);  // beast closes the socket when it runs out
  beast::error_code ec;
  co_await c.tls->async_handshake(asio::ssl::stream_base::server,
                                  redirect_error(use_awaitable, ec));
  if (ec) {
    spdlog::info("event=smtp_tls_handshake_failed error=\"{}\"", log_escape(ec.message()));
    co_return false;
  }
  co_return true;
}

Status SmtpServer::Impl::load_tls() {
  auto loaded = load_tls_server_context(opts.tls_cert_file, opts.tls_key_file);
  if (!loaded.ok()) return loaded.status();
  spdlog::info("event=smtp_tls_loaded subject=\"{}\" not_after=\"{}\" sha256={}",
               log_escape(loaded->subject), log_escape(loaded->not_after),
               loaded->sha256_fingerprint);
  std::lock_guard<std::mutex> lock(tls_mu);
  tls_context = std::move(loaded->context);
  return Status::Ok();
}

void SmtpServer::Impl::begin_stop() {
  stopping = true;
  beast::error_code ignored;
  core.acceptor.close(ignored);
  for (SmtpConnection* c : conns) c->stream.socket().cancel(ignored);
}

SmtpServer::SmtpServer(BatchHandler handler, RecipientFilter allow, SmtpServerOptions options)
    : impl_(std::make_unique<Impl>(std::move(handler), std::move(allow), std::move(options))) {}

SmtpServer::~SmtpServer() { stop(); }

int SmtpServer::port() const { return impl_->core.port(); }

Status SmtpServer::start(const std::string& host, int port) {
  Impl& s = *impl_;
  if (s.core.started()) return Status::FailedPrecondition("the SMTP server is already started");
  if (s.opts.limits.starttls) {
    if (Status t = s.load_tls(); !t.ok()) return Status::FailedPrecondition(t.message());
  } else if (s.opts.require_tls) {
    return Status::InvalidArgument(
        "requiring TLS needs a TLS certificate and key (STARTTLS is not offered without them)");
  }
  s.store_thread = std::thread([&s] {
    name_this_thread("smtp-store");
    s.store_loop();
  });
  Status st = s.core.start(host, port, s.accept_loop(), "smtp");
  if (!st.ok()) {
    s.store_queue.close();
    s.store_thread.join();
  }
  return st;
}

Status SmtpServer::reload_tls() {
  if (!impl_->opts.limits.starttls)
    return Status::FailedPrecondition("the SMTP listener has no TLS certificate to reload");
  return impl_->load_tls();
}

void SmtpServer::stop() {
  Impl& s = *impl_;
  if (!s.core.stop([&s] { s.begin_stop(); }, s.opts.shutdown_grace, "smtp")) return;
  s.store_queue.close();  // what is queued is still stored; its replies go nowhere
  if (s.store_thread.joinable()) s.store_thread.join();
}

}  // namespace adj::http
