// The one conversion of a parsed Beast request into the router's Request (http_types.h), used by
// the HTTP listener and by the HTTP fuzz harness (tests/fuzz/fuzz_http.cc), so the harness routes
// exactly what the listener would.
#pragma once

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <string>

#include "server/http/http_types.h"

namespace adj::http {

// Fills `req` from `msg` (its body is moved out) with `remote` as the client's address. False,
// with `req` partly filled, when the target is not an origin-form path or the path holds a NUL.
bool convert_request(boost::beast::http::request<boost::beast::http::string_body>& msg,
                     const std::string& remote, Request& req);

}  // namespace adj::http
