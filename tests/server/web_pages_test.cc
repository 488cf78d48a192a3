// The HTML pages (server/web/html_routes.cc) through the Router, without sockets: a real SQLite
// file in a temporary directory, requests built by hand as a browser would send them (cookies,
// Origin, CSRF field), the bundled Dark Age Britain game and its worked order files.
#include <gtest/gtest.h>

#include <memory>

#include "base/escape.h"
#include "rules/game/scenario.h"
#include "server/web/routes.h"
#include "server/web/web_context.h"
#include "server/web/web_session.h"
#include "tests/server/web_pages_fixture.h"
#include "tests/server/web_test_util.h"
#include "tests/support/cli_runner.h"
#include "tests/support/grid_world.h"
#include "tests/support/temp_dir.h"

namespace adj::web {
namespace {

using ::adj::testing::check_balanced;
using ::adj::testing::count;
using http::Request;
using http::Response;

using namespace pages_test;  // kGame, kBase, kGmToken, kCsrf, kNow, kPlayers, orders_file, header

class WebPages : public PagesFixture {};

TEST_F(WebPages, IndexListsGames) {
  Response empty = get("/");
  EXPECT_EQ(empty.status, 200);
  EXPECT_NE(empty.body.find("No games yet"), std::string::npos);
  create_britain();
  ASSERT_TRUE(ctx_->admin().set_deadline(kGame, 1'740'852'000, "gm").ok());
  Response r = get("/");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "text/html; charset=utf-8");
  EXPECT_NE(r.body.find("href=\"/games/britain-1\""), std::string::npos);
  EXPECT_NE(r.body.find("Dark Age Britain"), std::string::npos);
  EXPECT_NE(r.body.find("2025-03-01 18:00 UTC"), std::string::npos);
  EXPECT_NE(r.body.find("/static/adjutant.css"), std::string::npos);
  EXPECT_EQ(check_balanced(r.body, true), "");
  EXPECT_NE(header(r, "Content-Security-Policy").find("default-src 'none'"), std::string::npos);
}

TEST_F(WebPages, StaticStylesheet) {
  Response css = get("/static/adjutant.css");
  EXPECT_EQ(css.status, 200);
  EXPECT_EQ(css.content_type, "text/css; charset=utf-8");
  EXPECT_NE(css.body.find("svg.map"), std::string::npos);
  EXPECT_EQ(get("/static/nothing.css").status, 404);
  EXPECT_EQ(get("/static/..").status, 404);
}

TEST_F(WebPages, GamePageHasFactsMapAndCharts) {
  create_britain();
  Response r = get("/games/britain-1");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(check_balanced(r.body, true), "");
  EXPECT_NE(r.body.find("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"map\""),
            std::string::npos);
  auto doc = bundled_scenario_published("dark-age-britain");
  for (const auto& a : (*doc)["areas"])
    EXPECT_NE(r.body.find("id=\"area-" + a["code"].get<std::string>() + "\""), std::string::npos);
  EXPECT_EQ(count(r.body, "class=\"chart\""), 3);
  EXPECT_EQ(count(r.body, "<g class=\"series\""), 15);  // 3 charts x 5 kingdoms
  EXPECT_NE(r.body.find("No turn has been resolved yet"), std::string::npos);
  EXPECT_NE(r.body.find("drawn when the turn runs"), std::string::npos);
  // No secrets on a public page.
  EXPECT_EQ(r.body.find("cerdic"), std::string::npos);
  EXPECT_EQ(r.body.find("wessex@example.org"), std::string::npos);

  play_turn1();
  r = get("/games/britain-1");
  ASSERT_EQ(r.status, 200);
  EXPECT_NE(r.body.find("Roundup of turn 1"), std::string::npos);
  EXPECT_NE(r.body.find("<table class=\"roundup\">"), std::string::npos);
  EXPECT_EQ(r.body.find("drawn when the turn runs"), std::string::npos);
  EXPECT_NE(r.body.find("(open for orders)"), std::string::npos);
  // Two points per series now: the start and the end of turn 1.
  const std::size_t line = r.body.find("<polyline");
  ASSERT_NE(line, std::string::npos);
  const std::string points = r.body.substr(line, r.body.find("/>", line) - line);
  EXPECT_EQ(count(points, ","), 2);
  EXPECT_EQ(check_balanced(r.body, true), "");

  Response svg = get("/games/britain-1/map.svg");
  EXPECT_EQ(svg.status, 200);
  EXPECT_EQ(svg.content_type, "image/svg+xml");
  EXPECT_EQ(check_balanced(svg.body), "");

  EXPECT_EQ(get("/games/nope").status, 404);
}

TEST_F(WebPages, GameWithoutCoordinatesGetsAutomaticLayout) {
  auto doc = bundled_scenario_published("dark-age-britain");
  Json s = *doc;
  for (auto& a : s["areas"]) {
    a.erase("x");
    a.erase("y");
  }
  create(s);
  Response r = get("/games/britain-1");
  ASSERT_EQ(r.status, 200);
  EXPECT_NE(r.body.find("placed automatically"), std::string::npos);
  for (const auto& a : s["areas"])
    EXPECT_NE(r.body.find("id=\"area-" + a["code"].get<std::string>() + "\""), std::string::npos);
  EXPECT_EQ(check_balanced(r.body, true), "");
}

TEST_F(WebPages, HostileNamesAreEscaped) {
  auto doc = bundled_scenario_published("dark-age-britain");
  Json s = *doc;
  s["id"] = "evil-1";
  s["name"] = "<script>alert(1)</script>";
  s["players"][0]["name"] = "<script>alert(2)</script>";
  s["areas"][0]["name"] = "<img src=x onerror=alert(3)>";
  // The order builder's data on the page of a kingdom holding the hostile area, listing the
  // hostile kingdom among the others.
  const std::string player = s["players"][1]["code"].get<std::string>();
  s["areas"][0]["owner"] = player;
  create(s);
  // The only scripts are the static files and the order builder's JSON block (issue 13).
  const auto own_scripts_removed = [](std::string body) {
    for (const std::string ok : {"<script src=\"/static/time.js\" defer></script>",
                                 "<script src=\"/static/map.js\" defer></script>",
                                 "<script src=\"/static/orders.js\" defer></script>",
                                 "<script type=\"application/json\" id=\"order-data\">"}) {
      for (std::size_t at = body.find(ok); at != std::string::npos; at = body.find(ok))
        body.erase(at, ok.size());
    }
    return body;
  };
  for (const std::string path :
       {"/", "/games/evil-1", "/games/evil-1/audit", "/games/evil-1/login", "/games/evil-1/me"}) {
    Response r = get(path, path.ends_with("/me") ? player_cookie(player, "evil-1") : "");
    ASSERT_EQ(r.status, 200) << path;
    const std::string body = own_scripts_removed(r.body);
    EXPECT_EQ(body.find("<script"), std::string::npos) << path;
    // The order-data block ends at its own </script> only: names inside are \u003c-escaped.
    EXPECT_EQ(count(body, "</script>"), path.ends_with("/me") ? 1 : 0) << path;
    EXPECT_EQ(r.body.find("<img"), std::string::npos) << path;
    EXPECT_EQ(check_balanced(r.body, true), "") << path;
  }
  Response me = get("/games/evil-1/me", player_cookie(player, "evil-1"));
  EXPECT_NE(me.body.find("\\u003cimg src=x onerror=alert(3)\\u003e"), std::string::npos);
  EXPECT_NE(me.body.find("\\u003cscript\\u003ealert(2)"), std::string::npos);
  Response game = get("/games/evil-1");
  EXPECT_NE(game.body.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(game.body.find("&lt;script&gt;alert(2)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(game.body.find("&lt;img src=x onerror=alert(3)&gt;"), std::string::npos);
  // A hostile path parameter is escaped in the error page too.
  Response missing = get("/games/<script>alert(4)</script>");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.body.find("<script"), std::string::npos);
}

TEST_F(WebPages, FormsNeedTheCsrfTokenAndOrigin) {
  create_britain();
  const std::string wsx = player_cookie("WSX");
  // No token.
  Response r = post("/games/britain-1/me/orders", {{"orders", orders_file(1, "WSX")}}, wsx, false);
  EXPECT_EQ(r.status, 403);
  EXPECT_FALSE(has_orders("WSX"));
  // Token, but sent from another site.
  Request req;
  req.method = "POST";
  req.path = "/games/britain-1/me/orders";
  req.headers = {{"host", "127.0.0.1:8080"},
                 {"origin", "http://evil.example"},
                 {"cookie", wsx + "; adj_csrf=" + kCsrf},
                 {"content-type", "application/x-www-form-urlencoded"}};
  req.body = "csrf=" + std::string(kCsrf) + "&orders=" + url_encode(orders_file(1, "WSX"));
  EXPECT_EQ(router_->route(req).status, 403);
  EXPECT_FALSE(has_orders("WSX"));
  // The GM's forms too.
  EXPECT_EQ(post("/gm/games/britain-1/pause", {}, gm_cookie(), false).status, 403);
  EXPECT_EQ(
      post("/games/britain-1/login", {{"player", "WSX"}, {"secret", "cerdic"}}, "", false).status,
      403);
}

TEST_F(WebPages, GmPagesNeedTheGmToken) {
  create_britain();
  Response anon = get("/gm");
  EXPECT_EQ(anon.status, 303);
  EXPECT_EQ(header(anon, "Location"), "/gm/login");
  EXPECT_EQ(get("/gm/games/britain-1").status, 303);
  EXPECT_EQ(get("/gm", std::string(kGmCookie) + "=wrong").status, 303);
  EXPECT_EQ(get("/gm", player_cookie("WSX")).status, 303);
  for (const char* action :
       {"run", "preview", "pause", "resume", "rollback", "deadline", "extend", "schedule"})
    EXPECT_EQ(post(std::string("/gm/games/britain-1/") + action, {{"turn", "1"}}).status, 403)
        << action;
  EXPECT_EQ(post("/gm/games", {{"bundled", "dark-age-britain"}}).status, 403);
  auto games = ctx_->services().list_games();
  EXPECT_EQ(games->size(), 1u);
  EXPECT_EQ(games->front().turn, 1);

  Response wrong = post("/gm/login", {{"token", "nope"}});
  EXPECT_EQ(wrong.status, 403);
  EXPECT_FALSE(set_cookie(wrong, kGmCookie));
  Response ok = post("/gm/login", {{"token", kGmToken}});
  EXPECT_EQ(ok.status, 303);
  EXPECT_EQ(set_cookie(ok, kGmCookie), kGmToken);
  EXPECT_EQ(get("/gm", gm_cookie()).status, 200);

  // With no GM token configured the GM pages are off, whatever the cookie says.
  make_context("");
  EXPECT_EQ(get("/gm", gm_cookie()).status, 403);
  EXPECT_EQ(post("/gm/login", {{"token", ""}}).status, 403);
}

TEST_F(WebPages, GmDeskShowsFreshSecretsOnceAndResetsThem) {
  const std::string gm = gm_cookie();
  Response made = post("/gm/games", {{"bundled", "dark-age-britain"}}, gm);
  ASSERT_EQ(made.status, 200) << made.body;
  EXPECT_EQ(check_balanced(made.body, true), "");
  EXPECT_EQ(made.body.find("cerdic"), std::string::npos);
  const std::string cell = "<td>WSX</td><td data-label=\"Secret\" class=\"token\">";
  const std::size_t at = made.body.find(cell);
  ASSERT_NE(at, std::string::npos) << made.body;
  const std::string secret = made.body.substr(at + cell.size(), 14);
  EXPECT_TRUE(*ctx_->admin().check_secret(kGame, "WSX", secret)) << secret;
  EXPECT_EQ(get("/gm/games/britain-1", gm).body.find(secret), std::string::npos);  // not again

  Response reset = post("/gm/games/britain-1/players/WSX/reset", {{"what", "secret"}}, gm);
  ASSERT_EQ(reset.status, 200) << reset.body;
  EXPECT_FALSE(*ctx_->admin().check_secret(kGame, "WSX", secret));
  EXPECT_EQ(post("/gm/games/britain-1/players/WSX/reset", {{"what", "secret"}}).status, 403);
  EXPECT_EQ(ctx_->admin().audit_log(kGame)->back().action, "reset");
}

TEST_F(WebPages, GmPageShowsABigGamesPlayersTwoHundredAtATime) {
  create(testing::grid_world::world("big", {450, 100}));
  const std::string gm = gm_cookie();
  const auto page = [&](const std::string& key, const std::string& value) {
    Request r = request("GET", "/gm/games/big", gm);
    if (!key.empty()) r.query[key] = value;
    Response out = router_->route(r);
    EXPECT_EQ(out.status, 200) << key << "=" << value;
    return out.body;
  };
  const auto shows = [](const std::string& body, const std::string& code) {
    const bool orders = body.find("id=\"player-" + code + "\"") != std::string::npos;
    const bool attendance = body.find("id=\"attendance-" + code + "\"") != std::string::npos;
    const bool credentials = body.find("/players/" + code + "/reset") != std::string::npos;
    const bool address = body.find("id=\"gm-address-form-" + code + "\"") != std::string::npos;
    EXPECT_EQ(orders, attendance) << code;
    EXPECT_EQ(orders, credentials) << code;
    EXPECT_EQ(orders, address) << code;
    return orders;
  };
  const std::string first = page("", "");
  EXPECT_NE(first.find("Players 1 to 200 of 450"), std::string::npos);
  EXPECT_TRUE(shows(first, "P0000"));
  EXPECT_TRUE(shows(first, "P0199"));
  EXPECT_FALSE(shows(first, "P0200"));
  EXPECT_NE(first.find("href=\"/gm/games/big?from=200#players\""), std::string::npos);
  EXPECT_EQ(first.find("the 200 before"), std::string::npos);
  EXPECT_NE(first.find("0 of 450 players have orders in"), std::string::npos);  // all counted

  const std::string last = page("from", "400");
  EXPECT_NE(last.find("Players 401 to 450 of 450"), std::string::npos);
  EXPECT_TRUE(shows(last, "P0449"));
  EXPECT_FALSE(shows(last, "P0399"));
  EXPECT_NE(last.find("href=\"/gm/games/big?from=200#players\""), std::string::npos);
  EXPECT_EQ(last.find("the next 200"), std::string::npos);

  const std::string found = page("player", " p0321 ");
  EXPECT_NE(found.find("Players 201 to 400 of 450"), std::string::npos);
  EXPECT_TRUE(shows(found, "P0321"));
  EXPECT_FALSE(shows(found, "P0000"));
  // What is not a stretch of this game shows the first one.
  for (const char* bad : {"abc", "-5", "99999", "450", "18446744073709551616"})
    EXPECT_NE(page("from", bad).find("Players 1 to 200 of 450"), std::string::npos) << bad;
  const std::string nobody = page("player", "NOBODY");
  EXPECT_NE(nobody.find("Players 1 to 200 of 450"), std::string::npos);
  EXPECT_NE(nobody.find("This game has no player NOBODY."), std::string::npos);
  EXPECT_EQ(found.find("player-missing"), std::string::npos);

  // A game of 200 players or fewer lists them all, with no links between stretches.
  create_britain();
  const std::string small = get("/gm/games/britain-1", gm).body;
  EXPECT_EQ(small.find("player-pages"), std::string::npos);
  EXPECT_TRUE(shows(small, "WSX"));
}

TEST_F(WebPages, GmDeskCreatesAndRunsGames) {
  const std::string gm = gm_cookie();
  Response desk = get("/gm", gm);
  ASSERT_EQ(desk.status, 200);
  EXPECT_NE(desk.body.find("<option value=\"dark-age-britain\">"), std::string::npos);
  EXPECT_EQ(check_balanced(desk.body, true), "");

  // Create from a bundled name, and from pasted JSON.
  Response made = post("/gm/games",
                       {{"bundled", "dark-age-britain"}, {"seed", "7"}, {"demo_secrets", "1"}}, gm);
  ASSERT_EQ(made.status, 303) << made.body;
  EXPECT_EQ(header(made, "Location"), "/gm/games/britain-1?done=created");
  auto doc = bundled_scenario_published("crt-river-crossing");
  Response pasted = post("/gm/games", {{"scenario", doc->dump()}}, gm);
  EXPECT_EQ(pasted.status, 303) << pasted.body;
  EXPECT_EQ(post("/gm/games", {{"scenario", "{not json"}}, gm).status, 400);
  EXPECT_EQ(post("/gm/games", {{"scenario", "{\"id\": \"x\"}"}}, gm).status, 400);
  EXPECT_EQ(post("/gm/games", {{"bundled", "dark-age-britain"}}, gm).status, 409);  // exists

  for (const char* p : {"WSX", "MRC"})
    ASSERT_TRUE(ctx_->services().submit_orders(kGame, orders_file(1, p), "cli").ok());
  Request req = request("GET", "/gm/games/britain-1", gm);
  req.query["done"] = "created";
  Response page = router_->route(req);
  ASSERT_EQ(page.status, 200) << page.body;
  EXPECT_EQ(check_balanced(page.body, true), "");
  EXPECT_NE(page.body.find("Game created."), std::string::npos);
  EXPECT_NE(page.body.find("2 of 5 players have orders in"), std::string::npos);
  // Links are stored hashed: the desk offers a new one per player, shown once.
  EXPECT_NE(page.body.find("action=\"/gm/games/britain-1/players/NUM/reset\""), std::string::npos);
  EXPECT_EQ(page.body.find("/games/britain-1/p/"), std::string::npos);
  Response reset = post("/gm/games/britain-1/players/NUM/reset", {{"what", "token"}}, gm);
  ASSERT_EQ(reset.status, 200) << reset.body;
  const std::size_t at = reset.body.find(std::string(kBase) + "/games/britain-1/p/");
  ASSERT_NE(at, std::string::npos) << reset.body;
  const std::string link_token = reset.body.substr(at + std::string(kBase).size() + 19, 32);
  EXPECT_EQ(ctx_->admin().token_owner(link_token)->second, "NUM");

  // Preview: redirected to the preview page, every report, nothing stored.
  Response to_preview = post("/gm/games/britain-1/preview", {{"turn", "1"}}, gm);
  ASSERT_EQ(to_preview.status, 303) << to_preview.body;
  EXPECT_EQ(header(to_preview, "Location"), "/gm/games/britain-1/preview?turn=1");
  Request preview_req = request("GET", "/gm/games/britain-1/preview", gm);
  preview_req.query["turn"] = "1";
  Response preview = router_->route(preview_req);
  ASSERT_EQ(preview.status, 200) << preview.body;
  EXPECT_EQ(count(preview.body, "<details>"), 5);
  EXPECT_NE(preview.body.find("ADJUTANT REPORT"), std::string::npos);
  EXPECT_EQ(ctx_->services().list_games()->front().turn, 1);

  // Deadline, extension, schedule, pause and resume: redirects back, each audited.
  EXPECT_EQ(post("/gm/games/britain-1/deadline", {{"deadline", "2025-03-01T18:00"}}, gm).status,
            303);
  EXPECT_EQ(ctx_->admin().schedule(kGame)->deadline, 1'740'852'000);
  EXPECT_EQ(post("/gm/games/britain-1/extend", {{"hours", "24"}}, gm).status, 303);
  EXPECT_EQ(ctx_->admin().schedule(kGame)->deadline, 1'740'852'000 + 86'400);
  EXPECT_EQ(post("/gm/games/britain-1/deadline", {{"deadline", "soon"}}, gm).status, 400);
  EXPECT_EQ(post("/gm/games/britain-1/schedule",
                 {{"kind", "interval"},
                  {"interval_hours", "48"},
                  {"time_of_day", "18:00"},
                  {"early_when_all_in", "1"}},
                 gm)
                .status,
            303);
  auto sched = ctx_->admin().schedule(kGame);
  EXPECT_EQ(sched->kind, "interval");
  EXPECT_EQ(sched->interval_seconds, 48 * 3600);
  EXPECT_EQ(sched->time_of_day, 18 * 3600);
  EXPECT_TRUE(sched->early_when_all_in);
  EXPECT_EQ(post("/gm/games/britain-1/schedule", {{"kind", "weekly"}}, gm).status, 400);
  EXPECT_EQ(post("/gm/games/britain-1/pause", {}, gm).status, 303);
  EXPECT_EQ(ctx_->services().list_games()->front().status, "paused");
  EXPECT_EQ(post("/gm/games/britain-1/resume", {}, gm).status, 303);

  // Run now (confirmed: NUM, EAN and GWN have no orders), then roll back.
  Response run = post("/gm/games/britain-1/run", {{"confirm", "1"}}, gm);
  ASSERT_EQ(run.status, 303) << run.body;
  EXPECT_EQ(header(run, "Location"), "/gm/games/britain-1?done=ran&turn=1");
  Response turn_page = get("/gm/games/britain-1/turns/1", gm);
  ASSERT_EQ(turn_page.status, 200) << turn_page.body;
  EXPECT_NE(turn_page.body.find("Resolved turn 1"), std::string::npos);
  EXPECT_EQ(count(turn_page.body, "<details>"), 5);
  EXPECT_EQ(ctx_->services().list_games()->front().turn, 2);
  Response rb = post("/gm/games/britain-1/rollback", {{"turn", "1"}, {"confirm", "1"}}, gm);
  EXPECT_EQ(rb.status, 303);
  EXPECT_EQ(ctx_->services().list_games()->front().turn, 1);
  EXPECT_EQ(post("/gm/games/britain-1/rollback", {{"turn", "x"}}, gm).status, 400);

  // The public audit log shows it all.
  Response audit = get("/games/britain-1/audit");
  ASSERT_EQ(audit.status, 200);
  EXPECT_EQ(check_balanced(audit.body, true), "");
  for (const char* action : {"create", "preview", "deadline", "pause", "resume", "run", "rollback"})
    EXPECT_NE(audit.body.find(std::string("<tr class=\"audit-") + action + "\">"),
              std::string::npos)
        << action;
  EXPECT_NE(audit.body.find("ran turn 1; no orders from EAN, GWN, NUM"), std::string::npos);
  EXPECT_EQ(get("/gm/games/nope", gm).status, 404);
}

TEST_F(WebPages, GmDeskAsksForTheNextDeadlineAfterAFixedRun) {
  create_britain();
  const std::string gm = gm_cookie();
  ASSERT_TRUE(ctx_->admin().set_deadline(kGame, kNow + 3600, "gm").ok());
  Response before = get("/gm/games/britain-1", gm);
  EXPECT_EQ(before.body.find("id=\"needs-deadline\""), std::string::npos);
  EXPECT_NE(before.body.find("fixed: the turn runs at its deadline"), std::string::npos);
  play_turn1();  // the fixed deadline is used up
  Response after = get("/gm/games/britain-1", gm);
  ASSERT_EQ(after.status, 200);
  EXPECT_NE(after.body.find("id=\"needs-deadline\""), std::string::npos) << after.body;
  EXPECT_NE(after.body.find("No deadline is set for turn 2"), std::string::npos);
  EXPECT_NE(after.body.find("the game is run by hand until you set the next deadline"),
            std::string::npos);
  ASSERT_TRUE(ctx_->admin().set_deadline(kGame, kNow + 7200, "gm").ok());
  EXPECT_EQ(get("/gm/games/britain-1", gm).body.find("id=\"needs-deadline\""), std::string::npos);
}

TEST_F(WebPages, HandlersAnswerErrorsAsPages) {
  create_britain();
  EXPECT_EQ(get("/games/nope/audit").status, 404);
  EXPECT_EQ(get("/games/nope/login").status, 404);
  EXPECT_EQ(post("/games/nope/login", {{"player", "WSX"}, {"secret", "x"}}).status, 404);
  Response big = post_multipart("/games/britain-1/me/orders",
                                {{"orders", std::string(70 * 1024, 'x')}, {"action", "check"}},
                                player_cookie("WSX"));
  EXPECT_EQ(big.status, 413);
  EXPECT_EQ(get("/games/britain-1/login").content_type, "text/html; charset=utf-8");
}

}  // namespace
}  // namespace adj::web
