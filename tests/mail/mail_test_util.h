// Shared pieces of the mail tests: a database with the bundled Dark Age Britain game
// ("britain-1", players WSX/cerdic wessex@example.org, MRC/penda, NUM/oswald, EAN/raedwald,
// GWN/cadwallon), a MailIngest over it with a settable clock, the corpus under tests/data/mail,
// and a real aiosmtpd subprocess. Header-only (the test glob compiles *_test.cc only).
#pragma once

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "rules/game/scenario.h"
#include "server/app/app_runtime.h"
#include "server/app/services.h"
#include "server/mail/mail_ingest.h"
#include "server/mail/mime.h"
#include "storage/sqlite/sqlite_store.h"
#include "tests/support/cli_runner.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

namespace adj::mail_test {

// Whether `hay` holds `needle`, line breaks counting as spaces on both sides: prose in answers is
// wrapped at 76 columns.
inline bool ingest_contains(const std::string& hay, const std::string& needle) {
  const auto flat = [](std::string t) {
    for (char& c : t)
      if (c == '\n') c = ' ';
    return t;
  };
  return flat(hay).find(flat(needle)) != std::string::npos;
}

using ::adj::testing::free_port;
using ::adj::testing::HeldPort;
using ::adj::testing::port_open;

inline const std::string kCorpus = std::string(ADJ_SOURCE_DIR) + "/tests/data/mail/";
inline constexpr UnixTime kStart = 1795046400;  // 2026-11-19 00:00 UTC

inline std::string corpus(const std::string& name) {
  return ::adj::testing::read_file(kCorpus + name);
}

// A store with britain-1 created, Services and a MailIngest over it; now_ is the clock.
class MailFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = SqliteStore::open(db_);
    ASSERT_TRUE(s.ok()) << s.status().to_string();
    store_ = std::move(s).value();
    services_ = std::make_unique<Services>(
        Stores{*store_, *store_, *store_, *store_, *store_, *store_}, [this] { return now_; });
    auto scenario = bundled_scenario_published("dark-age-britain");
    ASSERT_TRUE(scenario.ok());
    auto game = services_->create_game(*scenario, 1066);
    ASSERT_TRUE(game.ok()) << game.status().to_string();
    config_.from = {"orders@pbm.example.net", "Adjutant"};
    config_.base_url = "https://pbm.example.net";
    make_ingest();
  }
  // The ingest borrows app_, a runtime of its own over the same file with the same clock.
  void make_ingest() {
    if (!app_) {
      AppConfig config;
      config.db_path = db_;
      app_ = std::make_unique<AppRuntime>(config, [this] { return now_; });
    }
    ingest_ = std::make_unique<mail::MailIngest>(*app_, config_);
  }

  // accept + process; asserts both succeed. The envelope sender is the From address (as an MTA
  // usually gives it) unless `envelope_from` is set.
  mail::ProcessResult ingest(const std::string& raw, const std::string& channel = "pipe",
                             std::optional<std::string> envelope_from = std::nullopt) {
    bool dup = false;
    if (!envelope_from) {
      auto p = mail::parse_mail(raw);
      envelope_from = p.ok() ? p->from_address : std::string();
    }
    auto id = ingest_->accept(raw, channel, {*envelope_from, {}, ""}, &dup);
    EXPECT_TRUE(id.ok()) << id.status().to_string();
    if (!id.ok()) return {};
    last_inbox_ = *id;
    auto r = ingest_->process(*id);
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    return r.ok() ? *r : mail::ProcessResult{};
  }

  // The outbox, oldest first, each message as delivered (its stored part put in its place).
  std::vector<OutboxMessage> outbox() {
    auto list = store_->outbox("", 1000);
    EXPECT_TRUE(list.ok());
    std::vector<OutboxMessage> out = list.ok() ? *list : std::vector<OutboxMessage>{};
    std::reverse(out.begin(), out.end());  // oldest first
    for (OutboxMessage& m : out) {
      if (m.part_key.empty()) continue;
      auto part = store_->mail_part(m.part_key);
      EXPECT_TRUE(part.ok() && put_in_mail_part(m.raw, m.part_key, *part)) << m.dedupe_key;
    }
    return out;
  }
  std::vector<SubmissionRecord> submissions() {
    auto all = store_->all_submissions("britain-1");
    EXPECT_TRUE(all.ok());
    return all.ok() ? *all : std::vector<SubmissionRecord>{};
  }
  // The parsed form of a queued message (asserting it parses).
  static mail::ParsedMail parse(const OutboxMessage& m) {
    auto p = mail::parse_mail(m.raw);
    EXPECT_TRUE(p.ok()) << p.status().to_string();
    return p.ok() ? *p : mail::ParsedMail{};
  }

  ::adj::testing::TempDir dir_;
  std::string db_ = dir_.file("mail.db");
  UnixTime now_ = kStart;
  std::unique_ptr<SqliteStore> store_;
  std::unique_ptr<Services> services_;
  std::unique_ptr<AppRuntime> app_;
  mail::MailConfig config_;
  std::unique_ptr<mail::MailIngest> ingest_;
  std::int64_t last_inbox_ = 0;
};

