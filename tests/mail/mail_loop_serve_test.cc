// End to end: the mail flows of `adjutant serve` as a real process, each test with its own
// directory and ports. The watched Maildir (--maildir), the relay (--relay, a real
// python3-aiosmtpd), reports after a scheduler run (--tick), reminders before a deadline
// (--reminder-hours) and the GM outbox page. Clients are Python's smtplib and curl; what was sent
// is read from the outbox Maildir, the relay's Maildir and the GM API.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
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

using mail_test::eventually;
using mail_test::send_file;

using ::adj::testing::run_shell;
using ::adj::testing::shell_quote;
std::string loop_slurp(const std::filesystem::path& p) {
  return ::adj::testing::read_file(p.string());
}

namespace fs = std::filesystem;
using Json = nlohmann::json;
using namespace std::chrono_literals;
using mail_test::Aiosmtpd;
using mail_test::free_port;

constexpr const char* kServeFlowsGm = "flows-gm-token";
const std::string kServeFlowsSrc = ADJ_SOURCE_DIR;
const std::string kPlain = kServeFlowsSrc + "/tests/data/mail/plain.eml";
const std::string kPlainThread = "In-Reply-To: <plain.7f3a@mail.example.org>";

// The contents of the files in a Maildir subdirectory ("new" or "cur").
std::vector<std::string> loop_maildir_files(const fs::path& dir, const std::string& sub = "new") {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir / sub, ec)) out.push_back(loop_slurp(e.path()));
  return out;
}

int loop_count_containing(const std::vector<std::string>& files, const std::string& needle) {
  int n = 0;
  for (const auto& f : files) n += f.find(needle) != std::string::npos;
  return n;
}

// The nice value in a /proc stat file (field 19, counting the command in parentheses as one).
int stat_nice(const fs::path& stat_file) {
  const std::string stat = loop_slurp(stat_file);
  const std::size_t close = stat.rfind(')');
  if (close == std::string::npos) return -100;
  std::istringstream in(stat.substr(close + 1));
  std::string field;
  for (int i = 3; i <= 19 && in >> field;) ++i;
  return std::atoi(field.c_str());
}

// The nice values of the threads of process `pid` named `name` (/proc/PID/task/TID/comm).
std::vector<int> threads_nice(pid_t pid, const std::string& name) {
  std::vector<int> out;
  std::error_code ec;
  for (const auto& t : fs::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec))
    if (loop_slurp(t.path() / "comm") == name + "\n") out.push_back(stat_nice(t.path() / "stat"));
  return out;
}

const std::string kBearer = shell_quote(std::string("Authorization: Bearer ") + kServeFlowsGm);

// `adjutant serve` on free ports, with extra options, and the GM API as this file uses it.
class LoopDaemon : public mail_test::ServeProcess {
 public:
  LoopDaemon(const std::string& db, const std::string& log, std::vector<std::string> extra)
      : ServeProcess(db, free_port(), free_port(), log, kServeFlowsGm, std::move(extra)),
        log_(log) {}
  std::string log() const { return loop_slurp(log_); }

  // curl with the GM bearer token; the body.
  std::string gm(const std::string& method, const std::string& path,
                 const std::string& body = "") const {
    std::string cmd = "curl -s -m 10 -X " + method + " -H " + kBearer;
    if (!body.empty()) cmd += " -H 'Content-Type: application/json' --data " + shell_quote(body);
    return run_shell(cmd + " " + shell_quote(url(path)));
  }
  // The HTTP status of a GET with extra curl arguments.
  std::string status(const std::string& path, const std::string& curl_args = "") const {
    return run_shell("curl -s -m 10 -o /dev/null -w '%{http_code}' " + curl_args + " " +
                     shell_quote(url(path)));
  }
  // Creates britain-1 through the GM API.
  bool create_game() const {
    return gm("POST", "/api/games",
              R"({"bundled": "dark-age-britain", "seed": 11, "demo_secrets": true})")
               .find("britain-1") != std::string::npos;
  }
  // The GM API's outbox of britain-1.
  Json outbox() const {
    const Json j = Json::parse(gm("GET", "/api/games/britain-1/outbox"), nullptr, false);
    return j.is_object() && j.contains("outbox") ? j["outbox"] : Json::array();
  }

 private:
  std::string log_;
};

// The outbox messages of one kind, as (to) addresses.
std::vector<std::string> recipients(const Json& outbox, const std::string& kind) {
  std::vector<std::string> out;
  for (const auto& m : outbox)
    if (m.value("kind", "") == kind) out.push_back(m.value("to", ""));
  return out;
}

