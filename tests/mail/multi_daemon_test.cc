// Two `adjutant serve` processes on one database, killed (SIGKILL) at random moments and
// restarted, while real mail comes in by SMTP, deadlines fall due every few seconds and the
// outbox goes to a real relay (tests/mail/logging_relay.py, python3-aiosmtpd). Afterwards:
//  - turns: the turn records are exactly 1..open_turn-1, each with exactly one audit "run"
//    entry, none run before the deadline the previous run set, no failed attempt, no hold;
//  - mail in: every message is stored once and processed, and exactly one answer to it reached
//    the relay (modulo the window below);
//  - mail out: every outbox row is "sent", and the relay saw each Message-ID once, except for a
//    duplicate whose first copy the relay accepted at most kWindow before a SIGKILL of a daemon
//    (the window between the relay's 250 and marking the row sent, outbox_worker.h, including
//    the mark's wait for the database's write lock); there are
//    at most as many such duplicates as kills, and the test prints how many there were;
//  - every player with an address got each turn's report.
// Parametrised over the backends: SQLite (a file), PostgreSQL (tests/support/pg_test_db.h;
// skipped, saying why, when no server can be started or the support is not built in).
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/mail/mail_test_util.h"
#include "tests/support/cli_runner.h"
#include "tests/support/pg_test_db.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

