// End to end: joining, starting, addresses and replacing against `adjutant serve` as a real
// process. Mail goes in through the SMTP listener with Python's smtplib; the JSON API is called
// with curl over real HTTP; what was sent is read (decoded by Python's email package) from the
// outbox Maildir.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <regex>
#include <string>
#include <thread>
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

constexpr const char* kMembershipGm = "members-gm-token";

using ::adj::testing::run_shell;
using ::adj::testing::shell_quote;

// One sent message, decoded.
struct Sent {
  std::string to, subject, text;
};

// Every message of the outbox Maildir, decoded by Python's email package.
std::vector<Sent> sent(const fs::path& outbox) {
  const std::string py =
      "import email, email.policy, glob, json, sys\n"
      "out = []\n"
      "for f in sorted(glob.glob(sys.argv[1] + '/new/*')):\n"
      "  m = email.message_from_binary_file(open(f, 'rb'), policy=email.policy.default)\n"
      "  b = m.get_body(('plain',))\n"
      "  out.append({'to': str(m['To']), 'subject': str(m['Subject']),\n"
      "              'text': b.get_content() if b else ''})\n"
      "print(json.dumps(out))\n";
  const Json j = Json::parse(
      run_shell("/usr/bin/python3 -c " + shell_quote(py) + " " + shell_quote(outbox.string())),
      nullptr, false);
  std::vector<Sent> v;
  if (!j.is_array()) return v;
  for (const auto& m : j) v.push_back({m["to"], m["subject"], m["text"]});
  return v;
}

std::vector<Sent> to(const std::vector<Sent>& all, const std::string& address,
                     const std::string& subject_part = "") {
  std::vector<Sent> out;
  for (const auto& m : all)
    if (m.to.find(address) != std::string::npos &&
        m.subject.find(subject_part) != std::string::npos)
      out.push_back(m);
  return out;
}

