// http::Router: matching, the params filter and the answered hook (server/http/http_types.h).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "server/http/http_types.h"

namespace adj::http {
namespace {

Request request(const std::string& method, const std::string& path) {
  Request r;
  r.method = method;
  r.path = path;
  return r;
}

class RouterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    router_.add(
        "GET", "/games/{game}",
        [](const Request&, const Params& p) { return Response::text("game " + p.at("game")); },
        "game");
    router_.add(
        "POST", "/games/{game}/press",
        [](const Request&, const Params&) { return Response::text("refused", 403); }, "press");
    router_.add("POST", "/boom", [](const Request&, const Params&) -> Response {
      throw std::runtime_error("handler failed");
    });
    router_.set_answered([this](const Request& req, const Response& r) {
      seen_.push_back(req.method + " " + req.path + " " + std::to_string(r.status));
    });
  }
  Router router_;
  std::vector<std::string> seen_;
};

TEST_F(RouterTest, AnsweredSeesEveryHandlersResponse) {
  std::string name;
  EXPECT_EQ(router_.route(request("GET", "/games/b1"), &name).body, "game b1");
  EXPECT_EQ(name, "game");
  EXPECT_EQ(router_.route(request("POST", "/games/b1/press")).status, 403);
  EXPECT_EQ(seen_, (std::vector<std::string>{"GET /games/b1 200", "POST /games/b1/press 403"}));
}

TEST_F(RouterTest, AnsweredIsNotCalledWithoutAHandlersAnswer) {
  EXPECT_EQ(router_.route(request("GET", "/nowhere")).status, 404);
  EXPECT_EQ(router_.route(request("DELETE", "/games/b1")).status, 405);
  EXPECT_THROW(router_.route(request("POST", "/boom")), std::runtime_error);
  EXPECT_TRUE(seen_.empty());
}

TEST_F(RouterTest, ParamsFilterRunsBeforeTheHandler) {
  router_.set_params_filter([](Params& p) {
    if (p.count("game")) p["game"] = "britain-1";
  });
  EXPECT_EQ(router_.route(request("GET", "/games/BRITAIN-1")).body, "game britain-1");
}

}  // namespace
}  // namespace adj::http
