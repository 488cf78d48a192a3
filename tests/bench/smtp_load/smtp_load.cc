// adjutant_smtp_load: an SMTP load client for benchmarks (Boost.Asio, one thread, C++20
// coroutines). Sends COUNT small messages over CONNS connections to HOST:PORT and prints
// "sent=N acked=A seconds=S rate=R" (R: acknowledged messages per second).
//
// Each message has a unique Message-ID <PREFIX-I@load.test> and sender sI@example.org, like
// tests/bench/smtp_load.py, so the same run can be compared across servers. One thread and no
// per-message allocation beyond the message text keep the client's share of the CPU small, so the
// figure measures the server. With --pipeline, MAIL/RCPT/DATA go in one write when the server's
// EHLO offers PIPELINING (RFC 2920); otherwise each command waits for its reply.
//
// Usage: adjutant_smtp_load --port P [--host H] [--count N] [--conns C] [--prefix S] [--to A]
//                           [--pipeline]
// Exit: 0 when every message was acknowledged with 250, 1 otherwise, 2 on bad arguments.
#include <boost/asio/buffer.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>
#include <string_view>

namespace {

namespace asio = boost::asio;
using asio::awaitable;
using asio::use_awaitable;
using tcp = asio::ip::tcp;

struct Options {
  std::string host = "127.0.0.1";
  std::string port;
  int count = 1000;
  int conns = 4;
  std::string prefix = "load";
  std::string to = "orders@pbm.example.net";
  bool pipeline = false;
};

struct Totals {
  int acked = 0;
  int failed_connections = 0;
};

// Reads one (possibly multi-line) reply; returns its code, or 0 on a read error or garbage.
// `text` receives the reply's lines.
awaitable<int> read_reply(tcp::socket& s, std::string& buf, std::string* text = nullptr) {
  boost::system::error_code ec;
  for (;;) {
    const std::size_t n = co_await asio::async_read_until(s, asio::dynamic_buffer(buf), "\r\n",
                                                          asio::redirect_error(use_awaitable, ec));
    if (ec || n < 4) co_return 0;
    const std::string_view line(buf.data(), n);
    if (text) text->append(line);
    const int code = std::atoi(std::string(line.substr(0, 3)).c_str());
    const bool last = line[3] == ' ' || line[3] == '\r';
    buf.erase(0, n);
    if (last) co_return code;
  }
}

awaitable<bool> send(tcp::socket& s, const std::string& data) {
  boost::system::error_code ec;
  co_await asio::async_write(s, asio::buffer(data), asio::redirect_error(use_awaitable, ec));
  co_return !ec;
}

std::string message(const Options& o, int i) {
  const std::string n = std::to_string(i);
  const std::string mid = o.prefix + "-" + n + "@load.test";
  return "From: Player " + n + " <s" + n + "@example.org>\r\nTo: " + o.to + "\r\nSubject: load " +
         n + "\r\nMessage-ID: <" + mid +
         ">\r\nDate: Sat, 21 Nov 2026 10:00:00 +0000\r\n\r\nHello, this is message " + n +
         ".\r\n.\r\n";
}

// One round: writes `data`, then reads one reply per nonzero code; true when each reply carries
// its code. (Plain ints: GCC 12 miscompiles an initializer_list coroutine parameter.)
awaitable<bool> exchange(tcp::socket& s, std::string& buf, const std::string& data, int a,
                         int b = 0, int c = 0) {
  if (!co_await send(s, data)) co_return false;
  for (const int want : {a, b, c}) {
    if (want == 0) break;
    const int got = co_await read_reply(s, buf);
    if (got != want) co_return false;
  }
  co_return true;
}

awaitable<void> connection(const Options& o, tcp::endpoint ep, int k, Totals& t) {
  auto ex = co_await asio::this_coro::executor;
  tcp::socket s(ex);
  boost::system::error_code ec;
  co_await s.async_connect(ep, asio::redirect_error(use_awaitable, ec));
  bool ok = !ec;
  std::string buf;
  std::string ehlo;
  if (ok) {
    s.set_option(tcp::no_delay(true));
    ok = co_await read_reply(s, buf) == 220;
  }
  if (ok) ok = co_await send(s, "EHLO load.test\r\n");
  if (ok) ok = co_await read_reply(s, buf, &ehlo) == 250;
  const bool pipelining = o.pipeline && ehlo.find("PIPELINING") != std::string::npos;
  const std::string rcpt = "RCPT TO:<" + o.to + ">\r\n";
  for (int i = k; ok && i < o.count; i += o.conns) {
    const std::string mail = "MAIL FROM:<s" + std::to_string(i) + "@example.org>\r\n";
    if (pipelining) {
      ok = co_await exchange(s, buf, mail + rcpt + "DATA\r\n", 250, 250, 354);
    } else {
      ok = co_await exchange(s, buf, mail, 250);
      if (ok) ok = co_await exchange(s, buf, rcpt, 250);
      if (ok) ok = co_await exchange(s, buf, "DATA\r\n", 354);
    }
    if (ok) ok = co_await exchange(s, buf, message(o, i), 250);
    if (ok) ++t.acked;
  }
  if (!ok) {
    ++t.failed_connections;
    co_return;
  }
  co_await exchange(s, buf, "QUIT\r\n", 221);
}

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&](std::string& out) {
      if (i + 1 >= argc) return false;
      out = argv[++i];
      return true;
    };
    std::string v;
    if (a == "--pipeline") {
      o.pipeline = true;
    } else if (a == "--host") {
      if (!value(o.host)) return false;
    } else if (a == "--port") {
      if (!value(o.port)) return false;
    } else if (a == "--prefix") {
      if (!value(o.prefix)) return false;
    } else if (a == "--to") {
      if (!value(o.to)) return false;
    } else if (a == "--count" || a == "--conns") {
      if (!value(v)) return false;
      const int n = std::atoi(v.c_str());
      if (n <= 0) return false;
      (a == "--count" ? o.count : o.conns) = n;
    } else {
      return false;
    }
  }
  return !o.port.empty();
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse(argc, argv, o)) {
    std::fprintf(stderr,
                 "usage: adjutant_smtp_load --port P [--host H] [--count N] [--conns C] "
                 "[--prefix S] [--to ADDR] [--pipeline]\n");
    return 2;
  }
  asio::io_context io(1);
  tcp::resolver resolver(io);
  boost::system::error_code ec;
  auto eps = resolver.resolve(o.host, o.port, ec);
  if (ec || eps.empty()) {
    std::fprintf(stderr, "adjutant_smtp_load: cannot resolve %s:%s\n", o.host.c_str(),
                 o.port.c_str());
    return 2;
  }
  Totals t;
  const auto t0 = std::chrono::steady_clock::now();
  for (int k = 0; k < o.conns; ++k)
    asio::co_spawn(io, connection(o, eps.begin()->endpoint(), k, t), asio::detached);
  io.run();
  const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("sent=%d acked=%d seconds=%.3f rate=%.1f\n", o.count, t.acked, dt, t.acked / dt);
  if (t.failed_connections > 0)
    std::fprintf(stderr, "adjutant_smtp_load: %d connection(s) ended early\n",
                 t.failed_connections);
  return t.acked == o.count ? 0 : 1;
}
