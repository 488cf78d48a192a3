// The closing test: a three-player game from sign-up through a takeover to a victory,
// with press, played in headless Chromium against a running `adjutant serve` (free HTTP and SMTP
// ports, a 1-second scheduler tick, outgoing mail into a Maildir). The scenario is
// tests/server/browser_game.py (a real browser through tests/support/cdp.py, four people and the
// GM each in their own browser context, the mail they receive read from the Maildir); it prints
// one JSON object with a status per step, which this test asserts on.
//
// Steps whose routes or forms are not built yet are "unavailable" and the steps that need them
// "skipped". By default every step must pass (strict); with ADJ_E2E_STRICT=0 the steps of the
// base list must pass and no step may fail.
//
// Issue 13's steps ride along: every page kind at phone (390x844) and desktop (1280x900) widths
// with no sideways scrolling at 390 px (tests/server/browser_layout.py), the order builder and
// local times. Screenshots go to ADJ_SCREENSHOT_DIR, by default <build dir>/screenshots:
// e2e_<step>.png and layout_<page>_<phone|desktop>.png.
//
// Skipped, with the reason, when Chromium, python3-websocket or `serve` is missing.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/cli_runner.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

namespace adj {
namespace {

using Json = nlohmann::json;
using ::adj::testing::free_port;
using ::adj::testing::read_file;
using ::adj::testing::run_shell;
using ::adj::testing::shell_quote;

constexpr const char* kGameBrowserChromium = "/usr/bin/chromium";
constexpr const char* kPython = "/usr/bin/python3";  // Debian's, with python3-websocket
constexpr const char* kGameBrowserGmToken = "e2e-browser-gm-token";
const std::string kSrc = ADJ_SOURCE_DIR;

// The steps that work before issue 11's features are merged: they must pass in every mode.
const std::vector<std::string> kWorkingToday = {
    "gm signs in",
    "gm creates the game on the web",
    "players sign in with their link",
    "turn 1: everyone submits orders on the web",
    "turn 1: gm runs the turn",
    "players read their turn 1 reports",
    "turn 2: westmark sends no orders",
    "turn 2: gm runs the turn",
    "turn 3: westmark misses again",
    "turn 3: gm runs the turn",
    "turn 4: the remaining players submit orders",
    "turn 4: gm runs the last turn",
};

// Strict (every step must pass) unless ADJ_E2E_STRICT=0, which allows steps whose routes are
// missing (for running the scenario against an older server).
bool strict_mode() {
  const char* v = std::getenv("ADJ_E2E_STRICT");
  return !(v && std::string(v) == "0");
}

// Starts argv in its own process group, stdout to `out` and stderr to `err`; its pid.
pid_t game_browser_spawn(const std::vector<std::string>& args, const std::string& out,
                         const std::string& err,
                         const std::vector<std::pair<std::string, std::string>>& env = {}) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    const int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    const int null = ::open("/dev/null", O_RDONLY);
    ::dup2(null, 0);
    ::dup2(o, 1);
    ::dup2(e, 2);
    for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    std::_Exit(127);
  }
  return pid;
}

// Waits up to `seconds` for `pid`. On timeout: SIGTERM to its process group (the scenario then
// closes its browser), SIGKILL after 15 s more. The exit code, or -1.
int game_browser_wait_for(pid_t pid, int seconds) {
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  bool termed = false;
  int status = 0;
  while (true) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) return !termed && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (done < 0) return -1;
    if (std::chrono::steady_clock::now() > until) {
      if (termed) {
        ::kill(-pid, SIGKILL);
        ::waitpid(pid, &status, 0);
        return -1;
      }
      ::kill(-pid, SIGTERM);
      termed = true;
      until = std::chrono::steady_clock::now() + std::chrono::seconds(15);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

// How many running processes have `needle` in their command line.
int processes_naming(const std::string& needle) {
  int n = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string pid = e.path().filename().string();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmd = read_file((e.path() / "cmdline").string());
    std::replace(cmd.begin(), cmd.end(), '\0', ' ');
    if (cmd.find(needle) == std::string::npos) continue;
    // A zombie's command line is empty, so a match is a live process; count it.
    ++n;
  }
  return n;
}

