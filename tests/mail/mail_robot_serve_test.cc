// End to end, against `adjutant serve` as a real process (each test with its own directory and
// free ports), mail sent with Python's smtplib through the SMTP listener, turns run and rolled
// back through the GM JSON API, and what was mailed read from the outbox Maildir: a rollback
// tells every player, a re-run mails every report again as a correction and neither pushes the
// deadline; lines rejected at submission appear in the report; HELP is plain text for the game
// (the player's own areas when signed); replies mask only the PLAYER line's secret; start-up
// (the GM token kept across quick starts, a taken port named with the flag to pass).
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <ctime>
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

constexpr const char* kRobotGm = "robot-gm-token";
using ::adj::testing::run_shell;
using ::adj::testing::shell_quote;
std::string robot_slurp(const fs::path& p) { return ::adj::testing::read_file(p.string()); }

// The messages in a Maildir's new/, with folded header lines unfolded (a long subject is one
// line again).
std::vector<std::string> robot_maildir_files(const fs::path& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir / "new", ec)) {
    std::string m = robot_slurp(e.path());
    const std::size_t head_end =
        m.find("\n\n") != std::string::npos ? m.find("\n\n") : m.find("\r\n\r\n");
    std::string head = m.substr(0, head_end);
    for (std::size_t p; (p = head.find("\r\n ")) != std::string::npos;) head.erase(p, 2);
    for (std::size_t p; (p = head.find("\n ")) != std::string::npos;) head.erase(p, 1);
    out.push_back(head + (head_end == std::string::npos ? "" : m.substr(head_end)));
  }
  return out;
}

std::vector<std::string> containing(const std::vector<std::string>& files,
                                    const std::string& needle) {
  std::vector<std::string> out;
  for (const auto& f : files)
    if (f.find(needle) != std::string::npos) out.push_back(f);
  return out;
}

// A message's body after the header block (quoted-printable soft breaks undone, so that long
// lines can be searched whole).
std::string body_of(const std::string& raw) {
  std::size_t at = raw.find("\r\n\r\n");
  std::string b = at != std::string::npos                        ? raw.substr(at + 4)
                  : (at = raw.find("\n\n")) != std::string::npos ? raw.substr(at + 2)
                                                                 : raw;
  for (std::size_t p; (p = b.find("=\r\n")) != std::string::npos;) b.erase(p, 3);
  for (std::size_t p; (p = b.find("=\n")) != std::string::npos;) b.erase(p, 2);
  for (std::size_t p; (p = b.find("=3D")) != std::string::npos;) b.replace(p, 3, "=");
  return b;
}

class RobotDaemon : public mail_test::ServeProcess {
 public:
  RobotDaemon(const std::string& db, const std::string& log, std::vector<std::string> extra,
              const std::string& gm = kRobotGm)
      : ServeProcess(db, free_port(), free_port(), log, gm, std::move(extra)), log_(log) {}
  std::string log() const { return robot_slurp(log_); }
  std::string gm(const std::string& method, const std::string& path,
                 const std::string& body = "") const {
    std::string cmd = "curl -s -m 20 -X " + method + " -H " +
                      shell_quote(std::string("Authorization: Bearer ") + kRobotGm);
    if (!body.empty()) cmd += " -H 'Content-Type: application/json' --data " + shell_quote(body);
    return run_shell(cmd + " " + shell_quote(url(path)));
  }
  bool create_game() const {
    return gm("POST", "/api/games",
              R"({"bundled": "dark-age-britain", "seed": 11, "demo_secrets": true})")
               .find("britain-1") != std::string::npos;
  }
  std::optional<long long> deadline() const {
    const Json j = Json::parse(gm("GET", "/api/games/britain-1/schedule"), nullptr, false);
    if (!j.is_object()) return std::nullopt;
    const Json& s = j.contains("schedule") ? j["schedule"] : j;
    if (!s.contains("deadline") || !s["deadline"].is_number_integer()) return std::nullopt;
    return s["deadline"].get<long long>();
  }
  // Sends `text` (a whole message: headers, blank line, body) through the SMTP listener.
  std::string send(const ::adj::testing::TempDir& dir, const std::string& text,
                   const std::string& from) const {
    static int n = 0;
    const std::string path = dir.file("msg" + std::to_string(++n) + ".eml");
    std::ofstream(path) << text;
    return send_file(smtp(), path, from);
  }

 private:
  std::string log_;
};

