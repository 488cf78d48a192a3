// Press on the web and in the JSON API (server/web/press_routes.cc) through the Router, as
// web_pages_test.cc does: a real SQLite file, requests built as a browser or a script sends them.
// The mail a message causes is read from the notices queue (what NoticeMailer turns into mail).
#include <gtest/gtest.h>

#include <memory>
#include <set>

#include "rules/game/scenario.h"
#include "server/app/press_digest.h"
#include "server/web/routes.h"
#include "server/web/web_context.h"
#include "server/web/web_session.h"
#include "storage/sqlite/sqlite_store.h"
#include "storage/store.h"
#include "tests/server/press_web_fixture.h"
#include "tests/server/web_pages_fixture.h"
#include "tests/server/web_test_util.h"
#include "tests/support/temp_dir.h"

namespace adj::web {
namespace {

using ::adj::testing::check_balanced;
using ::adj::testing::count;
using http::Request;
using http::Response;

using namespace press_test;

class PressWeb : public PressWebFixture {};

TEST_F(PressWeb, InboxComposeSendsAndTheRecipientReadsIt) {
  const std::string wsx = cookie("WSX"), mrc = cookie("MRC"), num = cookie("NUM");
  const Response form = get("/games/britain-1/me/press", wsx);
  ASSERT_EQ(form.status, 200) << form.body;
  EXPECT_EQ(check_balanced(form.body, true), "");
  EXPECT_NE(form.body.find("id=\"press-form\""), std::string::npos);
  EXPECT_NE(form.body.find("id=\"press-inbox\""), std::string::npos);
  EXPECT_NE(form.body.find("value=\"MRC\""), std::string::npos);
  EXPECT_EQ(form.body.find("value=\"WSX\""), std::string::npos);  // not to oneself
  EXPECT_NE(form.body.find("name=\"turn\" value=\"1\""), std::string::npos);
  EXPECT_NE(form.body.find("No press yet"), std::string::npos);

  const Response sent = post(
      "/games/britain-1/me/press",
      {{"turn", "1"}, {"to", "MRC"}, {"to", "NUM"}, {"body", "Let us <b>share</b> Oxfordshire."}},
      wsx);
  ASSERT_EQ(sent.status, 303) << sent.body;
  const std::string where = header(sent, "Location");
  EXPECT_EQ(where.rfind("/games/britain-1/me/press?sent=", 0), 0u) << where;
  // The flash names the message's recipients, never text from the link.
  EXPECT_EQ(get("/games/britain-1/me/press?sent=Fake%20news", wsx).body.find("Fake"),
            std::string::npos);
  const Response after = get(where, wsx);
  EXPECT_NE(after.body.find("Your message was sent to Mercia (MRC), Northumbria (NUM)"),
            std::string::npos)
      << after.body;
  EXPECT_EQ(count(after.body, "class=\"press-message\""), 1);
  EXPECT_NE(after.body.find("Sent"), std::string::npos);

  const Response theirs = get("/games/britain-1/me/press", mrc);
  EXPECT_EQ(count(theirs.body, "class=\"press-message\""), 1);
  EXPECT_NE(theirs.body.find("From: Wessex (WSX)"), std::string::npos);
  EXPECT_NE(theirs.body.find("Let us &lt;b&gt;share&lt;/b&gt; Oxfordshire."), std::string::npos);
  EXPECT_EQ(count(get("/games/britain-1/me/press", cookie("EAN")).body, "class=\"press-message\""),
            0);  // not a recipient

  // Mailed to each recipient in their digest: one mail each, naming the sender.
  const auto notices = press_notices();
  ASSERT_EQ(notices.size(), 2u);
  std::set<std::string> mailed;
  for (const Notice& n : notices) {
    mailed.insert(n.players.at(0));
    EXPECT_EQ(n.subject, "Press: 1 new message");
    EXPECT_NE(n.text.find("From: Wessex (WSX)"), std::string::npos);
    EXPECT_NE(n.text.find("Let us <b>share</b> Oxfordshire."), std::string::npos);
    EXPECT_EQ(n.thread, "press:digest");
  }
  EXPECT_EQ(mailed, (std::set<std::string>{"MRC", "NUM"}));

  // An answer from MRC to WSX and NUM: one digest more for each of them.
  ASSERT_EQ(post("/games/britain-1/me/press",
                 {{"turn", "1"}, {"to", "WSX"}, {"to", "NUM"}, {"body", "Agreed."}}, mrc)
                .status,
            303);
  EXPECT_EQ(press_notices().size(), 4u);
  // Newest first in NUM's inbox.
  const std::string nbox = get("/games/britain-1/me/press", num).body;
  EXPECT_LT(nbox.find("Agreed."), nbox.find("Oxfordshire"));
}

TEST_F(PressWeb, ErrorsKeepTheTextAndAStaleTurnSendsNothing) {
  const std::string wsx = cookie("WSX");
  const Response stale =
      post("/games/britain-1/me/press", {{"turn", "0"}, {"to", "MRC"}, {"body", "Kept text"}}, wsx);
  EXPECT_EQ(stale.status, 409);
  EXPECT_NE(stale.body.find("Turn 0 already ran"), std::string::npos);
  EXPECT_NE(stale.body.find(">Kept text</textarea>"), std::string::npos);
  const Response unknown =
      post("/games/britain-1/me/press", {{"turn", "1"}, {"to", "XYZ"}, {"body", "Who?"}}, wsx);
  EXPECT_EQ(unknown.status, 400);
  EXPECT_NE(unknown.body.find("no kingdom &quot;XYZ&quot; in this game"), std::string::npos)
      << unknown.body;
  const Response none = post("/games/britain-1/me/press", {{"turn", "1"}, {"body", "Hm"}}, wsx);
  EXPECT_EQ(none.status, 400);
  EXPECT_NE(none.body.find("names no recipient"), std::string::npos);
  const Response too_long =
      post("/games/britain-1/me/press",
           {{"turn", "1"}, {"to", "ALL"}, {"body", std::string(9000, 'x')}}, wsx);
  EXPECT_EQ(too_long.status, 400);
  EXPECT_NE(too_long.body.find("at most 8192 bytes"), std::string::npos);
  EXPECT_TRUE(press_notices().empty());
  // Without a session or CSRF token nothing is sent.
  EXPECT_EQ(post("/games/britain-1/me/press", {{"to", "MRC"}, {"body", "x"}}, "").status, 401);
  EXPECT_EQ(get("/games/britain-1/me/press").status, 303);
  Request forged = request("POST", "/games/britain-1/me/press", wsx);
  forged.headers["origin"] = "http://evil.example";
  forged.body = "to=MRC&body=x";
  EXPECT_EQ(router_->route(forged).status, 403);
  EXPECT_TRUE(press_notices().empty());
}

TEST_F(PressWeb, OptionsDecideWhatMaySend) {
  const std::string wsx = cookie("WSX");
  const std::string tok = token("WSX");
  // Default: private, the GM reads it.
  const Response def = api("GET", "/api/games/britain-1/options/press", "");
  ASSERT_EQ(def.status, 200);
  EXPECT_EQ(Json::parse(def.body)["press"], "private");
  EXPECT_EQ(Json::parse(def.body)["gm_reads_private"], true);
  EXPECT_EQ(api("POST", "/api/games/britain-1/press", tok,
                R"({"to": ["MRC"], "body": "hi", "anonymous": true})")
                .status,
            409);  // anonymous not allowed under "private"

  set_press("none");
  Response r = api("POST", "/api/games/britain-1/press", tok, R"({"to": "ALL", "body": "hi"})");
  EXPECT_EQ(r.status, 409);
  EXPECT_NE(r.body.find("this game has no press"), std::string::npos);
  EXPECT_EQ(get("/games/britain-1/me/press", wsx).body.find("id=\"press-form\""),
            std::string::npos);

  set_press("public");
  r = api("POST", "/api/games/britain-1/press", tok, R"({"to": ["MRC"], "body": "hi"})");
  EXPECT_EQ(r.status, 409);
  EXPECT_NE(r.body.find("public press only"), std::string::npos);
  r = api("POST", "/api/games/britain-1/press", tok, R"({"to": "ALL", "body": "Hear ye"})");
  EXPECT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(Json::parse(r.body)["to"], "ALL");
  // Public press: everyone else is mailed, and anyone may read it.
  ASSERT_EQ(press_notices().size(), 4u);  // one digest per other kingdom
  EXPECT_NE(get("/games/britain-1").body.find("href=\"/games/britain-1/press\""),
            std::string::npos);
  const Response pub = get("/games/britain-1/press");
  EXPECT_EQ(pub.status, 200);
  EXPECT_NE(pub.body.find("Hear ye"), std::string::npos);

  set_press("anonymous");
  r = api("POST", "/api/games/britain-1/press", tok,
          R"({"to": ["mercia", "NUM"], "body": "A friend warns you.", "anonymous": true})");
  ASSERT_EQ(r.status, 201) << r.body;
  const Notice anon = press_notices().back();
  EXPECT_EQ(anon.subject.find("WSX"), std::string::npos);
  EXPECT_EQ(anon.subject.find("Wessex"), std::string::npos);
  EXPECT_EQ(anon.text.find("WSX"), std::string::npos);
  EXPECT_EQ(anon.text.find("Wessex"), std::string::npos);
  EXPECT_EQ(anon.thread.find("WSX"), std::string::npos);
  // The recipient does not learn the sender; the sender sees their own.
  const Json mrc_box =
      Json::parse(api("GET", "/api/games/britain-1/press", token("MRC")).body)["messages"];
  ASSERT_EQ(mrc_box.size(), 2u);
  EXPECT_TRUE(mrc_box[0]["from"].is_null());
  EXPECT_EQ(mrc_box[0]["from_label"], "anonymous");
  const std::string mrc_page = get("/games/britain-1/me/press", cookie("MRC")).body;
  EXPECT_EQ(count(mrc_page, "From: anonymous"), 1);
  EXPECT_EQ(count(mrc_page, "From: Wessex (WSX)"), 1);  // the public message only
  const Json wsx_box = Json::parse(api("GET", "/api/games/britain-1/press", tok).body)["messages"];
  EXPECT_EQ(wsx_box[0]["from"], "WSX");
  EXPECT_EQ(wsx_box[0]["sent"], true);

  // The GM reads private press and who sent the anonymous one, unless the game keeps it from
  // them.
  std::string desk = get("/gm/games/britain-1/press", gm_cookie()).body;
  EXPECT_NE(desk.find("id=\"press-options-form\""), std::string::npos);
  EXPECT_NE(desk.find("A friend warns you."), std::string::npos);
  EXPECT_NE(desk.find("Wessex (WSX) (sent anonymously)"), std::string::npos);
  const Json gm_api = Json::parse(api("GET", "/api/games/britain-1/press", kPressGmToken).body);
  EXPECT_EQ(gm_api["messages"][0]["from"], "WSX");
  set_press("anonymous", false);
  desk = get("/gm/games/britain-1/press", gm_cookie()).body;
  EXPECT_EQ(desk.find("A friend warns you."), std::string::npos);
  EXPECT_NE(desk.find("Hear ye"), std::string::npos);
  const Json gm_public = Json::parse(api("GET", "/api/games/britain-1/press", kPressGmToken).body);
  ASSERT_EQ(gm_public["messages"].size(), 1u);  // the public message only
  EXPECT_EQ(gm_public["messages"][0]["body"], "Hear ye");

  // Bad option values name what is allowed; players cannot set options.
  r = api("PUT", "/api/games/britain-1/options/press", kPressGmToken, R"({"press": "loud"})");
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.body.find("none, public, private or anonymous"), std::string::npos);
  EXPECT_EQ(api("PUT", "/api/games/britain-1/options/press", tok, R"({"press": "none"})").status,
            403);
  // Changes are audited.
  auto log = ctx_->admin().audit_log(pages_test::kGame);
  ASSERT_TRUE(log.ok());
  int changes = 0;
  for (const auto& e : *log) changes += e.action == "press-options";
  EXPECT_EQ(changes, 4);
}

TEST_F(PressWeb, GmDeskFormSetsOptions) {
  const std::string desk = get("/gm/games/britain-1/press", gm_cookie()).body;
  EXPECT_EQ(check_balanced(desk, true), "");
  EXPECT_NE(get("/gm/games/britain-1", gm_cookie()).body.find("/gm/games/britain-1/press"),
            std::string::npos);
  const Response saved =
      post("/gm/games/britain-1/press/options", {{"turn", "1"}, {"press", "public"}}, gm_cookie());
  ASSERT_EQ(saved.status, 303) << saved.body;
  auto o = ctx_->app().store().press_options(pages_test::kGame);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->press, "public");
  EXPECT_FALSE(o->gm_reads_private);  // unchecked box
  EXPECT_EQ(
      post("/gm/games/britain-1/press/options", {{"turn", "1"}, {"press", "loud"}}, gm_cookie())
          .status,
      400);
  EXPECT_EQ(
      post("/gm/games/britain-1/press/options", {{"turn", "1"}, {"press", "none"}}, cookie("WSX"))
          .status,
      403);
  EXPECT_EQ(ctx_->app().store().press_options(pages_test::kGame)->press, "public");
}

