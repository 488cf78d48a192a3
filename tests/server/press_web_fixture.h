// The press tests' fixture (press_web_test.cc, press_gm_web_test.cc): a WebContext over a real
// SQLite file with the bundled britain-1 game, and requests built as a browser or a script sends
// them through the Router. The mail a message causes is read from the notices queue.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/escape.h"
#include "rules/game/scenario.h"
#include "server/app/press_digest.h"
#include "server/web/routes.h"
#include "server/web/web_context.h"
#include "server/web/web_session.h"
#include "storage/store.h"
#include "tests/server/web_pages_fixture.h"
#include "tests/support/temp_dir.h"

namespace adj::web::press_test {

using http::Request;
using http::Response;

inline constexpr const char* kPressGmToken = "gm-token-for-press";

using pages_test::header;  // tests/server/web_pages_fixture.h

class PressWebFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    router_ = std::make_unique<http::Router>();
    WebConfig config;
    config.db_path = dir_.file("press.db");
    config.base_url = pages_test::kBase;
    config.gm_token = kPressGmToken;
    ctx_ = std::make_unique<WebContext>(config, [] { return pages_test::kNow; });
    register_routes(*router_, *ctx_);
    auto doc = bundled_scenario_published("dark-age-britain");
    ASSERT_TRUE(doc.ok());
    auto g = ctx_->admin().create_game(*doc, 42, "gm");
    ASSERT_TRUE(g.ok()) << g.status().to_string();
  }

  Request request(const std::string& method, const std::string& path,
                  const std::string& cookies = "") {
    Request r;
    r.method = method;
    r.path = path;
    const auto qm = path.find('?');
    if (qm != std::string::npos) {
      r.path = path.substr(0, qm);
      const std::string q = path.substr(qm + 1);
      const auto eq = q.find('=');
      r.query[q.substr(0, eq)] = url_decode(q.substr(eq + 1), true);
    }
    r.headers["host"] = "127.0.0.1:8080";
    if (!cookies.empty()) r.headers["cookie"] = cookies;
    r.remote = "127.0.0.1";
    return r;
  }
  Response get(const std::string& path, const std::string& cookies = "") {
    return router_->route(request("GET", path, cookies));
  }
  // A form POST from one of our pages; `to` repeats the field as checkboxes do.
  Response post(const std::string& path, std::vector<std::pair<std::string, std::string>> form,
                const std::string& cookies) {
    form.emplace_back(kCsrfField, pages_test::kCsrf);
    Request r = request("POST", path, cookies + "; " + kCsrfCookie + "=" + pages_test::kCsrf);
    r.headers["origin"] = pages_test::kBase;
    r.headers["content-type"] = "application/x-www-form-urlencoded";
    for (const auto& [k, v] : form)
      r.body += (r.body.empty() ? "" : "&") + url_encode(k) + "=" + url_encode(v);
    return router_->route(r);
  }
  Response api(const std::string& method, const std::string& path, const std::string& bearer,
               const std::string& body = "") {
    Request r = request(method, path);
    if (!bearer.empty()) r.headers["authorization"] = "Bearer " + bearer;
    r.headers["content-type"] = "application/json";
    r.body = body;
    return router_->route(r);
  }
  std::string token(const std::string& player) {
    auto t = ctx_->admin().issue_player_token(pages_test::kGame, player, "gm");
    EXPECT_TRUE(t.ok());
    return t.ok() ? *t : "";
  }
  std::string cookie(const std::string& player) {
    return std::string(kPlayerCookie) + "=" + token(player);
  }
  std::string gm_cookie() const { return std::string(kGmCookie) + "=" + kPressGmToken; }
  void set_press(const std::string& level, bool gm_reads = true) {
    const Response r = api("PUT", "/api/games/britain-1/options/press", kPressGmToken,
                           Json{{"press", level}, {"gm_reads_private", gm_reads}}.dump());
    ASSERT_EQ(r.status, 200) << r.body;
  }
  // The press mail queued so far: each recipient's digest (press_digest.h), as when a deadline
  // (just after kNow) has come.
  std::vector<Notice> press_notices() {
    Store& store = ctx_->app().store();
    PressDigest digest(ctx_->services(), store, [] { return pages_test::kNow; }, &store, {});
    EXPECT_TRUE(digest.run(pages_test::kGame, pages_test::kNow + 1).ok());
    auto all = store.notices(pages_test::kGame);
    EXPECT_TRUE(all.ok());
    std::vector<Notice> out;
    for (auto& n : *all)
      if (n.kind == "press") out.push_back(n);
    return out;
  }

  ::adj::testing::TempDir dir_;
  std::unique_ptr<WebContext> ctx_;
  std::unique_ptr<http::Router> router_;
};

}  // namespace adj::web::press_test
