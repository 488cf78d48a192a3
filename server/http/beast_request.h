// The one conversion of a parsed Beast request into the router's Request (http_types.h), used by
// the HTTP listener and by the HTTP fuzz harness (tests/fuzz/fuzz_http.cc), so the harness routes
// exactly what the listener would; and the client's address the listener reads from a request.
// Implemented in beast_request.cc. Thread-safe (no state but client_of's warned-once flag).
#pragma once

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <string>

#include "base/client_address.h"
#include "server/http/http_types.h"

namespace adj::http {

// Fills `req` from `msg` (its body is moved out) with `remote` as the client's address. False,
// with `req` partly filled, when the target is not an origin-form path or the path holds a NUL.
bool convert_request(boost::beast::http::request<boost::beast::http::string_body>& msg,
                     const std::string& remote, Request& req);

// The client's address for `msg` from the TCP peer `peer` (base/client_address.h: the forwarded
// client when `peer` is a trusted proxy). With no trusted proxy, warns once per process when a
// loopback or private peer forwards: every client then shares its address.
std::string client_of(const std::string& peer,
                      const boost::beast::http::request<boost::beast::http::string_body>& msg,
                      const TrustedProxies& trusted);

}  // namespace adj::http
