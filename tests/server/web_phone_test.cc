// Issue 13, pages for phones and for people, without a browser: the order builder's data
// (server/web/order_builder.h) and its escaping, times as <time> elements, the static scripts
// and the stylesheet's phone rules as served. The browser side (390 px layout of every page, the
// builder clicked, local times in other zones) is in web_game_browser_test.cc.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>

#include "rules/game/state.h"
#include "server/web/order_builder.h"
#include "server/web/pages_view.h"
#include "tests/server/web_pages_fixture.h"
#include "tests/server/web_test_util.h"

namespace adj::web {
namespace {

using ::adj::testing::check_balanced;
using ::adj::testing::count;
using http::Response;
using Json = nlohmann::json;

using namespace pages_test;

class WebPhone : public PagesFixture {};

// A state with a sea and a city; `junk` adds borders no game has (a self-loop, an unknown code,
// non-pairs), which the builder's map ignores and the state reader refuses.
Json small_state(const std::string& engine, bool junk = false) {
  Json st = Json::parse(R"({
    "game": "g", "name": "G", "seed": "1", "turn": 1, "rules": {}, "engine": {"name": ")" +
                        engine + R"("},
    "players": [{"code": "AAA", "name": "Alba"}, {"code": "BBB", "name": "B</script><b>"}],
    "areas": [
      {"code": "A1", "name": "Home", "kind": "land", "owner": "AAA", "armies": 5},
      {"code": "A2", "name": "Keep", "kind": "city", "owner": "AAA", "hinterland": "A1"},
      {"code": "B1", "name": "<img src=x onerror=alert(1)>", "kind": "land", "owner": "BBB"},
      {"code": "S1", "name": "Sea", "kind": "sea"},
      {"code": "FAR", "name": "Far away", "kind": "land", "owner": "BBB"}],
    "adjacency": [["A1", "A2"], ["A1", "B1"], ["A1", "S1"], ["B1", "FAR"]]
  })");
  if (junk)
    for (const char* e : {R"(["A1", "A1"])", R"(["A1", "NOPE"])", R"("junk")", "[1, 2]"})
      st["adjacency"].push_back(Json::parse(e));
  return st;
}

std::vector<std::string> verbs(const Json& model) {
  std::vector<std::string> out;
  for (const auto& a : model["actions"]) out.push_back(a["verb"]);
  return out;
}

TEST_F(WebPhone, BuilderModelListsOwnAreasTheirNeighboursAndTheEnginesActions) {
  const Json m = order_builder_model(small_state("dark-age", true), "AAA");
  EXPECT_EQ(m["player"], "AAA");
  EXPECT_EQ(m["own"], Json::array({"A1", "A2"}));
  // Neighbours from the map, both directions, without self-loops or unknown codes.
  EXPECT_EQ(m["areas"]["A1"]["adj"], Json::array({"A2", "B1", "S1"}));
  EXPECT_EQ(m["areas"]["A2"]["adj"], Json::array({"A1"}));
  EXPECT_EQ(m["areas"]["B1"]["owner"], "BBB");
  EXPECT_FALSE(m["areas"]["B1"].contains("adj"));  // not the player's: no targets from it
  EXPECT_FALSE(m["areas"].contains("FAR"));        // neither held nor next to a held area
  EXPECT_EQ(m["kingdoms"], Json::parse(R"([{"code": "BBB", "name": "B</script><b>"}])"));
  EXPECT_TRUE(m["actions"].empty()) << "a state that does not read as a game offers nothing";
}

TEST_F(WebPhone, BuilderOffersOnlyWhatTheValidatorAccepts) {
  auto read = state_from_json(small_state("dark-age"));
  ASSERT_TRUE(read.ok()) << read.status().to_string();
  const Json m = order_builder_model(small_state("dark-age"), "AAA");
  const auto v = verbs(m);
  for (const char* verb : {"MOVE", "ASSAULT", "PROBE", "OVERRUN", "AMBUSH", "RETREAT", "DEFEND",
                           "LEVY", "ORDER", "GIFT", "MIGRATE", "RAID"})
    EXPECT_NE(std::find(v.begin(), v.end(), verb), v.end()) << verb;
  EXPECT_EQ(std::find(v.begin(), v.end(), "SUPPORT"), v.end());  // not under Dark Age rules
  EXPECT_EQ(std::find(v.begin(), v.end(), "INVADE"), v.end());   // Alba is not Gaelic
  // No sea as a target in a game without ships; only the player's areas as MIGRATE targets.
  EXPECT_EQ(m["legal"]["MOVE"]["A1"], Json::array({"A2", "B1"}));
  EXPECT_EQ(m["legal"]["MIGRATE"]["A1"], Json::array({"A2"}));
  EXPECT_EQ(m["legal"]["GIFT"][""], Json::array({"BBB"}));
  for (const auto& a : m["actions"]) {
    if (a["verb"] == "MOVE") {
      EXPECT_EQ(a["count"], "armies");
    }
    if (a["verb"] == "GIFT") {
      EXPECT_EQ(a["target"], "kingdom");
    }
    if (a["verb"] == "RETREAT") {
      EXPECT_EQ(a["target"], "adjacent-optional");
    }
    if (a["verb"] == "MIGRATE") {
      EXPECT_EQ(a["target"], "adjacent-own");
    }
    if (a["verb"] == "ORDER") {
      EXPECT_EQ(a["area"], "none");
    }
  }
}

TEST_F(WebPhone, BuilderOffersSupportOnlyWhereTheRulesHaveIt) {
  const auto vm = verbs(order_builder_model(small_state("virtuti-militari"), "AAA"));
  EXPECT_NE(std::find(vm.begin(), vm.end(), "SUPPORT"), vm.end());
  EXPECT_EQ(std::find(vm.begin(), vm.end(), "RAID"), vm.end());
  const auto none = verbs(order_builder_model(small_state("no-such-engine"), "AAA"));
  EXPECT_EQ(std::find(none.begin(), none.end(), "SUPPORT"), none.end());
  EXPECT_EQ(order_builder_model(Json("not a state"), "AAA")["own"], Json::array());
}

TEST_F(WebPhone, ScriptJsonCannotEndItsElement) {
  const std::string text = script_json(order_builder_model(small_state("dark-age"), "AAA"));
  EXPECT_EQ(text.find('<'), std::string::npos);
  EXPECT_EQ(text.find('>'), std::string::npos);
  EXPECT_EQ(text.find('&'), std::string::npos);
  EXPECT_NE(text.find("B\\u003c/script\\u003e\\u003cb\\u003e"), std::string::npos);
  // It still reads back as the same model.
  EXPECT_EQ(Json::parse(text), order_builder_model(small_state("dark-age"), "AAA"));
  EXPECT_EQ(Json::parse(script_json(Json("a&b<c>"))), "a&b<c>");
}

TEST_F(WebPhone, TimesAreTimeElementsInUtc) {
  EXPECT_EQ(time_html(1'740'852'000),
            "<time datetime=\"2025-03-01T18:00:00Z\">2025-03-01 18:00 UTC</time>");
  create_britain();
  ASSERT_TRUE(ctx_->admin().set_deadline(kGame, 1'740'852'000, "gm").ok());
  const std::string t = "<time datetime=\"2025-03-01T18:00:00Z\">2025-03-01 18:00 UTC</time>";
  for (const std::string path :
       {"/", "/games/britain-1", "/games/britain-1/me", "/gm", "/gm/games/britain-1"}) {
    const std::string cookie = path.rfind("/gm", 0) == 0 ? gm_cookie() : player_cookie("WSX");
    Response r = get(path, cookie);
    ASSERT_EQ(r.status, 200) << path;
    EXPECT_NE(r.body.find(t), std::string::npos) << path;
    EXPECT_NE(r.body.find("<script src=\"/static/time.js\" defer></script>"), std::string::npos);
    EXPECT_EQ(check_balanced(r.body, true), "") << path;
  }
  // The audit log: every entry's time is one.
  Response audit = get("/games/britain-1/audit");
  const std::regex when(
      "<time datetime=\"\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\">"
      "\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC</time>");
  const auto n = std::distance(std::sregex_iterator(audit.body.begin(), audit.body.end(), when),
                               std::sregex_iterator());
  EXPECT_EQ(n, count(audit.body, "<tr class=\"audit-"));
  EXPECT_GT(n, 0);
}

TEST_F(WebPhone, OrdersPageCarriesTheBuilderHiddenUntilItsScriptRuns) {
  create_britain();
  Response me = get("/games/britain-1/me", player_cookie("WSX"));
  ASSERT_EQ(me.status, 200);
  EXPECT_NE(me.body.find("<fieldset class=\"order-builder\" id=\"order-builder\" hidden>"),
            std::string::npos);
  EXPECT_NE(me.body.find("<script src=\"/static/orders.js\" defer></script>"), std::string::npos);
  const std::string open = "<script type=\"application/json\" id=\"order-data\">";
  const std::size_t at = me.body.find(open);
  ASSERT_NE(at, std::string::npos);
  const std::size_t end = me.body.find("</script>", at);
  const Json data = Json::parse(me.body.substr(at + open.size(), end - at - open.size()));
  EXPECT_EQ(data["player"], "WSX");
  EXPECT_FALSE(data["own"].empty());
  for (const auto& code : data["own"])
    EXPECT_EQ(data["areas"][code.get<std::string>()]["owner"], "WSX");
  // The textarea is still the form's one source of orders.
  EXPECT_NE(me.body.find("<textarea id=\"orders\" name=\"orders\""), std::string::npos);
  EXPECT_EQ(me.body.find("name=\"ob-"), std::string::npos);  // builder fields are never sent
}

TEST_F(WebPhone, StaticScriptsAndPhoneRulesAreServed) {
  for (const std::string name : {"time.js", "orders.js"}) {
    Response r = get("/static/" + name);
    ASSERT_EQ(r.status, 200) << name;
    EXPECT_EQ(r.content_type, "text/javascript; charset=utf-8");
    EXPECT_GT(r.body.size(), 500u);
  }
  EXPECT_NE(get("/static/orders.js").body.find("\"order-data\""), std::string::npos);
  EXPECT_NE(get("/static/time.js").body.find("time[datetime]"), std::string::npos);
  const std::string css = get("/static/adjutant.css").body;
  EXPECT_NE(css.find("@media (max-width: 640px)"), std::string::npos);
  EXPECT_NE(css.find("content: attr(data-label)"), std::string::npos);
  // Pages allow their own static scripts and nothing else.
  create_britain();
  const std::string csp = header(get("/games/britain-1"), "Content-Security-Policy");
  EXPECT_NE(csp.find("script-src 'self'"), std::string::npos) << csp;
  EXPECT_EQ(csp.find("unsafe-inline"), std::string::npos) << csp;
}

}  // namespace
}  // namespace adj::web
