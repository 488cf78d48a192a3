// Beast/Asio implementation of http_server.h: one I/O thread running the accept loop and one
// coroutine per connection, handlers on an asio::thread_pool. See the header for the model.
#include "server/http/http_server.h"

#include "server/http/beast_request.h"
#include "server/http/fair_queue.h"
#include "server/http/handler_call.h"
#include "server/http/response_head.h"

#include "base/client_address.h"
#include "base/log_escape.h"
#include "server/http/asio_listen.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

namespace adj::http {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;
using asio::awaitable;
using asio::redirect_error;
using asio::use_awaitable;

// A make a request waits for at most ServerOptions::stale_wait (HttpServer::Impl::handle): the
// handler's completion and the waiting coroutine both run on the connection's executor, so
// neither needs a lock. Shared by the two; the connection keeps the last one that went on alone.
struct PendingMake {
  explicit PendingMake(const beast::tcp_stream::executor_type& ex) : timer(ex) {}
  asio::steady_timer timer;
  std::optional<HandlerResult> result;  // the make's, until the coroutine takes it
  bool done = false;                    // the make has completed
  // Set when the request stopped waiting (it was served the old page): the make's result, when
  // it comes, is then written to the request log with `method`, `path` and `remote`, as the
  // answers of the requests that waited are.
  bool left_behind = false;
  std::chrono::steady_clock::time_point started_at;
  std::string method, path, remote;
};

// One accepted connection. Only touched on the I/O thread.
struct Connection {
  Connection(tcp::socket s, std::string r) : stream(std::move(s)), remote(std::move(r)) {}
  beast::tcp_stream stream;
  const std::string remote;  // the peer's address ("" if unknown), its key in the caps
  bool idle = true;          // waiting for the first bytes of a request (closed at once by stop())
  // The make a request of this connection stopped waiting for, while it goes on: a connection
  // leaves at most one make behind at a time (else one client could queue one every stale_wait).
  std::shared_ptr<const PendingMake> left;
};

bool is_http_parse_error(const beast::error_code& ec) {
  return ec.category() == bhttp::make_error_code(bhttp::error::bad_target).category();
}

// Runs the router on `pool`, the request's client taking its turn in `fair` (fair_queue.h), and
// completes on the awaiting coroutine's executor.
template <class Token>
auto async_handle(asio::thread_pool& pool, FairQueue& fair, const Router& router,
                  std::chrono::seconds retry_after, ResponseCache* cache,
                  ResponseCache::Lookup found, Request req, Token&& token) {
  return asio::async_initiate<Token, void(HandlerResult)>(
      [&pool, &fair, &router, retry_after, cache, revisions = std::move(found.revisions),
       making = std::move(found.making),
       stale = std::move(found.stale)](auto handler, Request request) {
        const std::string client = request.remote;
        auto work = [&router, retry_after, cache, revisions, making, stale,
                     handler = std::move(handler), request = std::move(request)]() mutable {
          HandlerResult r = invoke(router, request, retry_after);
          if (cache) r.kept = cache->keep(request, r.response, r.route, revisions);
          if (cache && !making.empty()) cache->made(making, stale, r.response.status);
          auto ex = asio::get_associated_executor(handler);
          asio::post(ex, [handler = std::move(handler), r = std::move(r)]() mutable {
            std::move(handler)(std::move(r));
          });
        };
        // The completion handler is move-only and FairQueue::Job a std::function: shared.
        auto shared = std::make_shared<decltype(work)>(std::move(work));
        fair.push(client, [shared] { (*shared)(); });
        asio::post(pool, [&fair] { fair.pop()(); });
      },
      token, std::move(req));
}

}  // namespace

struct HttpServer::Impl {
  Impl(const Router& r, http::Metrics& m, ServerOptions o, ResponseCache* c)
      : router(r),
        cache(c),
        metrics(m),
        opts(o),
        pool(static_cast<std::size_t>(std::max(1, o.worker_threads))),
        caps(o.max_connections, o.max_connections_per_address) {}