std::string robot_message(const std::string& from, const std::string& subject,
                          const std::string& id, const std::string& body) {
  return "From: " + from + "\r\nTo: orders@pbm.example.net\r\nSubject: " + subject +
         "\r\nMessage-ID: <" + id + "@example.org>\r\nMIME-Version: 1.0\r\n\r\n" + body;
}

const std::string kWessex = "wessex@example.org";

TEST(MailRobotServe, RollbackTellsEveryoneAndTheRerunMailsCorrectionsWithoutPushingTheDeadline) {
  ::adj::testing::TempDir dir;
  const std::string db = dir.file("mf.db"), log = dir.file("serve.log");
  const fs::path outbox = dir.file("out");
  RobotDaemon d(db, log, {"--tick", "0", "--reminder-hours", "0", "--outbox", outbox.string()});
  ASSERT_TRUE(d.wait_ready()) << d.log();
  ASSERT_TRUE(d.create_game());
  // An interval schedule: each run sets the next deadline a day on.
  const long long first = static_cast<long long>(std::time(nullptr)) + 3600;
  ASSERT_NE(d.gm("PUT", "/api/games/britain-1/schedule",
                 R"({"kind": "interval", "interval_seconds": 86400, "deadline": )" +
                     std::to_string(first) + "}")
                .find("interval"),
            std::string::npos);
  // Setting the deadline tells every player, once.
  ASSERT_TRUE(eventually([&] {
    return containing(robot_maildir_files(outbox), "turn 1 is due by").size() == 5;
  })) << d.log();

  // Wessex's orders by mail, with a line that cannot be read.
  ASSERT_EQ(d.send(dir,
                   robot_message(kWessex, "orders", "rb1",
                                 "GAME britain-1\r\nPLAYER WSX cerdic\r\n1. LEVY HAM 3\r\n"
                                 "2. MOVVE HAM KNT\r\nEND\r\n"),
                   kWessex),
            "250");
  ASSERT_TRUE(eventually([&] { return !containing(robot_maildir_files(outbox), "rb1@").empty(); }))
      << d.log();

  const std::string ran = d.gm("POST", "/api/games/britain-1/turns/run");
  ASSERT_NE(ran.find("\"turn\""), std::string::npos) << ran;
  ASSERT_TRUE(eventually([&] {
    return containing(robot_maildir_files(outbox), "turn 1 report for").size() == 5;
  })) << d.log();
  const auto wsx_report = containing(
      containing(robot_maildir_files(outbox), "turn 1 report for WSX"), "ORDERS NOT CARRIED OUT");
  ASSERT_EQ(wsx_report.size(), 1u) << "the rejected line is in the report";
  EXPECT_NE(body_of(wsx_report[0]).find("MOVVE HAM KNT"), std::string::npos);
  // The report tells when the next turn is due.
  EXPECT_NE(body_of(wsx_report[0]).find("Orders for turn 2 are due by "), std::string::npos);
  const auto after_run = d.deadline();
  ASSERT_TRUE(after_run);
  EXPECT_EQ(*after_run, first + 86400);

  // Rollback: every player is told, the orders are kept, the deadline stays.
  ASSERT_EQ(d.gm("POST", "/api/games/britain-1/rollback", R"({"turn": 1})").find("error"),
            std::string::npos);
  ASSERT_TRUE(eventually([&] {
    return containing(robot_maildir_files(outbox), "turn 1 reopened by the game master").size() ==
           5;
  })) << d.log();
  for (const auto& m : containing(robot_maildir_files(outbox), "turn 1 reopened")) {
    const std::string b = body_of(m);
    EXPECT_NE(b.find("are kept"), std::string::npos) << b;
    EXPECT_NE(b.find("Orders for turn 1 are due by"), std::string::npos) << b;
  }
  EXPECT_EQ(d.deadline(), after_run);

  // The re-run: every report again, marked as a correction; the deadline is not pushed.
  ASSERT_NE(d.gm("POST", "/api/games/britain-1/turns/run").find("\"turn\""), std::string::npos);
  ASSERT_TRUE(eventually([&] {
    return containing(robot_maildir_files(outbox), "Subject: Correction:").size() == 5;
  })) << d.log();
  for (const auto& m : containing(robot_maildir_files(outbox), "Subject: Correction:")) {
    // The text part (the map after the turn is attached to it, report_map_test.cc).
    const auto p = mail::parse_mail(m);
    ASSERT_TRUE(p.ok()) << p.status().to_string();
    EXPECT_EQ(p->text.rfind("This report replaces the turn 1 report mailed to you before", 0), 0u)
        << p->text;
    EXPECT_NE(m.find("map-turn-1.png"), std::string::npos);
  }
  EXPECT_EQ(d.deadline(), after_run);
  // The first reports were not sent again under their old subject.
  EXPECT_EQ(containing(robot_maildir_files(outbox), "turn 1 report for").size(), 10u);
  EXPECT_EQ(containing(containing(robot_maildir_files(outbox), "turn 1 report for"), "Correction:")
                .size(),
            5u);
}

