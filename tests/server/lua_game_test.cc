// A game whose combat engine is a Lua script (issue 15, host side), end to end through the real
// binary: the scenario brings the script (script_file next to it), version 1 is stored; turns
// run on it, a rollback and rerun give every report byte for byte, --replay uses the logged
// version; `adjutant engines check` and uploads run the conformance suite; a script that breaks
// its instruction limit fails the turn run with the battle, version and message, commits
// nothing, and a running `adjutant serve` keeps answering and shows the GM why.
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "rules/game/scenario.h"
#include "server/app/engine_catalog.h"
#include "tests/server/web_test_util.h"
#include "tests/support/cli_runner.h"
#include "tests/support/process.h"
#include "tests/support/serve_process.h"
#include "tests/support/temp_dir.h"

namespace adj {
namespace {

using ::adj::testing::read_file;
using ::adj::testing::run_cli;
using ::adj::testing::write_file;
using Json = nlohmann::json;
using namespace std::chrono_literals;

const std::string kSource = ADJ_SOURCE_DIR;
const std::string kLuaOrders = kSource + "/schemas/scenarios/dark-age-britain/";
const char* const kLuaPlayers[] = {"WSX", "MRC", "NUM", "EAN", "GWN"};

std::string dark_age_lua() { return read_file(kSource + "/rules/combat/scripts/dark_age.lua"); }

// dark_age.lua taking any engine options; with `trap`, a battle of a game whose options say
// {"trap": true} never ends (the conformance suite's battles have no options, so it passes).
std::string variant(bool trap) {
  std::string s = dark_age_lua();
  const std::string check = "if next_key(options) ~= nil then";
  const std::size_t at = s.find(check);
  EXPECT_NE(at, std::string::npos);
  if (at != std::string::npos) s.replace(at, check.size(), "if false then");
  if (trap) {
    const std::string head = "function resolve(battle, rng)\n";
    const std::size_t r = s.find(head);
    EXPECT_NE(r, std::string::npos);
    if (r != std::string::npos)
      s.insert(r + head.size(), "  if battle.options.trap then while true do end end\n");
  }
  return s;
}

class LuaGame : public ::testing::Test {
 protected:
  ::adj::testing::CliResult cli(std::vector<std::string> args, const std::string& input = "") {
    args.insert(args.begin(), {"--db", db_});
    return run_cli(args, input);
  }
  // The bundled Britain scenario with a Lua engine (its script in `script_file`).
  void create(const std::string& script, const Json& options = Json::object()) {
    Result<Json> doc = bundled_scenario_published("dark-age-britain");
    ASSERT_TRUE(doc.ok());
    Json scen = *doc;
    scen["engine"] = {{"name", "lua"}, {"script_file", "engine.lua"}, {"options", options}};
    write_file(dir_.file("engine.lua"), script);
    write_file(dir_.file("britain.json"), scen.dump());
    auto r = cli({"game", "create", dir_.file("britain.json")});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  }
  void submit_all(int turn) {
    for (const char* p : kLuaPlayers) {
      auto r = cli({"orders", "submit", "britain-1", "-"},
                   read_file(kLuaOrders + "turn" + std::to_string(turn) + "-" + p + ".txt"));
      ASSERT_EQ(r.exit_code, 0) << p << "\n" << r.out << r.err;
    }
  }
  std::map<std::string, std::string> reports(int turns) {
    std::map<std::string, std::string> out;
    for (int t = 1; t <= turns; ++t)
      for (const char* p : kLuaPlayers)
        for (const char* f : {"text", "json"}) {
          auto r = cli({"report", "britain-1", p, "--turn", std::to_string(t), "--format", f});
          EXPECT_EQ(r.exit_code, 0) << r.err;
          out[std::to_string(t) + p + f] = r.out;
        }
    return out;
  }
  int open_turn() { return Json::parse(cli({"game", "show", "britain-1", "--json"}).out)["turn"]; }

