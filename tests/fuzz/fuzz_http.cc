// libFuzzer harness: HTTP request handling. The input is what a client sends on one connection:
// up to 8 pipelined HTTP/1.1 requests, parsed with Beast's request parser under the listener's
// default limits (server/http/http_server.h ServerOptions), turned into http::Request by the
// listener's own convert_request (server/http/beast_request.h), and routed through every route of
// `adjutant serve` (server/web) over a real SQLite database in a temporary directory holding the
// bundled Dark Age Britain game (britain-1). The seeds carry the GM token below, so GM routes are
// reached too. Invariants: nothing crashes; a handler never throws (the listener would answer 500);
// every status is a valid HTTP status; an /api/ error answer is JSON.
#include <spdlog/spdlog.h>

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "server/http/beast_request.h"
#include "server/http/http_types.h"
#include "server/web/web_context.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/support/temp_dir.h"

namespace {

namespace bhttp = boost::beast::http;
constexpr const char* kGmToken = "fuzz-gm-token";

struct Site {
  adj::testing::TempDir dir;
  adj::web::WebContext ctx;
  adj::http::Router router;

  static adj::web::WebConfig config(const adj::testing::TempDir& d) {
    adj::web::WebConfig c;
    c.db_path = d.file("fuzz.db");
    c.base_url = "http://adj.test";
    c.gm_token = kGmToken;
    return c;
  }
  Site() : ctx(config(dir), [] { return adj::UnixTime{1'800'000'000}; }) {
    adj::web::register_routes(router, ctx);
    adj::http::Request req;
    req.method = "POST";
    req.path = "/api/games";
    req.headers = {{"authorization", std::string("Bearer ") + kGmToken},
                   {"content-type", "application/json"}};
    req.body = R"({"bundled": "dark-age-britain", "seed": 7})";
    FUZZ_CHECK(router.route(req).status == 201);
  }
};

Site& site() {
  static Site* s = [] {
    spdlog::set_level(spdlog::level::off);
    return new Site;  // never destroyed: the fuzzer exits without unwinding
  }();
  return *s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Site& s = site();
  boost::asio::const_buffer in(data, size);
  for (int n = 0; n < 8 && in.size() > 0; ++n) {
    bhttp::request_parser<bhttp::string_body> parser;
    parser.header_limit(16384);
    parser.body_limit(1 << 20);
    parser.eager(true);
    boost::beast::error_code ec;
    while (!parser.is_done()) {
      const std::size_t used = parser.put(in, ec);
      in += used;
      // Malformed (the listener answers 400), over a limit (413/431) or incomplete: done.
      if (ec || used == 0) return 0;
    }
    auto msg = parser.release();
    adj::http::Request req;
    if (!adj::http::convert_request(msg, "", req)) return 0;
    adj::http::Response resp;
    try {
      resp = s.router.route(req);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "handler threw: %s\n", e.what());
      FUZZ_CHECK(false);
    }
    FUZZ_CHECK(resp.status >= 100 && resp.status <= 599);
    if (req.path.rfind("/api/", 0) == 0 && resp.status >= 400)
      FUZZ_CHECK(resp.content_type.rfind("application/json", 0) == 0);
  }
  return 0;
}
