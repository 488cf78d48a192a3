// Debian's Postfix as a real peer of Adjutant, configured from the files docs/deploy.md ships in
// docker/postfix/: a private Postfix instance in a temporary directory (its own configuration,
// queue and data directories, loopback only, high ports, its log in a file) is
//   (b) the MX of the game's domain in front of `adjutant serve --smtp` (transport.smtp),
//   (c) a pipe(8) into `adjutant ingest` (transport.pipe and master.cf.adjutant), and
//   (relay) the relay the answers leave through, to a sink (aiosmtpd) that stands for the
//       players' mail providers.
// An order mail sent to Postfix must come back answered through Postfix. Postfix's master(8)
// runs as root: the tests are skipped, saying what is missing, when they do not run as root or
// Postfix (the postfix package, scripts/install-deps.sh --test) or aiosmtpd is not installed.
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/mail/mail_test_util.h"
#include "tests/support/cli_runner.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

namespace adj {
namespace {

namespace fs = std::filesystem;
using ::adj::testing::read_file;
using ::adj::testing::run_cli;
using ::adj::testing::run_shell;
using ::adj::testing::shell_quote;
using ::adj::testing::TempDir;
using ::adj::testing::write_file;
using mail_test::Aiosmtpd;
using mail_test::eventually;
using mail_test::free_port;
using mail_test::maildir_texts;
using mail_test::ServeProcess;
using namespace std::chrono_literals;

const std::string kPfShipped = std::string(ADJ_SOURCE_DIR) + "/docker/postfix/";
constexpr const char* kPfPostfix = "/usr/sbin/postfix";
// The demo game's orders address is orders@pbm.example.net; the shipped files say
// pbm.example.org, the README's domain.
constexpr const char* kPfDomain = "pbm.example.net";
constexpr const char* kPfGmToken = "postfix-peer-gm-token";
// The user `adjutant ingest` runs as in recipe (c) (the shipped file says `adjutant`).
constexpr const char* kPfPipeUser = "nobody";

// What a shell command printed (standard output and error together) and its exit status.
struct PfRun {
  int status = -1;
  std::string out;
};

PfRun pf_run(const std::string& cmd) {
  std::string out = run_shell("{ " + cmd + " ; } 2>&1; echo \"pf-exit=$?\"");
  PfRun r;
  const auto at = out.rfind("pf-exit=");
  if (at == std::string::npos) return r;
  r.status = std::atoi(out.c_str() + at + 8);
  r.out = out.substr(0, at);
  return r;
}

// `text` with every `from` replaced by `to`; `*hits` counts the replacements.
std::string pf_replace(std::string text, const std::string& from, const std::string& to,
                       int* hits) {
  for (std::size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size()) {
    text.replace(at, from.size(), to);
    ++*hits;
  }
  return text;
}

// Why the Postfix tests cannot run here, or "" when they can.
std::string pf_missing() {
  if (::geteuid() != 0)
    return "Postfix's master(8) must be started as root; run this test as root to use a real "
           "Postfix";
  if (::access(kPfPostfix, X_OK) != 0)
    return "Postfix is not installed (no /usr/sbin/postfix): scripts/install-deps.sh --test "
           "installs Debian's postfix";
  if (!Aiosmtpd::available()) return "python3-aiosmtpd is not installed (the mail sink)";
  if (::getpwnam(kPfPipeUser) == nullptr)
    return std::string("there is no user ") + kPfPipeUser + " to run the pipe(8) recipe as";
  return "";
}

// A private Postfix instance under `dir` (etc/, queue/, data/, maillog), configured from
// Debian's stock main.cf and master.cf plus the shipped docker/postfix/ files, with only their
// placeholders substituted (domain, daemon port, paths, pipe user) and the settings a private
// instance needs and a real host would not have (directories, loopback, port, fast retries, a
// relayhost standing for the Internet). The destructor stops it (stop, then abort, then SIGKILL
// to its master), whatever the test's outcome. Not thread-safe; one per test.
class PostfixPeerInstance {
 public:
  struct Options {
    std::string transport;      // the shipped transport map: "transport.smtp" or "transport.pipe"
    bool pipe_service = false;  // append master.cf.adjutant
    int listen_port = 0;        // Postfix's smtpd on 127.0.0.1
    int daemon_smtp_port = 0;   // (b): `adjutant serve --smtp 127.0.0.1:PORT`
    int internet_port = 0;      // relayhost: every domain not routed by transport_maps
    std::string db;             // (c): the database `adjutant ingest` writes
  };