  ::adj::testing::TempDir dir_;
  std::string db_ = dir_.file("lua.db");
};

TEST_F(LuaGame, RollbackAndRerunAndReplayAreByteIdenticalAndMatchTheBuiltInEngine) {
  create(dark_age_lua());
  auto versions = cli({"engines", "versions", "britain-1"});
  ASSERT_EQ(versions.exit_code, 0) << versions.err;
  EXPECT_NE(versions.out.find("version 1 "), std::string::npos) << versions.out;
  EXPECT_NE(versions.out.find("by scenario"), std::string::npos) << versions.out;

  submit_all(1);
  ASSERT_EQ(cli({"turn", "run", "britain-1"}).exit_code, 0);
  submit_all(2);
  ASSERT_EQ(cli({"turn", "run", "britain-1"}).exit_code, 0);
  const auto before = reports(2);
  Json state = Json::parse(cli({"game", "show", "britain-1", "--json"}).out);
  EXPECT_EQ(state["engine"]["name"], "lua");
  EXPECT_EQ(state["engine"]["script"]["version"], 1);
  EXPECT_EQ(state["engine"]["script"]["sha256"].get<std::string>().size(), 64u);

  // A version stored while turn 3 is open is used from turn 3's run on: the rerun of turns 1
  // and 2 after the rollback keeps version 1.
  write_file(dir_.file("v2.lua"), variant(false));
  auto up = cli({"engines", "upload", "britain-1", dir_.file("v2.lua")});
  ASSERT_EQ(up.exit_code, 0) << up.out << up.err;
  versions = cli({"engines", "versions", "britain-1"});
  EXPECT_NE(versions.out.find("from turn 3"), std::string::npos) << versions.out;

  ASSERT_EQ(cli({"turn", "rollback", "britain-1", "1"}).exit_code, 0);
  EXPECT_EQ(open_turn(), 1);
  ASSERT_EQ(cli({"turn", "run", "britain-1"}).exit_code, 0);
  ASSERT_EQ(cli({"turn", "run", "britain-1"}).exit_code, 0);
  const auto after = reports(2);
  for (const auto& [key, text] : before) EXPECT_EQ(after.at(key), text) << key;
  state = Json::parse(cli({"game", "show", "britain-1", "--json"}).out);
  EXPECT_EQ(state["engine"]["script"]["version"], 1) << "the rerun kept the turns' version";
  auto third = cli({"turn", "run", "britain-1"});  // turn 3 (no orders): on version 2
  ASSERT_EQ(third.exit_code, 0) << third.out << third.err;
  state = Json::parse(cli({"game", "show", "britain-1", "--json"}).out);
  EXPECT_EQ(state["engine"]["script"]["version"], 2);

  // Every battle of turn 1 replays on the version its log names.
  Json rep =
      Json::parse(cli({"report", "britain-1", "EAN", "--turn", "1", "--format", "json"}).out);
  int replayed = 0;
  for (const auto& a : rep["actions"])
    if (a.contains("battle")) {
      auto r = cli({"battle", "--replay", "britain-1", "1", a["battle"]["id"].get<std::string>()});
      EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
      EXPECT_NE(r.out.find("Replay matches"), std::string::npos) << r.out;
      ++replayed;
    }
  EXPECT_GT(replayed, 0);

  // The Lua Dark Age declares the built-in engine's traits: the same game on the C++ engine
  // gives the same text reports, but for the engine's name in their header.
  const std::string cpp_db = dir_.file("cpp.db");
  ASSERT_EQ(run_cli({"--db", cpp_db, "game", "create", "bundled:dark-age-britain", "--demo-secrets",
                     "--seed", "1066"})
                .exit_code,
            0);
  for (int t : {1, 2}) {
    for (const char* p : kLuaPlayers)
      ASSERT_EQ(run_cli({"--db", cpp_db, "orders", "submit", "britain-1", "-"},
                        read_file(kLuaOrders + "turn" + std::to_string(t) + "-" + p + ".txt"))
                    .exit_code,
                0);
    ASSERT_EQ(run_cli({"--db", cpp_db, "turn", "run", "britain-1"}).exit_code, 0);
  }
  for (int t : {1, 2})
    for (const char* p : kLuaPlayers) {
      auto r = run_cli({"--db", cpp_db, "report", "britain-1", p, "--turn", std::to_string(t)});
      std::string lua = before.at(std::to_string(t) + p + "text");
      const std::size_t rules = lua.find("Rules: lua");  // the header names the engine
      ASSERT_NE(rules, std::string::npos) << lua;
      lua.replace(rules, 10, "Rules: dark-age");
      EXPECT_EQ(r.out, lua) << "turn " << t << " " << p;
    }
}

TEST_F(LuaGame, ChecksUploadsAndAScriptThatNeverEndsFailsTheRunWithoutCommitting) {
  auto ok = cli({"engines", "check", "example:dark_age"});
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_NE(ok.out.find("passes the conformance suite"), std::string::npos) << ok.out;
  // (A script that fails every battle by an error: one breaking its instruction limit fails the
  // same checks, each after its whole instruction budget.)
  write_file(dir_.file("loop.lua"), "function resolve(battle, rng) error('no battle today') end\n");
  auto loop = cli({"engines", "check", dir_.file("loop.lua")});
  EXPECT_EQ(loop.exit_code, 2) << loop.out << loop.err;
  EXPECT_NE(loop.out.find("FAIL"), std::string::npos) << loop.out;
  write_file(dir_.file("broken.lua"), "function resolve(battle, rng\n");
  auto broken = cli({"engines", "check", dir_.file("broken.lua")});
  EXPECT_EQ(broken.exit_code, 2);
  EXPECT_NE(broken.out.find("does not load"), std::string::npos) << broken.out;
  auto list = cli({"engines"});
  EXPECT_NE(list.out.find("lua "), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("example:dark_age"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("example:dice"), std::string::npos) << list.out;

  create(variant(true), {{"trap", true}});
  submit_all(1);
  auto run = cli({"turn", "run", "britain-1"});
  EXPECT_NE(run.exit_code, 0);
  EXPECT_NE(run.err.find("turn 1 was not run"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("battle 1."), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("script version 1"), std::string::npos) << run.err;
  EXPECT_EQ(open_turn(), 1);  // nothing committed
  EXPECT_EQ(cli({"report", "britain-1", "WSX", "--turn", "1"}).exit_code, 1);

  // An upload the conformance suite refuses is not stored; one it passes is used next run.
  auto refused = cli({"engines", "upload", "britain-1", dir_.file("loop.lua")});
  EXPECT_EQ(refused.exit_code, 2) << refused.out << refused.err;
  EXPECT_NE(refused.err.find("conformance"), std::string::npos) << refused.err;
  write_file(dir_.file("fixed.lua"), variant(false));
  auto up = cli({"engines", "upload", "britain-1", dir_.file("fixed.lua")});
  ASSERT_EQ(up.exit_code, 0) << up.out << up.err;
  EXPECT_NE(up.out.find("version 2"), std::string::npos) << up.out;
  ASSERT_EQ(cli({"turn", "run", "britain-1"}).exit_code, 0);
  EXPECT_EQ(open_turn(), 2);
  Json state = Json::parse(cli({"game", "show", "britain-1", "--json"}).out);
  EXPECT_EQ(state["engine"]["script"]["version"], 2);
}

// One script check at a time in a process: a second one meanwhile is refused at once as busy
// (the HTTP routes answer 429), and a check runs again once the first is done.
TEST(LuaCheck, OneCheckAtATimeTheOthersAreToldTheHostIsBusy) {
  // About 3 million instructions a battle: the suite's 200 million budget takes most of a second.
  const std::string slow =
      "function resolve(battle, rng) for i = 1, 3e6 do end "
      "return { attacker_losses = 0, defender_losses = 0 } end\n";
  const std::string quick = "function resolve(battle, rng) error('x') end\n";
  std::atomic<bool> done{false};
  std::thread first([&] {
    Result<ScriptCheck> c = Status::Unavailable("not run");
    do {  // until it has the slot (the quick checks below may hold it for a moment)
      c = check_script(slow);
    } while (is_script_check_busy(c.status()));
    EXPECT_TRUE(c.ok()) << c.status().to_string();
    done = true;
  });
  bool refused = false;
  while (!done && !refused) {
    auto c = check_script(quick);
    if (!c.ok()) {
      EXPECT_TRUE(is_script_check_busy(c.status())) << c.status().to_string();
      EXPECT_EQ(c.status().code(), StatusCode::kUnavailable);
      EXPECT_NE(c.status().message().find("try again"), std::string::npos);
      refused = true;
    }
    std::this_thread::sleep_for(1ms);
  }
  first.join();
  EXPECT_TRUE(refused) << "the second check was never refused while the first ran";
  auto again = check_script(quick);
  ASSERT_TRUE(again.ok()) << again.status().to_string();
  EXPECT_FALSE(again->passed);
  EXPECT_FALSE(is_script_check_busy(Status::Unavailable("turn 3 is being resolved")));
}

// `engines check -` reads at most one byte past the source bound from stdin: an endless stdin
// is refused after 256 kB, not read into memory.
TEST(LuaCheck, StdinIsReadOnlyUpToTheLimit) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    const std::string cmd = "head -c 400000000 /dev/zero | " + std::string(ADJ_BINARY) +
                            " engines check - >/dev/null 2>&1";
    ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    std::_Exit(127);
  }
  int status = 0;
  struct rusage usage {};
  ASSERT_EQ(::wait4(pid, &status, 0, &usage), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2);  // the pipeline's status: the refusal
  // 400 million bytes held would be 400 MB and more; the bounded read holds a quarter of a
  // megabyte.
  EXPECT_LT(usage.ru_maxrss, 200 * 1024) << "peak RSS " << usage.ru_maxrss << " kB";
  auto r = run_cli({"engines", "check", "-"}, std::string(300 * 1024, '-'));
  EXPECT_EQ(r.exit_code, 2);  // refused, as the README documents (1 is for a file not read)
  EXPECT_NE((r.out + r.err).find("larger than the 262144 bytes"), std::string::npos)
      << r.out << r.err;
}

// `adjutant serve` on a free port, no scheduler, no SMTP listener.
constexpr const char* kLuaGm = "lua-gm-token";
class LuaDaemon {
 public:
  LuaDaemon(const std::string& db, const std::string& log)
      : port_(::adj::testing::free_port()),
        pid_(::adj::testing::spawn_serve(db, port_, log, kLuaGm, 0)) {}
  ~LuaDaemon() {
    ::kill(pid_, SIGTERM);
    ::waitpid(pid_, nullptr, 0);
  }
  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }
  ::adj::testing::CurlAnswer curl(const std::string& method, const std::string& path,
                                  const std::string& body = "",
                                  const std::string& type = "application/json") const {
    using ::adj::testing::shell_quote;
    std::string args =
        "-X " + method + " -H " + shell_quote(std::string("Authorization: Bearer ") + kLuaGm);
    if (!body.empty())
      args += " -H " + shell_quote("Content-Type: " + type) + " --data-binary " + shell_quote(body);
    return ::adj::testing::curl(args + " " + shell_quote(url(path)));
  }
  bool wait_healthy() const { return ::adj::testing::wait_healthy(port_, 30s); }

