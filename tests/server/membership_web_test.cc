// Membership on the web pages and the JSON API (server/web/membership_routes.cc) through the
// Router: a real SQLite file, requests built as a browser or a script sends them (cookies,
// Origin, CSRF field, bearer tokens), the bundled Dark Age Britain game.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "base/escape.h"
#include "rules/game/scenario.h"
#include "server/web/routes.h"
#include "server/web/web_context.h"
#include "server/web/web_session.h"
#include "storage/sqlite/sqlite_store.h"
#include "storage/store.h"
#include "tests/server/web_pages_fixture.h"
#include "tests/server/web_test_util.h"
#include "tests/support/temp_dir.h"

namespace adj::web {
namespace {

using http::Request;
using http::Response;

using pages_test::header;  // tests/server/web_pages_fixture.h

bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

class MembershipWeb : public ::testing::Test {
 protected:
  void SetUp() override {
    WebConfig config;
    config.db_path = dir_.file("web.db");
    config.base_url = pages_test::kBase;
    config.gm_token = pages_test::kGmToken;
    ctx_ = std::make_unique<WebContext>(config, [] { return pages_test::kNow; });
    ctx_->app().set_on_secrets_issued([this](const std::string& game,
                                             const std::map<std::string, std::string>& secrets,
                                             bool with_link) {
      for (const auto& [code, secret] : secrets) mailed_[code] = secret;
      EXPECT_EQ(game, pages_test::kGame);
      EXPECT_TRUE(with_link) << "a new player's mail carries a sign-in link";
    });
    register_routes(router_, *ctx_);
  }

  Request request(const std::string& method, const std::string& path,
                  const std::string& cookies = "") {
    Request r;
    r.method = method;
    r.path = path.substr(0, path.find('?'));
    if (const std::size_t at = path.find('?'); at != std::string::npos) {
      const std::string query = path.substr(at + 1);
      const std::size_t eq = query.find('=');
      r.query[query.substr(0, eq)] = eq == std::string::npos ? "" : query.substr(eq + 1);
    }
    r.headers["host"] = "127.0.0.1:8080";
    if (!cookies.empty()) r.headers["cookie"] = cookies;
    r.remote = "127.0.0.1";
    return r;
  }
  Response get(const std::string& path, const std::string& cookies = "") {
    return router_.route(request("GET", path, cookies));
  }
  Response post(const std::string& path, std::map<std::string, std::string> form,
                const std::string& cookies = "") {
    form[kCsrfField] = pages_test::kCsrf;
    std::string all =
        cookies + (cookies.empty() ? "" : "; ") + kCsrfCookie + "=" + pages_test::kCsrf;
    Request r = request("POST", path, all);
    r.headers["origin"] = pages_test::kBase;
    r.headers["content-type"] = "application/x-www-form-urlencoded";
    for (const auto& [k, v] : form)
      r.body += (r.body.empty() ? "" : "&") + url_encode(k) + "=" + url_encode(v);
    return router_.route(r);
  }
  std::string gm_cookie() const { return std::string(kGmCookie) + "=" + pages_test::kGmToken; }
  // A JSON API call with an optional bearer token.
  Response api(const std::string& method, const std::string& path, const std::string& body,
               const std::string& bearer = "") {
    Request r = request(method, path);
    if (!bearer.empty()) r.headers["authorization"] = "Bearer " + bearer;
    r.headers["content-type"] = "application/json";
    r.body = body;
    return router_.route(r);
  }
  Json json(const Response& r) { return Json::parse(r.body, nullptr, false); }