  PostfixPeerInstance(const fs::path& dir, Options o) : dir_(dir), o_(std::move(o)) {}
  ~PostfixPeerInstance() { stop(); }
  PostfixPeerInstance(const PostfixPeerInstance&) = delete;
  PostfixPeerInstance& operator=(const PostfixPeerInstance&) = delete;

  // Writes the configuration and starts Postfix; "" on success, else what went wrong.
  std::string start() {
    std::error_code ec;
    for (const char* d : {"etc", "queue", "data"}) fs::create_directories(dir_ / d, ec);
    // Postfix's daemons run as the postfix user and chdir into the queue below `dir`: `dir` and
    // its parent (the test's TempDir) become searchable by all.
    const auto searchable = fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                            fs::perms::others_read | fs::perms::others_exec;
    for (const fs::path& d : {dir_, dir_.parent_path()}) fs::permissions(d, searchable, ec);
    if (PfRun r = pf_run("chown postfix " + shell_quote(path("data"))); r.status != 0)
      return "chown postfix data/: " + r.out;
    // The pipe user runs a copy of the binary in `dir`: the build tree may be where only its
    // owner can go (a checkout under /root).
    if (o_.pipe_service) {
      fs::copy_file(ADJ_BINARY, path("adjutant"), fs::copy_options::overwrite_existing, ec);
      if (ec) return "copy " + std::string(ADJ_BINARY) + ": " + ec.message();
      fs::permissions(path("adjutant"), searchable, ec);
    }
    std::string why;
    std::string main_cf = read_file("/usr/share/postfix/main.cf.debian");
    if (main_cf.empty()) main_cf = "compatibility_level = 3.6\n";
    main_cf += "\n" + shipped("main.cf.adjutant", &why);
    std::string master_cf = read_file("/usr/share/postfix/master.cf.dist");
    if (master_cf.empty()) master_cf = read_file("/etc/postfix/master.cf");
    if (master_cf.empty()) return "no stock master.cf (/usr/share/postfix/master.cf.dist)";
    if (o_.pipe_service) master_cf += "\n" + shipped("master.cf.adjutant", &why);
    const std::string transport = shipped(o_.transport, &why);
    if (!why.empty()) return why;
    write_file(path("etc/main.cf"), main_cf);
    write_file(path("etc/master.cf"), master_cf);
    write_file(path("etc/transport"), transport);

    const std::string c = "-c " + shell_quote(path("etc"));
    const std::string listen = "127.0.0.1:" + std::to_string(o_.listen_port);
    const std::vector<std::string> private_settings = {
        "queue_directory = " + path("queue"),
        "data_directory = " + path("data"),
        "inet_interfaces = 127.0.0.1",
        "inet_protocols = ipv4",
        std::string("myhostname = mx.") + kPfDomain,
        std::string("mydomain = ") + kPfDomain,
        "mydestination = localhost",
        "alias_maps =",
        "alias_database =",
        "maillog_file = " + path("maillog"),
        "maillog_file_prefixes = " + dir_.string(),
        "queue_run_delay = 1s",
        "minimal_backoff_time = 1s",
        "maximal_backoff_time = 2s",
        "relayhost = [127.0.0.1]:" + std::to_string(o_.internet_port),
        // Only the daemon's address may relay, so that a client on 127.0.0.2 is a stranger.
        "mynetworks = 127.0.0.1/32",
    };
    std::string set = "postconf " + c + " -e";
    for (const auto& s : private_settings) set += " " + shell_quote(s);
    const std::vector<std::string> steps = {
        set,
        // The stock master.cf chroots most daemons into the queue directory, which a private
        // instance does not populate; port 25 becomes a high port on the loopback.
        "postconf " + c + " -F " + shell_quote("*/*/chroot = n"),
        "postconf " + c + " -MX smtp/inet",
        "postconf " + c + " -M " +
            shell_quote(listen + "/inet = " + listen + " inet n - n - - smtpd"),
        "postmap " + c + " " + shell_quote("hash:" + path("etc/transport")),
        kPfPostfix + std::string(" ") + c + " start",
    };
    for (const auto& step : steps) {
      started_ = true;  // from here on, stop() has something to stop
      if (PfRun r = pf_run(step); r.status != 0)
        return step + " exited " + std::to_string(r.status) + ":\n" + r.out + "\n" + log();
    }
    return "";
  }

