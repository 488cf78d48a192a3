// End to end, attendance against a real `adjutant serve` (server/app/attendance.h): players who
// miss turns go into civil disorder, standby players get takeover offers, and a takeover gives the
// position a new player whose orders count, by mail through the SMTP listener (Python smtplib),
// by the JSON API and through the web pages (curl with cookies and the CSRF token); absences on
// every channel; the attacker's side (code guessing throttled, used codes refused, a STANDBY
// flood rate-limited). What the daemon sent is read from its outbox Maildir.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <thread>

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

constexpr const char* kAttendanceGm = "attendance-gm-token";
constexpr const char* kAttendanceCsrf = "0123456789abcdef0123456789abcdef";
using ::adj::testing::run_shell;
using ::adj::testing::shell_quote;

using Http = ::adj::testing::CurlAnswer;
using ::adj::testing::curl;

// The text of every message in the outbox Maildir (new/) sent to `to`, with soft line breaks of
// quoted-printable undone.
std::vector<std::string> attendance_mail_to(const fs::path& outbox, const std::string& to) {
  std::vector<std::string> out;
  for (const auto& f : mail_test::maildir_new(outbox)) {
    std::string m = ::adj::testing::read_file(f.string());
    if (m.find("To: " + to) == std::string::npos && m.find("<" + to + ">") == std::string::npos)
      continue;
    m = std::regex_replace(m, std::regex("=\r?\n"), "");
    out.push_back(m);
  }
  return out;
}

// The first capture of `re` in any of `mails`, or "".
std::string find_in(const std::vector<std::string>& mails, const std::string& re) {
  std::smatch m;
  for (const auto& s : mails)
    if (std::regex_search(s, m, std::regex(re))) return m[1];
  return "";
}

class AttendanceDaemon : public mail_test::ServeProcess {
 public:
  AttendanceDaemon(const std::string& db, const std::string& log, const fs::path& outbox,
                   std::vector<std::string> extra = {})
      : ServeProcess(db, free_port(), free_port(), log, kAttendanceGm,
                     with(outbox, std::move(extra))),
        log_(log) {}
  static std::vector<std::string> with(const fs::path& outbox, std::vector<std::string> extra) {
    std::vector<std::string> v = {"--tick", "0",        "--reminder-hours",
                                  "0",      "--outbox", outbox.string()};
    v.insert(v.end(), extra.begin(), extra.end());
    return v;
  }
  std::string log() const { return ::adj::testing::read_file(log_); }
  Http gm(const std::string& method, const std::string& path, const std::string& body = "") const {
    std::string args = "-X " + method + " -H " +
                       shell_quote(std::string("Authorization: Bearer ") + kAttendanceGm);
    if (!body.empty()) args += " -H 'Content-Type: application/json' --data " + shell_quote(body);
    return curl(args + " " + shell_quote(url(path)));
  }
  Http api(const std::string& method, const std::string& path, const std::string& body) const {
    return curl("-X " + method + " -H 'Content-Type: application/json' --data " +
                shell_quote(body) + " " + shell_quote(url(path)));
  }
  // A form POST with the CSRF cookie and field (and more cookies).
  Http form(const std::string& path, const std::string& fields,
            const std::string& cookies = "") const {
    std::string c =
        std::string("adj_csrf=") + kAttendanceCsrf + (cookies.empty() ? "" : "; " + cookies);
    return curl("-X POST -b " + shell_quote(c) + " --data " +
                shell_quote(std::string("csrf=") + kAttendanceCsrf + "&" + fields) + " " +
                shell_quote(url(path)));
  }
  Http page(const std::string& path, const std::string& cookies = "") const {
    return curl((cookies.empty() ? "" : "-b " + shell_quote(cookies) + " ") +
                shell_quote(url(path)));
  }
  bool create_game() const {
    return gm("POST", "/api/games",
              R"({"bundled": "dark-age-britain", "seed": 11, "demo_secrets": true})")
               .body.find("britain-1") != std::string::npos;
  }
  bool run_turn() const { return gm("POST", "/api/games/britain-1/turns/run").status == 200; }
  Json attendance() const {
    return Json::parse(gm("GET", "/api/games/britain-1/attendance").body, nullptr, false);
  }
  Json player(const std::string& code) const {
    const Json j = attendance();
    if (j.is_object())
      for (const auto& p : j["players"])
        if (p.value("player", "") == code) return p;
    return Json::object();
  }

