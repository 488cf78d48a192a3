// End to end by mail: a draw agreed by three players, each sending DRAW through the SMTP listener
// of a running `adjutant serve` (Python's smtplib as the client); the standings mail to everyone;
// orders refused once the game is over; RESEND <turn> fetching a past report.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/mail/mail_test_util.h"
#include "tests/support/cli_runner.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

namespace adj {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using namespace std::chrono_literals;
using mail_test::eventually;
using mail_test::free_port;
using mail_test::send_file;

constexpr const char* kEndingGm = "ending-mail-gm";

using ::adj::testing::run_shell;
using ::adj::testing::shell_quote;

// Messages that contain every one of `needles`.
int count_with(const std::vector<std::string>& files, const std::vector<std::string>& needles) {
  int n = 0;
  for (const auto& f : files) {
    bool all = true;
    for (const auto& s : needles) all = all && f.find(s) != std::string::npos;
    n += all;
  }
  return n;
}

class EndingMail : public ::testing::Test {
 protected:
  void SetUp() override {
    outbox_ = dir_.file("out");
    d_ = std::make_unique<mail_test::ServeProcess>(
        dir_.file("end.db"), free_port(), free_port(), dir_.file("serve.log"), kEndingGm,
        std::vector<std::string>{"--tick", "0", "--reminder-hours", "0", "--outbox",
                                 outbox_.string()});
    ASSERT_TRUE(d_->wait_ready()) << log();
    ASSERT_NE(gm("POST", "/api/games",
                 R"({"bundled": "exalted-scavenger-lands", "seed": 3, "demo_secrets": true})")
                  .find("scavenger-1"),
              std::string::npos);
  }
  std::string log() const { return ::adj::testing::read_file(dir_.file("serve.log")); }
  std::string gm(const std::string& method, const std::string& path,
                 const std::string& body = "") const {
    std::string cmd = "curl -s -m 20 -X " + method + " -H " +
                      shell_quote(std::string("Authorization: Bearer ") + kEndingGm);
    if (!body.empty()) cmd += " -H 'Content-Type: application/json' --data " + shell_quote(body);
    return run_shell(cmd + " " + shell_quote(d_->url(path)));
  }
  Json get(const std::string& path) const {
    return Json::parse(run_shell("curl -s -m 20 " + shell_quote(d_->url(path))), nullptr, false);
  }
  // Sends a plain-text message from `from` through the SMTP listener; the reply code.
  std::string mail(const std::string& from, const std::string& subject, const std::string& body) {
    const std::string path = dir_.file("m" + std::to_string(++sent_) + ".eml");
    std::ofstream(path) << "From: " << from
                        << "\r\nTo: orders@pbm.example.net\r\nSubject: " << subject
                        << "\r\nMessage-ID: <ending-" << sent_
                        << "@example.org>\r\nDate: Sat, 21 Nov 2026 10:00:00 +0000\r\n\r\n"
                        << body;
    return send_file(d_->smtp(), path, from);
  }
  bool answered(const std::vector<std::string>& needles, int n = 1) {
    return eventually([&] { return count_with(mail_test::maildir_texts(outbox_), needles) >= n; },
                      30s);
  }

  ::adj::testing::TempDir dir_;
  fs::path outbox_;
  std::unique_ptr<mail_test::ServeProcess> d_;
  int sent_ = 0;
};

TEST_F(EndingMail, ThreePlayersAgreeADrawByMailAndEveryoneGetsTheStandings) {
  const std::vector<std::tuple<std::string, std::string, std::string>> players = {
      {"guild@example.org", "GLD", "hearthstone"},
      {"lookshy@example.org", "LKS", "seventh"},
      {"realm@example.org", "RLM", "dragonblood"}};
  for (const auto& [from, code, secret] : players) {
    ASSERT_EQ(mail(from, "orders", "GAME scavenger-1\nPLAYER " + code + " " + secret + "\nDRAW\n"),
              "250")
        << log();
    ASSERT_TRUE(answered({"To: " + from, "DRAW: you propose a draw"})) << log();
  }
  const Json ran = Json::parse(gm("POST", "/api/games/scavenger-1/turns/run"), nullptr, false);
  ASSERT_TRUE(ran.is_object() && ran.value("turn", 0) == 1) << ran.dump();

  const Json st = get("/api/games/scavenger-1/standings");
  ASSERT_TRUE(st.is_object()) << st.dump();
  EXPECT_EQ(st["status"], "finished");
  EXPECT_EQ(st["ending"]["kind"], "draw");
  EXPECT_EQ(st["ending"]["winners"].size(), 3u);
  for (const auto& row : st["standings"]) EXPECT_EQ(row["result"], "drawn");

  // The standings mail, to every player.
  for (const auto& [from, code, secret] : players)
    EXPECT_TRUE(answered({"<" + from + ">", "Final standings", "agreed to a draw"})) << code;
  EXPECT_EQ(count_with(mail_test::maildir_texts(outbox_), {"hearthstone"}), 0)
      << "no secret in any mail";

  // Orders after the end: refused, and the answer says why.
  ASSERT_EQ(mail("guild@example.org", "orders", "GAME scavenger-1\nPLAYER GLD hearthstone\nDRAW\n"),
            "250");
  EXPECT_TRUE(answered({"To: guild@example.org", "the game is over"})) << log();

  // RESEND 1 fetches turn 1's report; RESEND 7 says which turns there are.
  ASSERT_EQ(mail("lookshy@example.org", "RESEND 1", "GAME scavenger-1\nPLAYER LKS seventh\n"),
            "250");
  EXPECT_TRUE(answered({"To: lookshy@example.org", "Turn 1 report for LKS"})) << log();
  ASSERT_EQ(mail("lookshy@example.org", "x", "RESEND 7\nGAME scavenger-1\nPLAYER LKS seventh\n"),
            "250");
  EXPECT_TRUE(answered({"To: lookshy@example.org", "There is no report of turn 7"})) << log();
}

}  // namespace
}  // namespace adj