// Sends a plain-text message with smtplib (envelope sender `from`); the server's reply code.
std::string send_text(int port, const std::string& from, const std::string& subject,
                      const std::string& body) {
  const std::string py =
      "import smtplib, sys, email.utils\n"
      "from email.message import EmailMessage\n"
      "m = EmailMessage()\n"
      "m['Message-ID'] = email.utils.make_msgid()\n"
      "m['From'] = sys.argv[2]\n"
      "m['To'] = 'orders@pbm.example.net'\n"
      "m['Subject'] = sys.argv[3]\n"
      "m.set_content(sys.argv[4])\n"
      "s = smtplib.SMTP('127.0.0.1', int(sys.argv[1]), timeout=20)\n"
      "try:\n"
      "  s.send_message(m, from_addr=sys.argv[2], to_addrs=['orders@pbm.example.net'])\n"
      "  print('250')\n"
      "except smtplib.SMTPResponseException as e:\n"
      "  print(e.smtp_code)\n"
      "s.quit()\n";
  std::string out =
      run_shell("/usr/bin/python3 -c " + shell_quote(py) + " " + std::to_string(port) + " " +
                shell_quote(from) + " " + shell_quote(subject) + " " + shell_quote(body));
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

class MembershipDaemon : public mail_test::ServeProcess {
 public:
  MembershipDaemon(const std::string& db, const std::string& log, const fs::path& outbox, int http)
      : ServeProcess(db, http, free_port(), log, kMembershipGm,
                     {"--tick", "0", "--outbox", outbox.string(), "--base-url",
                      "http://127.0.0.1:" + std::to_string(http)}),
        log_(log) {}
  std::string log() const { return ::adj::testing::read_file(log_); }
  // curl; the body. `bearer` "" for none.
  std::string call(const std::string& method, const std::string& path, const std::string& body,
                   const std::string& bearer = kMembershipGm) const {
    std::string cmd = "curl -s -m 10 -X " + method;
    if (!bearer.empty()) cmd += " -H " + shell_quote("Authorization: Bearer " + bearer);
    if (!body.empty()) cmd += " -H 'Content-Type: application/json' --data " + shell_quote(body);
    return run_shell(cmd + " " + shell_quote(url(path)));
  }
  Json json(const std::string& method, const std::string& path, const std::string& body = "",
            const std::string& bearer = kMembershipGm) const {
    return Json::parse(call(method, path, body, bearer), nullptr, false);
  }

 private:
  std::string log_;
};

// The audit entries of britain-1 with `action`.
std::vector<Json> audit(const MembershipDaemon& d, const std::string& action) {
  std::vector<Json> out;
  const Json j = d.json("GET", "/api/games/britain-1/audit");
  if (j.is_object())
    for (const auto& e : j["entries"])
      if (e["action"] == action) out.push_back(e);
  return out;
}

// The confirmation code in the mails of `mails` ("" when none).
std::string confirm_code_in(const std::vector<Sent>& mails) {
  std::smatch m;
  for (const auto& x : mails)
    if (std::regex_search(x.text, m, std::regex("CONFIRM ([0-9a-f]{32})"))) return m[1].str();
  return "";
}

// The confirmation code mailed to `address` (waits for it).
std::string mailed_code(const fs::path& outbox, const std::string& address) {
  std::string code;
  eventually([&] { return !(code = confirm_code_in(to(sent(outbox), address))).empty(); }, 30s);
  return code;
}

// curl with the CSRF cookie and field (as the site's own forms send them), and more cookies.
constexpr const char* kMembersCsrf = "0123456789abcdef0123456789abcdef";
::adj::testing::CurlAnswer members_form(const MembershipDaemon& d, const std::string& path,
                                        const std::string& fields,
                                        const std::string& cookies = "") {
  const std::string c =
      std::string("adj_csrf=") + kMembersCsrf + (cookies.empty() ? "" : "; " + cookies);
  return ::adj::testing::curl("-X POST -b " + shell_quote(c) + " --data " +
                              shell_quote(std::string("csrf=") + kMembersCsrf + "&" + fields) +
                              " " + shell_quote(d.url(path)));
}

// An API request without credentials; status and body.
::adj::testing::CurlAnswer members_api(const MembershipDaemon& d, const std::string& path,
                                       const std::string& body) {
  return ::adj::testing::curl("-X POST -H 'Content-Type: application/json' --data " +
                              shell_quote(body) + " " + shell_quote(d.url(path)));
}

// "Your secret is: <secret>" in a mail text.
std::string secret_in(const std::string& text) {
  std::smatch m;
  return std::regex_search(text, m, std::regex("Your secret is: ([^ \n]+)")) ? m[1].str() : "";
}

TEST(MembershipServe, JoinByMailStartMailsSecretsAndLinksThenAddressByMail) {
  ::adj::testing::TempDir dir;
  const fs::path outbox = dir.file("out");
  const int http = free_port();
  MembershipDaemon d(dir.file("m.db"), dir.file("serve.log"), outbox, http);
  ASSERT_TRUE(d.wait_ready()) << d.log();
  const Json created =
      d.json("POST", "/api/games", R"({"bundled": "dark-age-britain", "seed": 3, "signup": true})");
  ASSERT_EQ(created.value("status", ""), "signup") << created.dump();

  // JOIN as the first line, and as the subject; a bad preference; a game that does not exist.
  EXPECT_EQ(send_text(d.smtp(), "ann@example.net", "sign me up", "JOIN britain-1 WSX Mercia\n"),
            "250");
  EXPECT_EQ(send_text(d.smtp(), "bob@example.net", "join britain-1 GWN", "Hello!\n"), "250");
  EXPECT_EQ(send_text(d.smtp(), "cy@example.net", "hi", "JOIN britain-1 Atlantis\n"), "250");
  EXPECT_EQ(send_text(d.smtp(), "dee@example.net", "hi", "JOIN nowhere-9\n"), "250");
  ASSERT_TRUE(eventually([&] { return sent(outbox).size() >= 4; }, 30s)) << d.log();
  auto all = sent(outbox);
  // A JOIN is answered with a confirmation code (a sender can be forged); nothing recorded yet.
  ASSERT_EQ(to(all, "ann@example.net").size(), 1u);
  const std::string ann_confirm = confirm_code_in(to(all, "ann@example.net"));
  ASSERT_FALSE(ann_confirm.empty()) << to(all, "ann@example.net")[0].text;
  const std::string bob_confirm = confirm_code_in(to(all, "bob@example.net"));
  ASSERT_FALSE(bob_confirm.empty());
  EXPECT_EQ(d.json("GET", "/api/games/britain-1/signups")["signups"].size(), 0u);
  // Ann confirms by mail, Bob through the API.
  EXPECT_EQ(send_text(d.smtp(), "ann@example.net", "Re: sign-up", "CONFIRM " + ann_confirm + "\n"),
            "250");
  ASSERT_TRUE(eventually([&] { return to(sent(outbox), "ann@example.net").size() == 2; }, 30s))
      << d.log();
  const auto bob_done =
      members_api(d, "/api/games/britain-1/confirm", R"({"code": ")" + bob_confirm + R"("})");
  ASSERT_EQ(bob_done.status, 200) << bob_done.body;
  EXPECT_NE(bob_done.body.find("sign-up 2 of 5"), std::string::npos) << bob_done.body;
  all = sent(outbox);
  bool ann_on_list = false;
  for (const auto& m : to(all, "ann@example.net"))
    ann_on_list |= m.text.find("sign-up 1 of 5 places") != std::string::npos &&
                   m.text.find("Mercia (MRC)") != std::string::npos;
  EXPECT_TRUE(ann_on_list) << d.log();
  ASSERT_EQ(to(all, "cy@example.net").size(), 1u);
  EXPECT_NE(to(all, "cy@example.net")[0].text.find("\"Atlantis\" is not a kingdom"),
            std::string::npos)
      << to(all, "cy@example.net")[0].text;
  ASSERT_EQ(to(all, "dee@example.net").size(), 1u);
  EXPECT_NE(to(all, "dee@example.net")[0].text.find("no game \"nowhere-9\""), std::string::npos);

  const Json list = d.json("GET", "/api/games/britain-1/signups");
  ASSERT_EQ(list["signups"].size(), 2u) << list.dump();
  EXPECT_EQ(list["signups"][0]["channel"], "mail");

  // The GM starts the game over real HTTP: each player gets their secret and link, privately.
  const Json started = d.json("POST", "/api/games/britain-1/start");
  ASSERT_EQ(started["assigned"].size(), 2u) << started.dump();
  std::string ann_code;
  for (const auto& a : started["assigned"])
    if (a["email"] == "ann@example.net") ann_code = a["player"];
  EXPECT_EQ(ann_code, "WSX") << "ann's first choice; bob wanted only GWN";
  ASSERT_TRUE(
      eventually([&] { return to(sent(outbox), "ann@example.net", "secret").size() == 1; }, 30s))
      << d.log();
  ASSERT_TRUE(
      eventually([&] { return to(sent(outbox), "bob@example.net", "secret").size() == 1; }, 30s));
  all = sent(outbox);
  const Sent welcome = to(all, "ann@example.net", "secret")[0];
  EXPECT_NE(welcome.text.find("You play Wessex (WSX)"), std::string::npos) << welcome.text;
  const std::string secret = secret_in(welcome.text);
  ASSERT_FALSE(secret.empty()) << welcome.text;
  std::smatch link;
  ASSERT_TRUE(
      std::regex_search(welcome.text, link, std::regex("/games/britain-1/p/([0-9a-f]{32})")))
      << welcome.text;
  EXPECT_EQ(to(all, "bob@example.net", "secret")[0].text.find(secret), std::string::npos);
  // The link signs in: the player's token works for their API.
  const std::string token = link[1].str();
  EXPECT_EQ(run_shell("curl -s -o /dev/null -w '%{http_code}' -m 10 " +
                      shell_quote(d.url("/api/games/britain-1/reports/WSX")) + " -H " +
                      shell_quote("Authorization: Bearer " + token)),
            "404")
      << "authenticated (no report yet), not 401";
  EXPECT_EQ(audit(d, "assign").size(), 2u);
  EXPECT_EQ(audit(d, "start").size(), 1u);

  // A JOIN now is refused: the game has started.
  EXPECT_EQ(send_text(d.smtp(), "late@example.net", "x", "JOIN britain-1\n"), "250");
  ASSERT_TRUE(eventually([&] { return to(sent(outbox), "late@example.net").size() == 1; }, 30s));
  EXPECT_NE(to(sent(outbox), "late@example.net")[0].text.find("has started"), std::string::npos);

  // ADDRESS by mail, signed with the secret from the welcome mail.
  EXPECT_EQ(send_text(d.smtp(), "ann@example.net", "new address",
                      "GAME britain-1\nPLAYER WSX " + secret + "\nADDRESS ann@new.example\n"),
            "250");
  ASSERT_TRUE(eventually([&] { return audit(d, "address").size() == 1; }, 30s)) << d.log();
  EXPECT_EQ(audit(d, "address")[0]["actor"], "player:WSX");
  EXPECT_EQ(audit(d, "address")[0]["detail"]["to"], "ann@new.example");
  ASSERT_TRUE(eventually(
      [&] {
        const auto now = sent(outbox);
        return to(now, "ann@new.example", "new address for WSX").size() == 1 &&
               to(now, "ann@example.net", "new address for WSX").size() == 1;
      },
      30s))
      << d.log();
  all = sent(outbox);
  for (const auto& m : all) {
    if (m.subject.find("your secret") != std::string::npos) continue;
    EXPECT_EQ(m.text.find(secret), std::string::npos)
        << "the secret only in its own mail: " << m.subject;
  }
  // The answer to the ADDRESS mail went to the sender.
  bool answered = false;
  for (const auto& m : to(all, "ann@example.net"))
    answered |= m.text.find("is now ann@new.example") != std::string::npos;
  EXPECT_TRUE(answered);
  // A wrong secret changes nothing.
  EXPECT_EQ(send_text(d.smtp(), "mallory@example.net", "x",
                      "GAME britain-1\nPLAYER WSX wrong-secret-1\nADDRESS mallory@example.net\n"),
            "250");
  ASSERT_TRUE(eventually([&] { return to(sent(outbox), "mallory@example.net").size() == 1; }, 30s));
  EXPECT_EQ(audit(d, "address").size(), 1u);
}

TEST(MembershipServe, JoinFloodIsRateLimitedAndHeaderInjectionRefused) {
  ::adj::testing::TempDir dir;
  const fs::path outbox = dir.file("out");
  MembershipDaemon d(dir.file("m.db"), dir.file("serve.log"), outbox, free_port());
  ASSERT_TRUE(d.wait_ready()) << d.log();
  ASSERT_EQ(d.json("POST", "/api/games", R"({"bundled": "dark-age-britain", "signup": true})")
                .value("status", ""),
            "signup");
  // Five JOINs from one sender: three answers (the HELP/refusal limit per hour), no sign-up
  // until one is confirmed.
  for (int i = 0; i < 5; ++i)
    ASSERT_EQ(send_text(d.smtp(), "flood@example.net", "x", "JOIN britain-1\n"), "250");
  // Every one processed (the daemon logs each), then count what was sent.
  const auto processed = [&] {
    const std::string l = d.log();
    int n = 0;
    for (std::size_t at = l.find("action=join"); at != std::string::npos;
         at = l.find("action=join", at + 1))
      ++n;
    return n;
  };
  ASSERT_TRUE(eventually([&] { return processed() == 5; }, 30s)) << d.log();
  // Queued while processing, so final now: the GM's outbox view of the game.
  const Json ob = d.json("GET", "/api/games/britain-1/outbox");
  int answers = 0;
  for (const auto& m : ob.value("outbox", Json::array()))
    answers += m.value("kind", "") == "join" && m.value("to", "") == "flood@example.net";
  EXPECT_EQ(answers, 3) << ob.dump();
  const Json list = d.json("GET", "/api/games/britain-1/signups");
  EXPECT_EQ(list["signups"].size(), 0u) << list.dump();
  // Header injection through the API is refused with what is wrong.
  const Json bad = d.json("POST", "/api/games/britain-1/signups",
                          R"({"email": "x@example.net\r\nBcc: victim@example.org"})", "");
  EXPECT_NE(bad.value("error", "").find("line break"), std::string::npos) << bad.dump();
  EXPECT_EQ(d.json("GET", "/api/games/britain-1/signups")["signups"].size(), 0u);
}

TEST(MembershipServe, ReplaceByApiMailsTheNewPlayerAndTellsTheOldAddress) {
  ::adj::testing::TempDir dir;
  const fs::path outbox = dir.file("out");
  MembershipDaemon d(dir.file("m.db"), dir.file("serve.log"), outbox, free_port());
  ASSERT_TRUE(d.wait_ready()) << d.log();
  ASSERT_EQ(d.json("POST", "/api/games",
                   R"({"bundled": "dark-age-britain", "seed": 5, "demo_secrets": true})")
                .value("id", ""),
            "britain-1");
  const Json r =
      d.json("POST", "/api/games/britain-1/players/MRC/replace",
             R"({"email": "offa@example.net", "name": "Offa", "reason": "Penda moved away"})");
  ASSERT_EQ(r.value("player", ""), "MRC") << r.dump();
  ASSERT_TRUE(eventually(
      [&] {
        const auto all = sent(outbox);
        return to(all, "offa@example.net", "secret").size() == 1 &&
               to(all, "mercia@example.org", "has a new player").size() == 1;
      },
      30s))
      << d.log();
  const auto all = sent(outbox);
  const std::string secret = secret_in(to(all, "offa@example.net", "secret")[0].text);
  ASSERT_FALSE(secret.empty());
  EXPECT_NE(to(all, "offa@example.net", "secret")[0].text.find("/games/britain-1/p/"),
            std::string::npos);
  EXPECT_EQ(to(all, "mercia@example.org", "has a new player")[0].text.find(secret),
            std::string::npos);
  EXPECT_NE(to(all, "mercia@example.org", "has a new player")[0].text.find(
                "The game master says: Penda moved away"),
            std::string::npos);
  // The mailer names the game once, before what happened.
  EXPECT_EQ(to(all, "mercia@example.org", "has a new player")[0].subject,
            "Dark Age Britain (britain-1): MRC has a new player");
  // The old published secret no longer works; the new one does (orders by the API, Basic auth).
  const auto basic = [&](const std::string& s) {
    return run_shell("curl -s -o /dev/null -w '%{http_code}' -m 10 -u " + shell_quote("MRC:" + s) +
                     " " + shell_quote(d.url("/api/games/britain-1/reports/MRC")));
  };
  EXPECT_EQ(basic("penda"), "401");
  EXPECT_EQ(basic(secret), "404") << "authenticated; no report yet";
  ASSERT_EQ(audit(d, "replace").size(), 1u);
  EXPECT_EQ(audit(d, "replace")[0]["detail"]["name"], "Offa");
}

// Issue 28: anonymous standby requests no longer fill the list. Twenty requests from one client
// for twenty addresses: ten are taken (and mailed), the rest answered 429, and none is on the
// list; a volunteer who confirms by mail still gets on.
TEST(MembershipServe, TwentyAnonymousStandbyRequestsNoLongerFillTheList) {
  ::adj::testing::TempDir dir;
  const fs::path outbox = dir.file("out");
  MembershipDaemon d(dir.file("m.db"), dir.file("serve.log"), outbox, free_port());
  ASSERT_TRUE(d.wait_ready()) << d.log();
  ASSERT_EQ(
      d.json("POST", "/api/games", R"({"bundled": "dark-age-britain", "seed": 4})").value("id", ""),
      "britain-1");
  int accepted = 0, limited = 0;
  for (int i = 0; i < 20; ++i) {
    const auto r = members_api(d, "/api/games/britain-1/standby",
                               R"({"email": "sb)" + std::to_string(i) + R"(@evil.example"})");
    accepted += r.status == 202;
    limited += r.status == 429;
    if (r.status == 202) {
      // This daemon has no relay: the answer says where the mail really went.
      EXPECT_NE(r.body.find("a confirmation has been queued in the local Maildir (not sent)"),
                std::string::npos)
          << r.body;
    }
  }
  EXPECT_EQ(accepted, 10);
  EXPECT_EQ(limited, 10);
  EXPECT_EQ(d.json("GET", "/api/games/britain-1/attendance").value("standby_count", -1), 0);
  // A real volunteer, by mail: STANDBY, then CONFIRM with the code of the answer.
  ASSERT_EQ(send_text(d.smtp(), "real@example.net", "x", "STANDBY britain-1\n"), "250");
  const std::string code = mailed_code(outbox, "real@example.net");
  ASSERT_FALSE(code.empty()) << d.log();
  ASSERT_EQ(send_text(d.smtp(), "real@example.net", "Re: x", "CONFIRM " + code + "\n"), "250");
  ASSERT_TRUE(eventually(
      [&] {
        return d.json("GET", "/api/games/britain-1/attendance").value("standby_count", -1) == 1;
      },
      30s))
      << d.log();
  const Json att = d.json("GET", "/api/games/britain-1/attendance");
  EXPECT_EQ(att["standby"], Json::array({"real@example.net"}));
  ASSERT_EQ(att["standby_entries"].size(), 1u);
  EXPECT_GT(att["standby_entries"][0].value("since", 0), 0);
}

// An unconfirmed web or API sign-up is never assigned; confirming through the mailed link (one
// button on the page, a POST to confirm) works once.
TEST(MembershipServe, UnconfirmedSignupIsNotAssignedAtStartAndTheLinkConfirmsOnce) {
  ::adj::testing::TempDir dir;
  const fs::path outbox = dir.file("out");
  MembershipDaemon d(dir.file("m.db"), dir.file("serve.log"), outbox, free_port());
  ASSERT_TRUE(d.wait_ready()) << d.log();
  ASSERT_EQ(d.json("POST", "/api/games", R"({"bundled": "dark-age-britain", "signup": true})")
                .value("status", ""),
            "signup");
  const auto web = members_form(d, "/games/britain-1/join", "email=web%40example.net&turn=1");
  EXPECT_EQ(web.status, 303) << web.body;
  const auto api = members_api(d, "/api/games/britain-1/signups",
                               R"({"email": "idle@example.net", "preferences": ["WSX"]})");
  EXPECT_EQ(api.status, 202) << api.body;
  const std::string code = mailed_code(outbox, "web@example.net");
  ASSERT_FALSE(code.empty()) << d.log();
  std::smatch link;
  const std::string text = to(sent(outbox), "web@example.net")[0].text;
  ASSERT_TRUE(
      std::regex_search(text, link, std::regex("(/games/britain-1/confirm\\?code=[0-9a-f]{32})")))
      << text;
  const auto page = ::adj::testing::curl(shell_quote(d.url(link[1].str())));
  EXPECT_EQ(page.status, 200);
  EXPECT_NE(page.body.find("id=\"confirm-form\""), std::string::npos);
  EXPECT_EQ(d.json("GET", "/api/games/britain-1/signups")["signups"].size(), 0u)
      << "a GET (a mail scanner's prefetch) confirms nothing";
  const auto done = members_form(d, "/games/britain-1/confirm", "code=" + code);
  EXPECT_EQ(done.status, 200) << done.body;
  EXPECT_NE(done.body.find("id=\"confirm-done\""), std::string::npos);
  const auto again = members_form(d, "/games/britain-1/confirm", "code=" + code);
  EXPECT_EQ(again.status, 403);
  EXPECT_NE(again.body.find("wrong, used or expired"), std::string::npos);
  const Json started = d.json("POST", "/api/games/britain-1/start");
  ASSERT_EQ(started["assigned"].size(), 1u) << started.dump();
  EXPECT_EQ(started["assigned"][0]["email"], "web@example.net");
  EXPECT_EQ(started["unassigned"].size(), 0u);
  EXPECT_EQ(started.dump().find("idle@example.net"), std::string::npos);
}

// Requests are bounded per address (3 an hour) and per client (10 an hour): the API answers 429
// with Retry-After, the web form a page that says so; the answer never tells whether the
// address is on the list.
TEST(MembershipServe, SignupRequestsAreBoundedPerAddressAndPerClient) {
  ::adj::testing::TempDir dir;
  const fs::path outbox = dir.file("out");
  MembershipDaemon d(dir.file("m.db"), dir.file("serve.log"), outbox, free_port());
  ASSERT_TRUE(d.wait_ready()) << d.log();
  ASSERT_EQ(d.json("POST", "/api/games", R"({"bundled": "dark-age-britain", "signup": true})")
                .value("status", ""),
            "signup");
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(
        members_api(d, "/api/games/britain-1/signups", R"({"email": "v@example.net"})").status,
        202);
  const auto fourth = ::adj::testing::curl(
      "-i -X POST -H 'Content-Type: application/json' --data '{\"email\": \"V@example.net\"}' " +
      shell_quote(d.url("/api/games/britain-1/signups")));
  EXPECT_EQ(fourth.status, 429) << fourth.body;
  EXPECT_NE(fourth.body.find("Retry-After: 3600"), std::string::npos) << fourth.body;
  EXPECT_NE(fourth.body.find("for this address"), std::string::npos) << fourth.body;
  // The refused request is not counted: 3 + 7 make the client's ten.
  for (int i = 0; i < 7; ++i)
    EXPECT_EQ(members_api(d, "/api/games/britain-1/signups",
                          R"({"email": "w)" + std::to_string(i) + R"(@example.net"})")
                  .status,
              202);
  // The client's eleventh request in the hour, on the web form.
  const auto page = members_form(d, "/games/britain-1/join", "email=x%40example.net&turn=1");
  EXPECT_EQ(page.status, 429) << page.body;
  EXPECT_NE(page.body.find("from your network"), std::string::npos) << page.body;
  EXPECT_EQ(d.json("GET", "/api/games/britain-1/signups")["signups"].size(), 0u);
  eventually([&] { return to(sent(outbox), "v@example.net").size() >= 3; }, 30s);
  EXPECT_EQ(to(sent(outbox), "v@example.net").size(), 3u);
}

// The GM removes sign-ups and standby entries on the web, through the API and the command
// line; each removal is audited.
TEST(MembershipServe, GmRemovesSignupsAndStandbyEntriesOnWebApiAndCli) {
  ::adj::testing::TempDir dir;
  const fs::path outbox = dir.file("out");
  const std::string db = dir.file("m.db");
  MembershipDaemon d(db, dir.file("serve.log"), outbox, free_port());
  ASSERT_TRUE(d.wait_ready()) << d.log();
  ASSERT_EQ(d.json("POST", "/api/games", R"({"bundled": "dark-age-britain", "signup": true})")
                .value("status", ""),
            "signup");
  const std::vector<std::string> who = {"a@example.net", "b@example.net", "c@example.net"};
  for (const auto& address : who)
    for (const char* kind : {"signups", "standby"}) {
      ASSERT_EQ(members_api(d, std::string("/api/games/britain-1/") + kind,
                            R"({"email": ")" + address + R"("})")
                    .status,
                202);
    }
  // Each address got two codes; confirm both.
  ASSERT_TRUE(eventually([&] { return sent(outbox).size() >= 6; }, 30s)) << d.log();
  for (const auto& m : sent(outbox)) {
    std::smatch c;
    ASSERT_TRUE(std::regex_search(m.text, c, std::regex("CONFIRM ([0-9a-f]{32})"))) << m.text;
    ASSERT_EQ(members_api(d, "/api/games/britain-1/confirm", R"({"code": ")" + c[1].str() + R"("})")
                  .status,
              200);
  }
  Json list = d.json("GET", "/api/games/britain-1/signups");
  ASSERT_EQ(list["signups"].size(), 3u) << list.dump();
  ASSERT_EQ(d.json("GET", "/api/games/britain-1/attendance").value("standby_count", -1), 3);
  const std::string gm = std::string("adj_gm=") + kMembershipGm;
  // The GM desk shows a remove button for each.
  const auto desk = ::adj::testing::curl("-b " + shell_quote(gm) + " " +
                                         shell_quote(d.url("/gm/games/britain-1")));
  EXPECT_NE(desk.body.find("standby-remove-form"), std::string::npos);
  const std::int64_t first = list["signups"][0]["id"];
  EXPECT_NE(desk.body.find("signup-remove-form-" + std::to_string(first)), std::string::npos);
  // Web.
  EXPECT_EQ(members_form(d, "/gm/games/britain-1/signups/" + std::to_string(first) + "/remove",
                         "turn=1", gm)
                .status,
            303);
  EXPECT_EQ(
      members_form(d, "/gm/games/britain-1/standby/remove", "email=a%40example.net", gm).status,
      303);
  // Not the GM: refused.
  EXPECT_EQ(members_form(d, "/gm/games/britain-1/standby/remove", "email=b%40example.net").status,
            403);
  EXPECT_EQ(
      members_api(d, "/api/games/britain-1/standby/remove", R"({"email": "b@example.net"})").status,
      401);
  // API.
  const std::int64_t second = list["signups"][1]["id"];
  const Json after_api =
      d.json("POST", "/api/games/britain-1/signups/" + std::to_string(second) + "/remove");
  EXPECT_EQ(after_api["signups"].size(), 1u) << after_api.dump();
  const Json att =
      d.json("POST", "/api/games/britain-1/standby/remove", R"({"email": "b@example.net"})");
  EXPECT_EQ(att["standby"], Json::array({"c@example.net"})) << att.dump();
  // Command line.
  const std::int64_t third = list["signups"][2]["id"];
  const auto s =
      ::adj::testing::run_cli({"--db", db, "signup", "remove", "britain-1", std::to_string(third)});
  EXPECT_EQ(s.exit_code, 0) << s.err;
  const auto t = ::adj::testing::run_cli(
      {"--db", db, "attendance", "standby-remove", "britain-1", "c@example.net"});
  EXPECT_EQ(t.exit_code, 0) << t.err;
  const auto missing = ::adj::testing::run_cli(
      {"--db", db, "attendance", "standby-remove", "britain-1", "c@example.net"});
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_EQ(d.json("GET", "/api/games/britain-1/signups")["signups"].size(), 0u);
  EXPECT_EQ(d.json("GET", "/api/games/britain-1/attendance").value("standby_count", -1), 0);
  EXPECT_EQ(audit(d, "signup-remove").size(), 3u);
  EXPECT_EQ(audit(d, "standby-remove").size(), 3u);
}

}  // namespace
}  // namespace adj