  const Router& router;
  ResponseCache* const cache;  // may be null
  http::Metrics& metrics;
  const ServerOptions opts;
  // More I/O threads for connections (opts.io_threads - 1 of them; the accept thread serves
  // connections too). Each context is run by one thread, so a connection needs no strand.
  struct IoShard {
    asio::io_context io{1};
    std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work;
    std::thread thread;
  };
  // Declared before `core`, so destroyed after it: a pending accept in core.io holds a socket of
  // a shard's context.
  std::vector<std::unique_ptr<IoShard>> shards;
  ListenerCore core;  // io (kept running while handlers are on the pool), acceptor, stop
  // The order in which the pool's threads take the handlers' work; declared before `pool`, so
  // destroyed after it (a runner left on the pool pops from it).
  FairQueue fair;
  asio::thread_pool pool;

  std::size_t next_shard = 0;  // accept thread only; 0 is core.io

  std::atomic<bool> stopping{false};
  // Accept (core.io) thread only.
  std::map<Connection*, std::weak_ptr<Connection>> connections;
  ConnectionCaps caps;

  awaitable<void> accept_loop();
  // One connection: waits for each request (read_timeout for the first, idle_timeout between
  // keep-alive requests), reads it and answers it, until the client closes, a step says close,
  // or stop(); then shuts the socket down.
  awaitable<void> session(std::shared_ptr<Connection> c);
  // The next request of `c` (its first bytes in `buffer`) under the header and body limits and
  // read_timeout, answering 100-continue; nullopt when the connection is to be closed (after the
  // 431, 413 or 400 it calls for, if any).
  awaitable<std::optional<bhttp::request<bhttp::string_body>>> read_request(
      Connection& c, beast::flat_buffer& buffer);
  // Answers `msg` (its body is moved out): from the cache on this thread, else by the router on
  // the pool. True when the connection stays open for another request.
  awaitable<bool> serve(Connection& c, bhttp::request<bhttp::string_body>& msg);
  // The handler's answer to `req`, run on the pool. When `found` offers an out-of-date answer
  // kept without credentials, the wait is capped at opts.stale_wait: nullopt when it ran out (the
  // make goes on, and keeps its answer). A connection leaves at most one make going on: while it
  // has one, such a request starts none and gets nullopt at once (the claim given back).
  awaitable<std::optional<HandlerResult>> handle(Connection& c, ResponseCache::Lookup found,
                                                 Request req);
  // Writes a handler's answer `resp` (its body is moved out); true when the connection stays
  // open (no write error, keep-alive and not stopping).
  awaitable<bool> write_response(Connection& c, Response& resp, unsigned version, bool head,
                                 bool keep_alive);
  awaitable<void> write_error(Connection& c, int status, const std::string& message,
                              unsigned version, const char* route);
  awaitable<void> lingering_close(Connection& c);
  awaitable<beast::error_code> write_cached(Connection& c, const CachedAnswer& answer,
                                            std::string_view accept_encoding,
                                            std::string_view if_none_match, unsigned version,
                                            bool head, bool keep);
  void begin_stop();
};

// GCC 12, inlining session()'s coroutine frame allocation into accept_loop(), reports a false
// -Wmismatched-new-delete on Asio's recycling frame allocator (operator new and delete are the
// frame's own pair).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

