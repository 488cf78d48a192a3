// End to end, as an attacker would try it: `adjutant serve` as a real process, Python's smtplib
// as the client on loopback. Forged senders get at most the global hourly budget of answers,
// each to its envelope sender and without the attacker's subject or display name; one sender
// past its storage budget gets 452 and nothing is stored; a message of too many MIME parts is
// refused with a note naming the bound while the daemon goes on answering; the GM sees the
// received mail and the bytes per game at /api/mail and /metrics.
#include <chrono>
#include <filesystem>
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

constexpr const char* kBoundsGm = "bounds-gm-token";

using ::adj::testing::run_shell;
using ::adj::testing::shell_quote;

using mail_test::maildir_texts;

class BoundsDaemon : public mail_test::ServeProcess {
 public:
  BoundsDaemon(const std::string& db, const std::string& log, std::vector<std::string> extra)
      : ServeProcess(db, free_port(), free_port(), log, kBoundsGm, std::move(extra)), log_(log) {}
  std::string log() const { return ::adj::testing::read_file(log_); }
  std::string gm(const std::string& method, const std::string& path,
                 const std::string& body = "") const {
    std::string cmd = "curl -s -m 10 -X " + method + " -H " +
                      shell_quote(std::string("Authorization: Bearer ") + kBoundsGm);
    if (!body.empty()) cmd += " -H 'Content-Type: application/json' --data " + shell_quote(body);
    return run_shell(cmd + " " + shell_quote(url(path)));
  }
  Json mail() const { return Json::parse(gm("GET", "/api/mail"), nullptr, false); }
  bool create_game() const {
    return gm("POST", "/api/games",
              R"({"bundled": "dark-age-britain", "seed": 11, "demo_secrets": true})")
               .find("britain-1") != std::string::npos;
  }
  // Nothing received is waiting to be answered.
  bool inbox_drained() const {
    const Json m = mail();
    return m.is_object() && m.contains("new") && m["new"].empty();
  }

 private:
  std::string log_;
};

// Runs a Python smtplib script (given the port as argv[1]); its stdout.
std::string smtp_script(const ::adj::testing::TempDir& dir, int port, const std::string& body) {
  const std::string path = dir.file("client.py");
  ::adj::testing::write_file(path, "import smtplib, sys\nport = int(sys.argv[1])\n" + body);
  return run_shell("/usr/bin/python3 " + shell_quote(path) + " " + std::to_string(port));
}

TEST(ServeMailBounds, ForgedSenderFloodGetsAtMostTheGlobalBudgetWithoutTheirSubject) {
  ::adj::testing::TempDir dir;
  const fs::path outbox = dir.file("out");
  BoundsDaemon d(dir.file("b.db"), dir.file("serve.log"),
                 {"--tick", "0", "--outbox", outbox.string(), "--mail-refusals-total", "5",
                  "--mail-from", "orders@pbm.example.net"});
  ASSERT_TRUE(d.wait_ready()) << d.log();
  ASSERT_TRUE(d.create_game());
  const std::string out = smtp_script(dir, d.smtp(), R"(
s = smtplib.SMTP('127.0.0.1', port, timeout=30)
codes = []
for i in range(30):
    env = 'bounce%d@attacker.example' % i
    msg = ('From: "Victim %d" <victim%d@victims.example>\r\nReply-To: reply%d@victims.example\r\n'
           'Subject: WIN A PRIZE %d http://evil.example\r\nMessage-ID: <flood%d@attacker.example>\r\n'
           '\r\nGAME britain-1\r\nPLAYER WSX guess%d\r\n') % (i, i, i, i, i, i)
    try:
        s.sendmail(env, ['orders@pbm.example.net'], msg)
        codes.append('250')
    except smtplib.SMTPResponseException as e:
        codes.append(str(e.smtp_code))
s.quit()
print(' '.join(codes))
)");
  EXPECT_EQ(out.find("4"), std::string::npos) << out;  // all 30 stored
  ASSERT_TRUE(eventually([&] { return d.inbox_drained(); }, 60s)) << d.log();
  ASSERT_TRUE(eventually([&] { return maildir_texts(outbox).size() >= 5; }, 30s)) << d.log();
  std::this_thread::sleep_for(3s);  // nothing more is delivered
  // Besides the refusals, the player whose secret was guessed at is told, once (the limiter).
  std::vector<std::string> answers;
  int alerts = 0;
  for (const std::string& a : maildir_texts(outbox)) {
    if (a.find("Failed attempts to use your secret") != std::string::npos) {
      ++alerts;
      EXPECT_NE(a.find("wessex@example.org"), std::string::npos) << a;
      continue;
    }
    answers.push_back(a);
  }
  EXPECT_EQ(alerts, 1);
  EXPECT_EQ(answers.size(), 5u);
  for (const std::string& a : answers) {
    EXPECT_EQ(a.find("WIN A PRIZE"), std::string::npos) << a;
    EXPECT_EQ(a.find("evil.example"), std::string::npos) << a;
    EXPECT_EQ(a.find("Victim"), std::string::npos) << a;
    EXPECT_EQ(a.find("victims.example"), std::string::npos) << a;
    EXPECT_NE(a.find("@attacker.example"), std::string::npos) << "to the envelope sender\n" << a;
    EXPECT_EQ(a.find("guess"), std::string::npos) << a;
  }
  const std::string outcomes = run_shell(
      "sqlite3 " + shell_quote(dir.file("b.db")) +
      " \"SELECT count(*) FROM inbox WHERE outcome LIKE '%rate limit for all refusals%'\"");
  EXPECT_EQ(outcomes, "25\n");
}