 private:
  int port_;
  pid_t pid_ = -1;
};

TEST(LuaServe, AnEndlessScriptFailsTheRunTheDaemonKeepsServingAndTheGmSeesWhy) {
  ::adj::testing::TempDir dir;
  LuaDaemon d(dir.file("serve.db"), dir.file("serve.log"));
  ASSERT_TRUE(d.wait_healthy()) << read_file(dir.file("serve.log"));
  Json scen = Json::parse(R"({
    "id": "lua-1", "name": "Lua", "engine": {"name": "lua", "options": {"trap": true}},
    "players": [{"code": "AAA", "name": "Alba", "secret": "alpha-secret", "bp": 10},
                {"code": "BBB", "name": "Bernicia", "secret": "bravo-secret", "bp": 10}],
    "areas": [{"code": "AHM", "kind": "land", "owner": "AAA", "armies": 6, "population": 2},
              {"code": "BHM", "kind": "land", "owner": "BBB", "armies": 2, "population": 1}],
    "adjacency": [["AHM", "BHM"]]
  })");
  scen["engine"]["script"] = variant(true);
  auto r = d.curl("POST", "/api/games", Json{{"scenario", scen}, {"seed", 5}}.dump());
  ASSERT_EQ(r.status, 201) << r.body;
  r = d.curl("GET", "/api/games/lua-1/engine-script");
  ASSERT_EQ(r.status, 200) << r.body;
  Json versions = Json::parse(r.body);
  ASSERT_EQ(versions["versions"].size(), 1u) << r.body;
  EXPECT_EQ(versions["versions"][0]["version"], 1);
  EXPECT_TRUE(versions["versions"][0]["conformance"]["passed"].get<bool>()) << r.body;