awaitable<void> HttpServer::Impl::accept_loop() {
  for (;;) {
    beast::error_code ec;
    // Round robin over the I/O threads: the socket is made on the chosen thread's context.
    const std::size_t shard = next_shard;
    asio::io_context& io = shard == 0 ? core.io : shards[shard - 1]->io;
    tcp::socket sock = co_await core.acceptor.async_accept(io, redirect_error(use_awaitable, ec));
    if (stopping || !core.acceptor.is_open()) co_return;
    if (ec) {
      // Out of file descriptors and the like: refuse one waiting client with the spare
      // descriptor, then wait a little instead of spinning. Other errors: just wait.
      if (is_resource_exhaustion(ec))
        core.refuse_without_descriptors(
            ec, busy_response("server busy, try again later", opts.retry_after), metrics, "http");
      else
        spdlog::warn("event=accept_error listener=http error=\"{}\"", log_escape(ec.message()));
      asio::steady_timer pause(core.io, std::chrono::milliseconds(50));
      co_await pause.async_wait(redirect_error(use_awaitable, ec));
      continue;
    }
    std::string remote;
    if (const auto ep = sock.remote_endpoint(ec); !ec) remote = ep.address().to_string();
    const ConnectionCaps::Verdict verdict = caps.admit(client_key(remote));
    if (verdict != ConnectionCaps::Verdict::kAdmitted) {
      const std::string message = verdict == ConnectionCaps::Verdict::kPerAddressCap
                                      ? "too many connections from your address, try again later"
                                      : "server busy: too many connections, try again later";
      core.refuse(std::move(sock), busy_response(message, opts.retry_after), metrics, "http",
                  ConnectionCaps::reason(verdict));
      continue;
    }
    sock.set_option(tcp::no_delay(true), ec);
    next_shard = (next_shard + 1) % (shards.size() + 1);
    auto conn = std::make_shared<Connection>(std::move(sock), remote);
    connections.emplace(conn.get(), conn);
    core.connection_opened();
    asio::co_spawn(io, session(conn), [this, conn](std::exception_ptr e) {
      if (e) {
        try {
          std::rethrow_exception(e);
        } catch (const std::exception& ex) {
          spdlog::error("event=session_exception what=\"{}\"", log_escape(ex.what()));
        } catch (...) {
          spdlog::error("event=session_exception");
        }
      }
      // The bookkeeping belongs to the accept thread.
      asio::post(core.io, [this, conn] {
        connections.erase(conn.get());
        caps.release(client_key(conn->remote));
        core.connection_closed();
      });
    });
  }
}

awaitable<void> HttpServer::Impl::write_error(Connection& c, int status, const std::string& message,
                                              unsigned version, const char* route) {
  bhttp::response<bhttp::string_body> res{static_cast<bhttp::status>(status), version};
  res.set(bhttp::field::server, "adjutant");
  res.set(bhttp::field::content_type, "text/plain; charset=utf-8");
  res.set("X-Content-Type-Options", "nosniff");
  res.keep_alive(false);
  res.body() = message + "\n";
  res.prepare_payload();
  metrics.request(route, status);
  beast::error_code ec;
  c.stream.expires_after(opts.read_timeout);
  co_await bhttp::async_write(c.stream, res, redirect_error(use_awaitable, ec));
  if (!ec) co_await lingering_close(c);
}

// After an error response: stop sending, then read and discard what the client still sends for a
// moment, so that closing does not reset the connection before the client reads the response.
awaitable<void> HttpServer::Impl::lingering_close(Connection& c) {
  beast::error_code ec;
  c.stream.socket().shutdown(tcp::socket::shutdown_send, ec);
  c.stream.expires_after(std::chrono::seconds(2));
  std::size_t total = 0;
  char scratch[16384];
  while (!ec && total < (8u << 20)) {
    total +=
        co_await c.stream.async_read_some(asio::buffer(scratch), redirect_error(use_awaitable, ec));
  }
  c.stream.close();
}

awaitable<void> HttpServer::Impl::session(std::shared_ptr<Connection> c) {
  beast::flat_buffer buffer;
  bool first = true;
  for (;;) {
    if (stopping) break;
    // Wait for the first bytes of the next request: read_timeout for a new connection, the idle
    // timeout between keep-alive requests. Then the whole request must arrive in read_timeout.
    if (buffer.size() == 0) {
      beast::error_code ec;
      c->idle = true;
      c->stream.expires_after(first ? opts.read_timeout : opts.idle_timeout);
      const std::size_t n = co_await c->stream.async_read_some(buffer.prepare(4096),
                                                               redirect_error(use_awaitable, ec));
      buffer.commit(n);
      c->idle = false;
      if (ec) break;  // closed by the client, timed out, or stopped
    }
    c->idle = false;
    std::optional<bhttp::request<bhttp::string_body>> msg = co_await read_request(*c, buffer);
    if (!msg) break;
    const bool keep_open = co_await serve(*c, *msg);
    if (!keep_open) break;
    first = false;
  }
  beast::error_code ignored;
  c->stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
  c->stream.close();
}