TEST(MailRobotServe, RepliesMaskOnlyThePlayerLinesSecretAndSuggestNearAreaCodes) {
  ::adj::testing::TempDir dir;
  const std::string db = dir.file("mf.db"), log = dir.file("serve.log");
  const fs::path outbox = dir.file("out");
  RobotDaemon d(db, log, {"--tick", "0", "--reminder-hours", "0", "--outbox", outbox.string()});
  ASSERT_TRUE(d.wait_ready()) << d.log();
  ASSERT_TRUE(d.create_game());
  // The secret "cerdic" also appears as an ordinary word in the subject and an order line.
  ASSERT_EQ(d.send(dir,
                   robot_message(kWessex, "cerdic marches", "mask1",
                                 "GAME britain-1\r\nPLAYER WSX cerdic\r\n1. MOVE HAM OXD 4\r\n"
                                 "2. MOVE HAM cerdic\r\nEND\r\n"),
                   kWessex),
            "250");
  ASSERT_TRUE(eventually([&] {
    return !containing(robot_maildir_files(outbox), "mask1@").empty();
  })) << d.log();
  const std::string answer = containing(robot_maildir_files(outbox), "mask1@").front();
  const std::string b = body_of(answer);
  EXPECT_NE(answer.find("Subject: Re: cerdic marches"), std::string::npos) << answer;
  EXPECT_NE(b.find("PLAYER WSX ********"), std::string::npos) << b;
  EXPECT_EQ(b.find("PLAYER WSX cerdic"), std::string::npos) << b;
  EXPECT_NE(b.find("MOVE HAM cerdic"), std::string::npos) << b;
  EXPECT_NE(b.find("did you mean OXF"), std::string::npos) << b;
}

TEST(MailRobotServe, HelpIsPlainTextForTheGameWithThePlayersOwnAreasWhenSigned) {
  ::adj::testing::TempDir dir;
  const std::string db = dir.file("mf.db"), log = dir.file("serve.log");
  const fs::path outbox = dir.file("out");
  RobotDaemon d(db, log, {"--tick", "0", "--reminder-hours", "0", "--outbox", outbox.string()});
  ASSERT_TRUE(d.wait_ready()) << d.log();
  ASSERT_TRUE(d.create_game());

  // Anyone: the syntax and examples from the map, nothing private, no Markdown.
  ASSERT_EQ(d.send(dir, robot_message("stranger@example.com", "HELP britain-1", "help1", "\r\n"),
                   "stranger@example.com"),
            "250");
  ASSERT_TRUE(eventually([&] {
    return !containing(robot_maildir_files(outbox), "stranger@example.com").empty();
  })) << d.log();
  const std::string open =
      body_of(containing(robot_maildir_files(outbox), "stranger@example.com")[0]);
  EXPECT_NE(open.find("HOW TO WRITE ORDERS"), std::string::npos) << open;
  EXPECT_NE(open.find("GAME britain-1"), std::string::npos) << open;
  EXPECT_NE(open.find("Examples on this map"), std::string::npos) << open;
  EXPECT_EQ(open.find("YOUR AREAS"), std::string::npos) << open;
  for (const char* markdown : {"```", "|---", "## ", "`GAME"})
    EXPECT_EQ(open.find(markdown), std::string::npos) << markdown << "\n" << open;

  // Signed: the player's own areas with their neighbours and examples from them.
  ASSERT_EQ(d.send(dir,
                   robot_message(kWessex, "help", "help2",
                                 "HELP\r\nGAME britain-1\r\nPLAYER WSX cerdic\r\n"),
                   kWessex),
            "250");
  ASSERT_TRUE(eventually([&] {
    return !containing(robot_maildir_files(outbox), "help2@").empty();
  })) << d.log();
  const std::string mine = body_of(containing(robot_maildir_files(outbox), "help2@")[0]);
  EXPECT_NE(mine.find("YOUR AREAS (WSX"), std::string::npos) << mine;
  EXPECT_NE(mine.find("  HAM "), std::string::npos) << mine;
  EXPECT_NE(mine.find("Examples from your position"), std::string::npos) << mine;
  EXPECT_EQ(mine.find("cerdic"), std::string::npos) << mine;

  // A wrong secret gets the public answer only.
  ASSERT_EQ(d.send(dir,
                   robot_message("other@example.com", "help", "help3",
                                 "HELP\r\nGAME britain-1\r\nPLAYER WSX notright\r\n"),
                   "other@example.com"),
            "250");
  ASSERT_TRUE(eventually([&] {
    return !containing(robot_maildir_files(outbox), "other@example.com").empty();
  })) << d.log();
  const std::string wrong =
      body_of(containing(robot_maildir_files(outbox), "other@example.com")[0]);
  EXPECT_EQ(wrong.find("YOUR AREAS"), std::string::npos) << wrong;
  EXPECT_NE(wrong.find("HOW TO WRITE ORDERS"), std::string::npos) << wrong;
}

