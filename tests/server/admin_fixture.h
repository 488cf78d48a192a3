// The application over a real SQLite file in a temporary directory with a settable clock:
// AdminWorld (no game yet), BritainAdmin (the bundled "britain-1", dark-age-britain, seed 42) and
// AdminTest (GameAdmin's own tests: the game made by create(), with helpers).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rules/game/scenario.h"
#include "server/app/admin.h"
#include "storage/sqlite/database.h"
#include "storage/sqlite/sqlite_store.h"
#include "tests/support/cli_runner.h"
#include "tests/support/temp_dir.h"

namespace adj::testing {

// A fresh SQLite file with the application over it on a settable clock (`now_`), no game yet.
class AdminWorld : public ::testing::Test {
 protected:
  static constexpr UnixTime kStart = 1'700'000'000;  // 2023-11-14T22:13:20Z

  void SetUp() override {
    auto opened = SqliteStore::open(dir_.file("adjutant.db"));
    ASSERT_TRUE(opened.ok()) << opened.status().to_string();
    store_ = std::move(opened).value();
    stores_ =
        std::make_unique<Stores>(Stores{*store_, *store_, *store_, *store_, *store_, *store_});
    const Clock clock = [this] { return now_; };
    svc_ = std::make_unique<Services>(*stores_, clock);
    admin_ = std::make_unique<GameAdmin>(*svc_, *stores_, *store_, clock);
  }

  TempDir dir_;
  UnixTime now_ = kStart;
  std::unique_ptr<SqliteStore> store_;
  std::unique_ptr<Stores> stores_;
  std::unique_ptr<Services> svc_;
  std::unique_ptr<GameAdmin> admin_;
};

// AdminWorld with the bundled dark-age-britain game (seed 42).
class BritainAdmin : public AdminWorld {
 protected:
  static constexpr const char* kGame = "britain-1";
  static constexpr UnixTime kHour = 3600;
  static constexpr UnixTime kDay = 86400;

  void SetUp() override {
    AdminWorld::SetUp();
    if (HasFatalFailure()) return;
    auto scenario = bundled_scenario_published("dark-age-britain");
    ASSERT_TRUE(scenario.ok());
    ASSERT_TRUE(admin_->create_game(*scenario, 42, "gm").ok());
  }

  std::optional<UnixTime> deadline() { return store_->schedule(kGame)->deadline; }
  // The game's notices of `kind`, oldest first.
  std::vector<Notice> notices_of(const std::string& kind) {
    auto all = store_->notices(kGame);
    EXPECT_TRUE(all.ok());
    std::vector<Notice> out;
    if (all.ok())
      for (const Notice& n : *all)
        if (n.kind == kind) out.push_back(n);
    return out;
  }
  // Runs the open turn by hand.
  void run() {
    auto out = admin_->run_turn(kGame, false, "gm");
    ASSERT_TRUE(out.ok()) << out.status().to_string();
  }
};

// What AdminTest's tests share: the game, its players and the clock's days.
inline constexpr const char* kAdminGame = "britain-1";
inline constexpr UnixTime kAdminHour = 3600;
inline constexpr UnixTime kAdminDay = 86400;
// 2023-11-14T22:13:20Z (AdminWorld::kStart); that day starts at 1'699'920'000.
inline constexpr UnixTime kAdminStart = 1'700'000'000;
inline constexpr UnixTime kStartDay = 1'699'920'000;
inline constexpr const char* kAdminPlayers[] = {"WSX", "MRC", "NUM", "EAN", "GWN"};

inline std::vector<std::string> actions_of(const std::vector<AuditEntry>& log) {
  std::vector<std::string> out;
  for (const auto& e : log) out.push_back(e.action);
  return out;
}

// AdminWorld with the bundled dark-age-britain game created on demand (create()), its order files,
// the scheduler's one action and direct SQL on the file: GameAdmin's own tests (admin_test.cc,
// admin_tick_test.cc).
class AdminTest : public AdminWorld {
 protected:
  std::string db_path() const { return dir_.file("adjutant.db"); }

  void create() {
    auto scenario = bundled_scenario_published("dark-age-britain");
    ASSERT_TRUE(scenario.ok()) << scenario.status().to_string();
    auto g = admin_->create_game(*scenario, 42, "gm");
    ASSERT_TRUE(g.ok()) << g.status().to_string();
    ASSERT_EQ(g->id, kAdminGame);
  }

  // Submits the bundled order file of `player` for `turn` (1 or 2).
  void submit(int turn, const std::string& player) {
    const std::string text =
        read_file(std::string(ADJ_SOURCE_DIR) + "/schemas/scenarios/dark-age-britain/turn" +
                  std::to_string(turn) + "-" + player + ".txt");
    ASSERT_FALSE(text.empty()) << player;
    auto out = svc_->submit_orders(kAdminGame, text, "web");
    ASSERT_TRUE(out.ok()) << out.status().to_string();
    ASSERT_FALSE(out->ack.refused) << player << ": " << out->ack.refusal;
  }
  void submit_all(int turn) {
    for (const char* p : kAdminPlayers) submit(turn, p);
  }

  int open_turn() { return store_->game_summary(kAdminGame)->turn; }
  std::string status() { return store_->game_summary(kAdminGame)->status; }
  std::optional<UnixTime> deadline() { return store_->schedule(kAdminGame)->deadline; }
  std::vector<AuditEntry> log() {
    auto l = admin_->audit_log(kAdminGame);
    EXPECT_TRUE(l.ok()) << l.status().to_string();
    return l.ok() ? *l : std::vector<AuditEntry>{};
  }

  // The one action of the tick (every test has one scheduled game), or "" when none.
  TickAction tick_one() {
    std::vector<TickAction> acts = admin_->tick();
    EXPECT_LE(acts.size(), 1u);
    if (acts.empty()) return {};
    EXPECT_EQ(acts[0].game, kAdminGame);
    return acts[0];
  }

  Schedule fixed(UnixTime deadline) {
    Schedule s;
    s.kind = "fixed";
    s.deadline = deadline;
    return s;
  }
  void set_schedule_or_fail(const Schedule& s) {
    Status st = admin_->set_schedule(kAdminGame, s, "gm");
    ASSERT_TRUE(st.ok()) << st.to_string();
  }

  void exec_sql(const std::string& sql) {
    auto db = sqlite::Database::open(db_path());
    ASSERT_TRUE(db.ok());
    Status s = db->exec(sql);
    ASSERT_TRUE(s.ok()) << s.to_string();
  }
  std::string query(const std::string& sql) {
    auto db = sqlite::Database::open(db_path());
    EXPECT_TRUE(db.ok());
    auto r = db->query(sql, {});
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    return r.ok() && !r->empty() ? r->text(0, 0) : "";
  }
};

}  // namespace adj::testing
