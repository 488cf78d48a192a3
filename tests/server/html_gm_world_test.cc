// The GM desk's "New game from a generated world" (server/web/html_gm_world_routes.cc) and the
// API's world requests (POST /api/worlds/preview, POST /api/games {"world": ...}), through the
// Router over a real SQLite file.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "server/web/routes.h"
#include "server/web/web_context.h"
#include "storage/store.h"
#include "tests/server/web_pages_fixture.h"
#include "tests/server/web_test_util.h"

namespace adj::web {
namespace {

using ::adj::testing::check_balanced;
using http::Response;
using namespace pages_test;  // kGmToken, header

class HtmlGmWorld : public PagesFixture {
 protected:
  // An API call with a JSON body, `auth` its Authorization header ("" for none).
  Response api(const std::string& method, const std::string& path, const std::string& body,
               const std::string& auth) {
    http::Request r = request(method, path);
    r.body = body;
    r.headers["content-type"] = "application/json";
    if (!auth.empty()) r.headers["authorization"] = auth;
    return router_->route(r);
  }
};

TEST_F(HtmlGmWorld, ThePreviewShowsTheMapAndFiguresThenCreatesThatWorld) {
  const std::string gm = gm_cookie();
  Response desk = get("/gm", gm);
  EXPECT_NE(desk.body.find("href=\"/gm/world\""), std::string::npos);
  Response form = get("/gm/world", gm);
  ASSERT_EQ(form.status, 200);
  EXPECT_NE(form.body.find("id=\"world-form\""), std::string::npos);
  EXPECT_EQ(form.body.find("id=\"world-preview\""), std::string::npos);
  EXPECT_EQ(check_balanced(form.body, true), "");

  Response preview =
      post("/gm/world/preview",
           {{"engine", "path-of-war"}, {"players", "6"}, {"areas_per_player", "4"}}, gm);
  ASSERT_EQ(preview.status, 200) << preview.body;
  EXPECT_NE(preview.body.find("id=\"world-preview\""), std::string::npos);
  EXPECT_NE(preview.body.find("<svg"), std::string::npos);
  EXPECT_NE(preview.body.find("6 players, each with 4 home areas"), std::string::npos);
  EXPECT_NE(preview.body.find("Scenario check: no errors, no warnings"), std::string::npos);
  EXPECT_EQ(check_balanced(preview.body, true), "");
  EXPECT_TRUE(ctx_->services().list_games()->empty()) << "a preview creates nothing";
  // The preview fixed a seed; the create form carries it, so the game is the world shown.
  const std::string marker = "name=\"seed\" value=\"";
  const std::size_t at = preview.body.rfind(marker);
  ASSERT_NE(at, std::string::npos);
  const std::string seed = preview.body.substr(
      at + marker.size(), preview.body.find('"', at + marker.size()) - at - marker.size());
  ASSERT_FALSE(seed.empty());

  Response created = post("/gm/world",
                          {{"engine", "path-of-war"},
                           {"players", "6"},
                           {"areas_per_player", "4"},
                           {"seed", seed},
                           {"id", "pow-6"}},
                          gm);
  ASSERT_EQ(created.status, 200) << created.body;  // the credentials page, shown once
  EXPECT_NE(created.body.find("pow-6"), std::string::npos);
  auto state = ctx_->app().store().load_state("pow-6", std::nullopt);
  ASSERT_TRUE(state.ok());
  EXPECT_EQ(state->players.size(), 6u);
  EXPECT_EQ(state->engine.name, "path-of-war");
}

TEST_F(HtmlGmWorld, AsManyAsSignUpOpensForSignups) {
  const std::string gm = gm_cookie();
  Response created = post("/gm/world",
                          {{"engine", "dark-age"},
                           {"players", "10"},
                           {"for_signups", "1"},
                           {"seed", "4"},
                           {"id", "open-world"}},
                          gm);
  ASSERT_EQ(created.status, 303) << created.body;
  EXPECT_EQ(header(created, "Location"), "/gm/games/open-world?done=signups-open");
  EXPECT_EQ(ctx_->app().store().game_summary("open-world")->status, "signup");
}

TEST_F(HtmlGmWorld, BadFieldsAreNamedAndNothingIsCreated) {
  const std::string gm = gm_cookie();
  Response bad = post("/gm/world/preview", {{"players", "900"}}, gm);
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(bad.body.find("/players: must be from 2 to 500 (got 900)"), std::string::npos)
      << bad.body;
  EXPECT_NE(bad.body.find("value=\"900\""), std::string::npos) << "the form keeps its values";
  Response no_seed = post("/gm/world", {{"players", "4"}}, gm);
  EXPECT_EQ(no_seed.status, 400);
  EXPECT_NE(no_seed.body.find("Preview the world first"), std::string::npos);
  EXPECT_TRUE(ctx_->services().list_games()->empty());
  // Not the GM: no world.
  EXPECT_EQ(post("/gm/world/preview", {{"players", "4"}}, "").status, 403);
}

TEST_F(HtmlGmWorld, TheApiPreviewsAndCreatesWorlds) {
  const std::string auth = "Bearer " + std::string(kGmToken);
  Response preview =
      api("POST", "/api/worlds/preview", R"({"engine":"crt","players":7,"seed":5})", auth);
  ASSERT_EQ(preview.status, 200) << preview.body;
  const auto p = nlohmann::json::parse(preview.body);
  EXPECT_EQ(p["fairness"]["players"], 7);
  EXPECT_EQ(p["scenario"]["players"].size(), 7u);
  Response bad = api("POST", "/api/worlds/preview", R"({"players":1})", auth);
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(nlohmann::json::parse(bad.body)["errors"][0]["path"], "/players");
  EXPECT_EQ(api("POST", "/api/worlds/preview", R"({"players":4})", "").status, 401);
  // Flags and seeds are read strictly: "no" is no, a word that is neither is refused.
  Response no_seas = api("POST", "/api/worlds/preview", R"({"players":4,"seas":"no"})", auth);
  ASSERT_EQ(no_seas.status, 200);
  EXPECT_EQ(nlohmann::json::parse(no_seas.body)["fairness"]["sea_areas"], 0);
  EXPECT_EQ(api("POST", "/api/worlds/preview", R"({"players":4,"seas":"maybe"})", auth).status,
            400);
  EXPECT_EQ(api("POST", "/api/worlds/preview", R"({"players":4,"seed":" -5"})", auth).status, 400);

  Response created = api("POST", "/api/games",
                         R"({"world":{"engine":"exalted-mass-combat","players":5,"seed":"9",
                             "for_signups":true,"id":"ex-5"}})",
                         auth);
  ASSERT_EQ(created.status, 201) << created.body;
  const auto g = nlohmann::json::parse(created.body);
  EXPECT_EQ(g["status"], "signup");
  EXPECT_FALSE(g.contains("secrets"));
  Response wrong = api("POST", "/api/games", R"({"world":{"areas_per_player":40}})", auth);
  EXPECT_EQ(wrong.status, 400);
  EXPECT_EQ(nlohmann::json::parse(wrong.body)["errors"][0]["path"], "/world/areas_per_player");
}

}  // namespace
}  // namespace adj::web