  void stop() {
    if (!started_) return;
    started_ = false;
    const std::string c = "-c " + shell_quote(path("etc"));
    const pid_t master = master_pid();
    pf_run(kPfPostfix + std::string(" ") + c + " stop");
    if (!wait_gone(master, 10s)) {
      pf_run(kPfPostfix + std::string(" ") + c + " abort");
      if (!wait_gone(master, 5s) && master > 0) ::kill(master, SIGKILL);
    }
  }

  // Asks the queue manager to try every deferred message now (postqueue -f).
  void flush() const { pf_run("postqueue -c " + shell_quote(path("etc")) + " -f"); }
  std::string log() const { return read_file(path("maillog")); }
  // The maillog lines that contain every one of `needles`.
  std::string log_lines_with(const std::vector<std::string>& needles) const {
    std::string out, line;
    const std::string text = log();
    for (std::size_t at = 0; at < text.size();) {
      const std::size_t end = std::min(text.find('\n', at), text.size());
      line = text.substr(at, end - at);
      bool all = true;
      for (const auto& n : needles) all = all && line.find(n) != std::string::npos;
      if (all) out += line + "\n";
      at = end + 1;
    }
    return out;
  }

 private:
  std::string path(const std::string& rel) const { return (dir_ / rel).string(); }

  // The shipped file with its placeholders replaced; adds to *why when a placeholder the test
  // relies on is not in it any more.
  std::string shipped(const std::string& name, std::string* why) const {
    std::string text = read_file(kPfShipped + name);
    if (text.empty()) {
      *why += "cannot read " + kPfShipped + name + "\n";
      return "";
    }
    struct Sub {
      std::string from, to;
      bool required;
    };
    const bool b = name == "transport.smtp", master = name == "master.cf.adjutant";
    const std::vector<Sub> subs = {
        {"pbm.example.org", kPfDomain, true},
        {"[127.0.0.1]:2525", "[127.0.0.1]:" + std::to_string(o_.daemon_smtp_port), b},
        {"/etc/postfix/", path("etc") + "/", name == "main.cf.adjutant"},
        {"/usr/local/bin/adjutant", path("adjutant"), master},
        {"/var/lib/adjutant/adjutant.db", o_.db, master},
        {"user=adjutant", std::string("user=") + kPfPipeUser, master},
    };
    for (const auto& s : subs) {
      int hits = 0;
      text = pf_replace(text, s.from, s.to, &hits);
      if (s.required && hits == 0) *why += name + " no longer contains " + s.from + "\n";
    }
    return text;
  }

  pid_t master_pid() const {
    return static_cast<pid_t>(std::atol(read_file(path("queue/pid/master.pid")).c_str()));
  }
  static bool wait_gone(pid_t pid, std::chrono::seconds timeout) {
    if (pid <= 0) return true;
    return eventually([pid] { return ::kill(pid, 0) != 0; }, timeout);
  }