awaitable<std::optional<bhttp::request<bhttp::string_body>>> HttpServer::Impl::read_request(
    Connection& c, beast::flat_buffer& buffer) {
  beast::error_code ec;
  c.stream.expires_after(opts.read_timeout);
  bhttp::request_parser<bhttp::string_body> parser;
  parser.header_limit(
      static_cast<std::uint32_t>(std::min<std::size_t>(opts.header_limit, 1u << 30)));
  parser.body_limit(opts.body_limit);
  co_await bhttp::async_read_header(c.stream, buffer, parser, redirect_error(use_awaitable, ec));
  if (ec == bhttp::error::header_limit) {
    co_await write_error(c, 431, "request headers too large", 11, "header_too_large");
    co_return std::nullopt;
  }
  if (ec == bhttp::error::body_limit) {  // Content-Length over the limit
    co_await write_error(c, 413, "request body too large", 11, "payload_too_large");
    co_return std::nullopt;
  }
  if (ec == bhttp::error::end_of_stream || ec == asio::error::eof) co_return std::nullopt;
  if (ec) {
    if (is_http_parse_error(ec))
      co_await write_error(c, 400, "malformed request: " + ec.message(), 11, "bad_request");
    co_return std::nullopt;  // timeouts and socket errors: just close
  }
  const unsigned version = parser.get().version();
  if (const auto len = parser.content_length(); len && *len > opts.body_limit) {
    co_await write_error(c, 413, "request body too large", version, "payload_too_large");
    co_return std::nullopt;
  }
  if (!parser.is_done()) {
    if (beast::iequals(parser.get()[bhttp::field::expect], "100-continue")) {
      bhttp::response<bhttp::empty_body> cont{bhttp::status::continue_, version};
      co_await bhttp::async_write(c.stream, cont, redirect_error(use_awaitable, ec));
      if (ec) co_return std::nullopt;
    }
    co_await bhttp::async_read(c.stream, buffer, parser, redirect_error(use_awaitable, ec));
    if (ec == bhttp::error::body_limit) {
      co_await write_error(c, 413, "request body too large", version, "payload_too_large");
      co_return std::nullopt;
    }
    if (ec) {
      if (is_http_parse_error(ec))
        co_await write_error(c, 400, "malformed request: " + ec.message(), version, "bad_request");
      co_return std::nullopt;
    }
  }
  c.stream.expires_never();
  co_return parser.release();
}

