// The HTML forms through the Router (no sockets): a real SQLite file, requests built as a
// browser sends them. PRG and stale forms (turn_guard.h), the run confirmation, the order form
// keeping its text and marking rejected lines, the file on record, creating a second copy of a
// bundled scenario, the readable audit log, the 24-hour deadline field, the GM's orders desk and
// the outbox message view.
#include <gtest/gtest.h>

#include <memory>

#include "base/escape.h"
#include "rules/game/scenario.h"
#include "server/web/routes.h"
#include "server/web/web_context.h"
#include "server/web/web_session.h"
#include "storage/sqlite/sqlite_store.h"
#include "storage/store.h"
#include "tests/server/web_pages_fixture.h"
#include "tests/server/web_test_util.h"
#include "tests/support/cli_runner.h"
#include "tests/support/temp_dir.h"

namespace adj::web {
namespace {

using ::adj::testing::check_balanced;
using ::adj::testing::count;
using http::Request;
using http::Response;

using namespace pages_test;  // kGame, kBase, kGmToken, kCsrf, kNow, kPlayers, orders_file, header

class HtmlForms : public PagesFixture {};

// The GET that a 303 leads to (path and query of its Location).
Request follow(const Response& r, Request base) {
  std::string loc;
  for (const auto& [k, v] : r.headers)
    if (k == "Location") loc = v;
  base.method = "GET";
  base.body.clear();
  base.query.clear();
  const std::size_t qm = loc.find('?');
  base.path = loc.substr(0, qm);
  if (qm != std::string::npos) {
    std::string rest = loc.substr(qm + 1);
    while (!rest.empty()) {
      const std::size_t amp = rest.find('&');
      const std::string kv = rest.substr(0, amp);
      const std::size_t eq = kv.find('=');
      base.query[kv.substr(0, eq)] = eq == std::string::npos ? "" : kv.substr(eq + 1);
      rest = amp == std::string::npos ? "" : rest.substr(amp + 1);
    }
  }
  return base;
}

TEST_F(HtmlForms, RunTurnFormRedirectsAndAReloadDoesNotRunTheNextTurn) {
  create_britain();
  const std::string gm = gm_cookie();
  for (const char* p : kPlayers)
    ASSERT_TRUE(ctx_->services().submit_orders(kGame, orders_file(1, p), "cli").ok());
  Response desk = get("/gm/games/britain-1", gm);
  ASSERT_EQ(desk.status, 200);
  EXPECT_NE(desk.body.find("id=\"run-form\""), std::string::npos);
  EXPECT_NE(desk.body.find("<input type=\"hidden\" name=\"turn\" value=\"1\">"), std::string::npos);
  EXPECT_EQ(check_balanced(desk.body, true), "");

  // Every order is in: no confirmation, the run redirects (303) to the desk with the result.
  Response run = post("/gm/games/britain-1/run", {{"turn", "1"}}, gm);
  ASSERT_EQ(run.status, 303) << run.body;
  EXPECT_EQ(header(run, "Location"), "/gm/games/britain-1?done=ran&turn=1");
  Response landed = router_->route(follow(run, request("GET", "/", gm)));
  ASSERT_EQ(landed.status, 200);
  EXPECT_NE(landed.body.find("Resolved turn 1"), std::string::npos) << landed.body;
  EXPECT_EQ(ctx_->services().list_games()->front().turn, 2);

  // The browser sends the same form again (reload, back button): nothing runs.
  Response again = post("/gm/games/britain-1/run", {{"turn", "1"}}, gm);
  EXPECT_EQ(again.status, 409);
  EXPECT_NE(again.body.find("Turn 1 already ran; nothing was changed."), std::string::npos)
      << again.body;
  EXPECT_NE(again.body.find("href=\"/gm/games/britain-1\""), std::string::npos);
  EXPECT_EQ(ctx_->services().list_games()->front().turn, 2);
  Response again_confirmed = post("/gm/games/britain-1/run", {{"turn", "1"}, {"confirm", "1"}}, gm);
  EXPECT_EQ(again_confirmed.status, 409);
  EXPECT_EQ(ctx_->services().list_games()->front().turn, 2);

  // Every other state-changing GM form made for turn 1 is stale too.
  EXPECT_EQ(post("/gm/games/britain-1/pause", {{"turn", "1"}}, gm).status, 409);
  EXPECT_EQ(post("/gm/games/britain-1/extend", {{"turn", "1"}, {"hours", "24"}}, gm).status, 409);
  EXPECT_EQ(post("/gm/games/britain-1/rollback", {{"turn", "1"}, {"to", "1"}}, gm).status, 409);
  EXPECT_EQ(ctx_->services().list_games()->front().status, "open");
  EXPECT_EQ(post("/gm/games/britain-1/run", {{"turn", "x"}}, gm).status, 400);

  // A rollback made for turn 2 works; the same form again finds turn 1 open: nothing changes.
  Response rb =
      post("/gm/games/britain-1/rollback", {{"turn", "2"}, {"to", "1"}, {"confirm", "1"}}, gm);
  EXPECT_EQ(rb.status, 303);
  EXPECT_EQ(ctx_->services().list_games()->front().turn, 1);
  Response rb_again =
      post("/gm/games/britain-1/rollback", {{"turn", "2"}, {"to", "1"}, {"confirm", "1"}}, gm);
  EXPECT_EQ(rb_again.status, 409);
  EXPECT_NE(rb_again.body.find("rolled back"), std::string::npos) << rb_again.body;
}

TEST_F(HtmlForms, RollbackAsksFirstAndTellsThePlayersTheReason) {
  create_britain();
  const std::string gm = gm_cookie();
  ASSERT_EQ(post("/gm/games/britain-1/run", {{"turn", "1"}, {"confirm", "1"}}, gm).status, 303);
  ASSERT_EQ(ctx_->services().list_games()->front().turn, 2);
  // The desk's form asks first: nothing changes, the page says what will happen.
  Response ask = post("/gm/games/britain-1/rollback",
                      {{"turn", "2"}, {"to", "1"}, {"reason", "a die was misread"}}, gm);
  ASSERT_EQ(ask.status, 200) << ask.body;
  EXPECT_NE(ask.body.find("id=\"confirm-rollback-form\""), std::string::npos);
  EXPECT_NE(ask.body.find("All 5 players are told by mail"), std::string::npos) << ask.body;
  EXPECT_NE(ask.body.find("value=\"a die was misread\""), std::string::npos);
  EXPECT_EQ(check_balanced(ask.body, true), "");
  EXPECT_EQ(ctx_->services().list_games()->front().turn, 2);
  // A reason on two lines is refused; nothing changes.
  EXPECT_EQ(post("/gm/games/britain-1/rollback",
                 {{"turn", "2"}, {"to", "1"}, {"confirm", "1"}, {"reason", "a\nb"}}, gm)
                .status,
            400);
  EXPECT_EQ(ctx_->services().list_games()->front().turn, 2);
  // Confirmed: rolled back; the audit log and every player's notice carry the reason.
  Response done =
      post("/gm/games/britain-1/rollback",
           {{"turn", "2"}, {"to", "1"}, {"confirm", "1"}, {"reason", "a die was misread"}}, gm);
  ASSERT_EQ(done.status, 303) << done.body;
  EXPECT_EQ(ctx_->services().list_games()->front().turn, 1);
  auto log = ctx_->admin().audit_log(kGame);
  ASSERT_TRUE(log.ok());
  ASSERT_EQ(log->back().action, "rollback");
  EXPECT_EQ(log->back().detail.value("why", ""), "a die was misread");
  EXPECT_NE(get("/games/britain-1/audit").body.find("reason: a die was misread"),
            std::string::npos);
  auto store = SqliteStore::open(dir_.file("web.db"));
  ASSERT_TRUE(store.ok());
  auto notices = (*store)->notices(kGame);
  ASSERT_TRUE(notices.ok());
  ASSERT_FALSE(notices->empty());
  EXPECT_EQ(notices->back().kind, "rollback");
  EXPECT_EQ(notices->back().players.size(), 5u);
  EXPECT_NE(notices->back().text.find("The game master says: a die was misread"), std::string::npos)
      << notices->back().text;
}

TEST_F(HtmlForms, RunWithOrdersMissingAsksForConfirmation) {
  create_britain();
  const std::string gm = gm_cookie();
  ASSERT_TRUE(ctx_->services().submit_orders(kGame, orders_file(1, "WSX"), "cli").ok());
  Response ask = post("/gm/games/britain-1/run", {{"turn", "1"}}, gm);
  ASSERT_EQ(ask.status, 200) << ask.body;
  EXPECT_NE(ask.body.find("id=\"confirm-run-form\""), std::string::npos);
  EXPECT_NE(ask.body.find("<input type=\"hidden\" name=\"confirm\" value=\"1\">"),
            std::string::npos);
  EXPECT_NE(ask.body.find("4 of 5 players have no orders"), std::string::npos) << ask.body;
  for (const char* p : {"MRC", "NUM", "EAN", "GWN"})
    EXPECT_NE(ask.body.find(std::string("<td>") + p + "</td>"), std::string::npos) << p;
  EXPECT_EQ(ask.body.find("<td>WSX</td>"), std::string::npos);
  EXPECT_EQ(check_balanced(ask.body, true), "");
  EXPECT_EQ(ctx_->services().list_games()->front().turn, 1);  // not run yet
  Response run = post("/gm/games/britain-1/run", {{"turn", "1"}, {"confirm", "1"}}, gm);
  EXPECT_EQ(run.status, 303);
  EXPECT_EQ(ctx_->services().list_games()->front().turn, 2);
}

TEST_F(HtmlForms, OrdersFormKeepsTheTextMarksRejectedLinesAndShowsTheFileOnRecord) {
  create_britain();
  const std::string wsx = player_cookie("WSX");
  Response me = get("/games/britain-1/me", wsx);
  ASSERT_EQ(me.status, 200);
  EXPECT_NE(me.body.find("id=\"orders-form\""), std::string::npos);
  EXPECT_NE(me.body.find("id=\"on-record\""), std::string::npos);
  EXPECT_NE(me.body.find("None yet: if you send none, your areas hold."), std::string::npos);

  // A check with a bad line: the text stays in the form and the bad line is marked in place.
  const std::string text = "TURN 1\n1. LEVY HAM 3\n2. MOVE HAM XYZ 4\nEND\n";
  Response check = post_multipart("/games/britain-1/me/orders",
                                  {{"orders", text}, {"action", "check"}, {"turn", "1"}}, wsx);
  ASSERT_EQ(check.status, 200) << check.body;
  EXPECT_NE(check.body.find(">" + html_escape(text) + "</textarea>"), std::string::npos)
      << check.body;
  EXPECT_NE(check.body.find("<tr class=\"line-rejected\"><td class=\"n\">3</td><td><code>2. MOVE "
                            "HAM XYZ 4</code><div class=\"reason\">"),
            std::string::npos)
      << check.body;
  EXPECT_NE(check.body.find("<tr class=\"line-ok\"><td class=\"n\">2</td>"), std::string::npos);
  EXPECT_EQ(check_balanced(check.body, true), "");

  // A file refused whole (a wrong secret): shown again with the text, without the secret.
  const std::string wrong =
      "GAME britain-1\nPLAYER WSX not-my-secret\nTURN 1\n1. LEVY HAM 3\nEND\n";
  Response refused = post_multipart("/games/britain-1/me/orders",
                                    {{"orders", wrong}, {"action", "submit"}, {"turn", "1"}}, wsx);
  EXPECT_EQ(refused.status, 422) << refused.body;
  EXPECT_NE(refused.body.find("Your file was refused"), std::string::npos);
  EXPECT_EQ(refused.body.find("not-my-secret"), std::string::npos);
  EXPECT_NE(refused.body.find("1. LEVY HAM 3\nEND\n</textarea>"), std::string::npos);
  EXPECT_FALSE(has_orders("WSX"));

  // Submitted: PRG to the page, which shows the file on record with its rejected line marked,
  // and starts the form from it.
  Response sub = post_multipart("/games/britain-1/me/orders",
                                {{"orders", text}, {"action", "submit"}, {"turn", "1"}}, wsx);
  ASSERT_EQ(sub.status, 303) << sub.body;
  Response page = router_->route(follow(sub, request("GET", "/", wsx)));
  ASSERT_EQ(page.status, 200);
  const std::size_t rec = page.body.find("id=\"on-record\"");
  ASSERT_NE(rec, std::string::npos);
  EXPECT_NE(page.body.find("1 line accepted, 1 rejected", rec), std::string::npos) << page.body;
  EXPECT_NE(page.body.find("2. MOVE HAM XYZ 4</code><div class=\"reason\">", rec),
            std::string::npos);
  EXPECT_NE(page.body.find("1. LEVY HAM 3\n2. MOVE HAM XYZ 4\nEND\n</textarea>"), std::string::npos)
      << page.body;
  EXPECT_EQ(page.body.find("PLAYER WSX"), page.body.find("PLAYER WSX &lt;"));  // only the hint
  EXPECT_EQ(check_balanced(page.body, true), "");

  // The same form after the turn ran: nothing stored.
  ASSERT_TRUE(ctx_->admin().run_turn(kGame, false, "gm").ok());
  Response stale = post_multipart("/games/britain-1/me/orders",
                                  {{"orders", text}, {"action", "submit"}, {"turn", "1"}}, wsx);
  EXPECT_EQ(stale.status, 409);
  EXPECT_NE(stale.body.find("Turn 1 already ran; nothing was changed."), std::string::npos);
  EXPECT_FALSE(has_orders("WSX"));
}

TEST_F(HtmlForms, GmCreatesASecondCopyOfABundledScenario) {
  const std::string gm = gm_cookie();
  Response desk = get("/gm", gm);
  EXPECT_NE(desk.body.find("id=\"create-form\""), std::string::npos);
  EXPECT_NE(desk.body.find("name=\"id\""), std::string::npos);
  EXPECT_NE(desk.body.find("name=\"name\""), std::string::npos);
  ASSERT_EQ(post("/gm/games", {{"bundled", "dark-age-britain"}, {"demo_secrets", "1"}}, gm).status,
            303);
  Response copy = post("/gm/games",
                       {{"bundled", "dark-age-britain"},
                        {"demo_secrets", "1"},
                        {"id", "britain-2"},
                        {"name", "Britain, second table"}},
                       gm);
  ASSERT_EQ(copy.status, 303) << copy.body;
  EXPECT_EQ(header(copy, "Location"), "/gm/games/britain-2?done=created");
  auto sum = ctx_->app().store().game_summary("britain-2");
  ASSERT_TRUE(sum.ok());
  EXPECT_EQ(sum->name, "Britain, second table");

  // The id taken: said plainly, the form's values kept.
  Response dup = post(
      "/gm/games",
      {{"bundled", "dark-age-britain"}, {"id", "britain-2"}, {"name", "Third"}, {"seed", "12"}},
      gm);
  EXPECT_EQ(dup.status, 409);
  EXPECT_NE(dup.body.find("A game with id britain-2 already exists; choose another id."),
            std::string::npos)
      << dup.body;
  EXPECT_NE(dup.body.find("name=\"id\" value=\"britain-2\""), std::string::npos);
  EXPECT_NE(dup.body.find("name=\"name\" value=\"Third\""), std::string::npos);
  EXPECT_NE(dup.body.find("value=\"12\""), std::string::npos);
  EXPECT_NE(dup.body.find("<option value=\"dark-age-britain\" selected>"), std::string::npos);
  EXPECT_EQ(check_balanced(dup.body, true), "");
  Response bad = post("/gm/games", {{"bundled", "dark-age-britain"}, {"id", "no spaces"}}, gm);
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(bad.body.find("The game id may have letters, digits"), std::string::npos);
  EXPECT_EQ(ctx_->services().list_games()->size(), 2u);
}

TEST_F(HtmlForms, GmCreateFormListsEachErrorOnItsOwn) {
  // Two problems in one pasted scenario: an unknown owner and an edge to an unknown area.
  const std::string scenario = R"({
    "id": "t-1", "name": "Test", "engine": {"name": "dark-age"},
    "players": [{"code": "AAA", "name": "Alba", "secret": "s3cret-one"}],
    "areas": [{"code": "A1", "kind": "land", "owner": "ZZZ", "armies": 1},
              {"code": "A2", "kind": "land", "owner": "AAA", "armies": 1}],
    "adjacency": [["A1", "A2"], ["A1", "NOPE"]]
  })";
  Response bad = post("/gm/games", {{"scenario", scenario}}, gm_cookie());
  EXPECT_EQ(bad.status, 400) << bad.body;
  EXPECT_EQ(check_balanced(bad.body, true), "");
  const std::size_t box = bad.body.find("<div class=\"error\" id=\"create-error\"><p>");
  ASSERT_NE(box, std::string::npos) << bad.body;
  const std::string shown = bad.body.substr(box, bad.body.find("</div>", box) - box);
  EXPECT_NE(shown.find("<p>The game was not created: the scenario is not valid:</p>"),
            std::string::npos)
      << shown;
  EXPECT_EQ(count(shown, "<li>"), 2) << shown;
  EXPECT_NE(shown.find("ZZZ"), std::string::npos) << shown;
  EXPECT_NE(shown.find("NOPE"), std::string::npos) << shown;
  // A one-line error is a paragraph without a list.
  Response one = post("/gm/games", {{"scenario", "{not json"}}, gm_cookie());
  EXPECT_EQ(one.status, 400);
  EXPECT_NE(one.body.find("<p>The scenario is not a JSON object; check it and send it again.</p>"),
            std::string::npos)
      << one.body;
  EXPECT_EQ(one.body.find("<li>"), std::string::npos);
}

