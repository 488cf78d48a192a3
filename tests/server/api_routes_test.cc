// The JSON API (server/web/api_routes.cc) and /healthz, /metrics through the Router directly (no
// sockets), over a WebContext on a fresh SQLite file. Every answer is also checked against its
// schema in schemas/api/.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <nlohmann/json.hpp>

#include "rules/game/json_schema.h"
#include "schemas/embedded.h"
#include "server/web/web_context.h"
#include "tests/support/temp_dir.h"

namespace adj::web {
namespace {

using http::Request;
using http::Response;

constexpr const char* kApiGm = "gm-token-for-tests";
constexpr UnixTime kApiNow = 1'800'000'000;

std::string orders(int turn, const std::string& player) {
  auto f = embedded_file("schemas/scenarios/dark-age-britain/turn" + std::to_string(turn) + "-" +
                         player + ".txt");
  return f ? std::string(*f) : "";
}

// The order file without its GAME/PLAYER/TURN lines (what a link-token holder may send).
std::string without_header(const std::string& text) {
  std::string out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(pos, end - pos);
    std::string word = line.substr(0, line.find(' '));
    for (char& c : word) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (word != "GAME" && word != "PLAYER" && word != "TURN") out += line + "\n";
    pos = end + 1;
  }
  return out;
}

class ApiTest : public ::testing::Test {
 protected:
  ApiTest() : ctx_(make_config(dir_, kApiGm), [this] { return now_; }) {
    register_routes(router_, ctx_);
  }

  static WebConfig make_config(const ::adj::testing::TempDir& dir, const std::string& gm) {
    WebConfig c;
    c.db_path = dir.file("api.db");
    c.base_url = "http://adj.test";
    c.gm_token = gm;
    // Tests here send many wrong tokens under a fixed clock and check each answer; the guessing
    // limits are tested in auth_throttle_test.cc and tests/mail/auth_limit_serve_test.cc.
    c.throttle.max_failures = 1000;
    return c;
  }

  Response call(const std::string& method, const std::string& target, const std::string& body = "",
                std::map<std::string, std::string> headers = {}) {
    Request req;
    req.method = method;
    const std::size_t q = target.find('?');
    req.path = target.substr(0, q);
    if (q != std::string::npos) {
      const std::string query = target.substr(q + 1);
      const std::size_t eq = query.find('=');
      req.query[query.substr(0, eq)] = eq == std::string::npos ? "" : query.substr(eq + 1);
    }
    req.headers = std::move(headers);
    req.body = body;
    return router_.route(req);
  }
  Response gm(const std::string& method, const std::string& target, const std::string& body = "") {
    return call(
        method, target, body,
        {{"authorization", std::string("Bearer ") + kApiGm}, {"content-type", "application/json"}});
  }
  Response as(const std::string& token, const std::string& method, const std::string& target,
              const std::string& body = "", const std::string& type = "text/plain") {
    return call(method, target, body,
                {{"authorization", "Bearer " + token}, {"content-type", type}});
  }