  // britain-1 open for sign-ups, created through the API as a GM would.
  void create_signup_game() {
    const Response r =
        api("POST", "/api/games", R"({"bundled": "dark-age-britain", "seed": 7, "signup": true})",
            pages_test::kGmToken);
    ASSERT_EQ(r.status, 201) << r.body;
    EXPECT_EQ(json(r)["status"], "signup");
    EXPECT_FALSE(json(r).contains("secrets")) << "secrets come at the start";
    EXPECT_TRUE(mailed_.empty());
  }
  std::string status() { return ctx_->app().store().game_summary(pages_test::kGame)->status; }
  // Confirms the request whose code was mailed (notice "confirm") to `address`, through the API.
  Response confirm(const std::string& address) {
    auto ns = ctx_->app().store().notices(pages_test::kGame);
    EXPECT_TRUE(ns.ok());
    std::string code;
    std::smatch m;
    if (ns.ok())
      for (const auto& n : *ns)
        if (n.kind == "confirm" && n.addresses == std::vector<std::string>{address} &&
            std::regex_search(n.text, m, std::regex("CONFIRM ([0-9a-f]{32})")))
          code = m[1].str();
    EXPECT_FALSE(code.empty()) << "no confirmation mailed to " << address;
    return api("POST", "/api/games/britain-1/confirm", R"({"code": ")" + code + R"("})");
  }
  std::vector<AuditEntry> log(const std::string& action) {
    std::vector<AuditEntry> out;
    const auto all = ctx_->admin().audit_log(pages_test::kGame);
    for (const auto& e : *all)
      if (e.action == action) out.push_back(e);
    return out;
  }

