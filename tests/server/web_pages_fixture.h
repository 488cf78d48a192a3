// The fixture of the server-rendered page tests that go through the Router without sockets
// (web_pages_test.cc, html_forms_test.cc): a WebContext over a real SQLite file in a temporary
// directory, the bundled Dark Age Britain game, and requests built as a browser sends them (GET,
// form POST with Origin and the CSRF cookie and field, multipart POST), the player and GM cookies.
// Header-only (the test glob compiles *_test.cc only).
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/escape.h"
#include "rules/game/scenario.h"
#include "server/web/routes.h"
#include "server/web/web_context.h"
#include "server/web/web_session.h"
#include "tests/support/cli_runner.h"
#include "tests/support/temp_dir.h"

namespace adj::web::pages_test {

using http::Request;
using http::Response;

constexpr const char* kGame = "britain-1";
constexpr const char* kBase = "http://127.0.0.1:8080";
constexpr const char* kGmToken = "gm-token-for-tests";
constexpr const char* kCsrf = "0123456789abcdef0123456789abcdef";
constexpr UnixTime kNow = 1'700'000'000;
const char* const kPlayers[] = {"WSX", "MRC", "NUM", "EAN", "GWN"};

inline std::string orders_file(int turn, const std::string& player) {
  return ::adj::testing::read_file(std::string(ADJ_SOURCE_DIR) +
                                   "/schemas/scenarios/dark-age-britain/turn" +
                                   std::to_string(turn) + "-" + player + ".txt");
}

inline std::string header(const Response& r, const std::string& name) {
  for (const auto& [k, v] : r.headers)
    if (k == name) return v;
  return "";
}

// Every value of the header `name` in `r`.
inline std::vector<std::string> headers(const Response& r, const std::string& name) {
  std::vector<std::string> out;
  for (const auto& [k, v] : r.headers)
    if (k == name) out.push_back(v);
  return out;
}

// The value a Set-Cookie header gives `name`, or nullopt.
inline std::optional<std::string> set_cookie(const Response& r, const std::string& name) {
  for (const auto& c : headers(r, "Set-Cookie"))
    if (c.rfind(name + "=", 0) == 0)
      return c.substr(name.size() + 1, c.find(';') - name.size() - 1);
  return std::nullopt;
}

class PagesFixture : public ::testing::Test {
 protected:
  void SetUp() override { make_context(kGmToken); }

  void make_context(const std::string& gm_token) {
    router_ = std::make_unique<http::Router>();
    ctx_.reset();
    WebConfig config;
    config.db_path = dir_.file("web.db");
    config.base_url = kBase;
    config.gm_token = gm_token;
    ctx_ = std::make_unique<WebContext>(config, [] { return kNow; });
    register_routes(*router_, *ctx_);
  }

  void create(const Json& scenario) {
    auto g = ctx_->admin().create_game(scenario, 42, "gm");
    ASSERT_TRUE(g.ok()) << g.status().to_string();
  }
  // The document's seed wins; 138 gives turn 1 the order of play the pages' tests were written
  // for (that of the published 1066 before seeds were derived one way).
  void create_britain() {
    auto doc = bundled_scenario_published("dark-age-britain");
    ASSERT_TRUE(doc.ok());
    (*doc)["seed"] = "138";
    create(*doc);
  }
  // Plays turn 1 (every player's worked orders) through the services.
  void play_turn1() {
    for (const char* p : kPlayers) {
      auto out = ctx_->services().submit_orders(kGame, orders_file(1, p), "cli");
      ASSERT_TRUE(out.ok() && !out->ack.refused) << p;
    }
    auto run = ctx_->admin().run_turn(kGame, false, "gm");
    ASSERT_TRUE(run.ok()) << run.status().to_string();
  }

  Request request(const std::string& method, const std::string& path,
                  const std::string& cookies = "") {
    Request r;
    r.method = method;
    r.path = path;
    r.headers["host"] = "127.0.0.1:8080";
    if (!cookies.empty()) r.headers["cookie"] = cookies;
    r.remote = "127.0.0.1";
    return r;
  }
  Response get(const std::string& path, const std::string& cookies = "") {
    return router_->route(request("GET", path, cookies));
  }
  // A form POST as a browser sends it from one of our pages: Origin, the CSRF cookie and field.
  Response post(const std::string& path, std::map<std::string, std::string> form,
                const std::string& cookies = "", bool with_csrf = true) {
    std::string all = cookies;
    if (with_csrf) {
      form[kCsrfField] = kCsrf;
      all += (all.empty() ? "" : "; ") + std::string(kCsrfCookie) + "=" + kCsrf;
    }
    Request r = request("POST", path, all);
    r.headers["origin"] = kBase;
    r.headers["content-type"] = "application/x-www-form-urlencoded";
    for (const auto& [k, v] : form)
      r.body += (r.body.empty() ? "" : "&") + url_encode(k) + "=" + url_encode(v);
    return router_->route(r);
  }
  // The same as multipart/form-data, the order form's encoding (a file field named "file").
  Response post_multipart(const std::string& path, std::map<std::string, std::string> form,
                          const std::string& cookies) {
    form[kCsrfField] = kCsrf;
    Request r = request("POST", path, cookies + "; " + kCsrfCookie + "=" + kCsrf);
    r.headers["origin"] = kBase;
    const std::string b = "----adjboundary7MA4YWxk";
    r.headers["content-type"] = "multipart/form-data; boundary=" + b;
    for (const auto& [k, v] : form) {
      r.body += "--" + b + "\r\nContent-Disposition: form-data; name=\"" + k + "\"";
      if (k == "file") r.body += "; filename=\"orders.txt\"\r\nContent-Type: text/plain";
      r.body += "\r\n\r\n" + v + "\r\n";
    }
    r.body += "--" + b + "--\r\n";
    return router_->route(r);
  }

  std::string player_cookie(const std::string& player, const std::string& game = kGame) {
    auto token = ctx_->admin().issue_player_token(game, player, "gm");
    EXPECT_TRUE(token.ok());
    return std::string(kPlayerCookie) + "=" + *token;
  }
  std::string gm_cookie() const { return std::string(kGmCookie) + "=" + kGmToken; }

  bool has_orders(const std::string& player) {
    auto st = ctx_->admin().submission_status(kGame);
    EXPECT_TRUE(st.ok());
    for (const auto& s : *st)
      if (s.player == player) return s.has_orders;
    return false;
  }

  ::adj::testing::TempDir dir_;
  std::unique_ptr<WebContext> ctx_;
  std::unique_ptr<http::Router> router_;
};

}  // namespace adj::web::pages_test
