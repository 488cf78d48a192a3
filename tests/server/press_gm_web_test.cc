// The players and the GM talking through press (server/app/press.h, server/web/press_routes.cc,
// press_gm_routes.cc): a player writes to the GM from the press page or the API whatever the
// press level, the GM reads it in the GM inbox (desk, press page, GET .../gm/messages) and it is
// forwarded to the GM's address; the GM writes to all or some; the GM's address is an option;
// players are told whether the GM reads private press.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/server/press_web_fixture.h"
#include "tests/server/web_test_util.h"

namespace adj::web {
namespace {

using ::adj::testing::check_balanced;
using namespace press_test;

class PressGmWeb : public PressWebFixture {
 protected:
  std::vector<Notice> notices_of(const std::string& kind) {
    auto all = ctx_->app().store().notices(pages_test::kGame);
    EXPECT_TRUE(all.ok());
    std::vector<Notice> out;
    if (all.ok())
      for (auto& n : *all)
        if (n.kind == kind) out.push_back(n);
    return out;
  }
  void set_gm_address(const std::string& address) {
    const Response r = api("PUT", "/api/games/britain-1/options/press", kPressGmToken,
                           Json{{"gm_address", address}}.dump());
    ASSERT_EQ(r.status, 200) << r.body;
  }
};

TEST_F(PressGmWeb, APlayerWritesToTheGmEvenWithoutPressAndOnlyTheGmReadsIt) {
  set_press("none");
  set_gm_address("gm@example.org");
  const std::string wsx = cookie("WSX");
  const Response form = get("/games/britain-1/me/press", wsx);
  ASSERT_EQ(form.status, 200);
  EXPECT_EQ(check_balanced(form.body, true), "");
  EXPECT_NE(form.body.find("value=\"GM\""), std::string::npos) << "the GM is always offered";
  EXPECT_EQ(form.body.find("value=\"MRC\""), std::string::npos) << "no press between players";
  EXPECT_NE(form.body.find("forwarded to gm@example.org"), std::string::npos);

  Response sent =
      post("/games/britain-1/me/press",
           {{"to", "GM"}, {"body", "Can you extend the deadline? I'm travelling."}}, wsx);
  ASSERT_EQ(sent.status, 303) << sent.body;
  // To a kingdom: refused under "none", and anonymous to the GM is refused whatever the level.
  EXPECT_EQ(post("/games/britain-1/me/press", {{"to", "MRC"}, {"body", "psst"}}, wsx).status, 409);
  set_press("anonymous");
  Response anon = api("POST", "/api/games/britain-1/press", token("MRC"),
                      R"({"to": "GM", "body": "who am I", "anonymous": true})");
  EXPECT_EQ(anon.status, 409);
  EXPECT_NE(anon.body.find("always carries your name"), std::string::npos) << anon.body;

  // The GM inbox (API, press page, desk) has it; it was forwarded to the GM's address at once.
  Response inbox = api("GET", "/api/games/britain-1/gm/messages", kPressGmToken);
  ASSERT_EQ(inbox.status, 200) << inbox.body;
  const Json j = Json::parse(inbox.body);
  ASSERT_EQ(j["messages"].size(), 1u);
  EXPECT_EQ(j["messages"][0]["from_label"], "Wessex (WSX)");
  EXPECT_EQ(j["messages"][0]["body"], "Can you extend the deadline? I'm travelling.");
  EXPECT_TRUE(j["messages"][0]["signed"]);
  EXPECT_EQ(api("GET", "/api/games/britain-1/gm/messages", token("WSX")).status, 403);
  EXPECT_EQ(api("GET", "/api/games/britain-1/gm/messages", "").status, 401);
  const auto forwarded = notices_of("gm-message");
  ASSERT_EQ(forwarded.size(), 1u);
  EXPECT_EQ(forwarded[0].addresses, std::vector<std::string>{"gm@example.org"});
  EXPECT_NE(forwarded[0].text.find("I'm travelling"), std::string::npos);
  EXPECT_NE(forwarded[0].text.find("PRESS TO WSX"), std::string::npos) << "how to answer";
  const Response desk = get("/gm/games/britain-1", gm_cookie());
  EXPECT_NE(desk.body.find("Messages to the GM (1)"), std::string::npos);
  EXPECT_NE(desk.body.find("I&apos;m travelling"), std::string::npos);

  // Nobody else reads it: not another player, not the public press.
  const Json mrc = Json::parse(api("GET", "/api/games/britain-1/press", token("MRC")).body);
  EXPECT_TRUE(mrc["messages"].empty());
  EXPECT_TRUE(
      Json::parse(api("GET", "/api/games/britain-1/press/archive", "").body)["messages"].empty());
  // The sender sees it as sent to the GM.
  const Json mine = Json::parse(api("GET", "/api/games/britain-1/press", token("WSX")).body);
  ASSERT_EQ(mine["messages"].size(), 1u);
  EXPECT_EQ(mine["messages"][0]["to_label"], "the GM");
}

TEST_F(PressGmWeb, TheGmWritesToAllOrSomeFromTheDesk) {
  const std::string gm = gm_cookie();
  const Response page = get("/gm/games/britain-1/press", gm);
  ASSERT_EQ(page.status, 200) << page.body;
  EXPECT_EQ(check_balanced(page.body, true), "");
  EXPECT_NE(page.body.find("id=\"gm-press-form\""), std::string::npos);
  EXPECT_NE(page.body.find("id=\"gm-inbox\""), std::string::npos);

  Response to_two = post("/gm/games/britain-1/press",
                         {{"to", "MRC"}, {"to", "NUM"}, {"body", "Turn 2 runs a day late."}}, gm);
  ASSERT_EQ(to_two.status, 303) << to_two.body;
  EXPECT_EQ(post("/gm/games/britain-1/press", {{"to", "ALL"}, {"body", "Welcome!"}}, gm).status,
            303);
  EXPECT_EQ(post("/gm/games/britain-1/press", {{"to", "XYZ"}, {"body", "?"}}, gm).status, 400);
  EXPECT_EQ(post("/gm/games/britain-1/press", {{"to", "ALL"}, {"body", "x"}}, cookie("WSX")).status,
            403);

  const Json mrc = Json::parse(api("GET", "/api/games/britain-1/press", token("MRC")).body);
  ASSERT_EQ(mrc["messages"].size(), 2u);
  EXPECT_EQ(mrc["messages"][1]["from_label"], "the GM");
  EXPECT_EQ(mrc["messages"][1]["body"], "Turn 2 runs a day late.");
  const Json wsx = Json::parse(api("GET", "/api/games/britain-1/press", token("WSX")).body);
  ASSERT_EQ(wsx["messages"].size(), 1u) << "WSX reads only the one to all";
  // The players' digests carry it, marked as from the GM.
  const auto digests = press_notices();
  ASSERT_FALSE(digests.empty());
  bool from_gm = false;
  for (const Notice& n : digests) from_gm = from_gm || n.text.find("the GM") != std::string::npos;
  EXPECT_TRUE(from_gm);
}

TEST_F(PressGmWeb, TheGmAddressIsAnOptionAndPlayersAreToldWhetherTheGmReadsPrivatePress) {
  const std::string gm = gm_cookie();
  // No address yet: the game page names the press page alone (no dangling ", or").
  EXPECT_NE(get("/games/britain-1").body.find("id=\"gm-contact\">write to the GM"),
            std::string::npos);
  Response bad = post("/gm/games/britain-1/press/options",
                      {{"press", "private"}, {"gm_address", "not an address"}}, gm);
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(bad.body.find("the GM&apos;s address"), std::string::npos) << bad.body;
  ASSERT_EQ(post("/gm/games/britain-1/press/options",
                 {{"press", "private"}, {"gm_address", "referee@example.net"}}, gm)
                .status,
            303);
  EXPECT_EQ(Json::parse(get("/api/games/britain-1/options/press").body)["gm_address"],
            "referee@example.net");
  EXPECT_NE(get("/games/britain-1").body.find("mailto:referee@example.net"), std::string::npos);

  // gm_reads_private off (unchecked): the press page says so, and the GM's view leaves private
  // press between players out.
  const std::string wsx = cookie("WSX");
  EXPECT_NE(get("/games/britain-1/me/press", wsx).body.find("does not read private press"),
            std::string::npos);
  ASSERT_EQ(post("/games/britain-1/me/press", {{"to", "MRC"}, {"body", "secret plan"}}, wsx).status,
            303);
  EXPECT_EQ(get("/gm/games/britain-1/press", gm).body.find("secret plan"), std::string::npos);
  set_press("private", true);
  EXPECT_NE(get("/games/britain-1/me/press", wsx).body.find("The GM reads private press"),
            std::string::npos);
  EXPECT_NE(get("/gm/games/britain-1/press", gm).body.find("secret plan"), std::string::npos);
}

}  // namespace
}  // namespace adj::web