int count_of(const std::vector<std::string>& v, const std::string& s) {
  return static_cast<int>(std::count(v.begin(), v.end(), s));
}

bool loop_has_orders(const LoopDaemon& d, const std::string& player) {
  const Json j = Json::parse(d.gm("GET", "/api/games/britain-1/submissions"), nullptr, false);
  if (!j.is_object() || !j.contains("players")) return false;
  for (const auto& p : j["players"])
    if (p.value("player", "") == player) return p.value("has_orders", false);
  return false;
}

long long now() { return static_cast<long long>(std::time(nullptr)); }

TEST(MailLoopServe, WatchedMaildirIsIngestedMovedToCurAndAnswered) {
  ::adj::testing::TempDir dir;
  const std::string db = dir.file("flows.db"), log = dir.file("serve.log");
  const fs::path in = dir.file("in"), outbox = dir.file("out");
  fs::create_directories(in / "new");
  fs::create_directories(in / "tmp");
  LoopDaemon d(db, log, {"--tick", "0", "--maildir", in.string(), "--outbox", outbox.string()});
  ASSERT_TRUE(d.wait_ready()) << d.log();
  ASSERT_TRUE(d.create_game());
  EXPECT_FALSE(loop_has_orders(d, "WSX"));

  // Delivered the Maildir way: written in tmp/, then renamed into new/.
  fs::copy_file(kPlain, in / "tmp" / "1700000000.M1P1.test");
  fs::rename(in / "tmp" / "1700000000.M1P1.test", in / "new" / "1700000000.M1P1.test");

  ASSERT_TRUE(eventually([&] { return loop_maildir_files(in, "new").empty(); }, 15s)) << d.log();
  const auto cur = loop_maildir_files(in, "cur");
  ASSERT_EQ(cur.size(), 1u);
  EXPECT_NE(cur[0].find("<plain.7f3a@mail.example.org>"), std::string::npos);
  EXPECT_TRUE(fs::exists(in / "cur" / "1700000000.M1P1.test:2,S"));
  EXPECT_TRUE(eventually([&] { return loop_has_orders(d, "WSX"); }, 15s)) << d.log();
  EXPECT_NE(d.log().find("channel=maildir"), std::string::npos);
  // The answer, threaded to the message, in the outbox Maildir.
  ASSERT_TRUE(eventually(
      [&] { return loop_count_containing(loop_maildir_files(outbox), kPlainThread) == 1; }, 15s))
      << d.log();
  const auto answers = loop_maildir_files(outbox);
  EXPECT_EQ(loop_count_containing(answers, "wessex@example.org"), 1);
  EXPECT_EQ(loop_count_containing(answers, "cerdic"), 0) << "the secret is masked";

  // The same file again (same Message-ID): moved, but neither stored nor answered twice.
  fs::copy_file(kPlain, in / "new" / "1700000001.M2P1.test");
  ASSERT_TRUE(eventually([&] { return loop_maildir_files(in, "new").empty(); }, 15s)) << d.log();
  std::this_thread::sleep_for(3s);
  EXPECT_EQ(loop_maildir_files(in, "cur").size(), 2u);
  EXPECT_EQ(loop_count_containing(loop_maildir_files(outbox), kPlainThread), 1);
  EXPECT_NE(d.log().find("duplicate=true"), std::string::npos);
}