 private:
  std::string log_;
};

// Sends a plain message (envelope sender `from`) with `body`; the SMTP answer code.
std::string send(const AttendanceDaemon& d, const std::string& from, const std::string& subject,
                 const std::string& body, const std::string& tag) {
  ::adj::testing::TempDir tmp;
  const std::string eml = tmp.file("m.eml");
  ::adj::testing::write_file(eml, "From: <" + from +
                                      ">\r\nTo: orders@pbm.example.net\r\nSubject: " + subject +
                                      "\r\nMessage-ID: <" + tag + "@test.example>\r\n\r\n" + body);
  return mail_test::send_file(d.smtp(), eml, from);
}

bool attendance_has_orders(const AttendanceDaemon& d, const std::string& player) {
  const Json j = Json::parse(d.gm("GET", "/api/games/britain-1/submissions").body, nullptr, false);
  if (!j.is_object() || !j.contains("players")) return false;
  for (const auto& p : j["players"])
    if (p.value("player", "") == player) return p.value("has_orders", false);
  return false;
}

class AttendanceServe : public ::testing::Test {
 protected:
  void start(std::vector<std::string> extra = {}) {
    d_ = std::make_unique<AttendanceDaemon>(dir_.file("a.db"), dir_.file("serve.log"), outbox_,
                                            std::move(extra));
    ASSERT_TRUE(d_->wait_ready()) << d_->log();
    ASSERT_TRUE(d_->create_game());
    ASSERT_EQ(
        d_->gm("PUT", "/api/games/britain-1/options/attendance", R"({"civil_disorder_after": 2})")
            .status,
        200);
  }
  // Two turns nobody sends orders for: every position goes into civil disorder.
  void two_missed_turns() {
    ASSERT_TRUE(d_->run_turn());
    EXPECT_EQ(d_->player("MRC").value("missed", -1), 1);
    EXPECT_FALSE(d_->player("MRC").value("civil_disorder", true));
    ASSERT_TRUE(d_->run_turn());
    EXPECT_EQ(d_->player("MRC").value("missed", -1), 2);
    EXPECT_TRUE(d_->player("MRC").value("civil_disorder", false));
  }
  std::string offer_code(const std::string& to, const std::string& kingdom) {
    std::string code;
    eventually([&] {
      code = find_in(attendance_mail_to(outbox_, to), "TAKEOVER britain-1 " + kingdom + " (\\S+)");
      return !code.empty();
    });
    return code;
  }
  // The confirmation code mailed to `to` for a standby or sign-up request (eventually).
  std::string confirm_code(const std::string& to) {
    std::string code;
    eventually([&] {
      code = find_in(attendance_mail_to(outbox_, to), "CONFIRM ([0-9a-f]{32})");
      return !code.empty();
    });
    return code;
  }
  // Puts `address` on the standby list through the API: the request, then the mailed code.
  void stand_by_by_api(const std::string& address) {
    const Http asked =
        d_->api("POST", "/api/games/britain-1/standby", R"({"email": ")" + address + R"("})");
    ASSERT_EQ(asked.status, 202) << asked.body;
    const std::string code = confirm_code(address);
    ASSERT_FALSE(code.empty()) << d_->log();
    const Http done =
        d_->api("POST", "/api/games/britain-1/confirm", R"({"code": ")" + code + R"("})");
    ASSERT_EQ(done.status, 200) << done.body;
  }
  std::string secret_mailed(const std::string& to, const std::string& kingdom) {
    std::string secret;
    eventually([&] {
      secret = find_in(attendance_mail_to(outbox_, to), "PLAYER " + kingdom + " (\\S+)");
      return !secret.empty();
    });
    return secret;
  }

  ::adj::testing::TempDir dir_;
  fs::path outbox_ = dir_.file("out");
  std::unique_ptr<AttendanceDaemon> d_;
};