  ::adj::testing::TempDir dir_;
  std::unique_ptr<WebContext> ctx_;
  http::Router router_;
  std::map<std::string, std::string> mailed_;  // code -> secret handed to the mail hook
};

TEST_F(MembershipWeb, JoinPageSignsUpKeepsInputOnErrorsAndRedirectsAfterPost) {
  create_signup_game();
  EXPECT_TRUE(has(get("/games/britain-1").body, "href=\"/games/britain-1/join\""));
  EXPECT_EQ(get("/games/nowhere/join").status, 404);
  const Response form = get("/games/britain-1/join");
  ASSERT_EQ(form.status, 200);
  EXPECT_TRUE(has(form.body, "id=\"join-form\""));
  EXPECT_TRUE(has(form.body, "name=\"turn\" value=\"1\""));
  EXPECT_TRUE(has(form.body, "East Anglia"));

  const Response bad =
      post("/games/britain-1/join",
           {{"email", "ann@example.net"}, {"preferences", "WSX Narnia"}, {"turn", "1"}});
  EXPECT_EQ(bad.status, 400);
  EXPECT_TRUE(has(bad.body, "&quot;Narnia&quot; is not a kingdom")) << bad.body;
  EXPECT_TRUE(has(bad.body, "value=\"ann@example.net\"")) << "the address is kept";
  EXPECT_TRUE(has(bad.body, "value=\"WSX Narnia\"")) << "the preferences are kept";

  const Response ok =
      post("/games/britain-1/join",
           {{"email", "ann@example.net"}, {"preferences", "wsx, Mercia"}, {"turn", "1"}});
  ASSERT_EQ(ok.status, 303) << ok.body;
  EXPECT_EQ(header(ok, "Location"), "/games/britain-1/join?done=confirm");
  EXPECT_TRUE(has(get(header(ok, "Location")).body, "a confirmation has been mailed"));
  EXPECT_EQ(
      json(api("GET", "/api/games/britain-1/signups", "", pages_test::kGmToken))["signups"].size(),
      0u)
      << "nothing recorded before the confirmation";
  const Response confirmed = confirm("ann@example.net");
  ASSERT_EQ(confirmed.status, 200) << confirmed.body;
  EXPECT_TRUE(has(confirmed.body, "sign-up 1 of 5 places"));

  // Asking again answers the same (it does not tell that the address is on the list); the
  // confirmation then says so.
  const Response dup = post("/games/britain-1/join", {{"email", "ANN@example.net"}, {"turn", "1"}});
  EXPECT_EQ(dup.status, 303);
  const Response dup_confirmed = confirm("ANN@example.net");
  EXPECT_EQ(dup_confirmed.status, 409);
  EXPECT_TRUE(has(dup_confirmed.body, "already on the sign-up list"));
  const Response inject =
      post("/games/britain-1/join", {{"email", "x@example.net\r\nBcc: y@evil.example"}});
  EXPECT_EQ(inject.status, 400);
  const Response stale = post("/games/britain-1/join", {{"email", "z@example.net"}, {"turn", "0"}});
  EXPECT_EQ(stale.status, 409);
  EXPECT_TRUE(has(stale.body, "already ran"));

  const Json list = json(api("GET", "/api/games/britain-1/signups", "", pages_test::kGmToken));
  ASSERT_EQ(list["signups"].size(), 1u) << list.dump();
  EXPECT_EQ(list["signups"][0]["preferences"], Json({"WSX", "MRC"}));
  EXPECT_EQ(list["signups"][0]["channel"], "web");
}

// The join page's example preferences are the game's own kingdom codes.
TEST_F(MembershipWeb, JoinPageExampleIsTheGamesOwnKingdoms) {
  create_signup_game();
  EXPECT_TRUE(has(get("/games/britain-1/join").body, "placeholder=\"e.g. EAN GWN\""));
  const Response r =
      api("POST", "/api/games", R"({"bundled": "crt-river-crossing", "seed": 7, "signup": true})",
          pages_test::kGmToken);
  ASSERT_EQ(r.status, 201) << r.body;
  const Response form = get("/games/river-crossing-1/join");
  ASSERT_EQ(form.status, 200);
  EXPECT_TRUE(has(form.body, "placeholder=\"e.g. BLU RED\"")) << form.body;
  EXPECT_FALSE(has(form.body, "WSX")) << form.body;
  // The API's answer to a malformed body shows the shape without another game's codes.
  const Response bad = api("POST", "/api/games/river-crossing-1/signups", "[1]");
  EXPECT_EQ(bad.status, 400);
  EXPECT_TRUE(has(bad.body, "preferences")) << bad.body;
  EXPECT_FALSE(has(bad.body, "WSX")) << bad.body;
}

TEST_F(MembershipWeb, GmDeskApprovesInvitesStartsAndReplaces) {
  create_signup_game();
  for (const char* who : {"ann@example.net", "bob@example.net", "cy@example.net"}) {
    ASSERT_EQ(api("POST", "/api/games/britain-1/signups",
                  std::string(R"({"email": ")") + who + R"(", "preferences": ["GWN"]})")
                  .status,
              202);
    ASSERT_EQ(confirm(who).status, 200);
  }
  const Response desk = get("/gm/games/britain-1", gm_cookie());
  ASSERT_EQ(desk.status, 200);
  for (const char* id :
       {"id=\"signups\"", "id=\"invite-form\"", "id=\"start-form\"", "id=\"players\"",
        "id=\"replace-form-WSX\"", "action=\"/gm/games/britain-1/signups/1/approve\""})
    EXPECT_TRUE(has(desk.body, id)) << id;
  EXPECT_FALSE(has(desk.body, "id=\"signup-form\"")) << "already open";
  // During sign-up the list comes first (attendance, with the standby list, after it), and
  // nothing the game cannot use yet is offered.
  EXPECT_LT(desk.body.find("id=\"signups\""), desk.body.find("id=\"players\""));
  EXPECT_LT(desk.body.find("id=\"signups\""), desk.body.find("id=\"attendance\""));
  for (const char* absent :
       {"id=\"run-form\"", "id=\"preview-form\"", "Player credentials", "/reset\""})
    EXPECT_FALSE(has(desk.body, absent)) << absent;

  // Without the GM: refused, nothing changed.
  EXPECT_EQ(post("/gm/games/britain-1/signups/2/approve", {{"turn", "1"}}).status, 403);
  const Response approved =
      post("/gm/games/britain-1/signups/2/approve", {{"turn", "1"}}, gm_cookie());
  ASSERT_EQ(approved.status, 303);
  EXPECT_TRUE(has(header(approved, "Location"), "/gm/games/britain-1?done=approved"));
  ASSERT_EQ(post("/gm/games/britain-1/signups/3/approve", {{"turn", "1"}}, gm_cookie()).status,
            303);
  ASSERT_EQ(
      post("/gm/games/britain-1/invite", {{"email", "dee@example.net"}, {"turn", "1"}}, gm_cookie())
          .status,
      303);
  EXPECT_EQ(log("invite").size(), 1u);

  const Response started = post("/gm/games/britain-1/start", {{"turn", "1"}}, gm_cookie());
  ASSERT_EQ(started.status, 303) << started.body;
  EXPECT_EQ(status(), "open");
  // Only the approved bob and cy play; one of them has GWN; each secret went to the mail hook.
  ASSERT_EQ(mailed_.size(), 2u);
  EXPECT_EQ(log("assign").size(), 2u);
  EXPECT_TRUE(mailed_.count("GWN"));
  const Response again = post("/gm/games/britain-1/start", {{"turn", "1"}}, gm_cookie());
  EXPECT_EQ(again.status, 409);

  const Response after = get("/gm/games/britain-1", gm_cookie());
  EXPECT_TRUE(has(after.body, "(vacant)"));
  // Started: the turn's forms come first again, and sign-ups cannot be opened any more.
  EXPECT_LT(after.body.find("id=\"players\""), after.body.find("id=\"signups\""));
  for (const char* present : {"id=\"run-form\"", "id=\"attendance\"", "Player credentials"})
    EXPECT_TRUE(has(after.body, present)) << present;
  EXPECT_FALSE(has(after.body, "id=\"signup-form\""));
  EXPECT_FALSE(has(after.body, "Open for sign-ups"));
  EXPECT_TRUE(has(after.body, "ann@example.net")) << "left out, shown in the list";

  // Replace WSX (vacant) with dee: asked first, with what it does; nothing changes then.
  mailed_.clear();
  const Response ask =
      post("/gm/games/britain-1/players/WSX/replace",
           {{"email", "dee@example.net"}, {"name", "Dee"}, {"turn", "1"}}, gm_cookie());
  ASSERT_EQ(ask.status, 200) << ask.body;
  EXPECT_TRUE(has(ask.body, "id=\"confirm-replace-form\""));
  EXPECT_TRUE(has(ask.body, "secret and sign-in links stop working"));
  EXPECT_TRUE(has(ask.body, "<input type=\"hidden\" name=\"email\" value=\"dee@example.net\">"));
  EXPECT_EQ(log("replace").size(), 0u);
  EXPECT_TRUE(mailed_.empty());
  const Response replaced =
      post("/gm/games/britain-1/players/WSX/replace",
           {{"email", "dee@example.net"}, {"name", "Dee"}, {"turn", "1"}, {"confirm", "1"}},
           gm_cookie());
  ASSERT_EQ(replaced.status, 303) << replaced.body;
  ASSERT_EQ(mailed_.size(), 1u);
  EXPECT_TRUE(ctx_->services().authenticate_player(pages_test::kGame, "WSX", mailed_["WSX"]).ok());
  EXPECT_EQ(log("replace").size(), 1u);
  EXPECT_TRUE(has(get("/gm/games/britain-1", gm_cookie()).body, "dee@example.net"));
  // The GM changes an address from the desk: audited as the GM.
  const Response moved = post("/gm/games/britain-1/players/WSX/address",
                              {{"email", "dee@new.example"}, {"turn", "1"}}, gm_cookie());
  ASSERT_EQ(moved.status, 303) << moved.body;
  // Back to the stretch of the GM page that holds the row (a big game lists 200 at a time).
  EXPECT_EQ(header(moved, "Location"), "/gm/games/britain-1?done=address&player=WSX#players");
  ASSERT_EQ(log("address").size(), 1u);
  EXPECT_EQ(log("address")[0].actor, "gm");
  EXPECT_TRUE(has(get("/gm/games/britain-1?done=address", gm_cookie()).body, "dee@new.example"));
  const Response stale = post("/gm/games/britain-1/players/WSX/replace",
                              {{"email", "eve@example.net"}, {"turn", "3"}}, gm_cookie());
  EXPECT_EQ(stale.status, 409);
  EXPECT_TRUE(has(stale.body, "Turn 3 already ran"));
  EXPECT_EQ(log("replace").size(), 1u);
}

TEST_F(MembershipWeb, OpenSignupsFromTheDeskAndCreateForm) {
  auto doc = bundled_scenario_published("dark-age-britain");
  ASSERT_TRUE(doc.ok());
  ASSERT_TRUE(ctx_->admin().create_game(*doc, 42, "gm").ok());
  const Response desk = get("/gm/games/britain-1", gm_cookie());
  EXPECT_TRUE(has(desk.body, "id=\"signup-form\""));
  const Response opened = post("/gm/games/britain-1/open-signups", {{"turn", "1"}}, gm_cookie());
  ASSERT_EQ(opened.status, 303);
  EXPECT_EQ(status(), "signup");
  EXPECT_EQ(log("signup-open").size(), 1u);

  const Response index = get("/gm", gm_cookie());
  EXPECT_TRUE(has(index.body, "name=\"signup\""));
}

TEST_F(MembershipWeb, ApiJoinStartReplaceAndAddresses) {
  create_signup_game();
  Response r = api("POST", "/api/games/britain-1/signups",
                   R"({"email": "ann@example.net", "preferences": ["EAN", "Wessex"]})");
  ASSERT_EQ(r.status, 202) << r.body;
  EXPECT_EQ(json(r)["confirmation"], "mailed");
  r = confirm("ann@example.net");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json(r)["kind"], "signup");
  EXPECT_TRUE(has(json(r)["message"].get<std::string>(), "sign-up 1 of 5 places"));
  EXPECT_EQ(json(api("GET", "/api/games/britain-1/signups", "",
                     pages_test::kGmToken))["signups"][0]["preferences"],
            Json({"EAN", "WSX"}));
  r = api("POST", "/api/games/britain-1/signups",
          R"({"email": "bob@example.net", "preferences": ["XYZ"]})");
  EXPECT_EQ(r.status, 400);
  EXPECT_TRUE(has(json(r)["error"].get<std::string>(), "\"XYZ\" is not a kingdom"));
  r = api("POST", "/api/games/britain-1/signups", R"({"email": ["not", "a string"]})");
  EXPECT_EQ(r.status, 400);
  EXPECT_TRUE(has(json(r)["error"].get<std::string>(), "\"email\" must be a string"));
  EXPECT_EQ(api("POST", "/api/games/nope/signups", R"({"email": "a@example.net"})").status, 404);
  ASSERT_EQ(api("POST", "/api/games/britain-1/signups", R"({"email": "bob@example.net"})").status,
            202);
  ASSERT_EQ(confirm("bob@example.net").status, 200);
  // GM routes need the GM.
  EXPECT_EQ(api("GET", "/api/games/britain-1/signups", "").status, 401);
  EXPECT_EQ(api("POST", "/api/games/britain-1/start", "").status, 401);
  EXPECT_EQ(status(), "signup");
  EXPECT_EQ(api("POST", "/api/games/britain-1/invite", R"({"email": "bad"})", pages_test::kGmToken)
                .status,
            400);

  r = api("POST", "/api/games/britain-1/start", "", pages_test::kGmToken);
  ASSERT_EQ(r.status, 200) << r.body;
  const Json started = json(r);
  ASSERT_EQ(started["assigned"].size(), 2u);
  EXPECT_EQ(started["vacant"].size(), 3u);
  EXPECT_EQ(r.body.find(mailed_.begin()->second), std::string::npos) << "no secret answered";
  std::string ann_code;
  for (const auto& a : started["assigned"])
    if (a["email"] == "ann@example.net") ann_code = a["player"];
  ASSERT_FALSE(ann_code.empty());
  EXPECT_TRUE(ann_code == "EAN") << "ann's first choice was free";
  EXPECT_EQ(api("POST", "/api/games/britain-1/signups", R"({"email": "late@example.net"})").status,
            409);

  // The player changes their own address with their link token.
  auto token = ctx_->services().issue_link_token(pages_test::kGame, ann_code);
  ASSERT_TRUE(token.ok());
  r = api("PUT", "/api/games/britain-1/players/" + ann_code + "/address",
          R"({"email": "ann@new.example"})", *token);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(log("address").size(), 1u);
  EXPECT_EQ(log("address")[0].actor, "player:" + ann_code);
  // Not someone else's address; not without a token.
  const std::string other = ann_code == "EAN" ? "GWN" : "EAN";
  EXPECT_EQ(api("PUT", "/api/games/britain-1/players/" + other + "/address",
                R"({"email": "x@new.example"})", *token)
                .status,
            403);
  EXPECT_EQ(api("PUT", "/api/games/britain-1/players/" + other + "/address",
                R"({"email": "x@new.example"})")
                .status,
            401);
  // The GM may change any address.
  EXPECT_EQ(api("PUT", "/api/games/britain-1/players/NUM/address",
                R"({"email": "num@new.example"})", pages_test::kGmToken)
                .status,
            200);
  EXPECT_EQ(log("address").back().actor, "gm");

  // The GM replaces ann: her token stops working, the new player gets a secret by mail.
  mailed_.clear();
  r = api("POST", "/api/games/britain-1/players/" + ann_code + "/replace",
          R"({"email": "zed@example.net", "name": "Zed"})", pages_test::kGmToken);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(mailed_.size(), 1u);
  EXPECT_EQ(ctx_->services().token_owner(*token).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(api("PUT", "/api/games/britain-1/players/" + ann_code + "/address",
                R"({"email": "ann@again.example"})", *token)
                .status,
            401);
  EXPECT_EQ(api("POST", "/api/games/britain-1/players/QQQ/replace",
                R"({"email": "zed@example.net"})", pages_test::kGmToken)
                .status,
            404);
}

TEST_F(MembershipWeb, PlayerChangesTheirAddressOnTheirPage) {
  auto doc = bundled_scenario_published("dark-age-britain");
  ASSERT_TRUE(ctx_->admin().create_game(*doc, 42, "gm").ok());
  auto token = ctx_->admin().issue_player_token(pages_test::kGame, "MRC", "gm");
  ASSERT_TRUE(token.ok());
  const std::string cookie = std::string(kPlayerCookie) + "=" + *token;
  const Response me = get("/games/britain-1/me", cookie);
  ASSERT_EQ(me.status, 200);
  EXPECT_TRUE(has(me.body, "id=\"address-form\""));
  EXPECT_TRUE(has(me.body, "value=\"mercia@example.org\""));
  const Response changed =
      post("/games/britain-1/me/address", {{"email", "penda@example.net"}, {"turn", "1"}}, cookie);
  ASSERT_EQ(changed.status, 303) << changed.body;
  EXPECT_EQ(header(changed, "Location"), "/games/britain-1/me?done=address");
  EXPECT_TRUE(
      has(get("/games/britain-1/me?done=address", cookie).body, "value=\"penda@example.net\""));
  EXPECT_EQ(log("address").size(), 1u);
  const Response bad =
      post("/games/britain-1/me/address", {{"email", "pen da@example.net"}, {"turn", "1"}}, cookie);
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(post("/games/britain-1/me/address", {{"email", "a@example.net"}}).status, 401);
  EXPECT_EQ(log("address").size(), 1u);
}

}  // namespace
}  // namespace adj::web
