// End to end: `adjutant serve` with its SMTP listener as a real process; real clients (Python's
// smtplib, swaks when installed), replies read from the outbox Maildir and the database (sqlite3
// CLI). Includes the SIGKILL test: every message that got a 250 is stored and answered once.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/mail/mail_test_util.h"
#include "tests/support/cli_runner.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

namespace adj {
namespace {

using mail_test::eventually;
using mail_test::send_file;

using ::adj::testing::free_port;
using ::adj::testing::run_shell;
using ::adj::testing::shell_quote;
std::string smtp_slurp(const std::filesystem::path& p) {
  return ::adj::testing::read_file(p.string());
}

namespace fs = std::filesystem;
using Json = nlohmann::json;
using namespace std::chrono_literals;

constexpr const char* kSmtpGm = "smtp-gm-token";
const std::string kSmtpSrc = ADJ_SOURCE_DIR;

int smtp_count_containing(const std::vector<std::string>& files, const std::string& needle) {
  int n = 0;
  for (const auto& f : files) n += f.find(needle) != std::string::npos;
  return n;
}

// `adjutant serve` with the scheduler off and this file's GM token.
class SmtpDaemon : public mail_test::ServeProcess {
 public:
  SmtpDaemon(const std::string& db, int http, int smtp, const std::string& log)
      : ServeProcess(db, http, smtp, log, kSmtpGm,
                     // Every message of the load below is refused; all are to be answered.
                     {"--tick", "0", "--mail-refusals-total", "100000"}) {}
};

TEST(SmtpServeTest, OrdersBySmtpAnsweredThreadedOnceAndReportsAfterTheTurn) {
  ::adj::testing::TempDir dir;
  const std::string db = dir.file("mail.db"), log = dir.file("serve.log");
  const std::string outbox = dir.file("outbox");
  SmtpDaemon d(db, free_port(), free_port(), log);
  ASSERT_TRUE(d.wait_ready()) << smtp_slurp(log);
  const std::string gm = shell_quote(std::string("Authorization: Bearer ") + kSmtpGm);
  std::string r = run_shell(
      "curl -s -X POST -H " + gm + " -H 'Content-Type: application/json' --data " +
      shell_quote(R"({"bundled": "dark-age-britain", "seed": 11, "demo_secrets": true})") + " " +
      shell_quote(d.url("/api/games")));
  ASSERT_NE(r.find("britain-1"), std::string::npos) << r;

  const std::string plain = kSmtpSrc + "/tests/data/mail/plain.eml";
  EXPECT_EQ(send_file(d.smtp(), plain, "wessex@example.org"), "250") << smtp_slurp(log);
  const std::string thread = "In-Reply-To: <plain.7f3a@mail.example.org>";
  ASSERT_TRUE(eventually([&] {
    return smtp_count_containing(mail_test::maildir_texts(outbox), thread) == 1;
  })) << smtp_slurp(log);
  // The same Message-ID again: 250, but not processed (nor answered) twice.
  EXPECT_EQ(send_file(d.smtp(), plain, "wessex@example.org"), "250");
  std::this_thread::sleep_for(3s);
  EXPECT_EQ(smtp_count_containing(mail_test::maildir_texts(outbox), thread), 1);
  EXPECT_NE(smtp_slurp(log).find("duplicate=true"), std::string::npos);

  // swaks, when installed, as a second real client (a HELP command).
  if (fs::exists("/usr/bin/swaks")) {
    const std::string out =
        run_shell("swaks --server 127.0.0.1:" + std::to_string(d.smtp()) +
                  " --from help@example.org --to orders@pbm.example.net --header 'Subject: HELP' "
                  "--header 'Message-Id: <swaks-help@example.org>' --body 'HELP' 2>&1");
    EXPECT_NE(out.find("<-  250"), std::string::npos) << out;
    // Answered to the envelope sender, with a fixed subject (no threading to an unknown
    // sender's message).
    EXPECT_TRUE(eventually([&] {
      return smtp_count_containing(mail_test::maildir_texts(outbox), "To: help@example.org") == 1;
    })) << smtp_slurp(log);
  }

  // A GM turn run queues a report per player with an address.
  r = run_shell("curl -s -X POST -H " + gm + " " +
                shell_quote(d.url("/api/games/britain-1/turns/run")));
  ASSERT_NE(r.find("\"turn\""), std::string::npos) << r;
  ASSERT_TRUE(eventually([&] {
    const std::string j =
        run_shell("curl -s -H " + gm + " " + shell_quote(d.url("/api/games/britain-1/outbox")));
    return j.find("\"report\"") != std::string::npos;
  })) << smtp_slurp(log);
  const Json ob = Json::parse(
      run_shell("curl -s -H " + gm + " " + shell_quote(d.url("/api/games/britain-1/outbox"))));
  int reports = 0;
  for (const auto& m : ob["outbox"]) reports += m["kind"] == "report";
  EXPECT_GE(reports, 1);
  EXPECT_TRUE(eventually([&] {
    return smtp_count_containing(mail_test::maildir_texts(outbox), "Subject:") >= 2 + reports;
  })) << smtp_slurp(log);
  // Not for players.
  EXPECT_NE(run_shell("curl -s -o /dev/null -w '%{http_code}' " +
                      shell_quote(d.url("/api/games/britain-1/outbox"))),
            "200");
  EXPECT_NE(run_shell("curl -s -H " + shell_quote(std::string("Authorization: Bearer ") + kSmtpGm) +
                      " " + shell_quote(d.url("/metrics")))
                .find("adjutant_mail_queue"),
            std::string::npos);
}

TEST(SmtpServeTest, SigkillMidStreamLosesNothingAcknowledgedAndAnswersOnce) {
  ::adj::testing::TempDir dir;
  const std::string db = dir.file("kill.db"), log = dir.file("serve.log");
  const std::string acked = dir.file("acked.txt");
  const int http = free_port(), smtp = free_port();
  {
    SmtpDaemon d(db, http, smtp, log);
    ASSERT_TRUE(d.wait_ready()) << smtp_slurp(log);
    const std::string cmd = "/usr/bin/python3 " +
                            shell_quote(kSmtpSrc + "/tests/bench/smtp_load.py") + " --port " +
                            std::to_string(smtp) + " --count 200 --conns 4 --prefix kill --acked " +
                            shell_quote(acked) + " > /dev/null 2>&1 &";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    // Kill once some, but not all, were acknowledged.
    ASSERT_TRUE(eventually([&] { return smtp_slurp(acked).size() > 40 * 20; }, 60s))
        << smtp_slurp(log);
    d.kill(SIGKILL);
  }
  std::this_thread::sleep_for(2s);  // the client notices and stops
  std::set<std::string> ids;
  {
    std::istringstream in(smtp_slurp(acked));
    for (std::string l; std::getline(in, l);)
      if (!l.empty()) ids.insert(l);
  }
  ASSERT_GT(ids.size(), 0u);
  SmtpDaemon d(db, free_port(), free_port(), log);
  ASSERT_TRUE(d.wait_ready()) << smtp_slurp(log);
  // Everything stored is processed (process_pending at start-up).
  ASSERT_TRUE(eventually([&] {
    return run_shell("sqlite3 " + shell_quote(db) +
                     " \"SELECT count(*) FROM inbox WHERE state='new'\"") == "0\n";
  })) << smtp_slurp(log);
  const std::string rows = run_shell(
      "sqlite3 " + shell_quote(db) +
      " \"SELECT i.message_id, (SELECT count(*) FROM outbox o WHERE o.dedupe_key LIKE 'inbox:' "
      "|| i.id || ':%') FROM inbox i\"");
  std::map<std::string, int> answers;
  std::istringstream in(rows);
  for (std::string l; std::getline(in, l);) {
    const std::size_t bar = l.find('|');
    if (bar != std::string::npos) answers[l.substr(0, bar)] = std::stoi(l.substr(bar + 1));
  }
  for (const auto& id : ids) {
    ASSERT_TRUE(answers.count(id)) << id << " got a 250 but is not in the inbox";
    EXPECT_EQ(answers[id], 1) << id;
  }
  for (const auto& [id, n] : answers) EXPECT_EQ(n, 1) << id;  // stored without a 250: once too
  std::printf("acknowledged before SIGKILL: %zu, stored: %zu\n", ids.size(), answers.size());
}

}  // namespace
}  // namespace adj