TEST_F(AttendanceServe, ByMailMissedTurnsDisorderStandbyOfferTakeoverAndOrdersThatCount) {
  start({"--mail-refusals-per-hour", "20"});
  // STANDBY from the envelope sender.
  ASSERT_EQ(send(*d_, "stand@example.net", "standing by", "STANDBY britain-1\r\n", "sb1"), "250");
  // The answer carries a confirmation code; the address is on the list once it confirms.
  const std::string confirm = confirm_code("stand@example.net");
  ASSERT_FALSE(confirm.empty()) << d_->log();
  EXPECT_EQ(d_->attendance()["standby"], Json::array());
  ASSERT_EQ(send(*d_, "stand@example.net", "Re: standby", "CONFIRM " + confirm + "\r\n", "sb2"),
            "250");
  ASSERT_TRUE(eventually([&] {
    return !find_in(attendance_mail_to(outbox_, "stand@example.net"),
                    "(You\\s+are\\s+now\\s+on\\s+the\\s+standby\\s+list)")
                .empty();
  })) << d_->log();
  EXPECT_EQ(d_->attendance()["standby"], Json::array({"stand@example.net"}));

  two_missed_turns();
  const std::string code = offer_code("stand@example.net", "MRC");
  ASSERT_FALSE(code.empty()) << d_->log();

  // A wrong code is refused; the right one takes the position over.
  ASSERT_EQ(
      send(*d_, "stand@example.net", "takeover", "TAKEOVER britain-1 MRC wrong-code-1\r\n", "to1"),
      "250");
  ASSERT_TRUE(eventually([&] {
    return !find_in(attendance_mail_to(outbox_, "stand@example.net"),
                    "(wrong,\\s+used\\s+or\\s+expired)")
                .empty();
  })) << d_->log();
  EXPECT_TRUE(d_->player("MRC").value("civil_disorder", false));
  ASSERT_EQ(
      send(*d_, "stand@example.net", "takeover", "TAKEOVER britain-1 MRC " + code + "\r\n", "to2"),
      "250");
  const std::string secret = secret_mailed("stand@example.net", "MRC");
  ASSERT_FALSE(secret.empty()) << d_->log();
  EXPECT_FALSE(d_->player("MRC").value("civil_disorder", true));
  EXPECT_EQ(d_->player("MRC").value("missed", -1), 0);
  for (const auto& m : attendance_mail_to(outbox_, "stand@example.net")) {
    if (m.find("takeover of MRC") != std::string::npos) {
      EXPECT_EQ(m.find(secret), std::string::npos) << "the secret comes in its own mail";
    }
  }

  // The same code again: used.
  ASSERT_EQ(
      send(*d_, "thief@example.net", "takeover", "TAKEOVER britain-1 MRC " + code + "\r\n", "to3"),
      "250");
  ASSERT_TRUE(eventually([&] {
    return !find_in(attendance_mail_to(outbox_, "thief@example.net"),
                    "(wrong,\\s+used\\s+or\\s+expired)")
                .empty();
  })) << d_->log();

  // The new player's orders count.
  ASSERT_EQ(send(*d_, "stand@example.net", "orders",
                 "GAME britain-1\r\nPLAYER MRC " + secret + "\r\nDEFEND LEI\r\n", "o1"),
            "250");
  ASSERT_TRUE(eventually([&] { return attendance_has_orders(*d_, "MRC"); })) << d_->log();
  ASSERT_TRUE(d_->run_turn());
  EXPECT_EQ(d_->player("MRC").value("missed", -1), 0);
  EXPECT_EQ(d_->player("NUM").value("missed", -1), 3);

  // The audit log has the story.
  const std::string audit = d_->gm("GET", "/api/games/britain-1/audit").body;
  EXPECT_NE(audit.find("\"civil-disorder\""), std::string::npos);
  EXPECT_NE(audit.find("\"takeover\""), std::string::npos);
  EXPECT_EQ(audit.find(code), std::string::npos);
}