TEST(ServeMailBounds, SenderPastItsStorageBudgetGets452AndNothingIsStored) {
  ::adj::testing::TempDir dir;
  BoundsDaemon d(dir.file("b.db"), dir.file("serve.log"),
                 {"--tick", "0", "--outbox", dir.file("out"), "--mail-sender-messages", "2"});
  ASSERT_TRUE(d.wait_ready()) << d.log();
  const std::string out = smtp_script(dir, d.smtp(), R"(
codes = []
for i in range(4):
    s = smtplib.SMTP('127.0.0.1', port, timeout=30)
    env = 'same@example.org' if i < 3 else 'other@example.org'
    msg = 'From: x@example.org\r\nMessage-ID: <budget%d@example.org>\r\n\r\nhello\r\n' % i
    try:
        s.sendmail(env, ['orders@pbm.example.net'], msg)
        codes.append('250')
    except smtplib.SMTPResponseException as e:
        codes.append(str(e.smtp_code))
    s.quit()
print(' '.join(codes))
)");
  EXPECT_EQ(out, "250 250 452 250\n") << d.log();
  ASSERT_TRUE(eventually([&] { return d.inbox_drained(); }, 30s));
  const std::string db_rows =
      run_shell("sqlite3 " + shell_quote(dir.file("b.db")) + " 'SELECT count(*) FROM inbox'");
  EXPECT_EQ(db_rows, "3\n");
  EXPECT_NE(d.log().find("event=mail_budget_refused"), std::string::npos);
}

TEST(ServeMailBounds, TooManyMimePartsIsRefusedNamingTheBoundAndTheDaemonGoesOn) {
  ::adj::testing::TempDir dir;
  const fs::path outbox = dir.file("out");
  BoundsDaemon d(dir.file("b.db"), dir.file("serve.log"),
                 {"--tick", "0", "--outbox", outbox.string(), "--mail-max-parts", "100"});
  ASSERT_TRUE(d.wait_ready()) << d.log();
  ASSERT_TRUE(d.create_game());
  const std::string out = smtp_script(dir, d.smtp(), R"(
parts = ''.join('--b\r\nContent-Type: text/plain\r\n\r\nx\r\n' for _ in range(20000))
msg = ('From: ann@example.org\r\nMessage-ID: <parts@example.org>\r\nMIME-Version: 1.0\r\n'
       'Content-Type: multipart/mixed; boundary=b\r\n\r\n' + parts + '--b--\r\n')
s = smtplib.SMTP('127.0.0.1', port, timeout=60)
s.sendmail('ann@example.org', ['orders@pbm.example.net'], msg)
s.quit()
print('sent')
)");
  EXPECT_EQ(out, "sent\n");
  ASSERT_TRUE(eventually([&] { return maildir_texts(outbox).size() == 1; }, 60s)) << d.log();
  const std::string answer = maildir_texts(outbox).front();
  EXPECT_NE(answer.find("more than 100 MIME parts"), std::string::npos) << answer;
  EXPECT_NE(answer.find("ann@example.org"), std::string::npos);
  EXPECT_NE(run_shell("curl -s -m 5 " + shell_quote(d.url("/healthz"))).find("ok"),
            std::string::npos);
  // The GM sees the bytes stored per game.
  const std::string metrics = run_shell(
      "curl -s -m 5 -H " + shell_quote(std::string("Authorization: Bearer ") + kBoundsGm) + " " +
      shell_quote(d.url("/metrics")));
  EXPECT_NE(metrics.find("adjutant_game_bytes{game=\"britain-1\",kind=\"submissions\"}"),
            std::string::npos)
      << metrics;
  const Json mail = d.mail();
  ASSERT_TRUE(mail.is_object()) << d.gm("GET", "/api/mail");
  ASSERT_EQ(mail["games"].size(), 1u);
  EXPECT_EQ(mail["games"][0]["game"], "britain-1");
  EXPECT_EQ(
      run_shell("curl -s -m 5 -o /dev/null -w '%{http_code}' " + shell_quote(d.url("/api/mail"))),
      "403");

  // A message that cannot be answered is listed for the GM as failed, with why.
  EXPECT_EQ(smtp_script(dir, d.smtp(), R"(
s = smtplib.SMTP('127.0.0.1', port, timeout=30)
s.sendmail('someone@example.org', ['orders@pbm.example.net'],
           'Subject: no sender\r\nMessage-ID: <nofrom@example.org>\r\n\r\nhi\r\n')
s.quit()
print('sent')
)"),
            "sent\n");
  ASSERT_TRUE(eventually([&] {
    const Json m = d.mail();
    return m.is_object() && m["failed"].size() == 1u;
  })) << d.gm("GET", "/api/mail");
  const Json failed = d.mail()["failed"][0];
  EXPECT_EQ(failed["message_id"], "nofrom@example.org");
  EXPECT_NE(failed["outcome"].get<std::string>().find("no From address"), std::string::npos);
  const std::string page = d.gm("GET", "/gm/mail");
  EXPECT_NE(page.find("Failed: not answered"), std::string::npos) << page;
  EXPECT_NE(page.find("no From address"), std::string::npos) << page;
}

}  // namespace
}  // namespace adj