awaitable<bool> HttpServer::Impl::serve(Connection& c, bhttp::request<bhttp::string_body>& msg) {
  const unsigned version = msg.version();
  const bool head = msg.method() == bhttp::verb::head;
  const bool keep_alive = msg.keep_alive();
  // The client: the TCP peer, or the address a trusted proxy forwards.
  const std::string remote = client_of(c.remote, msg, opts.trusted_proxies);
  // A kept answer, found from the message as it is (no Request built); a repeated Host, Cookie
  // or Authorization field takes the long way, where they are joined.
  ResponseCache::Lookup found;
  bool looked = false;
  if (cache && (head || msg.method() == bhttp::verb::get) && msg.count(bhttp::field::host) <= 1 &&
      msg.count(bhttp::field::cookie) <= 1 && msg.count(bhttp::field::authorization) <= 1 &&
      !msg.target().empty() && msg.target().front() == '/') {
    looked = true;
    found = cache->find(cache->key(msg.target(), msg[bhttp::field::host], msg[bhttp::field::cookie],
                                   msg[bhttp::field::authorization], remote));
    if (found.answer) {
      const beast::error_code ec = co_await write_cached(
          c, *found.answer, msg[bhttp::field::accept_encoding], msg[bhttp::field::if_none_match],
          version, head, keep_alive && !stopping);
      co_return !(ec || !keep_alive || stopping);
    }
  }
  Request req;
  if (!convert_request(msg, remote, req)) {
    if (!found.making.empty()) cache->made(found.making);
    co_await write_error(c, 400, "malformed request target", version, "bad_request");
    co_return false;
  }
  const auto started_at = std::chrono::steady_clock::now();
  const std::string method = req.method;
  const std::string path = req.path;
  if (cache && !looked) found = cache->find(req);
  if (found.answer) {  // served from the cache, on this thread
    const beast::error_code ec =
        co_await write_cached(c, *found.answer, req.header("accept-encoding"),
                              req.header("if-none-match"), version, head, keep_alive && !stopping);
    co_return !(ec || !keep_alive || stopping);
  }
  const std::string accept_encoding = req.header("accept-encoding");
  const std::string if_none_match = req.header("if-none-match");
  const std::shared_ptr<const CachedAnswer> stale = found.stale;
  std::optional<HandlerResult> made = co_await handle(c, std::move(found), std::move(req));
  if (!made) {  // still being made: the answer kept before, at most one make's time old
    cache->served_stale();
    const beast::error_code ec = co_await write_cached(c, *stale, accept_encoding, if_none_match,
                                                       version, head, keep_alive && !stopping);
    co_return !(ec || !keep_alive || stopping);
  }
  if (stale) cache->waited_for_make();
  HandlerResult& result = *made;
  Response& resp = result.response;
  if (!result.kept) metrics.request(result.route, resp.status);  // else write_cached counts it
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started_at)
          .count();
  log_request(result.route, resp.status, ms, method, path, remote);
  if (result.kept) {  // the first answer of a kept page goes out as the later ones will
    const beast::error_code ec = co_await write_cached(
        c, *result.kept, accept_encoding, if_none_match, version, head, keep_alive && !stopping);
    co_return !(ec || !keep_alive || stopping);
  }
  co_return co_await write_response(c, resp, version, head, keep_alive);
}

awaitable<std::optional<HandlerResult>> HttpServer::Impl::handle(Connection& c,
                                                                 ResponseCache::Lookup found,
                                                                 Request req) {
  if (!found.stale || found.stale->credentials)
    co_return co_await async_handle(pool, fair, router, opts.retry_after, cache, std::move(found),
                                    std::move(req), use_awaitable);
  if (c.left && !c.left->done) {  // this connection's last make goes on: no second one from it
    cache->made(found.making);    // the claim given back: the next reader makes it
    co_return std::nullopt;       // the page kept before, at once
  }
  // Whichever of the completion and the timer comes first decides; a result that comes after the
  // timer is dropped here (kept by the handler's work in the cache all the same).
  auto pending = std::make_shared<PendingMake>(c.stream.get_executor());
  pending->timer.expires_after(opts.stale_wait);
  pending->started_at = std::chrono::steady_clock::now();
  pending->method = req.method;
  pending->path = req.path;
  pending->remote = req.remote;
  async_handle(pool, fair, router, opts.retry_after, cache, std::move(found), std::move(req),
               asio::bind_executor(c.stream.get_executor(), [pending](HandlerResult r) {
                 if (pending->left_behind) {
                   const double ms = std::chrono::duration<double, std::milli>(
                                         std::chrono::steady_clock::now() - pending->started_at)
                                         .count();
                   log_request(r.route, r.response.status, ms, pending->method, pending->path,
                               pending->remote, true);
                 }
                 pending->result = std::move(r);
                 pending->done = true;
                 pending->timer.cancel();
               }));
  beast::error_code ec;
  co_await pending->timer.async_wait(redirect_error(use_awaitable, ec));
  if (!pending->done) {
    pending->left_behind = true;
    c.left = pending;
  }
  co_return std::move(pending->result);
}