// Wessex misses turn 1 and goes into civil disorder; it sends orders for turn 2 by mail and plays
// it. At turn 3 the turn-1 offer is refused through the API (the position is no longer open) and
// Wessex's secret still works.
TEST_F(AttendanceServe, TakeoverWithTheOfferOfATurnThePlayerCameBackFromIsRefused) {
  start();
  ASSERT_EQ(
      d_->gm("PUT", "/api/games/britain-1/options/attendance", R"({"civil_disorder_after": 1})")
          .status,
      200);
  stand_by_by_api("thief@example.net");
  ASSERT_TRUE(d_->run_turn());
  ASSERT_TRUE(d_->player("WSX").value("civil_disorder", false));
  const std::string code = offer_code("thief@example.net", "WSX");
  ASSERT_FALSE(code.empty()) << d_->log();
  const std::string hold = "GAME britain-1\r\nPLAYER WSX cerdic\r\n";  // orders: hold all
  ASSERT_EQ(send(*d_, "wessex@example.org", "orders", hold, "w2"), "250");
  ASSERT_TRUE(eventually([&] { return attendance_has_orders(*d_, "WSX"); })) << d_->log();
  ASSERT_TRUE(d_->run_turn());

  const Http t =
      d_->api("POST", "/api/games/britain-1/takeover",
              R"({"kingdom": "WSX", "code": ")" + code + R"(", "email": "thief@example.net"})");
  EXPECT_EQ(t.status, 409) << t.body;
  EXPECT_NE(t.body.find("no longer open"), std::string::npos) << t.body;
  EXPECT_EQ(d_->gm("GET", "/api/games/britain-1/audit").body.find("\"takeover\""),
            std::string::npos);
  // Wessex's secret still signs its orders.
  ASSERT_EQ(send(*d_, "wessex@example.org", "orders", hold, "w3"), "250");
  EXPECT_TRUE(eventually([&] { return attendance_has_orders(*d_, "WSX"); })) << d_->log();
}

TEST_F(AttendanceServe, ByMailAbsenceIsSignedAndNoted) {
  start();
  const std::string today = run_shell("date -u +%F").substr(0, 10);
  ASSERT_EQ(
      send(*d_, "wessex@example.org", "away",
           "GAME britain-1\r\nPLAYER WSX cerdic\r\nABSENCE " + today + " " + today + "\r\n", "ab1"),
      "250");
  ASSERT_TRUE(eventually([&] {
    return !find_in(attendance_mail_to(outbox_, "wessex@example.org"),
                    "(absence\\s+from\\s+\\S+\\s+to\\s+\\S+\\s+is\\s+noted)")
                .empty();
  })) << d_->log();
  EXPECT_EQ(d_->player("WSX").value("absences", Json::array()).size(), 1u);
  // Unsigned (wrong secret): refused, nothing noted.
  ASSERT_EQ(
      send(*d_, "mallory@example.net", "away",
           "GAME britain-1\r\nPLAYER MRC guess\r\nABSENCE " + today + " " + today + "\r\n", "ab2"),
      "250");
  ASSERT_TRUE(eventually([&] {
    return !find_in(attendance_mail_to(outbox_, "mallory@example.net"), "(not\\s+right)").empty();
  })) << d_->log();
  EXPECT_TRUE(d_->player("MRC").value("absences", Json::array()).empty());
  // HELP lists the attendance commands.
  ASSERT_EQ(send(*d_, "new@example.net", "help", "HELP britain-1\r\n", "h1"), "250");
  ASSERT_TRUE(eventually([&] {
    return !find_in(attendance_mail_to(outbox_, "new@example.net"),
                    "(TAKEOVER <game-id> <kingdom> <code>)")
                .empty();
  })) << d_->log();
  EXPECT_FALSE(
      find_in(attendance_mail_to(outbox_, "new@example.net"), "(ABSENCE <from> <to>)").empty());
}

