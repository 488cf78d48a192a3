// POST /api/scenarios/check (server/web/api_gm_routes.cc) through the Router (no sockets): the
// findings of rules/game/scenario_lint.h as errors and warnings (schemas/api/scenario_check),
// for a document and the create request's wrappers (inline, bundled, a generated world); the GM
// token; nothing created; POST /api/games refusing the same error with the same message.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "rules/game/json_schema.h"
#include "schemas/embedded.h"
#include "server/web/web_context.h"
#include "tests/support/temp_dir.h"

namespace adj::web {
namespace {

using http::Request;
using http::Response;

constexpr const char* kCheckGm = "gm-token-for-check-tests";

class ApiScenarioCheck : public ::testing::Test {
 protected:
  ApiScenarioCheck() : ctx_(config(dir_), [] { return UnixTime{1'800'000'000}; }) {
    register_routes(router_, ctx_);
  }
  static WebConfig config(const ::adj::testing::TempDir& dir) {
    WebConfig c;
    c.db_path = dir.file("check.db");
    c.base_url = "http://adj.test";
    c.gm_token = kCheckGm;
    return c;
  }
  Response call(const std::string& method, const std::string& path, const std::string& body,
                bool as_gm = true) {
    Request req;
    req.method = method;
    req.path = path;
    req.body = body;
    req.headers["content-type"] = "application/json";
    if (as_gm) req.headers["authorization"] = std::string("Bearer ") + kCheckGm;
    return router_.route(req);
  }
  Response gm(const std::string& method, const std::string& path, const std::string& body = "") {
    return call(method, path, body);
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

  ::adj::testing::TempDir dir_;
  WebContext ctx_;
  http::Router router_;
};

TEST_F(ApiScenarioCheck, AnswersTheErrorsAndWarningsAndCreatesNothing) {
  Json scenario = Json::parse(*embedded_file("schemas/scenarios/dark-age-britain.json"));
  Response r = gm("POST", "/api/scenarios/check", scenario.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  expect_schema(r, "scenario_check.schema.json");
  EXPECT_EQ(body(r), Json::parse(R"({"errors": [], "warnings": []})"));
  bool no_store = false;
  for (const auto& [k, v] : r.headers)
    no_store = no_store || (k == "Cache-Control" && v == "no-store");
  EXPECT_TRUE(no_store);

  scenario["areas"][0]["terrain"] = "forrest";  // an error
  scenario["areas"].push_back(
      {{"code", "LONE"}, {"kind", "land"}, {"x", 1}, {"y", 1}});  // a warning
  r = gm("POST", "/api/scenarios/check", scenario.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  expect_schema(r, "scenario_check.schema.json");
  ASSERT_EQ(body(r)["errors"].size(), 1u) << r.body;
  EXPECT_EQ(body(r)["errors"][0]["path"], "/areas/0/terrain");
  const std::string message = body(r)["errors"][0]["message"];
  EXPECT_NE(message.find("unknown terrain \"forrest\""), std::string::npos) << message;
  ASSERT_EQ(body(r)["warnings"].size(), 1u) << r.body;
  EXPECT_EQ(body(r)["warnings"][0]["path"], "/areas/29");
  // The create request's wrapper: paths under /scenario; a bundled scenario by name.
  r = gm("POST", "/api/scenarios/check", Json{{"scenario", scenario}}.dump());
  EXPECT_EQ(body(r)["errors"][0]["path"], "/scenario/areas/0/terrain");
  r = gm("POST", "/api/scenarios/check", R"({"bundled": "virtuti-militari-1939"})");
  EXPECT_EQ(body(r), Json::parse(R"({"errors": [], "warnings": []})")) << r.body;
  r = gm("POST", "/api/scenarios/check", R"({"world": {"engine": "crt", "players": 3}})");
  EXPECT_EQ(body(r), Json::parse(R"({"errors": [], "warnings": []})")) << r.body;
  EXPECT_EQ(gm("POST", "/api/scenarios/check", R"({"world": {"players": 1}})").status, 400);
  EXPECT_EQ(gm("POST", "/api/scenarios/check", R"({"bundled": "no-such"})").status, 404);
  EXPECT_EQ(gm("POST", "/api/scenarios/check", "{not json").status, 400);
  EXPECT_EQ(call("POST", "/api/scenarios/check", scenario.dump(), false).status, 401);  // GM only

  // Creating refuses the same error, with the same message; nothing was created.
  r = gm("POST", "/api/games", scenario.dump());
  ASSERT_EQ(r.status, 400) << r.body;
  EXPECT_EQ(body(r)["errors"][0]["path"], "/areas/0/terrain");
  EXPECT_EQ(body(r)["errors"][0]["message"], message);
  EXPECT_EQ(body(call("GET", "/api/games", "", false))["games"].size(), 0u);
}

}  // namespace
}  // namespace adj::web