TEST_F(HtmlForms, GmCreateFormChecksAndPreviewsWithoutCreating) {
  // An unknown terrain (an error) and an area without borders (a warning).
  const std::string scenario = R"({
    "id": "t-2", "name": "Test", "engine": {"name": "dark-age"},
    "players": [{"code": "AAA", "name": "Alba"}, {"code": "BBB", "name": "Bern"}],
    "areas": [{"code": "A1", "kind": "land", "owner": "AAA", "armies": 1, "x": 0, "y": 0},
              {"code": "A2", "kind": "land", "terrain": "forrest", "owner": "BBB", "armies": 1,
               "x": 100, "y": 0},
              {"code": "A3", "kind": "land", "x": 0, "y": 100}],
    "adjacency": [["A1", "A2"]]
  })";
  const std::string gm = gm_cookie();
  Response r = post("/gm/games", {{"scenario", scenario}, {"action", "check"}}, gm);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(check_balanced(r.body, true), "");
  const std::size_t box = r.body.find("<section id=\"check-result\">");
  ASSERT_NE(box, std::string::npos) << r.body;
  const std::string shown = r.body.substr(box, r.body.find("</section>", box) - box);
  EXPECT_NE(shown.find("1 error (the game cannot be created), 1 warning:"), std::string::npos)
      << shown;
  EXPECT_NE(shown.find("<li class=\"finding-error\"><strong>Error</strong> "
                       "<code>/areas/1/terrain</code>: unknown terrain "),
            std::string::npos)
      << shown;
  EXPECT_NE(shown.find("<li class=\"finding-warning\"><strong>Warning</strong> "
                       "<code>/areas/2</code>: A3 has no borders"),
            std::string::npos)
      << shown;
  EXPECT_EQ(count(shown, "<li class=\"finding-"), 2) << shown;
  EXPECT_NE(shown.find("<svg"), std::string::npos);  // the map as the game would start
  EXPECT_NE(shown.find("area-A2"), std::string::npos);
  EXPECT_NE(r.body.find("t-2"), std::string::npos);  // the pasted scenario stays in the form
  EXPECT_TRUE(ctx_->services().list_games()->empty());

  // Creating refuses the error, with the same message.
  Response created = post("/gm/games", {{"scenario", scenario}}, gm);
  EXPECT_EQ(created.status, 400) << created.body;
  EXPECT_NE(created.body.find("/areas/1/terrain: unknown terrain &quot;forrest&quot;"),
            std::string::npos)
      << created.body;
  EXPECT_TRUE(ctx_->services().list_games()->empty());

  // A bundled scenario checks clean and is drawn; still nothing is created.
  Response clean = post("/gm/games", {{"bundled", "dark-age-britain"}, {"action", "check"}}, gm);
  ASSERT_EQ(clean.status, 200) << clean.body;
  EXPECT_NE(clean.body.find("No errors, no warnings: the scenario is ready to create."),
            std::string::npos);
  EXPECT_NE(clean.body.find("id=\"preview-map\""), std::string::npos);
  EXPECT_EQ(clean.body.find("<li class=\"finding-"), std::string::npos);
  EXPECT_TRUE(ctx_->services().list_games()->empty());
  // The desk offers the button.
  Response desk = get("/gm", gm);
  EXPECT_NE(desk.body.find("name=\"action\" value=\"check\""), std::string::npos);
}