TEST_F(AttendanceServe, ByApiStandbyCodeTakeoverAbsenceAndOptions) {
  start();
  stand_by_by_api("api@example.net");
  EXPECT_EQ(d_->api("POST", "/api/games/britain-1/standby", R"({"email": "no address"})").status,
            400);
  two_missed_turns();
  EXPECT_FALSE(offer_code("api@example.net", "NUM").empty());
  // The game document shows each player's misses.
  const Json game = Json::parse(d_->gm("GET", "/api/games/britain-1").body, nullptr, false);
  ASSERT_TRUE(game.is_object());
  EXPECT_EQ(game["players"][0].value("missed", -1), 2);
  EXPECT_TRUE(game["players"][0].value("civil_disorder", false));

  // The GM's code, shown once; anyone else may not ask for one.
  EXPECT_EQ(d_->api("POST", "/api/games/britain-1/players/GWN/takeover-code", "{}").status, 401);
  const Http c = d_->gm("POST", "/api/games/britain-1/players/GWN/takeover-code");
  ASSERT_EQ(c.status, 201) << c.body;
  const std::string code = Json::parse(c.body).value("code", "");
  ASSERT_FALSE(code.empty());
  const Http t =
      d_->api("POST", "/api/games/britain-1/takeover",
              R"({"kingdom": "gwn", "code": ")" + code + R"(", "email": "newgwn@example.net"})");
  ASSERT_EQ(t.status, 200) << t.body;
  EXPECT_EQ(t.body.find(code), std::string::npos);
  EXPECT_FALSE(secret_mailed("newgwn@example.net", "GWN").empty()) << d_->log();
  EXPECT_FALSE(d_->player("GWN").value("civil_disorder", true));
  EXPECT_EQ(d_->api("POST", "/api/games/britain-1/takeover",
                    R"({"kingdom": "GWN", "code": ")" + code + R"(", "email": "x@example.net"})")
                .status,
            403);

  // Absence: the player's own link token, or the GM; not another player's.
  const std::string token =
      Json::parse(d_->gm("POST", "/api/games/britain-1/players/WSX/token").body).value("token", "");
  ASSERT_FALSE(token.empty());
  const std::string today = run_shell("date -u +%F").substr(0, 10);
  const std::string absence = R"({"from": ")" + today + R"(", "to": ")" + today + R"("})";
  EXPECT_EQ(curl("-X POST -H " + shell_quote("Authorization: Bearer " + token) + " --data " +
                 shell_quote(absence) + " " +
                 shell_quote(d_->url("/api/games/britain-1/players/WSX/absence")))
                .status,
            201);
  EXPECT_EQ(curl("-X POST -H " + shell_quote("Authorization: Bearer " + token) + " --data " +
                 shell_quote(absence) + " " +
                 shell_quote(d_->url("/api/games/britain-1/players/MRC/absence")))
                .status,
            401);
  const Http bad = d_->gm("POST", "/api/games/britain-1/players/MRC/absence",
                          R"({"from": "2026-02-30", "to": "2026-03-01"})");
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(bad.body.find("YYYY-MM-DD"), std::string::npos) << bad.body;

  // Absence dates are the player's and the GM's: not in the public attendance list nor in the
  // public game document.
  EXPECT_EQ(d_->player("WSX").value("absences", Json::array()).size(), 1u);
  const Json seen = Json::parse(d_->page("/api/games/britain-1/attendance").body, nullptr, false);
  ASSERT_TRUE(seen.is_object());
  for (const auto& p : seen["players"]) EXPECT_FALSE(p.contains("absences")) << p;
  const Json doc = Json::parse(d_->page("/api/games/britain-1").body, nullptr, false);
  ASSERT_TRUE(doc.is_object());
  for (const auto& p : doc["players"]) EXPECT_FALSE(p.contains("absence")) << p;
  // The public audit log (API and page) names nobody's address; the GM's shows them.
  EXPECT_NE(d_->gm("GET", "/api/games/britain-1/audit").body.find("newgwn@example.net"),
            std::string::npos);
  for (const std::string path : {"/api/games/britain-1/audit", "/games/britain-1/audit"}) {
    const Http pub = d_->page(path);
    EXPECT_EQ(pub.status, 200) << path;
    EXPECT_EQ(pub.body.find("example.net"), std::string::npos) << path << pub.body;
    EXPECT_NE(pub.body.find("address withheld"), std::string::npos) << path;
  }

  // Options: read by anyone, changed by the GM only, validated.
  EXPECT_EQ(Json::parse(d_->page("/api/games/britain-1/options/attendance").body)
                .value("civil_disorder_after", -1),
            2);
  EXPECT_EQ(
      d_->api("PUT", "/api/games/britain-1/options/attendance", R"({"civil_disorder_after": 3})")
          .status,
      401);
  const Http wrong =
      d_->gm("PUT", "/api/games/britain-1/options/attendance", R"({"civil_disorder_after": 99})");
  EXPECT_EQ(wrong.status, 400);
  EXPECT_NE(wrong.body.find("0 to 20"), std::string::npos) << wrong.body;
}