// MailFixture with turn 1 of britain-1 run on the bundled orders of all five players.
class WithTurn : public MailFixture {
 protected:
  void SetUp() override {
    MailFixture::SetUp();
    for (const char* p : {"WSX", "MRC", "NUM", "EAN", "GWN"}) {
      const std::string text = ::adj::testing::read_file(
          std::string(ADJ_SOURCE_DIR) + "/schemas/scenarios/dark-age-britain/turn1-" + p + ".txt");
      ASSERT_TRUE(services_->submit_orders("britain-1", text, "cli").ok());
    }
    auto run = services_->run_turn("britain-1", false);
    ASSERT_TRUE(run.ok()) << run.status().to_string();
  }
};

inline constexpr const char* kAiosmtpd = "/usr/bin/aiosmtpd";

// A real SMTP server: /usr/bin/aiosmtpd -n -l 127.0.0.1:PORT -c HANDLER ARGS..., started by
// start() and stopped (SIGTERM to its pid, then waited for) by stop() or the destructor.
// `pythonpath` is prepended to PYTHONPATH (for handlers written by a test).
// script(): instead, /usr/bin/python3 SCRIPT PORT ARGS... (an aiosmtpd Controller a test needs,
// such as tests/mail/auth_relay.py), which must listen on PORT.
class Aiosmtpd {
 public:
  Aiosmtpd(int port, std::vector<std::string> handler, std::string pythonpath = "")
      : port_(port), handler_(std::move(handler)), pythonpath_(std::move(pythonpath)) {}
  int port() const { return port_; }
  static Aiosmtpd script(int port, const std::string& path, std::vector<std::string> args) {
    Aiosmtpd s(port, {});
    s.argv_ = {"/usr/bin/python3", path, std::to_string(port)};
    s.argv_.insert(s.argv_.end(), args.begin(), args.end());
    return s;
  }
  Aiosmtpd(Aiosmtpd&& o) noexcept
      : port_(o.port_),
        handler_(std::move(o.handler_)),
        pythonpath_(std::move(o.pythonpath_)),
        argv_(std::move(o.argv_)),
        pid_(std::exchange(o.pid_, -1)) {}
  ~Aiosmtpd() { stop(); }
  static bool available() { return ::access(kAiosmtpd, X_OK) == 0; }

