// End to end: press with `adjutant serve` as a real process. Players send PRESS blocks by mail
// through the SMTP listener (Python's smtplib), alone and inside an orders mail, and by the JSON
// API over real HTTP (curl); what the recipients get is read from the outbox Maildir.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/mail/mail_test_util.h"
#include "tests/support/cli_runner.h"
#include "tests/support/temp_dir.h"

namespace adj {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using namespace std::chrono_literals;
using mail_test::eventually;
using mail_test::free_port;

constexpr const char* kPressGm = "press-gm-token";
using ::adj::testing::run_shell;
using ::adj::testing::shell_quote;

// The delivered messages to `to` whose text holds `needle`.
std::vector<std::string> press_mail_to(const fs::path& dir, const std::string& to,
                                       const std::string& needle) {
  std::vector<std::string> out;
  for (const auto& m : mail_test::maildir_texts(dir))
    if (m.find("To: " + to) != std::string::npos || m.find("<" + to + ">") != std::string::npos)
      if (m.find(needle) != std::string::npos) out.push_back(m);
  return out;
}

std::string header_of(const std::string& msg, const std::string& name) {
  const std::size_t at = msg.find("\n" + name + ": ");
  if (at == std::string::npos) return "";
  const std::size_t start = at + name.size() + 3;
  return msg.substr(start, msg.find('\n', start) - start);
}

class PressServe : public ::testing::Test {
 protected:
  void SetUp() override {
    daemon_ = std::make_unique<mail_test::ServeProcess>(
        dir_.file("press.db"), free_port(), free_port(), dir_.file("serve.log"), kPressGm,
        std::vector<std::string>{"--tick", "0", "--outbox", outbox_.string()});
    ASSERT_TRUE(daemon_->wait_ready()) << ::adj::testing::read_file(dir_.file("serve.log"));
    ASSERT_NE(gm("POST", "/api/games",
                 R"({"bundled": "dark-age-britain", "seed": 11, "demo_secrets": true})")
                  .find("britain-1"),
              std::string::npos);
  }
  std::string curl(const std::string& method, const std::string& path, const std::string& auth,
                   const std::string& body = "") {
    std::string cmd = "curl -s -m 10 -X " + method + " -H " + shell_quote("Authorization: " + auth);
    if (!body.empty()) cmd += " -H 'Content-Type: application/json' --data " + shell_quote(body);
    return run_shell(cmd + " " + shell_quote(daemon_->url(path)));
  }
  std::string gm(const std::string& method, const std::string& path, const std::string& body = "") {
    return curl(method, path, std::string("Bearer ") + kPressGm, body);
  }
  std::string send(const std::string& name, const std::string& from, const std::string& body) {
    const std::string file = dir_.file(name + ".eml");
    std::ofstream(file) << "From: <" << from << ">\r\nTo: orders@pbm.example.net\r\n"
                        << "Subject: britain-1\r\nMessage-ID: <" << name << "@example.org>\r\n"
                        << "\r\n"
                        << body;
    return mail_test::send_file(daemon_->smtp(), file, from);
  }
  bool has_orders(const std::string& player) {
    const Json j = Json::parse(gm("GET", "/api/games/britain-1/submissions"), nullptr, false);
    if (!j.is_object() || !j.contains("players")) return false;
    for (const auto& p : j["players"])
      if (p.value("player", "") == player) return p.value("has_orders", false);
    return false;
  }