  fs::path dir_;
  Options o_;
  bool started_ = false;
};

// Sends the file `eml` to Postfix on 127.0.0.1:port from 127.0.0.2 (a client outside
// mynetworks: the Internet), envelope `from` -> `to`; the reply code ("250", "454", ...).
std::string pf_send_from_outside(int port, const std::string& eml, const std::string& from,
                                 const std::string& to) {
  const std::string py =
      "import smtplib\n"
      "s=smtplib.SMTP('127.0.0.1'," +
      std::to_string(port) +
      ",timeout=20,source_address=('127.0.0.2',0))\n"
      "try:\n"
      "  s.sendmail(" +
      shell_quote(from) + ",[" + shell_quote(to) + "],open(" + shell_quote(eml) +
      ",'rb').read())\n"
      "  print('250')\n"
      "except smtplib.SMTPRecipientsRefused as e:\n"
      "  print(list(e.recipients.values())[0][0])\n"
      "except smtplib.SMTPResponseException as e:\n"
      "  print(e.smtp_code)\n"
      "s.quit()\n";
  std::string out = run_shell("/usr/bin/python3 -c " + shell_quote(py) + " 2>&1");
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

const std::string kPfOrders = std::string(ADJ_SOURCE_DIR) + "/tests/data/mail/plain.eml";
// What the answer to plain.eml (WSX's orders for turn 1) says.
constexpr const char* kPfAnswer = "7 accepted, 2 rejected";

// Creates britain-1 with the README's secrets in `db`; "" or the error.
std::string pf_create_game(const std::string& db) {
  auto r = run_cli({"--db", db, "game", "create", "bundled:dark-age-britain", "--demo-secrets"});
  return r.exit_code == 0 ? "" : r.out + r.err;
}

// The sink's messages that answer plain.eml ("" while there is none), flushing Postfix's queue
// on each look.
std::string pf_answer_in_sink(const PostfixPeerInstance& pf, const fs::path& sink) {
  pf.flush();
  for (const auto& m : maildir_texts(sink))
    if (m.find(kPfAnswer) != std::string::npos) return m;
  return "";
}

// Whether Postfix logged relaying to `to` through 127.0.0.1:`port`, waiting for the line: the
// sink stores a message before it answers 250, and Postfix logs "sent" after that answer.
bool pf_relayed_to(const PostfixPeerInstance& pf, const std::string& to, int port) {
  return eventually(
      [&] {
        return !pf.log_lines_with({"to=<" + to + ">",
                                   "relay=127.0.0.1[127.0.0.1]:" + std::to_string(port),
                                   "status=sent"})
                    .empty();
      },
      30s);
}

TEST(PostfixPeer, MxInFrontOfTheListenerAndRelayAnswerAnOrderMail) {
  if (const std::string why = pf_missing(); !why.empty()) GTEST_SKIP() << why;
  TempDir dir;
  const std::string db = dir.file("game.db"), log = dir.file("serve.log");
  ASSERT_EQ(pf_create_game(db), "");
  Aiosmtpd internet(free_port(), {"aiosmtpd.handlers.Mailbox", dir.file("internet")});
  ASSERT_TRUE(internet.start());

  const int mx = free_port(), daemon_smtp = free_port();
  PostfixPeerInstance pf(dir.path() / "postfix", {.transport = "transport.smtp",
                                                  .listen_port = mx,
                                                  .daemon_smtp_port = daemon_smtp,
                                                  .internet_port = internet.port(),
                                                  .db = ""});
  const std::string relay = "smtp://127.0.0.1:" + std::to_string(mx);
  ServeProcess serve(db, free_port(), daemon_smtp, log, kPfGmToken,
                     {"--relay", relay, "--mail-from", std::string("orders@") + kPfDomain,
                      "--base-url", std::string("https://") + kPfDomain});
  ASSERT_TRUE(serve.wait_ready()) << read_file(log);
  ASSERT_EQ(pf.start(), "");

  // A stranger may not relay through the MX, but may send to the game's domain.
  EXPECT_EQ(pf_send_from_outside(mx, kPfOrders, "wessex@example.org", "someone@example.com"),
            "454");
  ASSERT_EQ(
      pf_send_from_outside(mx, kPfOrders, "wessex@example.org", std::string("orders@") + kPfDomain),
      "250")
      << pf.log();

  std::string answer;
  ASSERT_TRUE(eventually(
      [&] { return !(answer = pf_answer_in_sink(pf, dir.file("internet"))).empty(); }, 30s))
      << "no answer reached the sink\n--- maillog\n"
      << pf.log() << "--- serve\n"
      << read_file(log);
  EXPECT_NE(answer.find("In-Reply-To: <plain.7f3a@mail.example.org>"), std::string::npos) << answer;
  EXPECT_NE(answer.find(std::string("by mx.") + kPfDomain + " (Postfix)"), std::string::npos)
      << "the answer went through Postfix\n"
      << answer;

  const std::string port = std::to_string(daemon_smtp);
  EXPECT_NE(pf.log_lines_with({"to=<orders@pbm.example.net>", "relay=127.0.0.1[127.0.0.1]:" + port,
                               "status=sent"}),
            "")
      << "Postfix handed the order to the daemon's listener\n"
      << pf.log();
  EXPECT_TRUE(pf_relayed_to(pf, "wessex@example.org", internet.port()))
      << "Postfix relayed the answer\n"
      << pf.log();
  EXPECT_NE(pf.log_lines_with({"client=localhost[127.0.0.1]"}), "")
      << "the daemon sent its answer to Postfix\n"
      << pf.log();
}

TEST(PostfixPeer, PipeIntoIngestAndRelayAnswerAnOrderMail) {
  if (const std::string why = pf_missing(); !why.empty()) GTEST_SKIP() << why;
  TempDir dir;
  // The pipe user writes the database and its directory (SQLite's -wal and -shm files).
  const fs::path state = dir.path() / "state";
  fs::create_directories(state);
  const std::string db = (state / "adjutant.db").string();
  ASSERT_EQ(pf_create_game(db), "");  // root's for now: the pipe user cannot write it yet
  Aiosmtpd internet(free_port(), {"aiosmtpd.handlers.Mailbox", dir.file("internet")});
  ASSERT_TRUE(internet.start());

  const int mx = free_port();
  PostfixPeerInstance pf(dir.path() / "postfix", {.transport = "transport.pipe",
                                                  .pipe_service = true,
                                                  .listen_port = mx,
                                                  .daemon_smtp_port = 0,
                                                  .internet_port = internet.port(),
                                                  .db = db});
  ASSERT_EQ(pf.start(), "");
  ASSERT_EQ(
      pf_send_from_outside(mx, kPfOrders, "wessex@example.org", std::string("orders@") + kPfDomain),
      "250")
      << pf.log();
  // While `adjutant ingest` cannot write the database it exits 75 and Postfix keeps the mail...
  const auto pipe_log = [&pf](const char* status) {
    return pf.log_lines_with({"to=<orders@pbm.example.net>", "relay=adjutant", status});
  };
  ASSERT_TRUE(eventually([&] { return !pipe_log("status=deferred").empty(); }, 30s))
      << "Postfix did not defer\n"
      << pf.log();
  EXPECT_EQ(pipe_log("status=bounced"), "");
  // ... and delivers it once it can.
  ASSERT_EQ(
      pf_run(std::string("chown -R ") + kPfPipeUser + " " + shell_quote(state.string())).status, 0);
  ASSERT_TRUE(eventually(
      [&] {
        pf.flush();
        return !pipe_log("status=sent").empty();
      },
      30s))
      << "Postfix did not deliver to the pipe\n"
      << pf.log();

  // `adjutant ingest` stored it as the pipe user, with the envelope Postfix gave, and queued the
  // answer.
  auto inbox = run_cli({"--db", db, "inbox", "list", "--json"});
  ASSERT_EQ(inbox.exit_code, 0) << inbox.err;
  const auto j = nlohmann::json::parse(inbox.out, nullptr, false);
  ASSERT_TRUE(j.is_array() && j.size() == 1u) << inbox.out;
  EXPECT_EQ(j[0].value("channel", ""), "pipe");
  EXPECT_EQ(j[0].value("from", ""), "wessex@example.org");
  EXPECT_NE(j[0].value("outcome", "").find(kPfAnswer), std::string::npos) << inbox.out;
  struct stat st {};
  ASSERT_EQ(::stat(db.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, ::getpwnam(kPfPipeUser)->pw_uid) << "the database stays the pipe user's";

  // The answer leaves through Postfix as the relay.
  auto sent =
      run_cli({"--db", db, "outbox", "send", "--relay", "smtp://127.0.0.1:" + std::to_string(mx),
               "--mail-from", std::string("orders@") + kPfDomain});
  ASSERT_EQ(sent.exit_code, 0) << sent.out << sent.err;
  std::string answer;
  ASSERT_TRUE(eventually(
      [&] { return !(answer = pf_answer_in_sink(pf, dir.file("internet"))).empty(); }, 30s))
      << "no answer reached the sink\n--- maillog\n"
      << pf.log();
  EXPECT_NE(answer.find("In-Reply-To: <plain.7f3a@mail.example.org>"), std::string::npos) << answer;
  EXPECT_NE(answer.find("https://pbm.example.net/games/britain-1"), std::string::npos) << answer;
  EXPECT_TRUE(pf_relayed_to(pf, "wessex@example.org", internet.port())) << pf.log();
}

}  // namespace
}  // namespace adj
