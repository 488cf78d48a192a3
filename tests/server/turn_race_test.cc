// Order files that arrive while a turn is being resolved: a 1,000-player game is run on one
// connection while another connection (as another thread or process would) keeps submitting
// files for players without orders. Every file acknowledged as accepted must be used: by the
// turn it was accepted for, or as the current file of the turn it says it applies to.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "server/app/services.h"
#include "storage/sqlite/sqlite_store.h"
#include "tests/support/grid_world.h"
#include "tests/support/sanitized.h"
#include "tests/support/temp_dir.h"

namespace adj {
namespace {

using namespace testing::grid_world;  // the world, its sizes and codes
constexpr const char* kRaceGame = "race";
// The game's size: 1,000 players; 200 under the sanitizers, whose turn takes as long.
constexpr int kRacePlayers = ::adj::testing::kSanitized ? 200 : kPlayers;

std::string race_orders(int p) {
  const int a0 = p * kAreasEach;
  return std::string("GAME ") + kRaceGame + "\nPLAYER " + player(p) + " s\nLEVY " + area(a0) +
         " 2\nMOVE " + area(a0) + " " + area(a0 + 1) + " 2\nDEFEND " + area(a0 + 2) + "\n";
}

struct Acked {
  std::string player;
  int turn = 0;         // the turn the acknowledgement names
  std::int64_t id = 0;  // the stored submission
};

// Opens its own connection, as another process would.
struct Conn {
  std::unique_ptr<SqliteStore> store;
  std::unique_ptr<Services> svc;
  explicit Conn(const std::string& path) {
    auto s = SqliteStore::open(path);
    if (!s.ok()) ADD_FAILURE() << s.status().to_string();
    store = std::move(s).value();
    svc = std::make_unique<Services>(Stores{*store, *store, *store, *store, *store, *store},
                                     [] { return UnixTime{1'700'000'000}; });
  }
};

TEST(TurnRace, NoAcknowledgedFileIsLostWhileA1000PlayerTurnRuns) {
  ::adj::testing::TempDir dir;
  const std::string path = dir.file("race.db");
  Conn gm(path);
  ASSERT_TRUE(gm.svc->create_game(world(kRaceGame, Size{kRacePlayers}), 7).ok());
  // The second half of the players have orders in before the run starts (stored as the
  // services would store them; the run checks every file again from its text).
  for (int p = kRacePlayers / 2; p < kRacePlayers; ++p) {
    SubmissionRecord r;
    r.game = kRaceGame;
    r.player = player(p);
    r.turn = 1;
    r.source = "test";
    r.received_at = 1'700'000'000;
    r.raw_text = race_orders(p);
    r.accepted = true;
    ASSERT_TRUE(gm.store->put_submission(r).ok());
  }

  Conn mail(path);
  std::vector<Acked> acked;
  int refused_during_run = 0;
  int next = 0;
  // Players without orders are cycled through (a file replaces the player's earlier one): a file
  // is now checked in well under a millisecond, far faster than a turn runs.
  const auto submit_one = [&] {
    const int p = next++ % (kRacePlayers / 2);
    auto out = mail.svc->submit_orders(kRaceGame, race_orders(p), "test");
    if (!out.ok()) {  // refused with a reason (e.g. the turn is being resolved): nothing stored
      ++refused_during_run;
      return;
    }
    ASSERT_FALSE(out->ack.refused) << out->ack.refusal;
    ASSERT_TRUE(out->submission_id);
    acked.push_back({player(p), out->ack.turn, *out->submission_id});
  };
  submit_one();  // at least one file before the run

  std::atomic<bool> done{false};
  Result<TurnRunOutcome> run = Status::Internal("not run");
  std::thread runner([&] {
    run = gm.svc->run_turn(kRaceGame, false);
    done = true;
  });
  while (!done) {
    submit_one();
    // Leaves the write lock free most of the time, as files arriving from outside would.
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  runner.join();
  ASSERT_TRUE(run.ok()) << run.status().to_string();
  submit_one();  // at least one file after the run

  // Which acknowledged files were used.
  const std::set<std::string> without(run->players_without_orders.begin(),
                                      run->players_without_orders.end());
  auto current2 = gm.store->current_submissions(kRaceGame, 2);
  ASSERT_TRUE(current2.ok());
  std::map<std::string, std::int64_t> current_of;
  for (const auto& s : *current2) current_of[s.player] = s.id;
  // A player's file for turn 2 must be current unless the player sent a later one.
  std::map<std::string, std::int64_t> last_for2;
  for (const Acked& a : acked)
    if (a.turn == 2) last_for2[a.player] = a.id;
  int lost = 0, for1 = 0, for2 = 0;
  for (const Acked& a : acked) {
    if (a.turn == 1) {
      ++for1;
      if (without.count(a.player)) ++lost;
    } else {
      ++for2;
      EXPECT_EQ(a.turn, 2);
      if (last_for2[a.player] == a.id && current_of[a.player] != a.id) ++lost;
    }
  }
  std::printf(
      "turn-race: %d files sent, %d acknowledged for turn 1, %d for turn 2, %d refused "
      "with a reason; acknowledged but never used: %d\n",
      next, for1, for2, refused_during_run, lost);
  EXPECT_GE(for1, 1);
  EXPECT_GE(for2, 1);
  EXPECT_EQ(lost, 0);
}

// A submission store over a real one that resolves the open turn (through another connection)
// just before the first file is stored: the file was checked against a turn that closed while
// it arrived.
class TurnRunsBeforeTheFirstPut : public SubmissionStore {
 public:
  TurnRunsBeforeTheFirstPut(SqliteStore& real, Services& other) : real_(real), other_(other) {}
  Result<std::int64_t> put_submission(const SubmissionRecord& r) override {
    if (!ran_) {
      ran_ = true;
      auto run = other_.run_turn(r.game, false);
      if (!run.ok()) return run.status();
    }
    return real_.put_submission(r);
  }
  Result<std::vector<SubmissionRecord>> current_submissions(const std::string& game,
                                                            int turn) override {
    return real_.current_submissions(game, turn);
  }
  Result<std::optional<SubmissionRecord>> current_submission(const std::string& game, int turn,
                                                             const std::string& player) override {
    return real_.current_submission(game, turn, player);
  }
  Result<std::vector<SubmissionRecord>> all_submissions(const std::string& game) override {
    return real_.all_submissions(game);
  }

 private:
  SqliteStore& real_;
  Services& other_;
  bool ran_ = false;
};

TEST(TurnRace, AFileCheckedAgainstATurnThatClosedMeanwhileAppliesToTheNewTurnAndSaysSo) {
  ::adj::testing::TempDir dir;
  const std::string path = dir.file("moved.db");
  Conn gm(path);
  ASSERT_TRUE(gm.svc->create_game(world(kRaceGame, Size{kRacePlayers}), 7).ok());
  Conn mail(path);
  TurnRunsBeforeTheFirstPut racing(*mail.store, *gm.svc);
  Services svc(Stores{*mail.store, racing, *mail.store, *mail.store, *mail.store, *mail.store},
               [] { return UnixTime{1'700'000'000}; });

  auto out = svc.submit_orders(kRaceGame, race_orders(3), "test");
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_FALSE(out->ack.refused) << out->ack.refusal;
  EXPECT_EQ(out->ack.turn, 2);
  EXPECT_NE(out->note.find("changed from 1 to 2"), std::string::npos) << out->note;
  EXPECT_NE(out->text().find(out->note), std::string::npos);
  auto current = mail.store->current_submissions(kRaceGame, 2);
  ASSERT_TRUE(current.ok());
  ASSERT_EQ(current->size(), 1u);
  EXPECT_EQ(current->front().id, out->submission_id.value());
  auto stale = mail.store->current_submissions(kRaceGame, 1);
  ASSERT_TRUE(stale.ok());
  EXPECT_TRUE(stale->empty());  // nothing was stored for the closed turn
}

}  // namespace
}  // namespace adj
