// The HTTP/1.1 listener of `adjutant serve`, on Boost.Beast with C++20 coroutines. This header has
// no Asio or Beast types (they cost ~10 s per translation unit): everything Asio lives in
// http_server.cc.
//
// Model: the server owns `io_threads` io_contexts, each run by one I/O thread; the first accepts
// connections and hands them round robin to the I/O threads, which parse and write messages (a
// connection's coroutine runs on one thread only, so connections need no strand; the connection
// table and caps stay on the accepting thread). Handlers never run on the I/O thread: each parsed
// request is handed to a thread pool of `worker_threads` threads (handlers touch SQLite and may
// resolve a turn for seconds), and the connection resumes on the I/O thread when the handler
// returns.
//
// Per connection: a fresh parser for every message with a header limit (431 beyond) and a body
// limit (413 beyond, decided from Content-Length before the body is read); the whole request
// must arrive within `read_timeout` and a keep-alive connection may stay idle for `idle_timeout`
// (slow or silent clients are disconnected); malformed requests get 400 and the connection is
// closed. "Connection: close" and HTTP/1.0 are honoured. A handler that throws
// ServiceUnavailable (e.g. the database cannot be opened) is answered 503 with Retry-After. Every
// response carries X-Content-Type-Options: nosniff; HTML responses also get a conservative
// Content-Security-Policy (unless the handler set one), Referrer-Policy: no-referrer (link tokens
// live in URLs) and X-Frame-Options: DENY. Each request is counted with Metrics::request(route
// name, status).
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "base/client_address.h"
#include "rules/core/status.h"
#include "server/http/http_types.h"
#include "server/http/metrics.h"
#include "server/http/response_cache.h"

namespace adj::http {

struct ServerOptions {
  std::size_t body_limit = 1 << 20;               // bytes of request body; more -> 413
  std::size_t header_limit = 16384;               // bytes of request line + headers; more -> 431
  std::chrono::milliseconds read_timeout{15000};  // to receive a whole request once it started
  std::chrono::milliseconds idle_timeout{60000};  // a keep-alive connection waiting for the next
  int worker_threads = 3;                         // handler pool size (>= 1)
  // Threads reading and writing connections (>= 1; the first also accepts). Answers from the
  // response cache are written by these threads without the handler pool.
  int io_threads = 2;
  // Open connections at once, in all and from one client address; a connection beyond either
  // cap is answered 503 (Retry-After: retry_after) and closed. A listener out of file
  // descriptors answers 503 the same way (from a spare descriptor) and keeps accepting.
  int max_connections = 4096;
  int max_connections_per_address = 64;
  std::chrono::seconds retry_after{5};
  std::chrono::milliseconds shutdown_grace{30000};  // stop() waits this long for busy requests
  // How long a request without credentials that finds its kept answer out of date waits for the
  // answer to be made again before it is served the old one (ResponseCache::Lookup::stale); the
  // make goes on and keeps the new answer for the next request (or, when it keeps none, drops
  // the old one: ResponseCache::made). A connection leaves at most one make going on behind it:
  // while one is, its next such request starts none and is served the old answer at once. A request
  // with credentials (a signed-in reader, who may have just written) always waits for the new
  // answer.
  std::chrono::milliseconds stale_wait{20};
  // Reverse proxies whose X-Forwarded-For / Forwarded name the client (server/app/
  // client_address.h): Request::remote, the request log and the page cache's key then use the
  // forwarded client; the connection caps count TCP peers. Empty: the headers are never read,
  // and the first request from a loopback or private peer carrying X-Forwarded-For logs one
  // warning (event=untrusted_forwarding) that every client shares the proxy's address.
  TrustedProxies trusted_proxies;
};

class HttpServer {
 public:
  // `router` and `metrics` are borrowed and must outlive the server; router.route() is called
  // from the worker threads concurrently (Router::route is const and thread-safe).
  // `cache` (optional, borrowed, must outlive the server) is consulted on the I/O thread for
  // every GET and HEAD before a handler is run, and fed the answers handlers mark cacheable; a
  // kept answer is served with its ETag (304 when If-None-Match lists it) and in the best
  // encoding the client accepts, without touching the worker pool.
  HttpServer(const Router& router, http::Metrics& metrics, ServerOptions options = {},
             ResponseCache* cache = nullptr);
  // Calls stop().
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds `host` (an IP address or a name such as "localhost") and `port` (0: an ephemeral
  // port, see port()), then starts the I/O thread and the worker pool. Returns an error (nothing
  // running) when the address cannot be resolved or bound. Call once.
  Status start(const std::string& host, int port);
  // The bound port (after a successful start()), else 0.
  int port() const;
  // Graceful stop: stops accepting, closes idle connections, lets requests already read run to
  // completion and their responses be written (up to shutdown_grace), then stops the threads.
  // Idempotent; callable from any thread except the server's own (not from a handler). Blocks.
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace adj::http