  r = ::adj::testing::curl(
      "-X POST -H 'Content-Type: application/json' --data " +
      ::adj::testing::shell_quote(
          Json{{"text", "GAME lua-1\nPLAYER AAA alpha-secret\nASSAULT AHM BHM 5\n"}}.dump()) +
      " " + ::adj::testing::shell_quote(d.url("/api/games/lua-1/orders")));
  ASSERT_EQ(r.status, 200) << r.body;

  r = d.curl("POST", "/api/games/lua-1/turns/run");
  EXPECT_GE(r.status, 400) << r.body;
  EXPECT_NE(r.body.find("turn 1 was not run"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("script version 1"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("instruction"), std::string::npos) << r.body;
  EXPECT_EQ(d.curl("GET", "/healthz").status, 200);
  r = d.curl("GET", "/api/games/lua-1");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(Json::parse(r.body)["turn"], 1);  // not committed
  r = d.curl("GET", "/api/games/lua-1/audit");
  ASSERT_EQ(r.status, 200);
  bool audited = false;
  const Json log = Json::parse(r.body);
  for (const auto& e : log["entries"])
    if (e.value("action", "") == "failed" &&
        e.value("text", "").find("script version 1") != std::string::npos)
      audited = true;
  EXPECT_TRUE(audited) << r.body;

  // While one upload is being checked, another is refused at once: 429 with Retry-After.
  {
    const std::string slow =
        "function resolve(battle, rng) for i = 1, 3e6 do end "
        "return { attacker_losses = 0, defender_losses = 0 } end\n";
    std::atomic<bool> done{false};
    std::thread first([&] {
      ::adj::testing::CurlAnswer a;
      do {  // until it is the one being checked
        a = d.curl("PUT", "/api/games/lua-1/engine-script", slow, "text/plain");
      } while (a.status == 429);
      EXPECT_EQ(a.status, 422) << a.body;  // past the suite's instruction budget
      done = true;
    });
    bool busy = false;
    while (!done && !busy) {
      auto a =
          d.curl("PUT", "/api/games/lua-1/engine-script", "function resolve() end\n", "text/plain");
      if (a.status == 429) {
        busy = true;
        EXPECT_NE(a.body.find("try again"), std::string::npos) << a.body;
      } else {
        EXPECT_EQ(a.status, 422) << a.body;
      }
    }
    first.join();
    EXPECT_TRUE(busy) << "no upload was refused as busy while another was checked";
  }

  // A refused upload answers 422 with the conformance report; an accepted one is version 2.
  r = d.curl("PUT", "/api/games/lua-1/engine-script",
             "function resolve(battle, rng) error('no battle today') end\n", "text/plain");
  EXPECT_EQ(r.status, 422) << r.body;
  EXPECT_NE(r.body.find("FAIL"), std::string::npos) << r.body;
  r = d.curl("PUT", "/api/games/lua-1/engine-script", variant(false), "text/plain");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Json::parse(r.body)["stored"]["version"], 2);
  r = d.curl("POST", "/api/games/lua-1/turns/run");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Json::parse(r.body)["battles"], 1);
}

}  // namespace
}  // namespace adj
