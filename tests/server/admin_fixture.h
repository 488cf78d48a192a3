// The application over a real SQLite file in a temporary directory with a settable clock:
// AdminWorld (no game yet) and BritainAdmin (the bundled "britain-1", dark-age-britain, seed 42).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "rules/game/scenario.h"
#include "server/app/admin.h"
#include "storage/sqlite/sqlite_store.h"
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

}  // namespace adj::testing
