// End-to-end tests of the `adjutant` binary: real process, real SQLite file, the README's
// commands. Each test gets its own database in a temporary directory.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include <nlohmann/json.hpp>

#include "rules/orders/parser.h"
#include "storage/sqlite/sqlite_store.h"
#include "tests/support/cli_runner.h"
#include "tests/support/temp_dir.h"

namespace adj {
namespace {

using Json = nlohmann::json;
using ::adj::testing::read_file;
using ::adj::testing::run_cli;
using ::adj::testing::write_file;

const std::string kCliOrders = std::string(ADJ_SOURCE_DIR) + "/schemas/scenarios/dark-age-britain/";

class Cli : public ::testing::Test {
 protected:
  ::adj::testing::CliResult cli(std::vector<std::string> args, const std::string& input = "") {
    args.insert(args.begin(), {"--db", db_});
    return run_cli(args, input);
  }
  // Seed 138 gives turn 1 the order of play the golden reports were written with.
  void create() {
    auto r = cli({"game", "create", "bundled:dark-age-britain", "--demo-secrets", "--seed", "138"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  std::string orders(int turn, const std::string& player) {
    return read_file(kCliOrders + "turn" + std::to_string(turn) + "-" + player + ".txt");
  }
  void submit_all(int turn) {
    for (const char* p : {"WSX", "MRC", "NUM", "EAN", "GWN"}) {
      auto r = cli({"orders", "submit", "britain-1", "-"}, orders(turn, p));
      ASSERT_EQ(r.exit_code, 0) << p << "\n" << r.out << r.err;
    }
  }
  std::unique_ptr<SqliteStore> store() {
    auto s = SqliteStore::open(db_);
    EXPECT_TRUE(s.ok());
    return std::move(s).value();
  }

  ::adj::testing::TempDir dir_;
  std::string db_ = dir_.file("test.db");
};

TEST_F(Cli, EveryCommandHasHelp) {
  for (std::vector<std::string> cmd : {std::vector<std::string>{},
                                       {"game"},
                                       {"game", "create"},
                                       {"game", "list"},
                                       {"game", "show"},
                                       {"orders", "submit"},
                                       {"orders", "check"},
                                       {"turn", "run"},
                                       {"turn", "rollback"},
                                       {"report"},
                                       {"battle"},
                                       {"demo"},
                                       {"engines"},
                                       {"backup"}}) {
    cmd.push_back("--help");
    auto r = run_cli(cmd);
    EXPECT_EQ(r.exit_code, 0) << cmd[0];
    EXPECT_NE(r.out.find("Usage"), std::string::npos) << cmd[0] << r.out;
  }
}

TEST_F(Cli, DatabaseFromFlagOrEnvironment) {
  auto r = run_cli({"game", "create", "bundled:dark-age-britain", "--demo-secrets"}, "", db_);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(cli({"game", "list"}).out.find("britain-1"), std::string::npos);
  // --db after the subcommand works too, and wins over the environment.
  const std::string other = dir_.file("other.db");
  auto list = run_cli({"game", "list", "--db", other}, "", db_);
  EXPECT_NE(list.out.find("No games in " + other), std::string::npos) << list.out;
}

TEST_F(Cli, BadArgumentsExitOne) {
  EXPECT_EQ(run_cli({"no-such-command"}).exit_code, 1);
  EXPECT_EQ(cli({"turn", "rollback", "x", "notanumber"}).exit_code, 1);
  auto r = cli({"game", "show", "nope"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("nope"), std::string::npos) << r.err;
}

TEST_F(Cli, CreateListShow) {
  create();
  auto list = cli({"game", "list"});
  EXPECT_EQ(list.exit_code, 0);
  EXPECT_NE(list.out.find("britain-1"), std::string::npos);
  auto show = cli({"game", "show", "britain-1", "--json"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  Json j = Json::parse(show.out);
  EXPECT_EQ(j["game"], "britain-1");
  EXPECT_EQ(j["turn"], 1);
  ASSERT_EQ(j["players"].size(), 5u);
  EXPECT_FALSE(j["players"][0].contains("secret"));
  for (const char* k :
       {"code", "owner", "armies", "population", "fort", "mode", "retreat_to", "ambush_against"})
    EXPECT_TRUE(j["areas"][0].contains(k)) << k;
  EXPECT_EQ(cli({"game", "create", "bundled:dark-age-britain", "--demo-secrets"}).exit_code,
            1);  // id taken
}

TEST_F(Cli, BadScenarioNamesThePathAndWritesNothing) {
  Json s = Json::parse(
      read_file(std::string(ADJ_SOURCE_DIR) + "/schemas/scenarios/dark-age-britain.json"));
  s["areas"][3]["owner"] = "XXX";
  s["areas"][5]["population"] = -1;
  write_file(dir_.file("bad.json"), s.dump());
  auto r = cli({"game", "create", dir_.file("bad.json")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("/areas/5/population"), std::string::npos) << r.err;
  s["areas"][5]["population"] = 1;
  write_file(dir_.file("bad.json"), s.dump());
  r = cli({"game", "create", dir_.file("bad.json")});
  EXPECT_NE(r.err.find("/areas/3/owner: unknown player XXX"), std::string::npos) << r.err;
  write_file(dir_.file("notjson.json"), "{\"id\": ");
  r = cli({"game", "create", dir_.file("notjson.json")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("not valid JSON"), std::string::npos) << r.err;
  EXPECT_NE(cli({"game", "list"}).out.find("No games"), std::string::npos);
}

TEST_F(Cli, CheckStoresNothingAndSubmitStores) {
  create();
  auto check = cli({"orders", "check", "britain-1", "-", "--json"}, orders(1, "MRC"));
  ASSERT_EQ(check.exit_code, 0) << check.err;
  Json ack = Json::parse(check.out);
  EXPECT_FALSE(ack["refused"].get<bool>());
  EXPECT_TRUE(store()->all_submissions("britain-1")->empty());
  auto submit = cli({"orders", "submit", "britain-1", "-"}, orders(1, "MRC"));
  ASSERT_EQ(submit.exit_code, 0);
  EXPECT_NE(submit.out.find("5 accepted, 0 rejected"), std::string::npos) << submit.out;
  auto subs = store()->current_submissions("britain-1", 1);
  ASSERT_EQ(subs->size(), 1u);
  EXPECT_EQ((*subs)[0].player, "MRC");
  EXPECT_EQ((*subs)[0].raw_text, mask_player_secret(orders(1, "MRC")));  // secret masked
}

TEST_F(Cli, RefusedFileExitsTwoAndNeverEchoesTheSecret) {
  create();
  ASSERT_EQ(cli({"orders", "submit", "britain-1", "-"}, orders(1, "MRC")).exit_code, 0);
  std::string wrong = "GAME britain-1\nPLAYER MRC hunter2\nMOVE LES LIN 1\n";
  auto r = cli({"orders", "submit", "britain-1", "-"}, wrong);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out.find("hunter2"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("penda"), std::string::npos) << r.out;
  // The earlier accepted file is still the one on file; the refused one is kept for audit only.
  auto subs = store()->current_submissions("britain-1", 1);
  ASSERT_EQ(subs->size(), 1u);
  EXPECT_EQ((*subs)[0].raw_text, mask_player_secret(orders(1, "MRC")));  // secret masked
  EXPECT_EQ(store()->all_submissions("britain-1")->size(), 2u);
}

TEST_F(Cli, NoiseAndHugeFilesLoseNothing) {
  create();
  ASSERT_EQ(cli({"orders", "submit", "britain-1", "-"}, orders(1, "WSX")).exit_code, 0);
  std::mt19937 gen(7);
  std::string noise;
  for (int i = 0; i < 20000; ++i) noise.push_back(static_cast<char>(gen() & 0xff));
  auto r = cli({"orders", "submit", "britain-1", "-"}, noise);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  std::string huge = "GAME britain-1\nPLAYER WSX cerdic\n";
  while (huge.size() < 2u * 1024 * 1024) huge += "MOVE HAM OXF 1\n";
  r = cli({"orders", "submit", "britain-1", "-"}, huge);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("limit"), std::string::npos) << r.out.substr(0, 500);
  auto subs = store()->current_submissions("britain-1", 1);
  ASSERT_EQ(subs->size(), 1u);
  EXPECT_EQ((*subs)[0].raw_text, mask_player_secret(orders(1, "WSX")));
}

TEST_F(Cli, GiftsShowInBothKingdomsReports) {
  create();
  auto sent = cli({"orders", "submit", "britain-1", "-"},
                  "GAME britain-1\nPLAYER WSX cerdic\n1. GIFT MRC 5\n2. gift mrc 3\n");
  ASSERT_EQ(sent.exit_code, 0) << sent.out << sent.err;
  EXPECT_NE(sent.out.find("2 accepted, 0 rejected"), std::string::npos) << sent.out;
  ASSERT_EQ(cli({"turn", "run", "britain-1"}).exit_code, 0);
  const std::string wsx = cli({"report", "britain-1", "WSX"}).out;
  EXPECT_NE(wsx.find("gave 5 BPs to Mercia (MRC)"), std::string::npos) << wsx;
  EXPECT_NE(wsx.find("Gifts: gave 8 BPs (counted in spent)"), std::string::npos) << wsx;
  const std::string mrc = cli({"report", "britain-1", "MRC"}).out;
  EXPECT_NE(mrc.find("Gifts: received 8 BPs: 5 from WSX at action 1, 3 from WSX at action 2"),
            std::string::npos)
      << mrc;
  const Json j = Json::parse(cli({"report", "britain-1", "MRC", "--format", "json"}).out);
  EXPECT_EQ(j["economy"]["gifts_in"], 8);
  EXPECT_EQ(j["economy"]["gifts_received"].size(), 2u);
  // A kingdom that neither gave nor received has no gift fields at all.
  const Json num = Json::parse(cli({"report", "britain-1", "NUM", "--format", "json"}).out);
  EXPECT_FALSE(num["economy"].contains("gifts_in"));
}

TEST_F(Cli, BackupWritesAUsableCopyOnce) {
  create();
  const std::string copy = dir_.file("copy.db");
  auto r = cli({"backup", copy});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("integrity ok"), std::string::npos) << r.out;
  auto list = run_cli({"--db", copy, "game", "list"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find("britain-1"), std::string::npos) << list.out;
  auto again = cli({"backup", copy});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_NE(again.err.find("already exists"), std::string::npos) << again.err;
}

TEST_F(Cli, PreviewCommitsNothing) {
  create();
  submit_all(1);
  auto r = cli({"turn", "run", "britain-1", "--preview"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Previewed turn 1"), std::string::npos);
  EXPECT_NE(r.out.find("ADJUTANT REPORT"), std::string::npos);
  EXPECT_EQ(Json::parse(cli({"game", "show", "britain-1", "--json"}).out)["turn"], 1);
  EXPECT_EQ(cli({"report", "britain-1", "WSX"}).exit_code, 1);  // no reports yet
}

// `turn run --turn N` runs only when N is the open turn, as the API's expected turn: a command
// repeated from the shell's history never runs the turn after.
TEST_F(Cli, TurnRunWithATurnRunsOnlyThatOpenTurn) {
  create();
  submit_all(1);
  auto stale = cli({"turn", "run", "britain-1", "--turn", "2"});
  EXPECT_NE(stale.exit_code, 0);
  EXPECT_NE((stale.out + stale.err).find("turn 1"), std::string::npos) << stale.out << stale.err;
  EXPECT_EQ(Json::parse(cli({"game", "show", "britain-1", "--json"}).out)["turn"], 1);
  auto ran = cli({"turn", "run", "britain-1", "--turn", "1"});
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  EXPECT_EQ(Json::parse(cli({"game", "show", "britain-1", "--json"}).out)["turn"], 2);
  auto again = cli({"turn", "run", "britain-1", "--turn", "1"});  // the same command again
  EXPECT_NE(again.exit_code, 0);
  EXPECT_EQ(Json::parse(cli({"game", "show", "britain-1", "--json"}).out)["turn"], 2);
}

TEST_F(Cli, RollbackAndRerunReproducesEveryReportByteForByte) {
  create();
  submit_all(1);
  ASSERT_EQ(cli({"turn", "run", "britain-1"}).exit_code, 0);
  submit_all(2);
  ASSERT_EQ(cli({"turn", "run", "britain-1"}).exit_code, 0);
  std::map<std::string, std::string> before;
  for (int t : {1, 2})
    for (const char* p : {"WSX", "MRC", "NUM", "EAN", "GWN"})
      for (const char* f : {"text", "json"}) {
        auto r = cli({"report", "britain-1", p, "--turn", std::to_string(t), "--format", f});
        ASSERT_EQ(r.exit_code, 0) << r.err;
        before[std::to_string(t) + p + f] = r.out;
      }
  ASSERT_EQ(cli({"turn", "rollback", "britain-1", "1"}).exit_code, 0);
  EXPECT_EQ(Json::parse(cli({"game", "show", "britain-1", "--json"}).out)["turn"], 1);
  EXPECT_EQ(cli({"report", "britain-1", "WSX", "--turn", "2"}).exit_code, 1);
  ASSERT_EQ(cli({"turn", "run", "britain-1"}).exit_code, 0);
  ASSERT_EQ(cli({"turn", "run", "britain-1"}).exit_code, 0);  // turn 2's orders were kept
  for (int t : {1, 2})
    for (const char* p : {"WSX", "MRC", "NUM", "EAN", "GWN"})
      for (const char* f : {"text", "json"}) {
        auto r = cli({"report", "britain-1", p, "--turn", std::to_string(t), "--format", f});
        EXPECT_EQ(r.out, before[std::to_string(t) + p + f]) << "turn " << t << " " << p << " " << f;
      }
}

// Issue 12: the compact form used to hide that TGT had no neighbour (every CRT DR eliminated) and
// no river; it now takes both and says what it assumed when they are left out.
TEST_F(Cli, BattleCalculatorCompactCrtRiverRetreatsAndAssumptions) {
  Json battle = {{"kind", "move"},
                 {"engine", "crt"},
                 {"attacker", {{"armies", 14}}},
                 {"defender", {{"armies", 3}}}};
  auto plain = cli({"battle", "--trials", "600", "-"}, battle.dump());
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  Json p = Json::parse(plain.out);
  EXPECT_EQ(p["attacker_win_probability"], 1.0);  // 11 → ">=10": DR or DR2, and nowhere to go
  ASSERT_EQ(p["assumptions"].size(), 3u);
  EXPECT_NE(p["assumptions"][1].get<std::string>().find("a defender that must retreat"),
            std::string::npos);
  battle["attacker"]["river"] = true;
  battle["defender"]["retreat"] = {"R1", "R2"};
  battle["attacker"]["retreat"] = {"H1"};
  auto river = cli({"battle", "--trials", "600", "-"}, battle.dump());
  ASSERT_EQ(river.exit_code, 0) << river.err;
  Json r = Json::parse(river.out);
  EXPECT_FALSE(r.contains("assumptions"));
  // Across the river ">=10" becomes "4-5": DR2 1, DR 2-4, NR 5, AR 6: the attacker takes TGT on
  // 4 faces of 6 and the defender survives its retreats.
  EXPECT_NEAR(r["attacker_win_probability"].get<double>(), 4.0 / 6, 0.07);
  EXPECT_LT(r["defender_losses"]["mean"].get<double>(), 0.01);
}

TEST_F(Cli, BattleCalculatorAndReplay) {
  Json battle = {{"kind", "assault"},
                 {"attacker", {{"armies", 8}}},
                 {"defender", {{"armies", 6}, {"population", 2}}}};
  auto r = cli({"battle", "--engine", "dark-age", "-"}, battle.dump());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Json out = Json::parse(r.out);
  EXPECT_TRUE(out["attacker_wins"].get<bool>());
  EXPECT_EQ(out["rounds"].size(), 4u);
  auto trials = cli({"battle", "--engine", "dark-age", "--trials", "50", "-"}, battle.dump());
  ASSERT_EQ(trials.exit_code, 0) << trials.err;
  EXPECT_EQ(Json::parse(trials.out)["attacker_win_probability"], 1.0);
  auto bad = cli({"battle", "-"}, R"({"kind": "charge", "attacker": {"armies": 1}})");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("/kind"), std::string::npos) << bad.err;

  create();
  submit_all(1);
  ASSERT_EQ(cli({"turn", "run", "britain-1"}).exit_code, 0);
  auto rep =
      Json::parse(cli({"report", "britain-1", "EAN", "--turn", "1", "--format", "json"}).out);
  std::string id;
  for (const auto& a : rep["actions"])
    if (a.contains("battle")) id = a["battle"]["id"];
  ASSERT_FALSE(id.empty());
  auto replay = cli({"battle", "--replay", "britain-1", "1", id});
  EXPECT_EQ(replay.exit_code, 0) << replay.out << replay.err;
  EXPECT_NE(replay.out.find("Replay matches"), std::string::npos);
  EXPECT_EQ(cli({"battle", "--replay", "britain-1", "1", "9.9.XXX"}).exit_code, 1);
}

TEST_F(Cli, BundledGamesGetFreshSecretsAndTheGmResetsThem) {
  auto r = cli({"game", "create", "bundled:dark-age-britain"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("cerdic"), std::string::npos);
  const std::size_t at = r.out.find("  WSX    ");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string secret = r.out.substr(at + 9, 14);
  auto with = [&](const std::string& s) {
    std::string text = orders(1, "WSX");
    text.replace(text.find("cerdic"), 6, s);
    return cli({"orders", "check", "britain-1", "-"}, text).exit_code;
  };
  EXPECT_EQ(with(secret), 0);
  EXPECT_EQ(with("cerdic"), 2);  // the README's secret does not open the game

  auto reset = cli({"player", "reset", "britain-1", "wsx", "--what", "secret"});
  ASSERT_EQ(reset.exit_code, 0) << reset.err;
  const std::size_t colon = reset.out.rfind(": ");
  ASSERT_NE(colon, std::string::npos) << reset.out;
  const std::string fresh = reset.out.substr(colon + 2, 14);
  EXPECT_EQ(with(fresh), 0);
  EXPECT_EQ(with(secret), 2);
  EXPECT_EQ(cli({"player", "reset", "britain-1", "XXX"}).exit_code, 1);
  // Nothing in clear in the database.
  const std::string raw = read_file(db_) + read_file(db_ + "-wal");
  EXPECT_EQ(raw.find(fresh), std::string::npos);
}

TEST_F(Cli, DemoPlaysTwoTurnsAndSaysWhereTheDatabaseIs) {
  auto r = cli({"demo"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Turn 1 resolved"), std::string::npos);
  EXPECT_NE(r.out.find("Turn 2 resolved"), std::string::npos);
  EXPECT_NE(r.out.find("Database: " + db_), std::string::npos);
  auto again = cli({"demo", "--turns", "1"});  // a second run uses a fresh game id
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("britain-1-demo-2"), std::string::npos);
}

// Golden multi-turn replay of the bundled scenario: every report of two turns, byte for byte.
// Regenerate with ADJ_UPDATE_GOLDEN=1 after a deliberate rules change, and review the diff.
TEST_F(Cli, GoldenReportsOfTheBundledScenario) {
  create();
  const std::string golden = std::string(ADJ_SOURCE_DIR) + "/tests/data/golden/dark-age-britain/";
  const bool update = std::getenv("ADJ_UPDATE_GOLDEN") != nullptr;
  if (update) std::filesystem::create_directories(golden);
  for (int t : {1, 2}) {
    submit_all(t);
    ASSERT_EQ(cli({"turn", "run", "britain-1"}).exit_code, 0);
    for (const char* p : {"WSX", "MRC", "NUM", "EAN", "GWN"}) {
      const std::string got = cli({"report", "britain-1", p, "--turn", std::to_string(t)}).out;
      const std::string path = golden + "turn" + std::to_string(t) + "-" + p + ".txt";
      if (update) write_file(path, got);
      EXPECT_EQ(got, read_file(path)) << path;
    }
  }
}

// Dark Age RAID (docs/rules/dark-age.md §1.8) through the CLI: both reports show it; it is not
// replayable. GLS (Mercia) Arm 2, Pop 2, Def 4: the 2 raiders lose 1, the defenders 1; 1 raider
// goes home.
TEST_F(Cli, RaidShowsInBothReportsAndIsNotReplayed) {
  create();
  auto sent = cli({"orders", "submit", "britain-1", "-"},
                  "GAME britain-1\nPLAYER WSX cerdic\n1. RAID WIL GLS 2\n");
  ASSERT_EQ(sent.exit_code, 0) << sent.out << sent.err;
  ASSERT_EQ(cli({"turn", "run", "britain-1"}).exit_code, 0);
  const std::string wsx = cli({"report", "britain-1", "WSX"}).out;
  EXPECT_NE(wsx.find("raided GLS: lost 1 army, the defenders lost 1 army; 1 army went back to WIL"),
            std::string::npos)
      << wsx;
  const std::string mrc = cli({"report", "britain-1", "MRC"}).out;
  EXPECT_NE(mrc.find("Battle at Gloucestershire (Wiltshire -> Gloucestershire): raid by WSX"),
            std::string::npos)
      << mrc;
  auto replay = cli({"battle", "--replay", "britain-1", "1", "1.1.WSX"});
  EXPECT_EQ(replay.exit_code, 1);
  EXPECT_NE((replay.out + replay.err).find("nothing to replay"), std::string::npos)
      << replay.out << replay.err;
}

}  // namespace
}  // namespace adj