  static Json body(const Response& r) {
    Json j = Json::parse(r.body, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << r.body;
    return j;
  }
  // The answer's body validates against schemas/api/<schema>.
  static void expect_schema(const Response& r, const std::string& schema) {
    const auto errors = validate_against_schema(body(r), "schemas/api/" + schema);
    EXPECT_TRUE(errors.empty()) << schema << ": " << format_errors(errors) << "\n" << r.body;
  }

  void create_britain() {
    Response r = gm("POST", "/api/games",
                    R"({"bundled": "dark-age-britain", "seed": 7, "demo_secrets": true})");
    ASSERT_EQ(r.status, 201) << r.body;
  }
  // WSX's secret in the bundled scenario.
  std::string wsx_secret() const { return "cerdic"; }
  std::string token(const std::string& player, const std::string& game = "britain-1") {
    Response r = gm("POST", "/api/games/" + game + "/players/" + player + "/token");
    EXPECT_EQ(r.status, 200) << r.body;
    expect_schema(r, "player_token.schema.json");
    return body(r).value("token", "");
  }

  ::adj::testing::TempDir dir_;
  UnixTime now_ = kApiNow;
  WebContext ctx_;
  http::Router router_;
};

TEST_F(ApiTest, HealthzAndMetrics) {
  Response r = call("GET", "/healthz");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(body(r), Json::parse(R"({"status": "ok", "games": 0,
      "mail": {"delivery": "off", "queued": 0, "failing": 0}})"));
  expect_schema(r, "health.schema.json");
  create_britain();
  EXPECT_EQ(body(call("GET", "/healthz"))["games"], 1);

  ctx_.metrics().request("api_games", 200);
  // The host's figures are the GM's: 401 with a Bearer challenge without the token.
  r = call("GET", "/metrics");
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(r.body.find("adjutant_"), std::string::npos);
  EXPECT_EQ(call("GET", "/metrics", "", {{"authorization", "Bearer not-the-token"}}).status, 401);
  r = gm("GET", "/metrics");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type.rfind("text/plain; version=0.0.4", 0), 0u);
  EXPECT_NE(r.body.find("adjutant_games{status=\"open\"} 1\n"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("adjutant_http_requests_total{route=\"api_games\",status=\"200\"} 1"),
            std::string::npos);
  ctx_.metrics().request("api_games", 200);
  EXPECT_NE(gm("GET", "/metrics")
                .body.find("adjutant_http_requests_total{route=\"api_games\",status=\"200\"} 2"),
            std::string::npos);
}

TEST_F(ApiTest, HealthzIs503WhenTheDatabaseFails) {
  ASSERT_EQ(call("GET", "/healthz").status, 200);  // opens this thread's connection
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(dir_.file("api.db").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "ALTER TABLE games RENAME TO games_gone", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  Response r = call("GET", "/healthz");
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(body(r)["status"], "unavailable");
}

TEST_F(ApiTest, CreateGameNeedsTheGmToken) {
  const std::string scenario = R"({"bundled": "dark-age-britain"})";
  Response r = call("POST", "/api/games", scenario);
  EXPECT_EQ(r.status, 401);
  expect_schema(r, "error.schema.json");
  EXPECT_EQ(call("POST", "/api/games", scenario, {{"authorization", "Bearer nope"}}).status, 401);
  EXPECT_EQ(call("POST", "/api/games", scenario, {{"authorization", "Basic Z206Z20="}}).status,
            401);

  r = gm("POST", "/api/games", scenario);
  EXPECT_EQ(r.status, 201) << r.body;
  expect_schema(r, "game_summary.schema.json");
  EXPECT_EQ(body(r)["id"], "britain-1");
  EXPECT_EQ(body(r)["turn"], 1);
  bool location = false;
  for (const auto& [k, v] : r.headers)
    location = location || (k == "Location" && v == "/api/games/britain-1");
  EXPECT_TRUE(location);
  EXPECT_EQ(gm("POST", "/api/games", scenario).status, 409);  // the id is taken

  // A player's token opens no GM action.
  EXPECT_EQ(as(token("WSX"), "POST", "/api/games", scenario, "application/json").status, 403);
}

TEST_F(ApiTest, CreateGameFromAScenarioDocumentAndErrorsNameTheJsonPath) {
  Json scenario = Json::parse(*embedded_file("schemas/scenarios/dark-age-britain.json"));
  scenario["id"] = "custom-1";
  Response r = gm("POST", "/api/games", scenario.dump());
  EXPECT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(body(r)["id"], "custom-1");

  scenario["id"] = "custom-2";
  scenario["areas"][0]["owner"] = "XXX";
  r = gm("POST", "/api/games", scenario.dump());
  ASSERT_EQ(r.status, 400) << r.body;
  expect_schema(r, "error.schema.json");
  EXPECT_NE(body(r)["error"].get<std::string>().find("/areas/0/owner"), std::string::npos)
      << r.body;
  EXPECT_EQ(body(r)["errors"][0]["path"], "/areas/0/owner");

  r = gm("POST", "/api/games", Json{{"scenario", scenario}}.dump());
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(body(r)["errors"][0]["path"], "/scenario/areas/0/owner");

  r = gm("POST", "/api/games", R"({"bundled": 5})");
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.body.find("/bundled"), std::string::npos) << r.body;
  EXPECT_EQ(gm("POST", "/api/games", "{not json").status, 400);
  EXPECT_EQ(gm("POST", "/api/games", R"({"bundled": "no-such"})").status, 404);
  EXPECT_EQ(body(call("GET", "/api/games"))["games"].size(), 1u);  // nothing else written
}

TEST_F(ApiTest, PublicViewsHaveNoSecrets) {
  create_britain();
  Response r = call("GET", "/api/games");
  EXPECT_EQ(r.status, 200);
  expect_schema(r, "game_list.schema.json");
  r = call("GET", "/api/games/britain-1");
  EXPECT_EQ(r.status, 200);
  expect_schema(r, "game.schema.json");
  EXPECT_EQ(r.body.find("cerdic"), std::string::npos);  // WSX's secret
  EXPECT_FALSE(body(r).contains("seed"));
  EXPECT_EQ(body(r)["schedule"]["kind"], "none");
  EXPECT_EQ(call("GET", "/api/games/nope").status, 404);
  r = call("GET", "/api/games/britain-1/schedule");
  EXPECT_EQ(r.status, 200);
  expect_schema(r, "schedule.schema.json");
  r = call("GET", "/api/games/britain-1/audit");
  EXPECT_EQ(r.status, 200);
  expect_schema(r, "audit.schema.json");
  EXPECT_EQ(body(r)["entries"][0]["action"], "create");
  EXPECT_EQ(r.body.find("\"seed\""), std::string::npos);
}

TEST_F(ApiTest, SubmitOrdersWithTheLinkToken) {
  create_britain();
  const std::string wsx = token("WSX");
  const std::string text = without_header(orders(1, "WSX"));
  Response r = as(wsx, "POST", "/api/games/britain-1/orders", text);
  ASSERT_EQ(r.status, 200) << r.body;
  expect_schema(r, "order_ack.schema.json");
  Json ack = body(r);
  EXPECT_FALSE(ack["refused"]);
  EXPECT_EQ(ack["player"], "WSX");
  EXPECT_EQ(ack["lines"][0]["line"], 2);  // as sent (line 1 is a comment): no added header
  EXPECT_GT(ack["accepted"].get<int>(), 0);
  EXPECT_TRUE(ack.contains("submission_id"));
  EXPECT_FALSE(ack["checked_only"]);
  EXPECT_EQ(r.body.find("cerdic"), std::string::npos);

  r = gm("GET", "/api/games/britain-1/submissions");
  EXPECT_EQ(r.status, 200);
  expect_schema(r, "submissions.schema.json");
  const Json subs = body(r);
  ASSERT_EQ(subs["players"].size(), 5u);
  for (const auto& p : subs["players"]) EXPECT_EQ(p["has_orders"], p["player"] == "WSX");
  EXPECT_NE(ctx_.metrics().render().find(
                "adjutant_submissions_total{channel=\"web\",result=\"accepted\"} 1"),
            std::string::npos);

  // The whole file (header included) with the token works too.
  EXPECT_EQ(as(wsx, "POST", "/api/games/britain-1/orders", orders(1, "WSX")).status, 200);
}

// Regression (issue 10): with no login, one check request whose lines were 2,000 candidate words
// used to answer with the real secret masked ("********") on the line that held it.
TEST_F(ApiTest, ARefusedFileDoesNotRevealWhichCandidateIsTheSecret) {
  create_britain();
  const std::string secret = wsx_secret();
  auto attempt = [&](const std::string& planted) {
    std::string file = "GAME britain-1\nPLAYER WSX not-the-secret\n";
    for (int i = 0; i < 2000; ++i)
      file += "DEFEND " + (i == 1234 ? planted : "guess" + std::to_string(i)) + "\n";
    return call("POST", "/api/games/britain-1/orders?check=1", file,
                {{"content-type", "text/plain"}});
  };
  const Response with_secret = attempt(secret);
  ASSERT_EQ(with_secret.status, 422) << with_secret.body;
  EXPECT_EQ(with_secret.body.find("DEFEND ********"), std::string::npos);
  // The answer is the same, word for word, whether or not a line holds the real secret.
  const Response without = attempt("guess1234");
  std::string expected = without.body;
  // (guess1234 is no prefix of another candidate: they run up to guess1999.)
  int replaced = 0;
  for (std::size_t at = expected.find("DEFEND guess1234"); at != std::string::npos;
       at = expected.find("DEFEND guess1234", at + 1), ++replaced)
    expected.replace(at + 7, 9, secret);
  EXPECT_GE(replaced, 2);  // the line in "lines" and in "ack_text"
  EXPECT_EQ(with_secret.body, expected);
}

TEST_F(ApiTest, SubmitOrdersWithTheSecretInTheFileOrBody) {
  create_britain();
  Response r = call("POST", "/api/games/britain-1/orders", orders(1, "MRC"),
                    {{"content-type", "text/plain"}});
  EXPECT_EQ(r.status, 200) << r.body;

  Json req = {{"text", without_header(orders(1, "NUM"))}, {"player", "num"}, {"secret", "oswald"}};
  r = call("POST", "/api/games/britain-1/orders", req.dump(),
           {{"content-type", "application/json"}});
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(body(r)["player"], "NUM");

  // Refused whole: 422 with the acknowledgement, and the wrong secret is not echoed.
  std::string wrong = orders(1, "EAN");
  wrong.replace(wrong.find("raedwald"), 8, "guessing");
  r = call("POST", "/api/games/britain-1/orders", wrong, {{"content-type", "text/plain"}});
  EXPECT_EQ(r.status, 422);
  expect_schema(r, "order_ack.schema.json");
  EXPECT_TRUE(body(r)["refused"]);
  EXPECT_EQ(r.body.find("guessing"), std::string::npos);
  EXPECT_NE(ctx_.metrics().render().find(
                "adjutant_submissions_total{channel=\"web\",result=\"refused\"} 1"),
            std::string::npos);

  // No credentials at all: refused by the validator (no PLAYER line).
  r = call("POST", "/api/games/britain-1/orders", without_header(orders(1, "GWN")));
  EXPECT_EQ(r.status, 422);

  r = call("POST", "/api/games/britain-1/orders", R"({"text": 5})",
           {{"content-type", "application/json"}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(body(r)["errors"][0]["path"], "/text");
  EXPECT_EQ(call("POST", "/api/games/nope/orders", orders(1, "MRC")).status, 404);
}

TEST_F(ApiTest, CheckOnlyStoresNothing) {
  create_britain();
  Response r = as(token("WSX"), "POST", "/api/games/britain-1/orders?check=1",
                  without_header(orders(1, "WSX")));
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(body(r)["checked_only"]);
  EXPECT_FALSE(body(r).contains("submission_id"));
  const Json subs = body(gm("GET", "/api/games/britain-1/submissions"));
  ASSERT_EQ(subs["players"].size(), 5u);
  for (const auto& p : subs["players"]) EXPECT_FALSE(p["has_orders"]);
}

TEST_F(ApiTest, WrongTokensAreRefused) {
  create_britain();
  const std::string wsx = token("WSX");
  Response r = as("0123456789abcdef0123456789abcdef", "POST", "/api/games/britain-1/orders",
                  without_header(orders(1, "WSX")));
  EXPECT_EQ(r.status, 401);
  // WSX's token with MRC's file: refused, nothing stored.
  r = as(wsx, "POST", "/api/games/britain-1/orders", orders(1, "MRC"));
  EXPECT_EQ(r.status, 403);
  const Json subs = body(gm("GET", "/api/games/britain-1/submissions"));
  ASSERT_EQ(subs["players"].size(), 5u);
  for (const auto& p : subs["players"]) EXPECT_FALSE(p["has_orders"]);
  // A token of another game.
  ASSERT_EQ(
      gm("POST", "/api/games", R"({"bundled": "dark-age-britain", "id": "britain-2"})").status,
      201);
  r = as(token("WSX", "britain-2"), "POST", "/api/games/britain-1/orders",
         without_header(orders(1, "WSX")));
  EXPECT_EQ(r.status, 403);
}

TEST_F(ApiTest, ReportsOnlyForTheirPlayer) {
  create_britain();
  const std::string wsx = token("WSX"), mrc = token("MRC");
  for (const char* p : {"WSX", "MRC", "NUM", "EAN", "GWN"})
    ASSERT_EQ(call("POST", "/api/games/britain-1/orders", orders(1, p)).status, 200);
  EXPECT_EQ(as(wsx, "GET", "/api/games/britain-1/reports/WSX").status, 404);  // no turn yet
  ASSERT_EQ(gm("POST", "/api/games/britain-1/turns/run").status, 200);

  Response r = as(wsx, "GET", "/api/games/britain-1/reports/wsx");
  EXPECT_EQ(r.status, 200) << r.body;
  expect_schema(r, "report.schema.json");
  EXPECT_EQ(body(r)["player"], "WSX");
  EXPECT_EQ(body(r)["turn"], 1);
  EXPECT_TRUE(body(r)["next_deadline"].is_null()) << "no deadline is set";
  ASSERT_EQ(
      gm("POST", "/api/games/britain-1/deadline", Json{{"deadline", kApiNow + 7200}}.dump()).status,
      200);
  EXPECT_EQ(body(as(wsx, "GET", "/api/games/britain-1/reports/WSX"))["next_deadline"],
            kApiNow + 7200);
  EXPECT_EQ(as(wsx, "GET", "/api/games/britain-1/reports/MRC").status, 403);
  EXPECT_EQ(as(mrc, "GET", "/api/games/britain-1/reports/WSX").status, 403);
  EXPECT_EQ(call("GET", "/api/games/britain-1/reports/WSX").status, 401);
  EXPECT_EQ(as("bogus", "GET", "/api/games/britain-1/reports/WSX").status, 401);
  EXPECT_EQ(gm("GET", "/api/games/britain-1/reports/MRC?turn=1").status, 200);
  EXPECT_EQ(as(wsx, "GET", "/api/games/britain-1/reports/WSX?turn=9").status, 404);
  EXPECT_EQ(as(wsx, "GET", "/api/games/britain-1/reports/WSX?turn=abc").status, 400);
  // HTTP Basic with code and secret ("WSX:cerdic", "WSX:wrong").
  EXPECT_EQ(call("GET", "/api/games/britain-1/reports/WSX", "",
                 {{"authorization", "Basic V1NYOmNlcmRpYw=="}})
                .status,
            200);
  EXPECT_EQ(
      call("GET", "/api/games/britain-1/reports/WSX", "", {{"authorization", "Basic V1NYOndyb25n"}})
          .status,
      401);
  EXPECT_EQ(call("GET", "/api/games/britain-1/reports/MRC", "",
                 {{"authorization", "Basic V1NYOmNlcmRpYw=="}})
                .status,
            403);
}

TEST_F(ApiTest, BundledGamesGetFreshSecretsAnsweredOnce) {
  Response r = gm("POST", "/api/games", R"({"bundled": "dark-age-britain"})");
  ASSERT_EQ(r.status, 201) << r.body;
  expect_schema(r, "game_summary.schema.json");
  const Json secrets = body(r)["secrets"];
  ASSERT_EQ(secrets.size(), 5u);
  const std::string wsx = secrets["WSX"];
  EXPECT_NE(wsx, "cerdic");
  std::string file = orders(1, "WSX");
  EXPECT_EQ(call("POST", "/api/games/britain-1/orders?check=1", file).status, 422);  // README's
  file.replace(file.find("cerdic"), 6, wsx);
  EXPECT_EQ(call("POST", "/api/games/britain-1/orders?check=1", file).status, 200);
  // Never shown again.
  EXPECT_EQ(gm("GET", "/api/games/britain-1").body.find(wsx), std::string::npos);
  EXPECT_EQ(gm("GET", "/api/games/britain-1/audit").body.find(wsx), std::string::npos);
}

TEST_F(ApiTest, PlayersChangeTheirSecretAndRotateTheirToken) {
  create_britain();
  const std::string wsx = token("WSX");
  // Only the player themself.
  EXPECT_EQ(
      call("PUT", "/api/games/britain-1/players/WSX/secret", R"({"secret": "new-one-42"})").status,
      401);
  EXPECT_EQ(as(token("MRC"), "PUT", "/api/games/britain-1/players/WSX/secret",
               R"({"secret": "new-one-42"})", "application/json")
                .status,
            403);
  Response r = as(wsx, "PUT", "/api/games/britain-1/players/WSX/secret", R"({"secret": "short"})",
                  "application/json");
  EXPECT_EQ(r.status, 400) << r.body;
  r = as(wsx, "PUT", "/api/games/britain-1/players/WSX/secret", R"({"secret": "new-one-42"})",
         "application/json");
  ASSERT_EQ(r.status, 200) << r.body;
  expect_schema(r, "player_token.schema.json");
  EXPECT_EQ(r.body.find("new-one-42"), std::string::npos);
  std::string file = orders(1, "WSX");
  EXPECT_EQ(call("POST", "/api/games/britain-1/orders?check=1", file).status, 422);
  file.replace(file.find("cerdic"), 6, "new-one-42");
  EXPECT_EQ(call("POST", "/api/games/britain-1/orders?check=1", file).status, 200);

  // Rotating: the old token stops working at once, the new one works.
  r = as(wsx, "POST", "/api/games/britain-1/players/WSX/token");
  ASSERT_EQ(r.status, 200) << r.body;
  expect_schema(r, "player_token.schema.json");
  const std::string rotated = body(r)["token"];
  EXPECT_NE(rotated, wsx);
  EXPECT_EQ(as(wsx, "POST", "/api/games/britain-1/orders?check=1", "DEFEND WIN\n").status, 401);
  EXPECT_EQ(as(rotated, "POST", "/api/games/britain-1/orders?check=1", "DEFEND WIN\n").status, 200);
  EXPECT_EQ(as(rotated, "POST", "/api/games/britain-1/players/MRC/token").status, 403);

  // The GM's reset of both; audited without the values.
  r = gm("POST", "/api/games/britain-1/players/WSX/reset", R"({"what": "both"})");
  ASSERT_EQ(r.status, 200) << r.body;
  expect_schema(r, "player_token.schema.json");
  const std::string secret = body(r)["secret"];
  EXPECT_EQ(as(rotated, "POST", "/api/games/britain-1/orders?check=1", "DEFEND WIN\n").status, 401);
  const std::string reset_token = body(r)["token"];
  EXPECT_EQ(as(reset_token, "POST", "/api/games/britain-1/orders?check=1", "DEFEND WIN\n").status,
            200);
  file = orders(1, "WSX");
  file.replace(file.find("cerdic"), 6, secret);
  EXPECT_EQ(call("POST", "/api/games/britain-1/orders?check=1", file).status, 200);
  EXPECT_EQ(gm("POST", "/api/games/britain-1/players/WSX/reset", R"({"what": "all"})").status, 400);
  const std::string audit = call("GET", "/api/games/britain-1/audit").body;
  EXPECT_NE(audit.find("\"reset\""), std::string::npos);
  EXPECT_EQ(audit.find(secret), std::string::npos);
}

TEST_F(ApiTest, GmTurnControlsAreAudited) {
  create_britain();
  for (const char* p : {"WSX", "MRC"})
    ASSERT_EQ(call("POST", "/api/games/britain-1/orders", orders(1, p)).status, 200);

  Response r = gm("POST", "/api/games/britain-1/turns/preview");
  ASSERT_EQ(r.status, 200) << r.body;
  expect_schema(r, "turn_run.schema.json");
  EXPECT_TRUE(body(r)["preview"]);
  EXPECT_EQ(body(r)["reports"].size(), 5u);
  EXPECT_EQ(body(r)["players_without_orders"].size(), 3u);
  EXPECT_EQ(body(call("GET", "/api/games/britain-1"))["turn"], 1);  // nothing committed

  r = gm("POST", "/api/games/britain-1/turns/run");
  ASSERT_EQ(r.status, 200) << r.body;
  expect_schema(r, "turn_run.schema.json");
  EXPECT_FALSE(body(r)["preview"]);
  EXPECT_FALSE(body(r).contains("reports"));
  EXPECT_EQ(body(call("GET", "/api/games/britain-1"))["turn"], 2);
  EXPECT_NE(ctx_.metrics().render().find("adjutant_turn_run_seconds_count 1"), std::string::npos);

  r = gm("POST", "/api/games/britain-1/rollback", R"({"turn": 1})");
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(body(r)["turn"], 1);
  EXPECT_EQ(gm("POST", "/api/games/britain-1/rollback", R"({"turn": 0})").status, 400);
  EXPECT_EQ(gm("POST", "/api/games/britain-1/rollback", R"({"turn": 5})").status, 409);

  r = gm("POST", "/api/games/britain-1/pause");
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(body(r)["status"], "paused");
  EXPECT_EQ(gm("POST", "/api/games/britain-1/pause").status, 409);
  r = gm("POST", "/api/games/britain-1/resume");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(body(r)["status"], "open");

  r = gm("POST", "/api/games/britain-1/deadline", Json{{"deadline", kApiNow + 3600}}.dump());
  EXPECT_EQ(r.status, 200) << r.body;
  expect_schema(r, "schedule.schema.json");
  EXPECT_EQ(body(r)["deadline"], kApiNow + 3600);
  EXPECT_EQ(body(r)["kind"], "fixed");
  r = gm("POST", "/api/games/britain-1/deadline", R"({"extend_seconds": 600})");
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(body(r)["deadline"], kApiNow + 4200);
  EXPECT_EQ(
      gm("POST", "/api/games/britain-1/deadline", Json{{"deadline", kApiNow - 1}}.dump()).status,
      400);
  EXPECT_EQ(gm("POST", "/api/games/britain-1/deadline", "{}").status, 400);

  r = gm("PUT", "/api/games/britain-1/schedule",
         R"({"kind": "interval", "interval_seconds": 172800, "early_when_all_in": true})");
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(body(r)["kind"], "interval");
  EXPECT_TRUE(body(r)["early_when_all_in"]);
  EXPECT_EQ(gm("PUT", "/api/games/britain-1/schedule", R"({"kind": "sometimes"})").status, 400);
  EXPECT_EQ(body(call("GET", "/api/games"))["games"][0]["deadline"].is_number(), true);

  r = call("GET", "/api/games/britain-1/audit");
  ASSERT_EQ(r.status, 200) << r.body;
  std::vector<std::string> actions;
  const Json log = body(r);
  for (const auto& e : log["entries"]) {
    actions.push_back(e["action"]);
    EXPECT_EQ(e["actor"], "gm");
  }
  EXPECT_EQ(actions, (std::vector<std::string>{"create", "preview", "run", "rollback", "pause",
                                               "resume", "deadline", "extend", "schedule"}));
  EXPECT_EQ(r.body.find("cerdic"), std::string::npos);
}

TEST_F(ApiTest, EveryGmRouteNeedsTheGmToken) {
  create_britain();
  const std::string wsx = token("WSX");
  const std::vector<std::pair<std::string, std::string>> routes = {
      {"POST", "/api/games"},
      {"GET", "/api/games/britain-1/submissions"},
      {"POST", "/api/games/britain-1/turns/preview"},
      {"POST", "/api/games/britain-1/turns/run"},
      {"POST", "/api/games/britain-1/rollback"},
      {"PUT", "/api/games/britain-1/schedule"},
      {"POST", "/api/games/britain-1/deadline"},
      {"POST", "/api/games/britain-1/pause"},
      {"POST", "/api/games/britain-1/resume"},
      {"POST", "/api/games/britain-1/players/MRC/reset"},
      {"DELETE", "/api/games/britain-1"},
      {"POST", "/api/games/britain-1/archive"},
      {"POST", "/api/games/britain-1/unarchive"}};
  for (const auto& [method, path] : routes) {
    EXPECT_EQ(call(method, path).status, 401) << method << " " << path;
    EXPECT_EQ(as(wsx, method, path).status, 403) << method << " " << path;
    EXPECT_EQ(as(std::string(kApiGm) + "x", method, path).status, 401) << method << " " << path;
  }
  EXPECT_EQ(body(call("GET", "/api/games/britain-1"))["turn"], 1);  // still there
  EXPECT_TRUE(body(call("GET", "/api/games/britain-1"))["archived_at"].is_null());
  EXPECT_EQ(call("PUT", "/api/games/britain-1").status, 405);
}

TEST(ApiNoGmToken, GmApiIsDisabled) {
  ::adj::testing::TempDir dir;
  WebConfig c;
  c.db_path = dir.file("x.db");
  WebContext ctx(c, [] { return kApiNow; });
  http::Router router;
  register_routes(router, ctx);
  Request req;
  req.method = "POST";
  req.path = "/api/games";
  req.headers["authorization"] = "Bearer ";
  req.body = R"({"bundled": "dark-age-britain"})";
  EXPECT_EQ(router.route(req).status, 403);
  req.headers["authorization"] = "Bearer anything";
  EXPECT_EQ(router.route(req).status, 403);
}

}  // namespace
}  // namespace adj::web