TEST_F(HtmlForms, AuditLogAndDeadlineAreReadable) {
  create_britain();
  const std::string gm = gm_cookie();
  Response set =
      post("/gm/games/britain-1/deadline",
           {{"turn", "1"}, {"deadline_date", "2026-11-30"}, {"deadline_time", "18:30"}}, gm);
  ASSERT_EQ(set.status, 303) << set.body;
  EXPECT_EQ(*ctx_->admin().schedule(kGame)->deadline, 1'796'063'400);  // 2026-11-30 18:30 UTC
  EXPECT_EQ(post("/gm/games/britain-1/deadline",
                 {{"turn", "1"}, {"deadline_date", "2026-11-30"}, {"deadline_time", "6:30 PM"}}, gm)
                .status,
            400);
  Response desk = get("/gm/games/britain-1", gm);
  EXPECT_EQ(desk.body.find("datetime-local"), std::string::npos);
  EXPECT_NE(desk.body.find("name=\"deadline_date\" value=\"2026-11-30\""), std::string::npos);
  EXPECT_NE(desk.body.find("name=\"deadline_time\" value=\"18:30\""), std::string::npos);
  EXPECT_NE(desk.body.find("2026-11-30 18:30 UTC"), std::string::npos);
  ASSERT_TRUE(ctx_->services().submit_orders(kGame, orders_file(1, "WSX"), "cli").ok());
  ASSERT_EQ(post("/gm/games/britain-1/run", {{"turn", "1"}, {"confirm", "1"}}, gm).status, 303);

  Response audit = get("/games/britain-1/audit");
  ASSERT_EQ(audit.status, 200);
  EXPECT_NE(
      audit.body.find("<td data-label=\"When (UTC)\"><time datetime=\"2023-11-14T22:13:20Z\">"
                      "2023-11-14 22:13 UTC</time></td><td data-label=\"Who\">the GM</td>"
                      "<td data-label=\"What\">moved the deadline from none to 2026-11-30 18:30 "
                      "UTC</td>"),
      std::string::npos)
      << audit.body;
  EXPECT_NE(audit.body.find("ran turn 1; no orders from EAN, GWN, MRC, NUM"), std::string::npos);
  EXPECT_EQ(audit.body.find("{&quot;"), std::string::npos);     // no raw JSON
  EXPECT_EQ(audit.body.find("1700000000"), std::string::npos);  // no Unix times
  Response desk2 = get("/gm/games/britain-1", gm);
  EXPECT_NE(desk2.body.find("id=\"audit\""), std::string::npos);
  EXPECT_NE(desk2.body.find("ran turn 1; no orders from EAN, GWN, MRC, NUM"), std::string::npos);
}

TEST_F(HtmlForms, GmReadsAndEntersAPlayersOrders) {
  create_britain();
  const std::string gm = gm_cookie();
  ASSERT_TRUE(ctx_->services().submit_orders(kGame, orders_file(1, "WSX"), "cli").ok());
  Response desk = get("/gm/games/britain-1", gm);
  EXPECT_NE(desk.body.find("id=\"players\""), std::string::npos);
  EXPECT_NE(desk.body.find("href=\"/gm/games/britain-1/players/MRC/orders\""), std::string::npos);

  // WSX's file on record, the secret masked.
  Response wsx = get("/gm/games/britain-1/players/wsx/orders", gm);
  ASSERT_EQ(wsx.status, 200) << wsx.body;
  EXPECT_NE(wsx.body.find("id=\"on-record\""), std::string::npos);
  EXPECT_NE(wsx.body.find("MOVE HAM OXF 4"), std::string::npos);
  EXPECT_EQ(wsx.body.find("cerdic"), std::string::npos);
  EXPECT_NE(wsx.body.find("7 lines accepted, 1 rejected"), std::string::npos);
  EXPECT_EQ(check_balanced(wsx.body, true), "");
  EXPECT_EQ(get("/gm/games/britain-1/players/WSX/orders").status, 303);  // not the GM
  EXPECT_EQ(get("/gm/games/britain-1/players/XYZ/orders", gm).status, 404);

  // MRC has none; the GM enters them. Audited, MRC told, shown on record.
  Response mrc = get("/gm/games/britain-1/players/MRC/orders", gm);
  EXPECT_NE(mrc.body.find("id=\"gm-orders-form\""), std::string::npos);
  EXPECT_NE(mrc.body.find("No orders on file"), std::string::npos);
  Response with_player = post("/gm/games/britain-1/players/MRC/orders",
                              {{"turn", "1"}, {"orders", "PLAYER MRC x\n1. ORDER 2\n"}}, gm);
  EXPECT_EQ(with_player.status, 400);
  EXPECT_NE(with_player.body.find("Leave out the PLAYER line"), std::string::npos);
  Response entered = post("/gm/games/britain-1/players/MRC/orders",
                          {{"turn", "1"}, {"orders", "1. ORDER 2\n"}}, gm);
  ASSERT_EQ(entered.status, 303) << entered.body;
  EXPECT_EQ(header(entered, "Location"), "/gm/games/britain-1/players/MRC/orders?done=orders");
  EXPECT_TRUE(has_orders("MRC"));
  const auto log = ctx_->admin().audit_log(kGame);
  EXPECT_EQ(log->back().action, "orders");
  EXPECT_EQ(log->back().detail["player"], "MRC");
  EXPECT_EQ(log->back().detail["turn"], 1);
  auto notices = ctx_->app().store().notices(kGame);
  ASSERT_TRUE(notices.ok());
  ASSERT_EQ(notices->size(), 1u);
  EXPECT_EQ(notices->front().kind, "orders-entered");
  EXPECT_EQ(notices->front().players, std::vector<std::string>{"MRC"});
  EXPECT_NE(notices->front().text.find("ORDER 2"), std::string::npos);
  EXPECT_NE(notices->front().text.find("The GM entered orders for you (MRC) for turn 1"),
            std::string::npos);
  Response after = router_->route(follow(entered, request("GET", "/", gm)));
  EXPECT_NE(after.body.find("Orders entered for MRC for turn 1"), std::string::npos);
  EXPECT_NE(after.body.find("1. ORDER 2"), std::string::npos);
  // The player sees them on record on their own page.
  Response theirs = get("/games/britain-1/me", player_cookie("MRC"));
  EXPECT_NE(theirs.body.find("1. ORDER 2</code>"), std::string::npos);
  // Stale.
  ASSERT_TRUE(ctx_->admin().run_turn(kGame, false, "gm").ok());
  EXPECT_EQ(post("/gm/games/britain-1/players/MRC/orders",
                 {{"turn", "1"}, {"orders", "1. ORDER 2\n"}}, gm)
                .status,
            409);
}

TEST_F(HtmlForms, CredentialFormsAreNotReplayed) {
  create_britain();
  const std::string gm = gm_cookie();
  Response desk = get("/gm/games/britain-1", gm);
  const std::size_t at = desk.body.find("name=\"seen\" value=\"");
  ASSERT_NE(at, std::string::npos);
  const std::string seen = desk.body.substr(at + 19, desk.body.find('"', at + 19) - at - 19);
  Response first = post("/gm/games/britain-1/players/NUM/reset",
                        {{"what", "secret"}, {"turn", "1"}, {"seen", seen}}, gm);
  EXPECT_EQ(first.status, 200);
  Response reload = post("/gm/games/britain-1/players/NUM/reset",
                         {{"what", "secret"}, {"turn", "1"}, {"seen", seen}}, gm);
  EXPECT_EQ(reload.status, 409);
  EXPECT_NE(reload.body.find("was already issued for NUM"), std::string::npos);
  // Another player's, or another kind, is not a replay.
  EXPECT_EQ(post("/gm/games/britain-1/players/NUM/reset",
                 {{"what", "token"}, {"turn", "1"}, {"seen", seen}}, gm)
                .status,
            200);
}

TEST_F(HtmlForms, OutboxPageIsStyledAndShowsAMessage) {
  create_britain();
  const std::string gm = gm_cookie();
  Store& st = ctx_->app().store();
  OutboxMessage ack;
  ack.kind = "ack";
  ack.game = kGame;
  ack.to = "wessex@example.org";
  ack.raw =
      "From: Adjutant <adj@example.org>\r\nTo: wessex@example.org\r\nSubject: Orders received\r\n"
      "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n"
      "Content-Transfer-Encoding: quoted-printable\r\n\r\nPLAYER WSX cerdic\r\nCaf=C3=A9 ok=\r\n"
      " still\r\n";
  ack.dedupe_key = "t1";
  ack.created_at = 1'700'000'000;
  auto id = st.enqueue(ack);
  ASSERT_TRUE(id.ok());
  OutboxMessage secret = ack;
  secret.kind = "secret";
  secret.raw = "Subject: Your new secret\r\n\r\nYour secret: hunter22\r\n";
  secret.dedupe_key = "t2";
  auto sid = st.enqueue(secret);
  ASSERT_TRUE(sid.ok());

  Response list = get("/games/britain-1/outbox", gm);
  ASSERT_EQ(list.status, 200);
  EXPECT_NE(list.body.find("/static/adjutant.css"), std::string::npos);
  EXPECT_NE(list.body.find("href=\"/gm/outbox/" + std::to_string(*id) + "\""), std::string::npos);
  EXPECT_NE(list.body.find("<td data-label=\"Kind\">ack</td>"), std::string::npos);
  EXPECT_NE(list.body.find("\"><time datetime=\"2023-11-14T22:13:20Z\">2023-11-14 22:13:20 "
                           "UTC</time></a>"),
            std::string::npos)
      << list.body;
  EXPECT_EQ(check_balanced(list.body, true), "");
  Response msg = get("/gm/outbox/" + std::to_string(*id), gm);
  ASSERT_EQ(msg.status, 200);
  EXPECT_NE(msg.body.find("Orders received"), std::string::npos);
  EXPECT_NE(msg.body.find("Café ok still"), std::string::npos) << msg.body;
  EXPECT_EQ(msg.body.find("cerdic"), std::string::npos);
  EXPECT_EQ(check_balanced(msg.body, true), "");
  Response sec = get("/gm/outbox/" + std::to_string(*sid), gm);
  ASSERT_EQ(sec.status, 200);
  EXPECT_EQ(sec.body.find("hunter22"), std::string::npos);
  EXPECT_NE(sec.body.find("secret withheld"), std::string::npos);
  // Press: shown only while the game lets the GM read the players' press.
  OutboxMessage press = ack;
  press.kind = "press";
  press.raw = "Subject: Press from Mercia\r\n\r\nLet us share Wessex.\r\n";
  press.dedupe_key = "t3";
  auto pid = st.enqueue(press);
  ASSERT_TRUE(pid.ok());
  EXPECT_NE(get("/gm/outbox/" + std::to_string(*pid), gm).body.find("Let us share Wessex."),
            std::string::npos);
  ASSERT_TRUE(st.set_press_options(kGame, PressOptions{"private", false, false, ""}).ok());
  Response hidden = get("/gm/outbox/" + std::to_string(*pid), gm);
  ASSERT_EQ(hidden.status, 200);
  EXPECT_EQ(hidden.body.find("Let us share Wessex."), std::string::npos);
  EXPECT_NE(hidden.body.find("press withheld"), std::string::npos);
  EXPECT_EQ(get("/gm/outbox/" + std::to_string(*id)).status, 403);
  EXPECT_EQ(get("/gm/outbox/999999", gm).status, 404);
  EXPECT_EQ(get("/gm/outbox/abc", gm).status, 404);
}

}  // namespace
}  // namespace adj::web