TEST_F(AttendanceServe, ThroughTheWebPagesStandbyGmCodeTakeoverAbsenceAndTheGmDesk) {
  start();
  // Standby page: the form, then a redirect after the POST.
  const Http sp = d_->page("/games/britain-1/standby");
  ASSERT_EQ(sp.status, 200);
  EXPECT_NE(sp.body.find("id=\"standby-form\""), std::string::npos);
  const Http sb = d_->form("/games/britain-1/standby", "email=web%40example.net&turn=1");
  EXPECT_EQ(sb.status, 303) << sb.body;
  EXPECT_NE(d_->page("/games/britain-1/standby?done=1").body.find("id=\"standby-done\""),
            std::string::npos);
  // The mailed link shows one button (a prefetch confirms nothing); pressing it confirms.
  const std::string wcode = confirm_code("web@example.net");
  ASSERT_FALSE(wcode.empty()) << d_->log();
  const Http cp = d_->page("/games/britain-1/confirm?code=" + wcode);
  ASSERT_EQ(cp.status, 200);
  EXPECT_NE(cp.body.find("id=\"confirm-form\""), std::string::npos);
  EXPECT_EQ(d_->attendance().value("standby_count", -1), 0);
  const Http confirmed = d_->form("/games/britain-1/confirm", "code=" + wcode);
  EXPECT_EQ(confirmed.status, 200) << confirmed.body;
  EXPECT_NE(confirmed.body.find("id=\"confirm-done\""), std::string::npos);
  EXPECT_EQ(d_->attendance().value("standby_count", -1), 1);
  // Without the CSRF token: refused.
  EXPECT_EQ(curl("-X POST --data 'email=x%40example.net' " +
                 shell_quote(d_->url("/games/britain-1/standby")))
                .status,
            403);
  two_missed_turns();

  // The GM desk: the attendance section with missed turns, disorder and the standby list.
  const std::string gm_cookie = std::string("adj_gm=") + kAttendanceGm;
  const Http desk = d_->page("/gm/games/britain-1", gm_cookie);
  ASSERT_EQ(desk.status, 200);
  EXPECT_NE(desk.body.find("id=\"attendance\""), std::string::npos);
  EXPECT_NE(desk.body.find("<td data-label=\"Missed\" class=\"n missed\">2</td>"),
            std::string::npos);
  EXPECT_NE(desk.body.find("since turn 3"), std::string::npos);
  EXPECT_NE(desk.body.find("web@example.net"), std::string::npos);
  EXPECT_NE(desk.body.find("id=\"attendance-form\""), std::string::npos);

  // The GM changes the options on the desk.
  EXPECT_EQ(d_->form("/gm/games/britain-1/attendance",
                     "civil_disorder_after=4&absence_extends=1&absence_max_days=3&"
                     "absence_max_per_game=2&takeover_code_days=5",
                     gm_cookie)
                .status,
            303);
  EXPECT_EQ(Json::parse(d_->page("/api/games/britain-1/options/attendance").body)
                .value("absence_max_days", -1),
            3);

  // A GM code shown once, used on the takeover page.
  const Http code_page =
      d_->form("/gm/games/britain-1/players/EAN/takeover-code", "turn=3", gm_cookie);
  ASSERT_EQ(code_page.status, 200) << code_page.body;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(code_page.body, m, std::regex("id=\"takeover-code\">([^<]+)<")));
  const std::string code = m[1];
  const Http tp = d_->page("/games/britain-1/takeover?kingdom=EAN");
  EXPECT_NE(tp.body.find("id=\"takeover-form\""), std::string::npos);
  const Http wrong =
      d_->form("/games/britain-1/takeover", "kingdom=EAN&code=nope&email=web%40example.net");
  EXPECT_EQ(wrong.status, 403);
  EXPECT_NE(wrong.body.find("wrong, used or expired"), std::string::npos);
  const Http took = d_->form("/games/britain-1/takeover",
                             "kingdom=EAN&code=" + code + "&email=web%40example.net");
  EXPECT_EQ(took.status, 303) << took.body;
  EXPECT_NE(d_->page("/games/britain-1/takeover?done=EAN").body.find("You now play EAN"),
            std::string::npos);
  EXPECT_FALSE(secret_mailed("web@example.net", "EAN").empty());
  EXPECT_FALSE(d_->player("EAN").value("civil_disorder", true));

  // A player's absence on /me.
  const std::string token =
      Json::parse(d_->gm("POST", "/api/games/britain-1/players/WSX/token").body).value("token", "");
  const std::string me = "adj_player=" + token;
  const std::string today = run_shell("date -u +%F").substr(0, 10);
  const Http me_page = d_->page("/games/britain-1/me", me);
  ASSERT_EQ(me_page.status, 200);
  EXPECT_NE(me_page.body.find("id=\"absence-form\""), std::string::npos);
  EXPECT_NE(me_page.body.find("<span id=\"missed\">2</span>"), std::string::npos);
  EXPECT_EQ(d_->form("/games/britain-1/me/absence", "from=" + today + "&to=" + today, me).status,
            303);
  const Http after = d_->page("/games/britain-1/me?done=absence", me);
  EXPECT_NE(after.body.find("Your absence is noted."), std::string::npos);
  EXPECT_NE(after.body.find(today), std::string::npos);
  const Http late = d_->form("/games/britain-1/me/absence", "from=2020-01-01&to=2020-01-02", me);
  EXPECT_EQ(late.status, 400);
  EXPECT_NE(late.body.find("over already"), std::string::npos);
}