TEST_F(PressWeb, ApiNeedsAPlayerAndChecksItsInput) {
  const std::string tok = token("WSX");
  EXPECT_EQ(api("GET", "/api/games/britain-1/press", "").status, 401);
  EXPECT_EQ(api("POST", "/api/games/britain-1/press", "", R"({"to": "ALL", "body": "x"})").status,
            401);
  EXPECT_EQ(
      api("POST", "/api/games/britain-1/press", "nonsense", R"({"to":"ALL","body":"x"})").status,
      401);
  // The GM token sends the GM's press (marked as from the GM).
  Response gm =
      api("POST", "/api/games/britain-1/press", kPressGmToken, R"({"to":"ALL","body":"x"})");
  EXPECT_EQ(gm.status, 201) << gm.body;
  EXPECT_EQ(Json::parse(gm.body)["from_label"], "the GM");
  Response r = api("POST", "/api/games/britain-1/press", tok, R"({"to": 5, "body": "x"})");
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.body.find("\\\"to\\\" must be"), std::string::npos) << r.body;
  r = api("POST", "/api/games/britain-1/press", tok, R"({"to": ["WSX"], "body": "me"})");
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.body.find("yourself"), std::string::npos);
  r = api("POST", "/api/games/britain-1/press", tok, "[]");
  EXPECT_EQ(r.status, 400);
  r = api("POST", "/api/games/britain-1/press", tok, R"({"to": "MRC, gwn", "body": "two"})");
  EXPECT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(Json::parse(r.body)["to"], Json::array({"MRC", "GWN"}));
  r = api("POST", "/api/games/britain-1/press", tok, R"({"to": ["East Anglia"], "body": "ok"})");
  EXPECT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(Json::parse(r.body)["to"], Json::array({"EAN"}));
  const Json box = Json::parse(api("GET", "/api/games/britain-1/press", tok).body);
  ASSERT_EQ(box["messages"].size(), 3u);  // the GM's to all, and the two sent
  EXPECT_EQ(box["messages"][0]["turn"], 1);
  EXPECT_EQ(box["messages"][0]["sent_at"], pages_test::kNow);
  EXPECT_EQ(box["messages"][2]["from_label"], "the GM");
  // Private press is not public, nor in the archive before the end: only the GM's to all is.
  EXPECT_EQ(
      Json::parse(api("GET", "/api/games/britain-1/press/archive", "").body)["messages"].size(),
      1u);
}

