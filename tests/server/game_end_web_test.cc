// A game's end on the web, through the Router (no sockets) over a real SQLite file: the JSON API
// (DELETE /api/games/{g}, POST .../archive and .../unarchive: the GM token, 200/404/409, the
// answers' schemas, ?archived=1) and the GM desk's forms (a draft's "Delete this draft" with its
// confirmation page, "Archive" on a started game, archived games apart on the game lists).
#include <gtest/gtest.h>

#include "rules/game/json_schema.h"
#include "tests/server/web_pages_fixture.h"
#include "tests/server/web_test_util.h"

namespace adj::web {
namespace {

using ::adj::testing::check_balanced;
using http::Request;
using http::Response;

using namespace pages_test;  // kGame, kGmToken, kNow, kPlayers, orders_file, header

class GameEndWeb : public PagesFixture {
 protected:
  // An API call with `bearer` as its token ("" for none).
  Response api(const std::string& method, const std::string& path, const std::string& body = "",
               const std::string& bearer = kGmToken) {
    Request r = request(method, path);
    if (!bearer.empty()) r.headers["authorization"] = "Bearer " + bearer;
    r.headers["content-type"] = "application/json";
    r.body = body;
    const std::size_t q = path.find('?');
    if (q != std::string::npos) {
      r.path = path.substr(0, q);
      const std::string kv = path.substr(q + 1);
      r.query[kv.substr(0, kv.find('='))] = kv.substr(kv.find('=') + 1);
    }
    return router_->route(r);
  }
  static Json body(const Response& r) {
    Json j = Json::parse(r.body, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << r.body;
    return j;
  }
  static void expect_schema(const Response& r, const std::string& schema) {
    const auto errors = validate_against_schema(body(r), "schemas/api/" + schema);
    EXPECT_TRUE(errors.empty()) << schema << ": " << format_errors(errors) << "\n" << r.body;
  }
  bool exists() { return ctx_->services().game_summary(kGame).ok(); }
};

// ---- API ----

TEST_F(GameEndWeb, DeleteNeedsTheGmToken) {
  create_britain();
  EXPECT_EQ(api("DELETE", "/api/games/britain-1", "", "").status, 401);
  EXPECT_EQ(api("DELETE", "/api/games/britain-1", "", "not-the-token").status, 401);
  auto token = ctx_->admin().issue_player_token(kGame, "WSX", "gm");
  ASSERT_TRUE(token.ok());
  EXPECT_EQ(api("DELETE", "/api/games/britain-1", "", *token).status, 403);
  EXPECT_EQ(api("POST", "/api/games/britain-1/archive", "", *token).status, 403);
  EXPECT_EQ(api("POST", "/api/games/britain-1/archive", "", "").status, 401);
  EXPECT_TRUE(exists());
  EXPECT_FALSE(ctx_->services().game_summary(kGame)->archived_at.has_value());
  EXPECT_TRUE(ctx_->admin().host_audit_log(10)->empty());
}

TEST_F(GameEndWeb, DeletingADraftAnswersWhatWasRemoved) {
  create_britain();
  ASSERT_TRUE(ctx_->services().submit_orders(kGame, orders_file(1, "WSX"), "cli").ok());
  EXPECT_EQ(api("DELETE", "/api/games/britain-1", "{\"reason\": 5}").status, 400);
  EXPECT_EQ(api("DELETE", "/api/games/britain-1", "{not json").status, 400);
  EXPECT_TRUE(exists());

  Response r = api("DELETE", "/api/games/BRITAIN-1", R"({"reason": "a test draft"})");
  ASSERT_EQ(r.status, 200) << r.body;
  expect_schema(r, "game_deletion.schema.json");
  EXPECT_EQ(body(r)["game"], "britain-1");
  EXPECT_EQ(body(r)["removed"]["games"], 1);
  EXPECT_EQ(body(r)["removed"]["submissions"], 1);
  EXPECT_EQ(header(r, "Cache-Control"), "no-store");
  EXPECT_FALSE(exists());
  EXPECT_EQ(api("GET", "/api/games/britain-1").status, 404);
  EXPECT_EQ(api("DELETE", "/api/games/britain-1").status, 404);
  auto log = ctx_->admin().host_audit_log(10);
  ASSERT_EQ(log->size(), 1u);
  EXPECT_EQ(log->front().detail["why"], "a test draft");
}

TEST_F(GameEndWeb, AStartedGameIsRefusedWith409AndCanBeArchived) {
  create_britain();
  play_turn1();
  Response r = api("DELETE", "/api/games/britain-1");
  ASSERT_EQ(r.status, 409) << r.body;
  expect_schema(r, "error.schema.json");
  EXPECT_NE(
      body(r)["error"].get<std::string>().find("has started (turn 1 ran); archive it instead"),
      std::string::npos)
      << r.body;
  EXPECT_TRUE(exists());

  r = api("POST", "/api/games/britain-1/archive", R"({"reason": "abandoned"})");
  ASSERT_EQ(r.status, 200) << r.body;
  expect_schema(r, "game_summary.schema.json");
  EXPECT_EQ(body(r)["archived_at"], kNow);
  EXPECT_EQ(api("POST", "/api/games/britain-1/archive").status, 409);
  // Out of the list, listed with ?archived=1, readable.
  Response list = api("GET", "/api/games");
  expect_schema(list, "game_list.schema.json");
  EXPECT_TRUE(body(list)["games"].empty());
  list = api("GET", "/api/games?archived=1");
  ASSERT_EQ(body(list)["games"].size(), 1u);
  EXPECT_EQ(body(list)["games"][0]["archived_at"], kNow);
  Response shown = api("GET", "/api/games/britain-1");
  EXPECT_EQ(shown.status, 200);
  expect_schema(shown, "game.schema.json");
  EXPECT_EQ(body(shown)["archived_at"], kNow);
  // Nothing new: a turn run is 409, orders are refused.
  r = api("POST", "/api/games/britain-1/turns/run");
  EXPECT_EQ(r.status, 409);
  EXPECT_NE(r.body.find("is archived"), std::string::npos) << r.body;
  auto orders = ctx_->services().submit_orders(kGame, orders_file(2, "WSX"), "api");
  ASSERT_TRUE(orders.ok());
  EXPECT_TRUE(orders->ack.refused);

  r = api("POST", "/api/games/britain-1/unarchive");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(body(r)["archived_at"].is_null());
  EXPECT_EQ(api("POST", "/api/games/britain-1/unarchive").status, 409);
  EXPECT_EQ(body(api("GET", "/api/games"))["games"].size(), 1u);
  EXPECT_EQ(api("POST", "/api/games/nope/archive").status, 404);
}

// ---- GM desk ----

TEST_F(GameEndWeb, ADraftIsDeletedFromTheDeskAfterAConfirmation) {
  create_britain();
  const std::string gm = gm_cookie();
  Response desk = get("/gm/games/britain-1", gm);
  ASSERT_EQ(desk.status, 200);
  EXPECT_NE(desk.body.find("id=\"delete-form\""), std::string::npos);
  EXPECT_NE(desk.body.find("Delete this draft"), std::string::npos);
  EXPECT_NE(desk.body.find("id=\"archive-form\""), std::string::npos);
  EXPECT_EQ(check_balanced(desk.body, true), "");

  // Without the GM, or from elsewhere: nothing.
  EXPECT_EQ(post("/gm/games/britain-1/delete", {{"turn", "1"}, {"confirm", "1"}}).status, 403);
  EXPECT_NE(post("/gm/games/britain-1/delete", {{"turn", "1"}, {"confirm", "1"}}, gm, false).status,
            303);
  EXPECT_TRUE(exists());

  // The form asks first, saying what goes.
  Response ask = post("/gm/games/britain-1/delete", {{"turn", "1"}, {"reason", "a typo"}}, gm);
  ASSERT_EQ(ask.status, 200) << ask.body;
  EXPECT_NE(ask.body.find("id=\"confirm-delete-form\""), std::string::npos);
  EXPECT_NE(ask.body.find("5 positions"), std::string::npos) << ask.body;
  EXPECT_NE(ask.body.find("This cannot be undone"), std::string::npos);
  EXPECT_NE(ask.body.find("value=\"a typo\""), std::string::npos);
  EXPECT_EQ(check_balanced(ask.body, true), "");
  EXPECT_TRUE(exists());
  // A form made for another turn changes nothing.
  EXPECT_EQ(post("/gm/games/britain-1/delete", {{"turn", "2"}, {"confirm", "1"}}, gm).status, 409);
  EXPECT_TRUE(exists());

  Response done = post("/gm/games/britain-1/delete",
                       {{"turn", "1"}, {"confirm", "1"}, {"reason", "a typo"}}, gm);
  ASSERT_EQ(done.status, 303) << done.body;
  EXPECT_EQ(header(done, "Location"), "/gm?done=deleted");
  EXPECT_FALSE(exists());
  Request landed = request("GET", "/gm", gm);
  landed.query["done"] = "deleted";
  Response index = router_->route(landed);
  ASSERT_EQ(index.status, 200);
  EXPECT_NE(index.body.find("The game was deleted"), std::string::npos);
  EXPECT_NE(index.body.find("id=\"host-audit\""), std::string::npos);
  EXPECT_NE(index.body.find("deleted the game Dark Age Britain"), std::string::npos) << index.body;
  EXPECT_NE(index.body.find("reason: a typo"), std::string::npos);
  EXPECT_EQ(get("/games/britain-1").status, 404);
}

TEST_F(GameEndWeb, AStartedGameOffersArchiveNotDeleteAndArchivedGamesAreListedApart) {
  create_britain();
  play_turn1();
  const std::string gm = gm_cookie();
  Response desk = get("/gm/games/britain-1", gm);
  ASSERT_EQ(desk.status, 200);
  EXPECT_EQ(desk.body.find("id=\"delete-form\""), std::string::npos);
  EXPECT_NE(desk.body.find("id=\"archive-form\""), std::string::npos);
  // A forged delete form is refused with the reason.
  Response refused = post("/gm/games/britain-1/delete", {{"turn", "2"}, {"confirm", "1"}}, gm);
  EXPECT_EQ(refused.status, 409);
  EXPECT_NE(refused.body.find("archive it instead"), std::string::npos) << refused.body;
  EXPECT_TRUE(exists());

  Response archived = post("/gm/games/britain-1/archive", {{"turn", "2"}, {"reason", "done"}}, gm);
  ASSERT_EQ(archived.status, 303) << archived.body;
  EXPECT_EQ(header(archived, "Location"), "/gm/games/britain-1?done=archived");
  desk = get("/gm/games/britain-1", gm);
  EXPECT_NE(desk.body.find("id=\"unarchive-form\""), std::string::npos);
  EXPECT_EQ(desk.body.find("id=\"archive-form\""), std::string::npos);
  EXPECT_EQ(desk.body.find("id=\"run-form\""), std::string::npos);  // no turn forms
  EXPECT_EQ(check_balanced(desk.body, true), "");

  // The public list has it under "Archived games" only; its page is readable and says so.
  Response index = get("/");
  ASSERT_EQ(index.status, 200);
  const std::size_t section = index.body.find("id=\"archived-games\"");
  ASSERT_NE(section, std::string::npos) << index.body;
  EXPECT_GT(index.body.find("href=\"/games/britain-1\""), section);  // not in the open list
  EXPECT_EQ(check_balanced(index.body, true), "");
  Response page = get("/games/britain-1");
  ASSERT_EQ(page.status, 200);
  EXPECT_NE(page.body.find("id=\"archived-note\""), std::string::npos);
  Response gm_index = get("/gm", gm);
  EXPECT_NE(gm_index.body.find("id=\"archived-games\""), std::string::npos);
  EXPECT_NE(gm_index.body.find("archived the game"), std::string::npos);  // host audit log

  ASSERT_EQ(post("/gm/games/britain-1/unarchive", {{"turn", "2"}}, gm).status, 303);
  index = get("/");
  EXPECT_EQ(index.body.find("id=\"archived-games\""), std::string::npos);
  EXPECT_NE(index.body.find("href=\"/games/britain-1\""), std::string::npos);
}

}  // namespace
}  // namespace adj::web