TEST_F(AttendanceServe, CodeGuessingIsThrottledAndAStandbyFloodIsRateLimited) {
  start({"--auth-max-failures", "3", "--auth-first-lock", "3600", "--mail-refusals-per-hour", "3"});
  const std::string code =
      Json::parse(d_->gm("POST", "/api/games/britain-1/players/NUM/takeover-code").body)
          .value("code", "");
  ASSERT_FALSE(code.empty());
  const std::string mrc =
      Json::parse(d_->gm("POST", "/api/games/britain-1/players/MRC/takeover-code").body)
          .value("code", "");
  ASSERT_FALSE(mrc.empty());
  // Three wrong guesses lock the position's takeover key: then even the right code is refused.
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(d_->api("POST", "/api/games/britain-1/takeover",
                      R"({"kingdom": "NUM", "code": "guess-)" + std::to_string(i) +
                          R"(", "email": "evil@example.net"})")
                  .status,
              403);
  const Http locked =
      d_->api("POST", "/api/games/britain-1/takeover",
              R"({"kingdom": "NUM", "code": ")" + code + R"(", "email": "evil@example.net"})");
  EXPECT_EQ(locked.status, 429) << locked.body;
  // By mail: wrong guesses from three senders lock MRC's takeover key, so the right code from
  // a fourth is refused without being checked, and MRC keeps its player.
  for (int i = 0; i < 3; ++i) {
    const std::string from = "evil" + std::to_string(i) + "@example.net";
    ASSERT_EQ(send(*d_, from, "t", "TAKEOVER britain-1 MRC guess-" + std::to_string(i) + "\r\n",
                   "g" + std::to_string(i)),
              "250");
    ASSERT_TRUE(eventually([&] {
      return !find_in(attendance_mail_to(outbox_, from), "(wrong,\\s+used\\s+or\\s+expired)")
                  .empty();
    })) << d_->log();
  }
  ASSERT_EQ(send(*d_, "legit@example.net", "t", "TAKEOVER britain-1 MRC " + mrc + "\r\n", "g9"),
            "250");
  ASSERT_TRUE(eventually([&] {
    return !find_in(attendance_mail_to(outbox_, "legit@example.net"),
                    "(too\\s+many\\s+failed\\s+attempts)")
                .empty();
  })) << d_->log();
  EXPECT_TRUE(attendance_mail_to(outbox_, "legit@example.net").size() == 1u);
  EXPECT_EQ(d_->gm("GET", "/api/games/britain-1/audit").body.find("\"takeover\""),
            std::string::npos);

  // STANDBY flood from one sender: three answers at most, the rest neither answered nor kept.
  for (int i = 0; i < 6; ++i)
    ASSERT_EQ(send(*d_, "flood@example.net", "s", "STANDBY britain-1\r\n", "f" + std::to_string(i)),
              "250");
  ASSERT_TRUE(
      eventually([&] { return attendance_mail_to(outbox_, "flood@example.net").size() >= 3; }));
  std::this_thread::sleep_for(3s);
  EXPECT_EQ(attendance_mail_to(outbox_, "flood@example.net").size(), 3u);
  EXPECT_FALSE(d_->player("NUM").value("civil_disorder", true));
  // Unconfirmed, none of them is on the list.
  EXPECT_EQ(d_->attendance().value("standby_count", -1), 0);
}

}  // namespace
}  // namespace adj