awaitable<bool> HttpServer::Impl::write_response(Connection& c, Response& resp, unsigned version,
                                                 bool head, bool keep_alive) {
  const int status = resp.status >= 100 && resp.status <= 999 ? resp.status : 500;
  bhttp::response<bhttp::string_body> res{static_cast<bhttp::status>(status), version};
  set_headers(res, resp.content_type, resp.headers);
  const bool keep = keep_alive && !stopping;
  res.keep_alive(keep);
  if (head) {
    res.content_length(resp.body.size());
  } else {
    res.body() = std::move(resp.body);
    res.prepare_payload();
  }
  beast::error_code ec;
  c.stream.expires_after(opts.read_timeout);  // a client that does not read is dropped
  co_await bhttp::async_write(c.stream, res, redirect_error(use_awaitable, ec));
  co_return !(ec || !keep);
}

#pragma GCC diagnostic pop

awaitable<beast::error_code> HttpServer::Impl::write_cached(
    Connection& c, const CachedAnswer& answer, std::string_view accept_encoding,
    std::string_view if_none_match, unsigned version, bool head, bool keep) {
  const Encoding encoding = choose_encoding(std::string(accept_encoding), answer);
  const std::string& body = answer.body(encoding);
  beast::error_code ec;
  c.stream.expires_after(opts.read_timeout);  // a client that does not read is dropped
  const std::string& made = answer.head[static_cast<int>(encoding)];
  const bool not_modified =
      !if_none_match.empty() && etag_matches(std::string(if_none_match), answer.etag(encoding));
  metrics.request(answer.route, not_modified ? 304 : 200);
  if (!not_modified && !head && keep && version == 11 && !made.empty()) {
    // The common case: the head made when the answer was kept, and the body, as they are.
    const std::array<asio::const_buffer, 2> bufs{asio::buffer(made), asio::buffer(body)};
    co_await asio::async_write(c.stream, bufs, redirect_error(use_awaitable, ec));
    co_return ec;
  }
  bhttp::response<bhttp::span_body<const char>> res{
      not_modified ? bhttp::status::not_modified : bhttp::status::ok, version};
  set_cached_headers(res, answer, encoding);
  res.keep_alive(keep);
  if (not_modified) {
    // no body and no length: a 304 never has one
  } else if (head) {
    res.content_length(body.size());
  } else {
    res.body() = {body.data(), body.size()};
    res.prepare_payload();
  }
  co_await bhttp::async_write(c.stream, res, redirect_error(use_awaitable, ec));
  co_return ec;
}

void HttpServer::Impl::begin_stop() {
  stopping = true;
  beast::error_code ec;
  core.acceptor.close(ec);
  for (const auto& [raw, weak] : connections)
    if (auto c = weak.lock())
      asio::post(c->stream.get_executor(), [c] {
        if (c->idle) c->stream.cancel();
      });
}

HttpServer::HttpServer(const Router& router, http::Metrics& metrics, ServerOptions options,
                       ResponseCache* cache)
    : impl_(std::make_unique<Impl>(router, metrics, options, cache)) {
  if (cache) cache->set_head_writer(cached_head);
}

HttpServer::~HttpServer() { stop(); }

int HttpServer::port() const { return impl_->core.port(); }

Status HttpServer::start(const std::string& host, int port) {
  Impl& s = *impl_;
  if (s.core.started()) return s.core.start(host, port, s.accept_loop(), "http");  // the error
  for (int i = 1; i < std::max(1, s.opts.io_threads); ++i) {
    auto shard = std::make_unique<Impl::IoShard>();
    shard->work.emplace(asio::make_work_guard(shard->io));
    s.shards.push_back(std::move(shard));
  }
  Status st = s.core.start(host, port, s.accept_loop(), "http");
  if (!st.ok()) {
    s.shards.clear();
    return st;
  }
  for (auto& shard : s.shards) shard->thread = run_io_thread(shard->io, "http");
  return st;
}

void HttpServer::stop() {
  Impl& s = *impl_;
  if (!s.core.stop([&s] { s.begin_stop(); }, s.opts.shutdown_grace, "http")) return;
  for (auto& shard : s.shards) {
    shard->work.reset();
    shard->io.stop();
    if (shard->thread.joinable()) shard->thread.join();
  }
  s.pool.join();  // lets any handler still running (a turn in hand) finish
}

}  // namespace adj::http