TEST(MailLoopServe, AnswersGoThroughTheRelayNotTheLocalOutbox) {
  if (!Aiosmtpd::available()) GTEST_SKIP() << "python3-aiosmtpd is not installed";
  ::adj::testing::TempDir dir;
  const std::string db = dir.file("flows.db"), log = dir.file("serve.log");
  const fs::path relay_dir = dir.file("relay"), outbox = dir.file("out");
  const int relay_port = free_port();
  Aiosmtpd relay(relay_port, {"aiosmtpd.handlers.Mailbox", relay_dir.string()});
  ASSERT_TRUE(relay.start());
  LoopDaemon d(db, log,
               {"--tick", "0", "--relay", "smtp://127.0.0.1:" + std::to_string(relay_port),
                "--mail-from", "orders@pbm.example.net", "--outbox", outbox.string()});
  ASSERT_TRUE(d.wait_ready()) << d.log();
  ASSERT_TRUE(d.create_game());
  EXPECT_NE(d.log().find("smtp://127.0.0.1:" + std::to_string(relay_port)), std::string::npos);

  EXPECT_EQ(send_file(d.smtp(), kPlain, "wessex@example.org"), "250") << d.log();
  ASSERT_TRUE(eventually([&] {
    return loop_count_containing(loop_maildir_files(relay_dir), kPlainThread) == 1;
  })) << d.log();
  const auto got = loop_maildir_files(relay_dir);
  EXPECT_EQ(loop_count_containing(got, "References: <plain.7f3a@mail.example.org>"), 1);
  EXPECT_EQ(loop_count_containing(got, "X-RcptTo: wessex@example.org"), 1);
  EXPECT_EQ(loop_count_containing(got, "X-MailFrom: orders@pbm.example.net"),
            static_cast<int>(got.size()));
  // Marked sent, and nothing in the local outbox Maildir.
  EXPECT_TRUE(eventually([&] {
    const Json ob = d.outbox();
    return !ob.empty() && ob[0].value("state", "") == "sent";
  })) << d.outbox().dump();
  EXPECT_TRUE(loop_maildir_files(outbox).empty());
  EXPECT_TRUE(loop_has_orders(d, "WSX"));
}

TEST(MailLoopServe, SchedulerRunMailsAReportToEveryPlayer) {
  ::adj::testing::TempDir dir;
  const std::string db = dir.file("flows.db"), log = dir.file("serve.log");
  const fs::path outbox = dir.file("out");
  // No reminders here (0 hours): only the answer and the reports.
  LoopDaemon d(db, log, {"--tick", "1", "--reminder-hours", "0", "--outbox", outbox.string()});
  ASSERT_TRUE(d.wait_ready()) << d.log();
  ASSERT_TRUE(d.create_game());
  EXPECT_EQ(send_file(d.smtp(), kPlain, "wessex@example.org"), "250") << d.log();

  const long long deadline = now() + 3;
  const std::string sched = d.gm("PUT", "/api/games/britain-1/schedule",
                                 R"({"kind": "fixed", "deadline": )" + std::to_string(deadline) +
                                     R"(, "nmr_guard_ratio": 1})");
  ASSERT_NE(sched.find("\"fixed\""), std::string::npos) << sched;

  // The scheduler runs turn 1 after the deadline; a report per player with an address.
  ASSERT_TRUE(eventually([&] {
    return loop_count_containing(loop_maildir_files(outbox), "turn 1 report for") == 5;
  })) << d.log();
  EXPECT_GE(now(), deadline);
  EXPECT_NE(d.log().find("action=ran"), std::string::npos) << d.log();
  EXPECT_NE(d.log().find("event=reports_queued game=britain-1 turn=1 count=5"), std::string::npos)
      << d.log();
  const auto files = loop_maildir_files(outbox);
  for (const std::string to :
       {"wessex@example.org", "mercia@example.org", "northumbria@example.org",
        "eastanglia@example.org", "gwynedd@example.org"}) {
    int n = 0;
    for (const auto& f : files)
      n += f.find("turn 1 report for") != std::string::npos && f.find(to) != std::string::npos;
    EXPECT_EQ(n, 1) << to;
  }
  const auto reports = recipients(d.outbox(), "report");
  EXPECT_EQ(reports.size(), 5u);
  EXPECT_EQ(count_of(reports, "wessex@example.org"), 1);
  // A text body with an HTML alternative and the web report link.
  for (const auto& f : files) {
    if (f.find("turn 1 report for") == std::string::npos) continue;
    EXPECT_NE(f.find("text/html"), std::string::npos);
    EXPECT_NE(f.find("/games/britain-1/"), std::string::npos);
  }
  // The mail thread yields to the web's threads under contention (a process started at nice 10,
  // as CI's sanitizer suite, stays at 10 throughout). The scheduler and the report threads do
  // not: at nice 5 the turns, then the reports, fell behind the readers and the last report of
  // the busiest minute came later (docs/performance.md).
  const int base = stat_nice("/proc/" + std::to_string(d.pid()) + "/stat");
  for (const std::string name : {"http-io", "tick", "reports"}) {
    const std::vector<int> nice = threads_nice(d.pid(), name);
    ASSERT_FALSE(nice.empty()) << name;
    for (int n : nice) EXPECT_EQ(n, base) << name;
  }
  // At nice 5 or more (CI's sanitizer suite) the threads above and the mail thread cannot differ.
  if (base >= 5) std::printf("at nice %d: whether only the mail thread yields is not seen\n", base);
  const std::vector<int> mail = threads_nice(d.pid(), "mail");
  ASSERT_FALSE(mail.empty());
  for (int n : mail) EXPECT_EQ(n, std::max(base, 5));
  // More ticks do not mail the reports again.
  std::this_thread::sleep_for(3s);
  EXPECT_EQ(loop_count_containing(loop_maildir_files(outbox), "turn 1 report for"), 5);
  EXPECT_EQ(recipients(d.outbox(), "report").size(), 5u);
}

