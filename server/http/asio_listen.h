// Shared start-up steps of the Asio servers (http_server.cc, smtp_server.cc): binding a listening
// socket and running an io_context on its own thread. Included only by those Asio TUs.
#pragma once

#include <spdlog/spdlog.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
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

}  // namespace adj::http
