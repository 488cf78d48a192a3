// The pages in a real browser: `adjutant serve` on a loopback port as a subprocess, Debian's
// headless Chromium loading the game page (--dump-dom gives the DOM after parsing, so the inline
// SVG map must have survived the HTML parser) and a player's sign-in link (the cookie it sets
// must carry the browser on to the player's page and their report). A screenshot of the game
// page is saved; with ADJ_SCREENSHOT_DIR set it is copied there.
//
// Skipped, with the reason, when Chromium or curl is missing or the binary has no `serve`.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <thread>

#include <nlohmann/json.hpp>

#include "storage/sqlite/sqlite_store.h"
#include "tests/support/cli_runner.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

namespace adj {
namespace {

using ::adj::testing::free_port;

using ::adj::testing::read_file;
using ::adj::testing::run_cli;

constexpr const char* kBrowserChromium = "/usr/bin/chromium";
constexpr const char* kCurl = "/usr/bin/curl";
constexpr const char* kBrowserGmToken = "browser-test-gm-token";

bool executable(const char* path) { return ::access(path, X_OK) == 0; }

// Starts argv in its own process group with stdout and stderr to `log`; returns its pid.
pid_t browser_spawn(const std::vector<std::string>& args, const std::string& log,
                    const std::vector<std::pair<std::string, std::string>>& env = {}) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int null = ::open("/dev/null", O_RDONLY);
    ::dup2(null, 0);
    ::dup2(out, 1);
    ::dup2(out, 2);
    for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    std::_Exit(127);
  }
  return pid;
}

// Waits up to `seconds` for `pid`; on timeout kills its process group. The exit code, or -1.
int browser_wait_for(pid_t pid, int seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  int status = 0;
  while (true) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (done < 0) return -1;
    if (std::chrono::steady_clock::now() > until) {
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

// A minimal Chrome DevTools Protocol client over --remote-debugging-pipe: Chromium reads
// NUL-terminated JSON commands from fd 3 and writes answers and events to fd 4. Enough to load
// pages, type into forms, click, read the DOM and take screenshots, with no JavaScript in the
// pages themselves (Runtime.evaluate is the test's hand on the keyboard).
class Cdp {
 public:
  using Json = nlohmann::json;

  ~Cdp() {
    if (pid_ > 0) {
      send("Browser.close", Json::object(), "");
      if (browser_wait_for(pid_, 10) < 0) ::kill(-pid_, SIGKILL);
    }
    if (to_ >= 0) ::close(to_);
    if (from_ >= 0) ::close(from_);
  }

  bool start(std::vector<std::string> args, const std::string& log) {
    int in[2], out[2];
    if (::pipe(in) != 0 || ::pipe(out) != 0) return false;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::setpgid(0, 0);
      const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      ::dup2(in[0], 3);
      ::dup2(out[1], 4);
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      std::_Exit(127);
    }
    ::close(in[0]);
    ::close(out[1]);
    to_ = in[1];
    from_ = out[0];
    return pid_ > 0;
  }

  // Sends a command and waits for its answer's "result" (null on error or timeout; the error is
  // kept in last_error()).
  Json call(const std::string& method, const Json& params, const std::string& session) {
    const int id = send(method, params, session);
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < until) {
      Json m = next(until);
      if (m.is_null()) break;
      if (m.value("id", -1) == id) {
        if (m.contains("error")) {
          error_ = m["error"].dump();
          return nullptr;
        }
        return m.value("result", Json::object());
      }
      if (m.contains("method")) events_.push_back(std::move(m));
    }
    error_ = "no answer to " + method;
    return nullptr;
  }

  // Waits for event `method` on `session` (events seen earlier count), up to 60 s.
  bool wait_event(const std::string& method, const std::string& session) {
    for (auto it = events_.begin(); it != events_.end(); ++it)
      if ((*it)["method"] == method && it->value("sessionId", "") == session) {
        events_.erase(it);
        return true;
      }
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < until) {
      Json m = next(until);
      if (m.is_null()) return false;
      if (m.value("method", "") == method && m.value("sessionId", "") == session) return true;
      if (m.contains("method")) events_.push_back(std::move(m));
    }
    return false;
  }

  void forget_events() { events_.clear(); }
  const std::string& last_error() const { return error_; }

 private:
  int send(const std::string& method, const Json& params, const std::string& session) {
    Json m = {{"id", ++id_}, {"method", method}, {"params", params}};
    if (!session.empty()) m["sessionId"] = session;
    std::string text = m.dump();
    text.push_back('\0');
    std::size_t done = 0;
    while (done < text.size()) {
      const ssize_t n = ::write(to_, text.data() + done, text.size() - done);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    return id_;
  }

  // The next message, or null at the deadline or when Chromium has gone.
  Json next(std::chrono::steady_clock::time_point until) {
    while (true) {
      const std::size_t end = buf_.find('\0');
      if (end != std::string::npos) {
        Json m = Json::parse(buf_.substr(0, end), nullptr, false);
        buf_.erase(0, end + 1);
        if (!m.is_discarded()) return m;
        continue;
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                            until - std::chrono::steady_clock::now())
                            .count();
      if (left <= 0) return nullptr;
      pollfd p{from_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left)) <= 0) return nullptr;
      char chunk[65536];
      const ssize_t n = ::read(from_, chunk, sizeof chunk);
      if (n <= 0) return nullptr;
      buf_.append(chunk, static_cast<std::size_t>(n));
    }
  }

  pid_t pid_ = -1;
  int to_ = -1, from_ = -1, id_ = 0;
  std::string buf_, error_;
  std::deque<Json> events_;
};