namespace adj {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using namespace std::chrono_literals;
using ::adj::testing::run_shell;
using ::adj::testing::shell_quote;
using mail_test::Aiosmtpd;
using mail_test::eventually;
using mail_test::free_port;
using mail_test::send_file;
using mail_test::ServeProcess;

constexpr const char* kMultiGm = "multi-gm-token";
constexpr const char* kGame = "britain-1";
constexpr int kInterval = 4;             // seconds between deadlines
constexpr int kOutboxLease = 24;         // serve --outbox-lease
constexpr const char* kTurnLease = "5";  // ADJUTANT_TURN_LEASE_SECONDS
// The window for a duplicate: from the relay's 250 until marking the row sent commits, which
// may wait for the database's write lock (SQLite: its 5 s busy timeout), plus a second.
constexpr double kWindow = 6.0;
// The relay stamps a message when it has handled the whole of it, which may be after the sender,
// having written the end of the data, was killed waiting for the 250 (seen: 45 ms under load).
constexpr double kRelayLag = 2.0;
constexpr int kMails = 24;  // order mails sent during the chaos
const auto kChaos = 28s;    // how long daemons are killed and restarted

struct Player {
  const char* code;
  const char* secret;
  const char* email;
};
constexpr Player kPlayers[] = {{"WSX", "cerdic", "wessex@example.org"},
                               {"MRC", "penda", "mercia@example.org"},
                               {"NUM", "oswald", "northumbria@example.org"},
                               {"EAN", "raedwald", "eastanglia@example.org"},
                               {"GWN", "cadwallon", "gwynedd@example.org"}};

double wall() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

// "host=DIR port=P user=U dbname=D" -> "postgresql:///D?host=DIR&port=P&user=U" (serve's --db).
std::string pg_url(const std::string& conninfo) {
  std::map<std::string, std::string> kv;
  std::istringstream in(conninfo);
  for (std::string word; in >> word;)
    if (auto eq = word.find('='); eq != std::string::npos)
      kv[word.substr(0, eq)] = word.substr(eq + 1);
  std::string url = "postgresql:///" + kv["dbname"] + "?";
  for (const char* k : {"host", "port", "user"})
    if (kv.count(k)) url += std::string(k) + "=" + kv[k] + "&";
  url.pop_back();
  return url;
}

class MultiDaemon : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (!Aiosmtpd::available()) GTEST_SKIP() << "python3-aiosmtpd is not installed";
    if (GetParam() == "postgresql") {
      auto conninfo = ::adj::testing::fresh_pg_database();
      if (!conninfo.ok()) GTEST_SKIP() << "PostgreSQL unavailable: " << conninfo.status().message();
      // The daemon must take a PostgreSQL database argument (its --db help names that form).
      if (::adj::testing::run_cli({"--help"}).out.find("postgresql://") == std::string::npos)
        GTEST_SKIP() << "this adjutant binary does not take --db postgresql:// yet";
      conninfo_ = *conninfo;
      db_ = pg_url(conninfo_);
    } else {
      db_ = dir_.file("multi.db");
    }
    ::setenv("ADJUTANT_TURN_LEASE_SECONDS", kTurnLease, 1);  // inherited by the daemons
  }
  void TearDown() override { ::unsetenv("ADJUTANT_TURN_LEASE_SECONDS"); }

  // One query's rows, fields split on '|'.
  std::vector<std::vector<std::string>> sql(const std::string& query) const {
    const std::string out =
        GetParam() == "postgresql"
            ? run_shell("psql " + shell_quote(conninfo_) + " -X -At -F '|' -c " +
                        shell_quote(query))
            : run_shell("sqlite3 -separator '|' " + shell_quote(db_) + " " + shell_quote(query));
    std::vector<std::vector<std::string>> rows;
    for (const std::string& line : split(out, '\n'))
      if (!line.empty()) rows.push_back(split(line, '|'));
    return rows;
  }

  std::unique_ptr<ServeProcess> start(int i) {
    const std::string log = dir_.file("serve-" + std::to_string(i) + ".log");
    return std::make_unique<ServeProcess>(
        db_, http_[i], smtp_[i], log, kMultiGm,
        // A daemon killed while answering a message uses up one of its tries: with a dozen kills
        // in a minute, one message may lose the default 3 to kills alone, which is the
        // poison-message guard working, not what this test is about.
        std::vector<std::string>{"--tick", "1", "--reminder-hours", "0", "--relay",
                                 "smtp://127.0.0.1:" + std::to_string(relay_port_),
                                 "--outbox-lease", std::to_string(kOutboxLease), "--mail-max-tries",
                                 "10"});
  }
  std::string logs() const {
    return ::adj::testing::read_file(dir_.file("serve-0.log")) + "\n----\n" +
           ::adj::testing::read_file(dir_.file("serve-1.log"));
  }
  std::string gm(int i, const std::string& method, const std::string& path,
                 const std::string& body = "") const {
    std::string cmd = "curl -s -m 10 -X " + method + " -H " +
                      shell_quote(std::string("Authorization: Bearer ") + kMultiGm);
    if (!body.empty()) cmd += " -H 'Content-Type: application/json' --data " + shell_quote(body);
    return run_shell(cmd + " " +
                     shell_quote("http://127.0.0.1:" + std::to_string(http_[i]) + path));
  }

  ::adj::testing::TempDir dir_;
  std::string db_, conninfo_;
  int relay_port_ = free_port();
  int http_[2] = {free_port(), free_port()};
  int smtp_[2] = {free_port(), free_port()};
};

// The lines of the daemons' logs that say something went wrong or name the outbox (for a failure).
std::string notable_lines(const std::string& log) {
  std::string out;
  for (const std::string& line : split(log, '\n'))
    if (line.find("rror") != std::string::npos || line.find("warn") != std::string::npos ||
        line.find("outbox") != std::string::npos || line.find("event=tick") != std::string::npos ||
        line.find("reports_queued") != std::string::npos ||
        line.find("event=listening") != std::string::npos)
      out += line + "\n";
  return out.size() > 20000 ? out.substr(out.size() - 20000) : out;
}

// The relay's log: one entry per accepted message.
struct Relayed {
  double at = 0;
  std::string message_id, subject, in_reply_to;
};
std::vector<Relayed> relayed(const std::string& path) {
  std::vector<Relayed> out;
  for (const std::string& line : split(::adj::testing::read_file(path), '\n')) {
    const auto f = split(line, '\t');
    if (f.size() < 4) continue;
    out.push_back({std::stod(f[0]), f[1], f[2], f[3]});
  }
  return out;
}