TEST_F(PressWeb, PerTurnBoundIsNamedAndFinishedGamesArchiveEverything) {
  const std::string tok = token("WSX");
  for (int i = 0; i < 100; ++i)
    ASSERT_EQ(api("POST", "/api/games/britain-1/press", tok,
                  Json{{"to", {"MRC"}}, {"body", "note " + std::to_string(i)}}.dump())
                  .status,
              201);
  Response r = api("POST", "/api/games/britain-1/press", tok, R"({"to": ["MRC"], "body": "x"})");
  EXPECT_EQ(r.status, 409);
  EXPECT_NE(r.body.find("100 press messages this turn"), std::string::npos) << r.body;
  // Another player still may.
  EXPECT_EQ(
      api("POST", "/api/games/britain-1/press", token("MRC"), R"({"to": ["WSX"], "body": "y"})")
          .status,
      201);

  ASSERT_TRUE(ctx_->app().store().set_game_status(pages_test::kGame, "finished").ok());
  r = api("POST", "/api/games/britain-1/press", token("MRC"), R"({"to": ["WSX"], "body": "z"})");
  EXPECT_EQ(r.status, 409);
  EXPECT_NE(r.body.find("the game is over"), std::string::npos);
  const Json archive =
      Json::parse(api("GET", "/api/games/britain-1/press/archive", "").body)["messages"];
  EXPECT_EQ(archive.size(), 101u);
  const Response page = get("/games/britain-1/press");
  EXPECT_NE(page.body.find("Press archive"), std::string::npos);
  EXPECT_EQ(count(page.body, "class=\"press-message\""), 101);
}