std::string base64_decode(const std::string& in) {
  auto val = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string out;
  int acc = 0, bits = 0;
  for (char c : in) {
    const int v = val(c);
    if (v < 0) continue;
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  return out;
}

class WebBrowser : public ::testing::Test {
 protected:
  void TearDown() override {
    if (server_ > 0) {
      ::kill(server_, SIGTERM);
      if (browser_wait_for(server_, 15) < 0) ADD_FAILURE() << "the server did not stop on SIGTERM";
    }
  }

  // Runs headless Chromium on `url` with `extra` flags and this test's profile; its stdout.
  std::string chromium(const std::string& url, const std::vector<std::string>& extra) {
    std::vector<std::string> args = {kBrowserChromium,
                                     "--headless",
                                     "--no-sandbox",
                                     "--disable-gpu",
                                     "--disable-quic",
                                     "--no-first-run",
                                     "--disable-background-networking",
                                     "--disable-component-update",
                                     "--disable-sync",
                                     "--user-data-dir=" + dir_.file("profile")};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back(url);
    const std::string log = dir_.file("chromium-" + std::to_string(++runs_) + ".out");
    const int code = browser_wait_for(browser_spawn(args, log), 120);
    EXPECT_EQ(code, 0) << "chromium " << url;
    return read_file(log);
  }

  bool healthy(const std::string& base) {
    const pid_t pid =
        browser_spawn({kCurl, "-sf", "-o", "/dev/null", "--max-time", "2", base + "/healthz"},
                      dir_.file("curl.out"));
    return browser_wait_for(pid, 10) == 0;
  }

  // Skips the test unless Chromium, curl and `adjutant serve` are there.
  void require_tools() {
    if (!executable(kBrowserChromium))
      GTEST_SKIP() << "no " << kBrowserChromium << " (Debian package chromium)";
    if (!executable(kCurl)) GTEST_SKIP() << "no " << kCurl << " (Debian package curl)";
    if (run_cli({"serve", "--help"}).exit_code != 0)
      GTEST_SKIP() << "this adjutant binary has no `serve` command yet";
  }

  // Creates the Dark Age Britain game in a fresh database and serves it on a free loopback port
  // (GM token kBrowserGmToken, scheduler off); sets db_ and base_ once /healthz answers.
  void start_server() {
    db_ = dir_.file("browser.db");
    auto made =
        run_cli({"--db", db_, "game", "create", "bundled:dark-age-britain", "--demo-secrets"});
    ASSERT_EQ(made.exit_code, 0) << made.err;
    const int port = free_port();
    ASSERT_GT(port, 0);
    base_ = "http://127.0.0.1:" + std::to_string(port);
    server_ = browser_spawn(
        {ADJ_BINARY, "--db", db_, "serve", "--http", "127.0.0.1:" + std::to_string(port), "--tick",
         "0", "--smtp", "off", "--http-stale-wait", "600000"},
        dir_.file("serve.log"), {{"ADJUTANT_GM_TOKEN", kBrowserGmToken}});
    bool up = false;
    for (int i = 0; i < 100 && !up; ++i) {
      up = healthy(base_);
      if (!up) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ASSERT_TRUE(up) << "the server did not answer /healthz:\n" << read_file(dir_.file("serve.log"));
  }

  ::adj::testing::TempDir dir_;
  pid_t server_ = -1;
  int runs_ = 0;
  std::string db_, base_;
};

TEST_F(WebBrowser, GamePageMapAndPlayerLinkInChromium) {
  require_tools();
  if (IsSkipped()) return;
  start_server();
  if (HasFatalFailure()) return;
  const std::string& base = base_;
  const std::string& db = db_;

  // The game page: the map survives the HTML parser as inline SVG with every area.
  const std::string dom = chromium(base + "/games/britain-1", {"--dump-dom"});
  EXPECT_NE(dom.find("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"map\""), std::string::npos)
      << dom.substr(0, 2000);
  for (const char* code : {"DEV", "SOM", "WIL", "HAM", "WIN", "SUS", "KNT", "CAN", "MDX", "LON",
                           "ESX", "SFK", "NFK", "OXF", "GLS", "GLO", "WAR", "LES", "LEI", "LIN",
                           "YKS", "YRK", "BER", "CHS", "GWY", "PWS", "IRS", "CHN", "NTS"})
    EXPECT_NE(dom.find(std::string("id=\"area-") + code + "\""), std::string::npos) << code;
  EXPECT_NE(dom.find("class=\"chart\""), std::string::npos);
  EXPECT_NE(dom.find("Dark Age Britain"), std::string::npos);

  // A screenshot of it.
  const std::string shot = dir_.file("game.png");
  chromium(base + "/games/britain-1", {"--screenshot=" + shot, "--window-size=1200,900"});
  std::error_code ec;
  EXPECT_GT(std::filesystem::file_size(shot, ec), 10'000u) << ec.message();
  if (const char* keep = std::getenv("ADJ_SCREENSHOT_DIR"))
    std::filesystem::copy_file(shot, std::filesystem::path(keep) / "web_game_page.png",
                               std::filesystem::copy_options::overwrite_existing, ec);

  // Play turn 1 with the command line, then follow Mercia's link: the cookie it sets takes the
  // browser to Mercia's page, and (kept in the profile) on to Mercia's report of turn 1.
  for (const char* p : {"WSX", "MRC", "NUM", "EAN", "GWN"}) {
    const std::string file =
        std::string(ADJ_SOURCE_DIR) + "/schemas/scenarios/dark-age-britain/turn1-" + p + ".txt";
    auto sub = run_cli({"--db", db, "orders", "submit", "britain-1", file});
    ASSERT_EQ(sub.exit_code, 0) << sub.out << sub.err;
  }
  auto ran = run_cli({"--db", db, "turn", "run", "britain-1"});
  ASSERT_EQ(ran.exit_code, 0) << ran.out << ran.err;

  // Mercia's link token, as the GM issues it (printed once by `player reset`).
  std::string token;
  {
    auto made = run_cli({"--db", db, "player", "reset", "britain-1", "MRC", "--what", "token"});
    ASSERT_EQ(made.exit_code, 0) << made.out << made.err;
    const std::size_t at = made.out.rfind(": ");
    ASSERT_NE(at, std::string::npos) << made.out;
    token = made.out.substr(at + 2, 32);
  }

  const std::string me = chromium(base + "/games/britain-1/p/" + token, {"--dump-dom"});
  EXPECT_NE(me.find("Mercia (MRC) in Dark Age Britain"), std::string::npos) << me.substr(0, 3000);
  EXPECT_NE(me.find("href=\"/games/britain-1/me/reports/1\""), std::string::npos);
  EXPECT_NE(me.find("<textarea"), std::string::npos);
  const std::string report = chromium(base + "/games/britain-1/me/reports/1", {"--dump-dom"});
  EXPECT_NE(report.find("Report: Dark Age Britain, turn 1"), std::string::npos)
      << report.substr(0, 3000);
  EXPECT_NE(report.find("Mercia (MRC)"), std::string::npos);
  EXPECT_NE(report.find("Roundup of turn 1"), std::string::npos);
}

// The end-to-end check, all through a real browser's forms: a player signs in with code
// and secret, submits orders with the order form, the GM signs in and runs the turn from the GM
// page, and the player finds the new report. A screenshot of the game page is saved.
TEST_F(WebBrowser, PlayerSubmitsGmRunsPlayerReadsInChromium) {
  require_tools();
  if (IsSkipped()) return;
  start_server();
  if (HasFatalFailure()) return;
  ::signal(SIGPIPE, SIG_IGN);

  Cdp cdp;
  ASSERT_TRUE(
      cdp.start({kBrowserChromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--user-data-dir=" + dir_.file("cdp-profile"),
                 "--remote-debugging-pipe", "--window-size=1200,900", "about:blank"},
                dir_.file("cdp.log")));
  const Json target = cdp.call("Target.createTarget", {{"url", "about:blank"}}, "");
  ASSERT_FALSE(target.is_null()) << cdp.last_error() << read_file(dir_.file("cdp.log"));
  const Json attached =
      cdp.call("Target.attachToTarget", {{"targetId", target["targetId"]}, {"flatten", true}}, "");
  ASSERT_FALSE(attached.is_null()) << cdp.last_error();
  const std::string tab = attached["sessionId"];
  ASSERT_FALSE(cdp.call("Page.enable", Json::object(), tab).is_null()) << cdp.last_error();

  auto eval = [&](const std::string& js) -> std::string {
    const Json r = cdp.call("Runtime.evaluate", {{"expression", js}, {"returnByValue", true}}, tab);
    if (r.is_null() || !r.contains("result")) return "";
    const Json& v = r["result"].value("value", Json());
    return v.is_string() ? v.get<std::string>() : v.dump();
  };
  // Load events of an earlier page can arrive late on a busy machine, so a navigation is known
  // to be done only when the document carrying this marker has been replaced by a complete one.
  auto mark_document = [&] { eval("window.__adjOld = true"); };
  auto wait_new_document = [&](const std::string& what) {
    for (int i = 0; i < 600; ++i) {
      if (eval("(window.__adjOld === undefined && document.readyState === 'complete') ? 'y' : "
               "'n'") == "y")
        return;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ADD_FAILURE() << "no new page loaded after " << what;
  };
  auto go = [&](const std::string& url) {
    mark_document();
    cdp.forget_events();
    const Json r = cdp.call("Page.navigate", {{"url", base_ + url}}, tab);
    EXPECT_FALSE(r.is_null()) << url << ": " << cdp.last_error();
    wait_new_document(url);
  };
  // Fills the named fields of the form whose action ends with `action` and clicks `button`
  // (a CSS selector inside that form); waits for the page the answer loads.
  auto submit = [&](const std::string& action, const Json& fields, const std::string& button) {
    std::string js = "(() => { const f = document.querySelector('form[action$=\"" + action +
                     "\"]'); if (!f) return 'no form';";
    for (const auto& [name, value] : fields.items())
      js += "f.querySelector('[name=\"" + name + "\"]').value = " + value.dump() + ";";
    js += "f.querySelector('" + button + "').click(); return 'ok'; })()";
    mark_document();
    cdp.forget_events();
    EXPECT_EQ(eval(js), "ok") << action;
    wait_new_document(action);
  };
  auto html = [&] { return eval("document.documentElement.outerHTML"); };
  auto path = [&] { return eval("location.pathname"); };

  // The player signs in: a wrong secret first, then the right one.
  go("/games/britain-1/login");
  submit("/login", {{"player", "wsx"}, {"secret", "wrong"}}, "button");
  EXPECT_NE(html().find("Unknown player code or wrong secret"), std::string::npos);
  submit("/login", {{"player", "wsx"}, {"secret", "cerdic"}}, "button");
  ASSERT_EQ(path(), "/games/britain-1/me") << html().substr(0, 2000);
  EXPECT_NE(html().find("Wessex (WSX) in Dark Age Britain"), std::string::npos);

  // Signed in, Wessex still cannot open another kingdom's reports.
  go("/games/britain-1/players/MRC/reports/1");
  EXPECT_NE(html().find("A player may read only their own reports"), std::string::npos);

  // Check only, then submit, through the order form.
  go("/games/britain-1/me");
  const std::string orders =
      read_file(std::string(ADJ_SOURCE_DIR) + "/schemas/scenarios/dark-age-britain/turn1-WSX.txt");
  submit("/me/orders", {{"orders", orders}}, "button[value=check]");
  std::string page = html();
  EXPECT_NE(page.find("Checked only: nothing was stored"), std::string::npos) << page;
  EXPECT_NE(page.find("MOVE HAM OXF 4"), std::string::npos);
  go("/games/britain-1/me");
  EXPECT_NE(html().find("no orders on file for turn 1"), std::string::npos);
  submit("/me/orders", {{"orders", orders}}, "button[value=submit]");
  page = html();  // redirected to the player's page (PRG), the file on record
  EXPECT_EQ(path(), "/games/britain-1/me");
  EXPECT_NE(page.find("Your orders for turn 1 are on file (7 lines accepted, 1 rejected)"),
            std::string::npos)
      << page;  // as on the CLI
  EXPECT_NE(page.find("class=\"line-rejected\""), std::string::npos);

  // The GM signs in and runs the turn from the GM page.
  go("/gm");
  ASSERT_EQ(path(), "/gm/login");
  submit("/gm/login", {{"token", kBrowserGmToken}}, "button");
  ASSERT_EQ(path(), "/gm") << html().substr(0, 2000);
  go("/gm/games/britain-1");
  EXPECT_NE(html().find("1 of 5 players have orders in"), std::string::npos);
  submit("/run", Json::object(), "button");  // four players have no orders: confirm first
  page = html();
  EXPECT_NE(page.find("id=\"confirm-run-form\""), std::string::npos) << page.substr(0, 3000);
  submit("/run", Json::object(), "button");
  page = html();
  EXPECT_NE(page.find("Resolved turn 1"), std::string::npos) << page.substr(0, 3000);
  // PRG: reloading the page shown after the run runs nothing more.
  EXPECT_EQ(eval("location.search"), "?done=ran&turn=1");
  mark_document();
  cdp.forget_events();
  ASSERT_FALSE(cdp.call("Page.reload", Json::object(), tab).is_null()) << cdp.last_error();
  wait_new_document("reload");
  EXPECT_NE(html().find("Run turn 2 now"), std::string::npos);
  auto shown = run_cli({"--db", db_, "game", "show", "britain-1", "--json"});
  EXPECT_EQ(Json::parse(shown.out)["turn"], 2) << shown.out;

  // The player finds the new report.
  go("/games/britain-1/me");
  EXPECT_NE(html().find("href=\"/games/britain-1/me/reports/1\""), std::string::npos);
  go("/games/britain-1/me/reports/1");
  page = html();
  EXPECT_NE(page.find("Report: Dark Age Britain, turn 1"), std::string::npos)
      << page.substr(0, 3000);
  EXPECT_NE(page.find("LEVY HAM 3"), std::string::npos);
  EXPECT_NE(page.find("Battle 1.2.WSX"), std::string::npos);
  // The game page after the turn, as a screenshot.
  go("/games/britain-1");
  EXPECT_NE(html().find("Roundup of turn 1"), std::string::npos);
  const Json shot = cdp.call("Page.captureScreenshot", {{"format", "png"}}, tab);
  ASSERT_FALSE(shot.is_null()) << cdp.last_error();
  const std::string png = base64_decode(shot.value("data", ""));
  EXPECT_GT(png.size(), 10'000u);
  EXPECT_EQ(png.substr(1, 3), "PNG");
  ::adj::testing::write_file(dir_.file("turn1.png"), png);
  if (const char* keep = std::getenv("ADJ_SCREENSHOT_DIR"))
    ::adj::testing::write_file((std::filesystem::path(keep) / "web_after_turn1.png").string(), png);

  // A GM page made for turn 2, its run form sent after turn 2 ran elsewhere: nothing changes.
  go("/gm/games/britain-1");
  ASSERT_EQ(run_cli({"--db", db_, "turn", "run", "britain-1"}).exit_code, 0);
  submit("/run", Json::object(), "button");
  EXPECT_NE(html().find("Turn 2 already ran; nothing was changed."), std::string::npos)
      << html().substr(0, 3000);
  shown = run_cli({"--db", db_, "game", "show", "britain-1", "--json"});
  EXPECT_EQ(Json::parse(shown.out)["turn"], 3) << shown.out;
}

}  // namespace
}  // namespace adj