  // True once the port accepts connections (within 15 s).
  bool start() {
    pid_ = ::fork();
    if (pid_ == 0) {
      if (!pythonpath_.empty()) ::setenv("PYTHONPATH", pythonpath_.c_str(), 1);
      const std::string listen = "127.0.0.1:" + std::to_string(port_);
      std::vector<std::string> args = {kAiosmtpd, "-n", "-l", listen, "-c"};
      args.insert(args.end(), handler_.begin(), handler_.end());
      if (!argv_.empty()) args = argv_;
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(args[0].c_str(), argv.data());
      std::_Exit(127);
    }
    for (int i = 0; i < 150; ++i) {
      if (port_open(port_)) return true;
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }
  void stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    // Wait until the port is closed, so that "relay down" really is down.
    for (int i = 0; i < 50 && port_open(port_); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }

 private:
  int port_;
  std::vector<std::string> handler_;
  std::string pythonpath_;
  std::vector<std::string> argv_;  // script(): the whole command
  pid_t pid_ = -1;
};

// `adjutant serve` as a child process: HTTP and SMTP listeners on 127.0.0.1 at the given ports,
// ADJUTANT_GM_TOKEN = `gm_token`, stderr appended to `log` (stdout to log + ".out"), plus `extra`
// options. The destructor stops it with SIGTERM (see kill) and waits for it.
class ServeProcess {
 public:
  ServeProcess(const std::string& db, int http, int smtp, const std::string& log,
               const std::string& gm_token, std::vector<std::string> extra = {})
      : http_(http), smtp_(smtp) {
    std::vector<std::string> args = {ADJ_BINARY,
                                     "--db",
                                     db,
                                     "serve",
                                     "--http",
                                     "127.0.0.1:" + std::to_string(http),
                                     "--smtp",
                                     "127.0.0.1:" + std::to_string(smtp),
                                     "--http-stale-wait",
                                     "600000"};
    args.insert(args.end(), extra.begin(), extra.end());
    pid_ = ::fork();
    if (pid_ == 0) {
      std::freopen(log.c_str(), "a", stderr);
      std::freopen((log + ".out").c_str(), "a", stdout);
      ::setenv("ADJUTANT_GM_TOKEN", gm_token.c_str(), 1);
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(ADJ_BINARY, argv.data());
      std::_Exit(127);
    }
  }
  ~ServeProcess() { kill(SIGTERM); }
  ServeProcess(const ServeProcess&) = delete;
  ServeProcess& operator=(const ServeProcess&) = delete;

  // Sends `sig` once and waits for the process (SIGKILL: a crash; SIGTERM: a clean stop).
  void kill(int sig) {
    if (pid_ > 0 && !reaped_) {
      ::kill(pid_, sig);
      ::waitpid(pid_, nullptr, 0);
      reaped_ = true;
    }
  }
  // Sends `sig` without waiting (SIGHUP: the daemon reloads its TLS certificate).
  void signal(int sig) const {
    if (pid_ > 0 && !reaped_) ::kill(pid_, sig);
  }
  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(http_) + path;
  }
  // True once /healthz answers ok and the SMTP port accepts connections (within `timeout`).
  bool wait_ready(std::chrono::seconds timeout = std::chrono::seconds(30)) const {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      const std::string health =
          ::adj::testing::run_shell("curl -s -m 2 " + ::adj::testing::shell_quote(url("/healthz")));
      if (health.find("ok") != std::string::npos && port_open(smtp_)) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }
  int smtp() const { return smtp_; }
  int http() const { return http_; }
  pid_t pid() const { return pid_; }

 private:
  int http_, smtp_;
  pid_t pid_ = -1;
  bool reaped_ = false;
};

// Polls `f` every 200 ms until it returns true or `timeout` passes; its last answer.
template <class F>
bool eventually(F f, std::chrono::seconds timeout = std::chrono::seconds(30)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (f()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return f();
}

// Sends the file `eml` to 127.0.0.1:port with Python's smtplib (envelope from `from`, to
// orders@pbm.example.net); the server's reply code to the message ("250", "451", ...).
inline std::string send_file(int port, const std::string& eml, const std::string& from) {
  const std::string py =
      "import smtplib\n"
      "s=smtplib.SMTP('127.0.0.1'," +
      std::to_string(port) +
      ",timeout=20)\n"
      "try:\n"
      "  s.sendmail('" +
      from + "',['orders@pbm.example.net'],open('" + eml +
      "','rb').read())\n"
      "  print('250')\n"
      "except smtplib.SMTPResponseException as e:\n"
      "  print(e.smtp_code)\n"
      "s.quit()\n";
  std::string out =
      ::adj::testing::run_shell("/usr/bin/python3 -c " + ::adj::testing::shell_quote(py));
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

// The files of a Maildir's new/ directory, sorted.
inline std::vector<std::filesystem::path> maildir_new(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir / "new", ec))
    out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// The text of every file of a Maildir's new/ directory, in maildir_new's order.
inline std::vector<std::string> maildir_texts(const std::filesystem::path& dir) {
  std::vector<std::string> out;
  for (const auto& f : maildir_new(dir)) out.push_back(::adj::testing::read_file(f.string()));
  return out;
}

}  // namespace adj::mail_test