TEST(MailRobotServe, TheJsonApiSaysWhatIsWrongAndWhatToDo) {
  ::adj::testing::TempDir dir;
  RobotDaemon d(dir.file("mf.db"), dir.file("serve.log"), {"--tick", "0"});
  ASSERT_TRUE(d.wait_ready()) << d.log();
  ASSERT_TRUE(d.create_game());
  // A second game with a taken id.
  const std::string dup =
      d.gm("POST", "/api/games", R"({"bundled": "dark-age-britain", "demo_secrets": true})");
  EXPECT_NE(dup.find("A game with id britain-1 already exists; choose another id"),
            std::string::npos)
      << dup;
  // A scenario with a value outside its enum.
  Json bad = Json::parse(R"({
    "id": "t-1", "name": "Test", "engine": {"name": "dark-age"},
    "players": [{"code": "WSX", "name": "Wessex", "secret": "s3cret-one"}],
    "areas": [{"code": "HRS", "kind": "swamp", "owner": "WSX", "armies": 5}],
    "adjacency": []
  })");
  const std::string schema = d.gm("POST", "/api/games", bad.dump());
  EXPECT_NE(schema.find("must be one of"), std::string::npos) << schema;
  // An unknown area in an order file gets the nearest codes.
  const std::string ack =
      run_shell("curl -s -m 20 -H 'Content-Type: text/plain' --data-binary " +
                shell_quote("GAME britain-1\nPLAYER WSX cerdic\n1. MOVE HAM OXD 4\n") + " " +
                shell_quote(d.url("/api/games/britain-1/orders?check=1")));
  EXPECT_NE(ack.find("did you mean OXF"), std::string::npos) << ack;
}

TEST(MailRobotServe, QuickStartKeepsItsGmTokenInAPrivateFileBesideTheDatabase) {
  ::adj::testing::TempDir dir;
  const std::string db = dir.file("qs.db"), log = dir.file("serve.log");
  const std::string token_file = db + ".gm-token";
  std::string token;
  {
    RobotDaemon d(db, log, {"--demo", "--tick", "0"}, "");
    ASSERT_TRUE(d.wait_ready()) << d.log();
    token = robot_slurp(token_file);
    while (!token.empty() && token.back() == '\n') token.pop_back();
    ASSERT_EQ(token.size(), 32u);
    struct stat st {};
    ASSERT_EQ(::stat(token_file.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    EXPECT_EQ(run_shell("curl -s -o /dev/null -w '%{http_code}' -H " +
                        shell_quote("Authorization: Bearer " + token) + " " +
                        shell_quote(d.url("/api/mail"))),
              "200");
    // The demo game has the README's id.
    EXPECT_NE(run_shell("curl -s " + shell_quote(d.url("/api/games"))).find("\"britain-1\""),
              std::string::npos);
  }
  RobotDaemon again(db, log, {"--demo", "--tick", "0"}, "");
  ASSERT_TRUE(again.wait_ready()) << again.log();
  EXPECT_EQ(run_shell("curl -s -o /dev/null -w '%{http_code}' -H " +
                      shell_quote("Authorization: Bearer " + token) + " " +
                      shell_quote(again.url("/api/mail"))),
            "200");
  EXPECT_NE(robot_slurp(log + ".out").find(token_file), std::string::npos)
      << robot_slurp(log + ".out");
}

TEST(MailRobotServe, ASecondServeOnATakenSmtpPortSaysWhichPortAndWhichFlag) {
  ::adj::testing::TempDir dir;
  RobotDaemon first(dir.file("a.db"), dir.file("a.log"), {"--tick", "0"});
  ASSERT_TRUE(first.wait_ready()) << first.log();
  const std::string smtp = "127.0.0.1:" + std::to_string(first.smtp());
  const std::string out =
      run_shell("ADJUTANT_GM_TOKEN= timeout 30 " + shell_quote(ADJ_BINARY) + " --db " +
                shell_quote(dir.file("b.db")) + " serve --tick 0 --http 127.0.0.1:" +
                std::to_string(free_port()) + " --smtp " + smtp + " 2>&1; echo exit=$?");
  EXPECT_NE(out.find("cannot listen for SMTP on " + smtp), std::string::npos) << out;
  EXPECT_NE(out.find("--smtp HOST:PORT"), std::string::npos) << out;
  EXPECT_NE(out.find("--smtp off"), std::string::npos) << out;
  EXPECT_NE(out.find("exit=1"), std::string::npos) << out;

  const std::string http = "127.0.0.1:" + std::to_string(first.http());
  const std::string out2 =
      run_shell("ADJUTANT_GM_TOKEN= timeout 30 " + shell_quote(ADJ_BINARY) + " --db " +
                shell_quote(dir.file("c.db")) + " serve --tick 0 --smtp off --http " + http +
                " 2>&1; echo exit=$?");
  EXPECT_NE(out2.find("cannot listen for HTTP on " + http), std::string::npos) << out2;
  EXPECT_NE(out2.find("--http HOST:PORT"), std::string::npos) << out2;
  EXPECT_NE(out2.find("exit=1"), std::string::npos) << out2;
}

}  // namespace
}  // namespace adj