class WebGameBrowser : public ::testing::Test {
 protected:
  void TearDown() override {
    if (server_ > 0) {
      ::kill(server_, SIGTERM);
      if (game_browser_wait_for(server_, 15) < 0)
        ADD_FAILURE() << "the server did not stop on SIGTERM";
    }
  }

  // Why the test cannot run here, or "".
  static std::string missing_tool() {
    if (::access(kGameBrowserChromium, X_OK) != 0)
      return "no " + std::string(kGameBrowserChromium) + " (chromium)";
    if (::access(kPython, X_OK) != 0) return "no " + std::string(kPython) + " (python3)";
    if (run_shell(std::string(kPython) + " -c 'import websocket; print(1)' 2>/dev/null") != "1\n")
      return "no python3-websocket (scripts/install-deps.sh --test)";
    if (::adj::testing::run_cli({"serve", "--help"}).exit_code != 0)
      return "this adjutant binary has no `serve` command";
    return "";
  }

  // `adjutant serve` on free loopback ports with its outbox in dir_/outbox; false when it does
  // not answer /healthz.
  bool start_server() {
    const int http = free_port(), smtp = free_port();
    if (http <= 0 || smtp <= 0 || http == smtp) return false;
    base_ = "http://127.0.0.1:" + std::to_string(http);
    outbox_ = dir_.file("outbox");
    server_ = game_browser_spawn(
        {ADJ_BINARY, "--db", dir_.file("game.db"), "serve", "--http",
         "127.0.0.1:" + std::to_string(http), "--smtp", "127.0.0.1:" + std::to_string(smtp),
         "--tick", "1", "--outbox", outbox_, "--mail-from", "adjutant@marches.example",
         "--http-stale-wait", "600000"},
        dir_.file("serve.out"), dir_.file("serve.log"),
        {{"ADJUTANT_GM_TOKEN", kGameBrowserGmToken}});
    for (int i = 0; i < 300; ++i) {
      const std::string health =
          run_shell("curl -s -m 2 " + shell_quote(base_ + "/healthz") + " 2>/dev/null");
      if (health.find("ok") != std::string::npos) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }

  ::adj::testing::TempDir dir_;
  pid_t server_ = -1;
  std::string base_, outbox_;
};

TEST_F(WebGameBrowser, ThreePlayersFromSignUpThroughTakeoverToVictory) {
  if (const std::string why = missing_tool(); !why.empty()) GTEST_SKIP() << why;
  ASSERT_TRUE(start_server()) << "the server did not answer /healthz:\n"
                              << read_file(dir_.file("serve.log"));

  std::string shots = (std::filesystem::path(ADJ_BINARY).parent_path() / "screenshots").string();
  if (const char* keep = std::getenv("ADJ_SCREENSHOT_DIR"); keep && *keep) shots = keep;
  std::error_code made;
  std::filesystem::create_directories(shots, made);
  ASSERT_FALSE(made) << shots << ": " << made.message();
  // Screenshots of an earlier run must not pass for this one's.
  for (const auto& e : std::filesystem::directory_iterator(shots, made))
    if (e.path().extension() == ".png" && (e.path().filename().string().rfind("layout_", 0) == 0 ||
                                           e.path().filename().string().rfind("e2e_", 0) == 0))
      std::filesystem::remove(e.path(), made);
  const std::string out = dir_.file("scenario.json"), err = dir_.file("scenario.log");
  const std::string profile = dir_.file("chromium-profile");
  const pid_t py = game_browser_spawn(
      {kPython, "-B", kSrc + "/tests/server/browser_game.py", "--base", base_, "--gm-token",
       kGameBrowserGmToken, "--outbox", outbox_, "--scenario",
       kSrc + "/tests/data/e2e/three-kingdoms.json", "--shots", shots, "--profile", profile},
      out, err, {{"ADJ_E2E_STRICT", strict_mode() ? "1" : "0"}});
  ASSERT_GT(py, 0);
  // A deadline against a hang, not a speed check: the scenario takes ~80 s alone on a fast
  // machine and over 300 s on a slow 2-core one beside the sanitizer build and ctest -j8; this
  // leaves ctest's 600 s TIMEOUT the room to see the scenario's own account of a stop.
  const int code = game_browser_wait_for(py, 540);
  const std::string log = read_file(err);
  std::cout << log;  // the step table, as the scenario went

  const Json result = Json::parse(read_file(out), nullptr, false);
  ASSERT_TRUE(result.is_object() && result.contains("steps"))
      << "the scenario printed no result (exit " << code << "):\n"
      << log << "\nserver log:\n"
      << read_file(dir_.file("serve.log"));
  EXPECT_EQ(result.value("strict", false), strict_mode());

  std::set<std::string> passed;
  std::string failures;
  for (const auto& s : result["steps"]) {
    const std::string name = s.value("name", ""), status = s.value("status", "");
    if (status == "passed") passed.insert(name);
    if (status == "failed") failures += "\n  " + name + ": " + s.value("detail", "");
  }
  if (!failures.empty()) {
    const std::string server_log = read_file(dir_.file("serve.log"));
    ADD_FAILURE() << "failed steps:" << failures << "\nserver log (tail):\n"
                  << server_log.substr(server_log.size() > 4000 ? server_log.size() - 4000 : 0);
  }
  for (const auto& name : kWorkingToday) EXPECT_TRUE(passed.count(name)) << "step " << name;
  EXPECT_EQ(code, failures.empty() ? 0 : 1);
  if (strict_mode()) {
    EXPECT_EQ(result.value("unavailable", -1), 0);
    EXPECT_EQ(result.value("skipped", -1), 0);
    EXPECT_EQ(passed.size(), result["steps"].size());
  }
  RecordProperty("steps_passed", static_cast<int>(passed.size()));
  RecordProperty("steps_total", static_cast<int>(result["steps"].size()));
  std::cout << "[e2e] " << passed.size() << " of " << result["steps"].size()
            << " steps passed; unavailable " << result.value("unavailable", 0) << ", skipped "
            << result.value("skipped", 0) << ", failed " << result.value("failed", 0) << " in "
            << result.value("seconds", 0.0) << " s" << (strict_mode() ? " (strict)" : "")
            << std::endl;
  // No Chromium process outlives the scenario (each one names its profile on its command line).
  EXPECT_EQ(processes_naming(profile), 0) << "Chromium processes left behind";
  // The screenshots the scenario took are real PNGs.
  std::error_code ec;
  EXPECT_GT(std::filesystem::file_size(std::filesystem::path(shots) / "e2e_player_page.png", ec),
            10'000u)
      << ec.message();
  // Every page kind at both widths (issue 13), among them the pages only a POST shows.
  for (const char* page :
       {"index",        "join",           "gm_login",    "game",           "login",
        "player_page",  "report",         "press_inbox", "press_public",   "archive",
        "archive_turn", "audit",          "gm_desk",     "gm_game",        "gm_preview",
        "gm_turn",      "gm_confirm_run", "gm_orders",   "gm_press",       "outbox",
        "gm_mail",      "standby",        "takeover",    "standings",      "finished_games",
        "own_files",    "error_404",      "me_link",     "gm_credentials", "outbox_message"})
    for (const char* width : {"phone", "desktop"}) {
      const auto png =
          std::filesystem::path(shots) / (std::string("layout_") + page + "_" + width + ".png");
      EXPECT_GT(std::filesystem::file_size(png, ec), 2'000u) << png << ": " << ec.message();
    }
}

}  // namespace
}  // namespace adj