TEST_P(MultiDaemon, KilledAtRandomTheyStillDoEachThingOnce) {
  const unsigned seed = static_cast<unsigned>(std::time(nullptr));
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  const fs::path relay_dir = dir_.file("relay");
  const std::string relay_log = dir_.file("relay.log");
  Aiosmtpd relay = Aiosmtpd::script(relay_port_, ADJ_SOURCE_DIR "/tests/mail/logging_relay.py",
                                    {relay_dir.string(), relay_log});
  ASSERT_TRUE(relay.start());

  std::unique_ptr<ServeProcess> d[2];
  d[0] = start(0);
  ASSERT_TRUE(d[0]->wait_ready()) << logs();
  d[1] = start(1);
  ASSERT_TRUE(d[1]->wait_ready()) << logs();
  ASSERT_NE(gm(0, "POST", "/api/games",
               R"({"bundled": "dark-age-britain", "seed": 11, "demo_secrets": true})")
                .find(kGame),
            std::string::npos)
      << logs();
  const std::string sched =
      gm(1, "PUT", std::string("/api/games/") + kGame + "/schedule",
         R"({"kind": "interval", "interval_seconds": )" + std::to_string(kInterval) +
             R"(, "nmr_guard_ratio": 1, "downtime_grace_seconds": 0})");
  ASSERT_NE(sched.find("\"interval\""), std::string::npos) << sched;

  // The killer: every 0.5..2.5 s one daemon gets SIGKILL and is started again 0.2..1 s later.
  std::mutex mu;  // guards d[] against the mail sender reading ports while one restarts
  std::vector<double> kills;
  std::atomic<bool> chaos{true};
  std::thread killer([&] {
    std::mt19937 r(seed + 1);
    const auto end = std::chrono::steady_clock::now() + kChaos;
    while (std::chrono::steady_clock::now() < end) {
      std::this_thread::sleep_for(std::chrono::milliseconds(500 + r() % 2000));
      const int i = static_cast<int>(r() % 2);
      {
        std::lock_guard<std::mutex> lock(mu);
        kills.push_back(wall());
        d[i]->kill(SIGKILL);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200 + r() % 800));
      std::lock_guard<std::mutex> lock(mu);
      d[i] = start(i);
    }
    chaos = false;
  });

  // Order mails, each with its own Message-ID, to a random daemon; a refused or failed
  // delivery is tried again (on either daemon) until one answers 250, as an MTA would.
  std::vector<std::string> sent_ids;
  for (int m = 0; m < kMails; ++m) {
    const Player& p = kPlayers[m % 5];
    const std::string id = "multi-" + std::to_string(m) + "." + std::to_string(seed) + "@test";
    const std::string eml = dir_.file("mail-" + std::to_string(m) + ".eml");
    ::adj::testing::write_file(
        eml, std::string("From: ") + p.email + "\r\nTo: orders@pbm.example.net\r\nSubject: " +
                 "orders " + std::to_string(m) + "\r\nMessage-ID: <" + id +
                 ">\r\nDate: Mon, 23 Nov 2026 04:00:00 +0000\r\n\r\nGAME " + kGame + "\r\nPLAYER " +
                 p.code + " " + p.secret + "\r\nDEFEND " + (m % 2 ? "WIN" : "HAM") + "\r\nEND\r\n");
    bool stored = false;
    for (int attempt = 0; attempt < 100 && !stored; ++attempt) {
      const int port = smtp_[rng() % 2];
      stored = send_file(port, eml, p.email) == "250";
      if (!stored) std::this_thread::sleep_for(300ms);
    }
    ASSERT_TRUE(stored) << "mail " << m << " was never accepted\n" << logs();
    sent_ids.push_back(id);
    std::this_thread::sleep_for(std::chrono::milliseconds(300 + rng() % 700));
  }
  killer.join();
  ASSERT_TRUE(d[0]->wait_ready() && d[1]->wait_ready()) << logs();

  // Calm: every mail answered, every turn's reports queued (a turn whose daemon died first is
  // queued by the other after GameAdmin::kBookkeepingGraceSeconds), the outbox empty, at least 5
  // turns, then the schedule off.
  const auto settled = [&] {
    const auto inbox = sql("SELECT count(*) FROM inbox WHERE state = 'new'");
    const auto outbox = sql("SELECT count(*) FROM outbox WHERE state <> 'sent'");
    const auto turn = sql(std::string("SELECT open_turn FROM games WHERE id = '") + kGame + "'");
    if (inbox.empty() || inbox[0][0] != "0" || outbox.empty() || outbox[0][0] != "0" ||
        turn.empty() || std::stoi(turn[0][0]) < 6)
      return false;
    std::set<int> reported;
    for (const auto& r : sql(std::string("SELECT detail_json FROM audit_log WHERE game_id = '") +
                             kGame + "' AND action = 'reports'")) {
      const Json detail = Json::parse(r.empty() ? "" : r[0], nullptr, false);
      if (detail.is_object()) reported.insert(detail.value("turn", 0));
    }
    for (int t = 1; t < std::stoi(turn[0][0]); ++t)
      if (!reported.count(t)) return false;
    return true;
  };
  ASSERT_TRUE(eventually(settled, 150s)) << logs();
  ASSERT_NE(gm(0, "PUT", std::string("/api/games/") + kGame + "/schedule", R"({"kind": "none"})")
                .find("\"none\""),
            std::string::npos);
  // The reports of the last turn, and anything it queued, delivered.
  std::this_thread::sleep_for(3s);
  ASSERT_TRUE(eventually(settled, 90s)) << logs();
  d[0]->kill(SIGTERM);
  d[1]->kill(SIGTERM);
  relay.stop();

  // ---- turns ----
  const int open_turn =
      std::stoi(sql(std::string("SELECT open_turn FROM games WHERE id = '") + kGame + "'")[0][0]);
  std::vector<int> turns;
  for (const auto& r :
       sql(std::string("SELECT turn FROM turns WHERE game_id = '") + kGame + "' ORDER BY turn"))
    turns.push_back(std::stoi(r[0]));
  ASSERT_EQ(static_cast<int>(turns.size()), open_turn - 1);
  for (int t = 1; t < open_turn; ++t) EXPECT_EQ(turns[t - 1], t);
  std::map<int, int> runs, reports_entries;
  std::map<int, long long> run_at, next_deadline;
  int failed = 0, held = 0;
  for (const auto& r : sql(std::string("SELECT action, at, detail_json FROM audit_log WHERE "
                                       "game_id = '") +
                           kGame + "' ORDER BY id")) {
    const Json detail = Json::parse(r.size() > 2 ? r[2] : "", nullptr, false);
    const int t = detail.is_object() ? detail.value("turn", 0) : 0;
    if (r[0] == "run") {
      ++runs[t];
      run_at[t] = std::stoll(r[1]);
      if (detail.is_object() && detail["deadline"].is_number())
        next_deadline[t] = detail["deadline"].get<long long>();
    }
    if (r[0] == "reports") ++reports_entries[t];
    failed += r[0] == "failed";
    held += r[0] == "hold" || r[0] == "guard";
  }
  for (int t = 1; t < open_turn; ++t) {
    EXPECT_EQ(runs[t], 1) << "turn " << t << " has " << runs[t] << " audit \"run\" entries";
    EXPECT_GE(reports_entries[t], 1) << "turn " << t << "'s reports never recorded as queued";
    if (t > 1 && next_deadline.count(t - 1)) {
      EXPECT_GE(run_at[t], next_deadline[t - 1]) << "turn " << t << " ran before its deadline";
    }
  }
  EXPECT_EQ(failed, 0) << "failed attempts in the audit log";
  EXPECT_EQ(held, 0);

  // ---- mail in ----
  const auto mail_rows = relayed(relay_log);
  for (const std::string& id : sent_ids) {
    const auto row = sql("SELECT state, outcome FROM inbox WHERE message_id = '" + id + "'");
    ASSERT_EQ(row.size(), 1u) << id;
    EXPECT_EQ(row[0][0], "processed") << id << ": " << (row[0].size() > 1 ? row[0][1] : "");
  }

  // ---- mail out: each Message-ID once, but for duplicates inside the stated window ----
  std::map<std::string, std::vector<double>> seen;
  for (const Relayed& r : mail_rows) seen[r.message_id].push_back(r.at);
  int duplicates = 0;
  for (const auto& [mid, times] : seen) {
    for (std::size_t k = 1; k < times.size(); ++k) {
      ++duplicates;
      const double first = times[0];  // clang 14: a lambda cannot capture a structured binding
      const bool explained = std::any_of(kills.begin(), kills.end(), [&](double kill) {
        return first - kRelayLag <= kill && kill - first <= kWindow;
      });
      double next_kill = -1, last_kill = -1;  // the kills nearest the first copy: s after, before
      for (double kill : kills) {
        if (kill >= times[0] && (next_kill < 0 || kill - times[0] < next_kill))
          next_kill = kill - times[0];
        if (kill < times[0] && (last_kill < 0 || times[0] - kill < last_kill))
          last_kill = times[0] - kill;
      }
      EXPECT_TRUE(explained) << mid << " reached the relay again " << (times[k] - times[0])
                             << " s after its first copy, and no daemon was killed from "
                             << kRelayLag << " s before to " << kWindow
                             << " s after that (the next kill: " << next_kill
                             << " s after it; the last before it: " << last_kill << " s before)\n"
                             << notable_lines(logs());
    }
  }
  EXPECT_LE(duplicates, static_cast<int>(kills.size()));
  std::printf(
      "[ multi    ] %s: %zu kills, %d turns, %d mails in, %zu relayed, %d duplicates "
      "inside the window\n",
      GetParam().c_str(), kills.size(), open_turn - 1, kMails, mail_rows.size(), duplicates);
  // Every outbox row was sent, and the relay has its Message-ID.
  const auto out_rows = sql("SELECT id, state, kind, dedupe_key FROM outbox ORDER BY id");
  ASSERT_FALSE(out_rows.empty());
  std::map<std::string, int> answers;  // inbox Message-ID -> answers relayed
  for (const Relayed& r : mail_rows) {
    std::string irt = r.in_reply_to;
    if (irt.size() > 2 && irt.front() == '<') irt = irt.substr(1, irt.size() - 2);
    if (!irt.empty() && seen[r.message_id].size() >= 1 && r.at == seen[r.message_id][0])
      ++answers[irt];
  }
  for (const auto& r : out_rows) EXPECT_EQ(r[1], "sent") << "outbox " << r[0] << " " << r[3];
  EXPECT_EQ(seen.size(), out_rows.size()) << "the relay saw other messages than the outbox holds";
  for (const std::string& id : sent_ids) EXPECT_EQ(answers[id], 1) << "answers to " << id;

  // ---- reports: one per player and turn ----
  for (int t = 1; t < open_turn; ++t)
    for (const Player& p : kPlayers) {
      const std::string subject =
          "turn " + std::to_string(t) + " report for " + std::string(p.code);
      int n = 0;
      for (const auto& [mid, times] : seen)
        for (const Relayed& r : mail_rows)
          if (r.message_id == mid && r.at == times[0] &&
              r.subject.find(subject) != std::string::npos)
            ++n;
      EXPECT_EQ(n, 1) << subject;
    }
  if (HasFailure()) {  // what happened, for a failure seen only under load
    std::string audit;
    for (const auto& r : sql(std::string("SELECT at, actor, action, detail_json FROM audit_log "
                                         "WHERE game_id = '") +
                             kGame + "' ORDER BY id")) {
      for (const std::string& f : r) audit += f + " ";
      audit += "\n";
    }
    std::printf("--- audit log ---\n%s--- the daemons' ticks, reports, errors ---\n%s\n",
                audit.c_str(), notable_lines(logs()).c_str());
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, MultiDaemon, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace adj
