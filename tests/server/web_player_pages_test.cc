// The player's HTML pages (server/web/html_player_routes.cc) through the Router, without
// sockets: signing in with a code and secret or a link, the session they need, their reports
// only, and the order form. The same fixture as web_pages_test.cc (a real SQLite file, requests
// built by hand as a browser sends them, the bundled Dark Age Britain game).
#include <gtest/gtest.h>

#include <memory>

#include "base/escape.h"
#include "server/app/time_text.h"
#include "server/web/routes.h"
#include "server/web/web_context.h"
#include "server/web/web_session.h"
#include "tests/server/web_pages_fixture.h"
#include "tests/server/web_test_util.h"

namespace adj::web {
namespace {

using ::adj::testing::check_balanced;
using ::adj::testing::count;
using http::Request;
using http::Response;

using namespace pages_test;  // kGame, kBase, kGmToken, kCsrf, kNow, kPlayers, orders_file, header

class PlayerPages : public PagesFixture {};

TEST_F(PlayerPages, SignInWithCodeAndSecret) {
  create_britain();
  Response form = get("/games/britain-1/login");
  EXPECT_EQ(form.status, 200);
  EXPECT_NE(form.body.find("name=\"secret\""), std::string::npos);
  EXPECT_TRUE(set_cookie(form, kCsrfCookie));  // the form's CSRF token

  Response wrong = post("/games/britain-1/login", {{"player", "wsx"}, {"secret", "nope"}});
  EXPECT_EQ(wrong.status, 403);
  EXPECT_FALSE(set_cookie(wrong, kPlayerCookie));
  EXPECT_NE(wrong.body.find("wrong secret"), std::string::npos);
  Response unknown = post("/games/britain-1/login", {{"player", "XXX"}, {"secret", "cerdic"}});
  EXPECT_EQ(unknown.status, 403);
  EXPECT_FALSE(set_cookie(unknown, kPlayerCookie));

  Response ok = post("/games/britain-1/login", {{"player", "wsx"}, {"secret", "cerdic"}});
  EXPECT_EQ(ok.status, 303);
  EXPECT_EQ(header(ok, "Location"), "/games/britain-1/me");
  auto token = set_cookie(ok, kPlayerCookie);
  ASSERT_TRUE(token);
  // A session token of its own, stored hashed.
  auto owner = ctx_->admin().token_owner(*token);
  ASSERT_TRUE(owner.ok());
  EXPECT_EQ(owner->second, "WSX");
  const std::string c = headers(ok, "Set-Cookie").front();
  EXPECT_NE(c.find("HttpOnly"), std::string::npos);
  EXPECT_NE(c.find("SameSite=Lax"), std::string::npos);
  EXPECT_NE(c.find("Path=/games/britain-1"), std::string::npos);

  Response me = get("/games/britain-1/me", std::string(kPlayerCookie) + "=" + *token);
  EXPECT_EQ(me.status, 200);
  EXPECT_NE(me.body.find("Wessex (WSX)"), std::string::npos);

  Response out = post("/games/britain-1/logout", {}, std::string(kPlayerCookie) + "=" + *token);
  EXPECT_EQ(out.status, 303);
  EXPECT_EQ(set_cookie(out, kPlayerCookie), "");
}

TEST_F(PlayerPages, APlayerChangesTheirSecretAndLink) {
  create_britain();
  const std::string me = player_cookie("WSX");
  Response page = get("/games/britain-1/me", me);
  ASSERT_EQ(page.status, 200);
  EXPECT_NE(page.body.find("action=\"/games/britain-1/me/secret\""), std::string::npos);
  // The current secret is asked again; nothing changes when it is wrong.
  EXPECT_EQ(post("/games/britain-1/me/secret",
                 {{"current", "nope"}, {"secret", "Offa-dyke-77"}, {"repeat", "Offa-dyke-77"}}, me)
                .status,
            403);
  EXPECT_EQ(post("/games/britain-1/me/secret",
                 {{"current", "cerdic"}, {"secret", "Offa-dyke-77"}, {"repeat", "other-one-1"}}, me)
                .status,
            400);
  EXPECT_TRUE(*ctx_->admin().check_secret(kGame, "WSX", "cerdic"));
  Response done =
      post("/games/britain-1/me/secret",
           {{"current", "cerdic"}, {"secret", "Offa-dyke-77"}, {"repeat", "Offa-dyke-77"}}, me);
  EXPECT_EQ(done.status, 303) << done.body;
  EXPECT_FALSE(*ctx_->admin().check_secret(kGame, "WSX", "cerdic"));
  EXPECT_TRUE(*ctx_->admin().check_secret(kGame, "WSX", "Offa-dyke-77"));
  // A new link: shown once, this browser gets a new session, and the old cookie stops working.
  Response link = post("/games/britain-1/me/link", {}, me);
  ASSERT_EQ(link.status, 200) << link.body;
  auto fresh = set_cookie(link, kPlayerCookie);
  ASSERT_TRUE(fresh);
  EXPECT_EQ(link.body.find("/games/britain-1/p/" + *fresh), std::string::npos);
  EXPECT_NE(link.body.find("/games/britain-1/p/"), std::string::npos);
  EXPECT_EQ(get("/games/britain-1/me", me).status, 303);  // back to the sign-in page
  EXPECT_EQ(get("/games/britain-1/me", std::string(kPlayerCookie) + "=" + *fresh).status, 200);
}

TEST_F(PlayerPages, SignInWithLinkToken) {
  create_britain();
  const std::string token = *ctx_->admin().issue_player_token(kGame, "MRC", "gm");
  Response r = get("/games/britain-1/p/" + token);
  EXPECT_EQ(r.status, 303);
  EXPECT_EQ(header(r, "Location"), "/games/britain-1/me");
  // A sign-in session of its own, not the link token.
  auto session = set_cookie(r, kPlayerCookie);
  ASSERT_TRUE(session);
  EXPECT_NE(*session, token);
  EXPECT_EQ(get("/games/britain-1/me", std::string(kPlayerCookie) + "=" + *session).status, 200);
  EXPECT_EQ(get("/games/britain-1/p/" + *session).status, 404);  // a session is not a link
  EXPECT_EQ(get("/games/britain-1/p/not-a-token").status, 404);
  EXPECT_EQ(get("/games/other-game/p/" + token).status, 404);
}

TEST_F(PlayerPages, PlayerPagesNeedTheirSession) {
  create_britain();
  Response anon = get("/games/britain-1/me");
  EXPECT_EQ(anon.status, 303);
  EXPECT_EQ(header(anon, "Location"), "/games/britain-1/login");
  EXPECT_EQ(get("/games/britain-1/me", std::string(kPlayerCookie) + "=forged").status, 303);
  EXPECT_EQ(post("/games/britain-1/me/orders", {{"orders", "x"}}).status, 401);

  Response me = get("/games/britain-1/me", player_cookie("WSX"));
  ASSERT_EQ(me.status, 200);
  EXPECT_EQ(check_balanced(me.body, true), "");
  EXPECT_NE(me.body.find("enctype=\"multipart/form-data\""), std::string::npos);
  EXPECT_NE(me.body.find("<textarea"), std::string::npos);
  EXPECT_NE(me.body.find("value=\"check\""), std::string::npos);
  EXPECT_NE(me.body.find("No turn has been resolved yet"), std::string::npos);
  EXPECT_EQ(header(me, "Cache-Control"), "no-store");
  // The game page offers the sign-in only to whoever is not signed in.
  EXPECT_NE(get("/games/britain-1").body.find("Player sign-in"), std::string::npos);
  EXPECT_EQ(get("/games/britain-1", player_cookie("WSX")).body.find("Player sign-in"),
            std::string::npos);
}

TEST_F(PlayerPages, OnlyTheGmsNavigationOffersTheGmAuditLog) {
  create_britain();
  const std::string nav_link = "<a href=\"/games/britain-1/audit\">GM audit log</a>";
  const std::string player = player_cookie("WSX");
  for (const char* path : {"/games/britain-1", "/games/britain-1/me", "/games/britain-1/audit"}) {
    EXPECT_EQ(get(path, player).body.find(nav_link), std::string::npos) << path;
    EXPECT_EQ(get(path).body.find(nav_link), std::string::npos) << path;
  }
  EXPECT_NE(get("/games/britain-1", gm_cookie()).body.find(nav_link), std::string::npos);
  // The log stays public: the game page links it for everyone, not as the GM's.
  EXPECT_NE(
      get("/games/britain-1", player).body.find("<a href=\"/games/britain-1/audit\">Audit log</a>"),
      std::string::npos);
  EXPECT_EQ(get("/games/britain-1/audit").status, 200);
}

TEST_F(PlayerPages, ReportsAreTheirPlayersOnly) {
  create_britain();
  play_turn1();
  const std::string wsx = player_cookie("WSX");
  Response list = get("/games/britain-1/me", wsx);
  EXPECT_NE(list.body.find("href=\"/games/britain-1/me/reports/1\""), std::string::npos);

  Response r = get("/games/britain-1/me/reports/1", wsx);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(check_balanced(r.body, true), "");
  auto rep = ctx_->services().report(kGame, "WSX", 1);
  ASSERT_TRUE(rep.ok());
  for (const char* part : {"Your actions", "Attacks on your areas", "Economy", "Your areas",
                           "Neighbouring areas", "Roundup of turn 1", "Orders for turn 2"})
    EXPECT_NE(r.body.find(part), std::string::npos) << part;
  // Every action line and every die of every battle Wessex fought.
  for (const auto& a : rep->json["actions"]) {
    EXPECT_NE(r.body.find(html_escape(a["text"].get<std::string>())), std::string::npos);
    if (!a.contains("battle")) continue;
    EXPECT_NE(r.body.find("id=\"battle-" + a["battle"]["id"].get<std::string>() + "\""),
              std::string::npos);
    for (const auto& d : a["battle"]["draws"])
      EXPECT_NE(
          r.body.find(std::to_string(d[1].get<int>()) + "/d" + std::to_string(d[0].get<int>())),
          std::string::npos);
  }
  // One die box per die: each round's dice and the battle's list of every draw (Dark Age
  // battles are diceless, so this may well be 0; the dice rendering is tested in PageView).
  int dice = 0;
  auto add_dice = [&](const Json& b) {
    dice += static_cast<int>(b["draws"].size());
    for (const auto& round : b["outcome"]["rounds"])
      dice += static_cast<int>(round.value("attacker_dice", Json::array()).size() +
                               round.value("defender_dice", Json::array()).size());
  };
  for (const auto& a : rep->json["actions"])
    if (a.contains("battle")) add_dice(a["battle"]);
  for (const auto& b : rep->json["attacks_on_you"]) add_dice(b);
  EXPECT_EQ(count(r.body, "class=\"die\""), dice);
  EXPECT_NE(r.body.find("Battle 1.2.WSX"), std::string::npos);
  EXPECT_NE(r.body.find("Battle 1.2.MRC"), std::string::npos);  // the attack on Oxfordshire
  EXPECT_EQ(r.body.find("cerdic"), std::string::npos);          // never the secret
  // The latest report says when turn 2 is due (none set yet), and the time once it is set.
  EXPECT_NE(r.body.find("No deadline is set for turn 2"), std::string::npos);
  ASSERT_TRUE(ctx_->admin().set_deadline(kGame, kNow + 7200, "gm").ok());
  r = get("/games/britain-1/me/reports/1", wsx);
  EXPECT_NE(r.body.find("Orders for turn 2 are due by <time datetime=\"" + utc_iso(kNow + 7200)),
            std::string::npos)
      << r.body.substr(0, 1500);

  // Another player's report: 403 for Wessex, fine for Mercia and for the GM.
  EXPECT_EQ(get("/games/britain-1/players/MRC/reports/1", wsx).status, 403);
  EXPECT_EQ(get("/games/britain-1/players/MRC/reports/1").status, 403);
  EXPECT_EQ(get("/games/britain-1/players/MRC/reports/1", player_cookie("MRC")).status, 200);
  EXPECT_EQ(get("/games/britain-1/players/wsx/reports/1", wsx).status, 200);
  EXPECT_EQ(get("/games/britain-1/players/MRC/reports/1", gm_cookie()).status, 200);
  // A token of one game does not open another game's pages.
  auto doc = bundled_scenario_published("dark-age-britain");
  Json other = *doc;
  other["id"] = "britain-2";
  create(other);
  EXPECT_EQ(get("/games/britain-2/me", wsx).status, 403);
  EXPECT_EQ(get("/games/britain-2/players/WSX/reports/1", wsx).status, 403);
  // Bad turns.
  EXPECT_EQ(get("/games/britain-1/me/reports/abc", wsx).status, 400);
  EXPECT_EQ(get("/games/britain-1/me/reports/0", wsx).status, 400);
  EXPECT_EQ(get("/games/britain-1/me/reports/7", wsx).status, 404);
}

TEST_F(PlayerPages, EngineStateReadsAsTextNotJson) {
  // A Virtuti Militari game: units per area and the player's cards and air tokens.
  auto vm = bundled_scenario_published("virtuti-militari-1939");
  ASSERT_TRUE(vm.ok());
  create(*vm);
  const std::string game = (*vm)["id"].get<std::string>();
  auto run = ctx_->admin().run_turn(game, false, "gm");
  ASSERT_TRUE(run.ok()) << run.status().to_string();
  auto token = ctx_->admin().issue_player_token(game, "POL", "gm");
  ASSERT_TRUE(token.ok());
  Response r = get("/games/" + game + "/me/reports/1", std::string(kPlayerCookie) + "=" + *token);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(check_balanced(r.body, true), "");
  EXPECT_NE(r.body.find("forces: units: army (level 2), army (level 1), artillery (level 1)"),
            std::string::npos);
  EXPECT_NE(r.body.find("hand: Last Stand (hp 2, strength 3)"), std::string::npos);
  EXPECT_EQ(r.body.find("{&quot;"), std::string::npos);  // no escaped JSON objects
  EXPECT_EQ(r.body.find("{\""), std::string::npos);
}

TEST_F(PlayerPages, ReportEconomyShowsGifts) {
  create_britain();
  auto out = ctx_->services().submit_orders(
      kGame, "GAME britain-1\nPLAYER WSX cerdic\n1. GIFT MRC 5\n", "cli");
  ASSERT_TRUE(out.ok() && !out->ack.refused);
  auto run = ctx_->admin().run_turn(kGame, false, "gm");
  ASSERT_TRUE(run.ok()) << run.status().to_string();
  Response r = get("/games/britain-1/me/reports/1", player_cookie("MRC"));
  ASSERT_EQ(r.status, 200);
  EXPECT_NE(r.body.find("<tr><th>Gifts</th><td>received 5 BPs: 5 from WSX at action 1</td></tr>"),
            std::string::npos);
  Response none = get("/games/britain-1/me/reports/1", player_cookie("NUM"));
  EXPECT_EQ(none.body.find("<th>Gifts</th>"), std::string::npos);
}

TEST_F(PlayerPages, TheOrdersPageShowsThePositionTheCostsAndTheMapBeforeTurnOne) {
  create_britain();
  Response r = get("/games/britain-1/me", player_cookie("WSX"));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(check_balanced(r.body, true), "");
  EXPECT_NE(r.body.find("Your position for turn 1"), std::string::npos);
  auto st = ctx_->services().load_state(kGame);
  ASSERT_TRUE(st.ok());
  const Player* wsx = st->find_player("WSX");
  ASSERT_NE(wsx, nullptr);
  EXPECT_NE(r.body.find("<strong>" + std::to_string(wsx->bp) + " BPs</strong>"), std::string::npos);
  for (const Area& a : st->areas)
    if (a.owner == "WSX") {
      EXPECT_NE(r.body.find("<td>" + a.code + "</td>"), std::string::npos) << a.code;
    }
  EXPECT_NE(r.body.find("LEVY 3 BPs per army"), std::string::npos);
  // The map, its areas clickable by code for the builder (static/orders.js).
  const std::size_t map = r.body.find("id=\"orders-map\"");
  ASSERT_NE(map, std::string::npos);
  EXPECT_NE(r.body.find("data-code=\"HAM\"", map), std::string::npos);
}

TEST_F(PlayerPages, OrdersFormSubmitsAndChecks) {
  create_britain();
  const std::string wsx = player_cookie("WSX");
  // Check only: the acknowledgement, nothing stored.
  Response check = post_multipart("/games/britain-1/me/orders",
                                  {{"orders", orders_file(1, "WSX")}, {"action", "check"}}, wsx);
  ASSERT_EQ(check.status, 200) << check.body;
  EXPECT_NE(check.body.find("Checked only: nothing was stored"), std::string::npos);
  EXPECT_NE(check.body.find("MOVE HAM OXF 4"), std::string::npos);
  EXPECT_NE(check.body.find("accepted"), std::string::npos);
  EXPECT_EQ(check.body.find("cerdic"), std::string::npos);
  EXPECT_FALSE(has_orders("WSX"));
  EXPECT_NE(get("/games/britain-1/me", wsx).body.find("You have no orders on file for turn 1 yet."),
            std::string::npos);

  // Submit as an uploaded file: stored, then the player's page shows it on record (PRG), each
  // rejected line marked with the reason the command line gives.
  Response sub = post_multipart("/games/britain-1/me/orders",
                                {{"file", orders_file(1, "WSX")}, {"action", "submit"}}, wsx);
  ASSERT_EQ(sub.status, 303) << sub.body;
  EXPECT_EQ(header(sub, "Location"), "/games/britain-1/me?done=orders&turn=1");
  EXPECT_TRUE(has_orders("WSX"));
  Request landing = request("GET", "/games/britain-1/me", wsx);
  landing.query["done"] = "orders";
  Response page = router_->route(landing);
  ASSERT_EQ(page.status, 200);
  EXPECT_NE(page.body.find("Your orders for turn 1 are on file (7 lines accepted, 1 rejected)"),
            std::string::npos)
      << page.body;
  // The submission's line (from the player's own file: SubmissionStore::current_submission).
  EXPECT_NE(page.body.find("You have orders on file for turn 1, received "), std::string::npos);
  EXPECT_NE(page.body.find("(7 lines accepted, 1 rejected). Sending a new file replaces them."),
            std::string::npos);
  auto ack = ctx_->services().check_orders(kGame, orders_file(1, "WSX"));
  ASSERT_TRUE(ack.ok());
  for (const auto& l : ack->ack.lines) {
    if (!l.accepted) {
      EXPECT_NE(page.body.find(html_escape(l.reason)), std::string::npos);
    }
  }
  EXPECT_EQ(page.body.find("cerdic"), std::string::npos);
  EXPECT_EQ(check_balanced(page.body, true), "");

  // Signed in, the header lines may be left out; line numbers stay the player's.
  const std::string mrc = player_cookie("MRC");
  Response bare =
      post_multipart("/games/britain-1/me/orders",
                     {{"orders", "TURN 1\n1. ORDER 2\nEND\n"}, {"action", "submit"}}, mrc);
  ASSERT_EQ(bare.status, 303) << bare.body;
  EXPECT_TRUE(has_orders("MRC"));
  Response checked =
      post_multipart("/games/britain-1/me/orders",
                     {{"orders", "TURN 1\n1. ORDER 2\nEND\n"}, {"action", "check"}}, mrc);
  EXPECT_NE(checked.body.find("<tr class=\"line-ok\"><td class=\"n\">2</td>"), std::string::npos)
      << checked.body;

  // Another player's file is refused whole, nothing stored.
  Response theirs = post_multipart("/games/britain-1/me/orders",
                                   {{"orders", orders_file(1, "NUM")}, {"action", "submit"}}, wsx);
  EXPECT_EQ(theirs.status, 403);
  EXPECT_FALSE(has_orders("NUM"));
  // Empty.
  EXPECT_EQ(
      post_multipart("/games/britain-1/me/orders", {{"orders", " "}, {"action", "submit"}}, wsx)
          .status,
      400);
}

}  // namespace
}  // namespace adj::web