TEST_F(PressWeb, AnonymousCheckboxOnlyWhereAllowed) {
  const std::string num = cookie("NUM");
  EXPECT_EQ(get("/games/britain-1/me/press", num).body.find("name=\"anonymous\""),
            std::string::npos);
  const Response refused =
      post("/games/britain-1/me/press",
           {{"turn", "1"}, {"to", "MRC"}, {"body", "Boo"}, {"anonymous", "1"}}, num);
  EXPECT_EQ(refused.status, 409);
  EXPECT_NE(refused.body.find("does not allow anonymous press"), std::string::npos);
  EXPECT_NE(refused.body.find(">Boo</textarea>"), std::string::npos);
  set_press("anonymous");
  EXPECT_NE(get("/games/britain-1/me/press", num).body.find("name=\"anonymous\""),
            std::string::npos);
  ASSERT_EQ(post("/games/britain-1/me/press",
                 {{"turn", "1"}, {"to", "MRC"}, {"body", "Boo"}, {"anonymous", "1"}}, num)
                .status,
            303);
  const auto n = press_notices();
  ASSERT_EQ(n.size(), 1u);
  EXPECT_EQ(n[0].subject, "Press: 1 new message");
  EXPECT_NE(n[0].text.find("From: anonymous"), std::string::npos);
  EXPECT_EQ(n[0].text.find("Northumbria"), std::string::npos);
  const std::string theirs = get("/games/britain-1/me/press", cookie("MRC")).body;
  EXPECT_NE(theirs.find("From: anonymous"), std::string::npos);
  EXPECT_EQ(theirs.find("From: Northumbria"), std::string::npos);
  EXPECT_NE(get("/games/britain-1/me/press", num).body.find("Northumbria (NUM) (sent anonymously)"),
            std::string::npos);
}

}  // namespace
}  // namespace adj::web