  ::adj::testing::TempDir dir_;
  fs::path outbox_ = dir_.file("out");
  std::unique_ptr<mail_test::ServeProcess> daemon_;
};

TEST_F(PressServe, PressByMailAloneAndInOrdersIsDeliveredThreaded) {
  ASSERT_EQ(send("p1", "wessex@example.org",
                 "GAME britain-1\nPLAYER WSX cerdic\nPRESS TO MRC,NUM\nShall we share Mercia?\n"
                 "ENDPRESS\n"),
            "250");
  ASSERT_TRUE(eventually(
      [&] { return press_mail_to(outbox_, "northumbria@example.org", "share Mercia").size() == 1; },
      20s));
  const std::string to_mrc = press_mail_to(outbox_, "mercia@example.org", "share Mercia").at(0);
  EXPECT_NE(to_mrc.find("From: Wessex (WSX)"), std::string::npos) << to_mrc;  // its digest
  const std::string thread = header_of(to_mrc, "References");
  EXPECT_FALSE(thread.empty()) << to_mrc;
  // The sender's answer lists what was sent to whom.
  ASSERT_TRUE(eventually(
      [&] { return !press_mail_to(outbox_, "wessex@example.org", "sent to Mercia (MRC)").empty(); },
      20s));
  EXPECT_FALSE(has_orders("WSX"));

  // Mercia answers inside an orders mail: the orders are accepted, the press is delivered in
  // the same thread.
  std::string orders = ::adj::testing::read_file(
      std::string(ADJ_SOURCE_DIR) + "/schemas/scenarios/dark-age-britain/turn1-MRC.txt");
  orders += "\nPRESS TO WSX, Northumbria\nAgreed: Oxfordshire is yours.\nENDPRESS\n";
  ASSERT_EQ(send("o1", "mercia@example.org", orders), "250");
  ASSERT_TRUE(eventually(
      [&] {
        return press_mail_to(outbox_, "wessex@example.org", "Oxfordshire is yours").size() == 1;
      },
      20s));
  EXPECT_TRUE(eventually([&] { return has_orders("MRC"); }, 20s));
  const std::string reply =
      press_mail_to(outbox_, "wessex@example.org", "Oxfordshire is yours").at(0);
  EXPECT_EQ(header_of(reply, "References"), thread);
  ASSERT_TRUE(eventually(
      [&] { return !press_mail_to(outbox_, "mercia@example.org", "accepted, 0 rejected").empty(); },
      20s));
  EXPECT_NE(press_mail_to(outbox_, "mercia@example.org", "accepted, 0 rejected")
                .at(0)
                .find("sent to Wessex"),
            std::string::npos);
}

TEST_F(PressServe, AnonymousPressByMailAndThePressApi) {
  EXPECT_NE(gm("PUT", "/api/games/britain-1/options/press", R"({"press": "anonymous"})")
                .find("\"anonymous\""),
            std::string::npos);
  ASSERT_EQ(send("a1", "wessex@example.org",
                 "GAME britain-1\nPLAYER WSX cerdic\nPRESS TO EAN ANONYMOUS\nWatch your coast.\n"
                 "ENDPRESS\n"),
            "250");
  ASSERT_TRUE(eventually(
      [&] {
        return press_mail_to(outbox_, "eastanglia@example.org", "Watch your coast").size() == 1;
      },
      20s));
  const std::string anon =
      press_mail_to(outbox_, "eastanglia@example.org", "Watch your coast").at(0);
  EXPECT_EQ(anon.find("WSX"), std::string::npos) << anon;
  EXPECT_EQ(anon.find("Wessex"), std::string::npos);
  EXPECT_EQ(anon.find("wessex@"), std::string::npos);

  // The API: East Anglia reads it without the sender, and answers everyone.
  const Json tok = Json::parse(gm("POST", "/api/games/britain-1/players/EAN/token"));
  const std::string bearer = "Bearer " + tok.value("token", "");
  const Json box = Json::parse(curl("GET", "/api/games/britain-1/press", bearer));
  ASSERT_EQ(box["messages"].size(), 1u);
  EXPECT_TRUE(box["messages"][0]["from"].is_null());
  EXPECT_EQ(box["messages"][0]["body"], "Watch your coast.");
  const Json sent = Json::parse(curl("POST", "/api/games/britain-1/press", bearer,
                                     R"({"to": "ALL", "body": "East Anglia fears no one."})"));
  EXPECT_EQ(sent.value("to", ""), "ALL");
  ASSERT_TRUE(eventually(
      [&] { return press_mail_to(outbox_, "gwynedd@example.org", "fears no one").size() == 1; },
      20s));
  // Public press is on the public page; the GM reads the anonymous sender.
  EXPECT_NE(run_shell("curl -s -m 10 " + shell_quote(daemon_->url("/games/britain-1/press")))
                .find("fears no one"),
            std::string::npos);
  const Json gm_view = Json::parse(gm("GET", "/api/games/britain-1/press"));
  ASSERT_EQ(gm_view["messages"].size(), 2u);
  EXPECT_EQ(gm_view["messages"][1]["from"], "WSX");
}

// Issue 28: with gm_reads_private off, the sender's answer to anonymous press, which the GM's
// outbox view shows, does not say to whom it went (it said "sent to East Anglia (EAN) without
// your name"), and the recipients' digests stay withheld there.
TEST_F(PressServe, GmOutboxViewNeverShowsWhoSentAnonymousPressToWhom) {
  EXPECT_NE(gm("PUT", "/api/games/britain-1/options/press",
               R"({"press": "anonymous", "gm_reads_private": false})")
                .find("\"anonymous\""),
            std::string::npos);
  ASSERT_EQ(send("a2", "wessex@example.org",
                 "GAME britain-1\nPLAYER WSX cerdic\nPRESS TO EAN ANONYMOUS\nA secret ally.\n"
                 "ENDPRESS\n"),
            "250");
  ASSERT_TRUE(eventually(
      [&] { return press_mail_to(outbox_, "eastanglia@example.org", "A secret ally").size() == 1; },
      20s));
  const Json list = Json::parse(gm("GET", "/api/games/britain-1/outbox"));
  std::int64_t ack = 0, digest = 0;
  for (const auto& m : list["outbox"]) {
    if (m.value("kind", "") == "press-ack") ack = m.value("id", std::int64_t{0});
    if (m.value("kind", "") == "press") digest = m.value("id", std::int64_t{0});
  }
  ASSERT_NE(ack, 0) << list.dump();
  ASSERT_NE(digest, 0) << list.dump();
  const std::string page = gm("GET", "/gm/outbox/" + std::to_string(ack));
  EXPECT_NE(page.find("sent without your name"), std::string::npos) << page;  // the body shows
  EXPECT_EQ(page.find("East Anglia"), std::string::npos) << page;
  EXPECT_EQ(page.find("(EAN)"), std::string::npos) << page;
  const std::string to_ean = gm("GET", "/gm/outbox/" + std::to_string(digest));
  EXPECT_NE(to_ean.find("press withheld"), std::string::npos) << to_ean;
  EXPECT_EQ(to_ean.find("A secret ally"), std::string::npos);
  // The sender still learns on the web to whom it went.
  const Json tok = Json::parse(gm("POST", "/api/games/britain-1/players/WSX/token"));
  const Json box =
      Json::parse(curl("GET", "/api/games/britain-1/press", "Bearer " + tok.value("token", "")));
  ASSERT_EQ(box["messages"].size(), 1u);
  EXPECT_EQ(box["messages"][0]["to"], Json::array({"EAN"}));
}

}  // namespace
}  // namespace adj