TEST(MailLoopServe, RemindersGoOnceToPlayersWithoutOrders) {
  ::adj::testing::TempDir dir;
  const std::string db = dir.file("flows.db"), log = dir.file("serve.log");
  const fs::path outbox = dir.file("out");
  LoopDaemon d(db, log, {"--tick", "1", "--reminder-hours", "2", "--outbox", outbox.string()});
  ASSERT_TRUE(d.wait_ready()) << d.log();
  ASSERT_TRUE(d.create_game());
  EXPECT_EQ(send_file(d.smtp(), kPlain, "wessex@example.org"), "250") << d.log();
  ASSERT_TRUE(eventually([&] { return loop_has_orders(d, "WSX"); })) << d.log();

  // A deadline an hour away: inside the two hours of --reminder-hours.
  const std::string sched =
      d.gm("PUT", "/api/games/britain-1/schedule",
           R"({"kind": "fixed", "deadline": )" + std::to_string(now() + 3600) + "}");
  ASSERT_NE(sched.find("\"fixed\""), std::string::npos) << sched;

  ASSERT_TRUE(eventually([&] { return recipients(d.outbox(), "reminder").size() >= 4; }))
      << d.log();
  ASSERT_TRUE(eventually([&] {
    return loop_count_containing(loop_maildir_files(outbox), "reminder, no orders yet") >= 4;
  })) << d.log();
  // Several more ticks: no duplicates.
  std::this_thread::sleep_for(4s);
  const auto reminders = recipients(d.outbox(), "reminder");
  EXPECT_EQ(reminders.size(), 4u);
  for (const std::string to : {"mercia@example.org", "northumbria@example.org",
                               "eastanglia@example.org", "gwynedd@example.org"})
    EXPECT_EQ(count_of(reminders, to), 1) << to;
  EXPECT_EQ(count_of(reminders, "wessex@example.org"), 0);
  const auto files = loop_maildir_files(outbox);
  EXPECT_EQ(loop_count_containing(files, "reminder, no orders yet"), 4);
  for (const auto& f : files) {
    if (f.find("reminder, no orders yet") != std::string::npos) {
      EXPECT_EQ(f.find("wessex@example.org"), std::string::npos) << f;
    }
  }
}

TEST(MailLoopServe, GmOutboxPageIsForTheGmOnly) {
  ::adj::testing::TempDir dir;
  const std::string db = dir.file("flows.db"), log = dir.file("serve.log");
  const fs::path outbox = dir.file("out");
  LoopDaemon d(db, log, {"--tick", "0", "--outbox", outbox.string()});
  ASSERT_TRUE(d.wait_ready()) << d.log();
  ASSERT_TRUE(d.create_game());
  EXPECT_EQ(send_file(d.smtp(), kPlain, "wessex@example.org"), "250") << d.log();
  ASSERT_TRUE(eventually([&] { return !d.outbox().empty(); })) << d.log();

  const std::string page = "/games/britain-1/outbox";
  EXPECT_EQ(d.status(page, "-H " + kBearer), "200");
  EXPECT_EQ(d.status(page, "-H " + shell_quote(std::string("Cookie: adj_gm=") + kServeFlowsGm)),
            "200");
  EXPECT_EQ(d.status(page), "403");
  EXPECT_EQ(d.status(page, "-H 'Authorization: Bearer wrong'"), "403");
  EXPECT_EQ(d.status(page, "-H 'Cookie: adj_gm=wrong'"), "403");
  const std::string html =
      run_shell("curl -s -m 10 -H " + kBearer + " " + shell_quote(d.url(page)));
  EXPECT_NE(html.find("wessex@example.org"), std::string::npos) << html;
  EXPECT_NE(html.find("<td data-label=\"Kind\">ack</td>"), std::string::npos) << html;
  // The GM desk's game page links to it.
  const std::string desk =
      run_shell("curl -s -m 10 -H " + kBearer + " " + shell_quote(d.url("/gm/games/britain-1")));
  EXPECT_NE(desk.find("href=\"" + page + "\""), std::string::npos) << desk;
}

}  // namespace
}  // namespace adj