namespace adj {
namespace {

TEST(MailRobotServe, APlayersLetterReachesTheGmAndTheGmAnswersByMail) {
  ::adj::testing::TempDir dir;
  const std::string db = dir.file("gm.db"), log = dir.file("serve.log");
  const fs::path outbox = dir.file("out");
  RobotDaemon d(db, log,
                {"--tick", "0", "--reminder-hours", "0", "--outbox", outbox.string(),
                 "--gm-address", "gm@example.org"});
  ASSERT_TRUE(d.wait_ready()) << d.log();
  ASSERT_TRUE(d.create_game());
  // A reply to the report that is no order file: kept, forwarded, answered.
  ASSERT_EQ(d.send(dir,
                   robot_message(kWessex, "Re: turn 1 report for WSX", "gm1",
                                 "Can you extend the deadline? I'm travelling.\r\n"),
                   kWessex),
            "250");
  ASSERT_TRUE(eventually([&] {
    return containing(robot_maildir_files(outbox), "message to the GM from Wessex").size() == 1 &&
           containing(robot_maildir_files(outbox), "passed to the GM").size() == 1;
  })) << d.log();
  const auto fwd = containing(robot_maildir_files(outbox), "message to the GM from Wessex");
  EXPECT_NE(fwd[0].find("To: gm@example.org"), std::string::npos);
  EXPECT_NE(body_of(fwd[0]).find("I'm travelling"), std::string::npos);
  const Json inbox = Json::parse(d.gm("GET", "/api/games/britain-1/gm/messages"), nullptr, false);
  ASSERT_TRUE(inbox.is_object());
  ASSERT_EQ(inbox["messages"].size(), 1u);
  EXPECT_EQ(inbox["messages"][0]["from"], "WSX");

  // The GM answers by mail from the GM address with the GM line; Wessex's press digest has it.
  ASSERT_EQ(d.send(dir,
                   robot_message("gm@example.org", "Re: message to the GM", "gm2",
                                 std::string("GAME britain-1\r\nGM ") + kRobotGm +
                                     "\r\nPRESS TO WSX\r\nYes: two more days.\r\nENDPRESS\r\n"),
                   "gm@example.org"),
            "250");
  ASSERT_TRUE(eventually([&] {
    for (const auto& m : containing(robot_maildir_files(outbox), "Press: 1 new message"))
      if (m.find("To: ") != std::string::npos &&
          body_of(m).find("Yes: two more days.") != std::string::npos)
        return true;
    return false;
  })) << d.log();
  const auto digest = containing(robot_maildir_files(outbox), "Yes: two more days.");
  bool from_gm = false;
  for (const auto& m : digest) from_gm = from_gm || body_of(m).find("the GM") != std::string::npos;
  EXPECT_TRUE(from_gm);
  for (const auto& m : robot_maildir_files(outbox))
    EXPECT_EQ(m.find(kRobotGm), std::string::npos) << "the GM token is never mailed";
}

}  // namespace
}  // namespace adj
