// The reports a committed turn stores are made by the shared-battle path on two threads
// (server/app/services.cc make_reports, rules/report/report_shared.h); a preview makes them the
// plain way (build_report, add_rejected_lines, render_report_text, one thread). Both must give
// the same bytes, for every player, in player order. The committed ones are checked as stored.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "server/app/services.h"
#include "storage/sqlite/database.h"
#include "storage/sqlite/sqlite_store.h"
#include "tests/support/grid_world.h"
#include "tests/support/sanitized.h"
#include "tests/support/temp_dir.h"

namespace adj {
namespace {

using namespace testing::grid_world;  // the world, its sizes and codes
constexpr const char* kReportsGame = "reports";

TEST(TurnReports, CommittedReportsAreByteForByteThoseOfThePlainPathOnTwoThreads) {
  ::adj::testing::TempDir dir;
  auto opened = SqliteStore::open(dir.file("reports.db"));
  ASSERT_TRUE(opened.ok()) << opened.status().to_string();
  auto store = std::move(opened).value();
  Services svc(Stores{*store, *store, *store, *store, *store, *store},
               [] { return UnixTime{1'700'000'000}; });
  // Over the two-thread threshold (64) for players and battles; 70 players under the sanitizers.
  const Size size{::adj::testing::kSanitized ? 70 : 200, 50};
  Json scenario = world(kReportsGame, size);
  // Names that need escaping and are not ASCII, shown in area rows and battle headlines.
  scenario["areas"][0]["name"] = "\xC3\x96xford \"the \\ old\"";
  scenario["areas"][1]["name"] = "Line\tbreak\x01";
  ASSERT_TRUE(svc.create_game(scenario, 7).ok());
  for (int p = 0; p < size.players; ++p) {
    if (p % 7 == 3) continue;  // some players send nothing
    SubmissionRecord r;
    r.game = kReportsGame;
    r.player = player(p);
    r.turn = 1;
    r.source = "test";
    r.received_at = 1'700'000'000;
    r.raw_text = orders_for(p, kReportsGame, size);
    if (p % 5 == 0) r.raw_text += "MOVE ZZZZ A0000 1\nLEVY\n";  // rejected: shown in the report
    r.accepted = true;
    ASSERT_TRUE(store->put_submission(r).ok());
  }

  auto preview = svc.run_turn(kReportsGame, true);
  ASSERT_TRUE(preview.ok()) << preview.status().to_string();
  auto run = svc.run_turn(kReportsGame, false);
  ASSERT_TRUE(run.ok()) << run.status().to_string();
  ASSERT_EQ(run->digest, preview->digest);
  ASSERT_GT(run->result.battles.size(), 64u);
  // A committed run hands its reports to the store as it writes them (storage/turn_writer.h).
  EXPECT_TRUE(run->reports.empty());
  ASSERT_EQ(preview->reports.size(), static_cast<std::size_t>(size.players));
  // The stored bytes, read on a connection of their own.
  auto raw_db = sqlite::Database::open(dir.file("reports.db"));
  ASSERT_TRUE(raw_db.ok()) << raw_db.status().to_string();
  auto raw = raw_db->query(
      "SELECT player, text, json FROM reports WHERE game_id = ? AND turn = 1 ORDER BY player",
      {kReportsGame});
  ASSERT_TRUE(raw.ok()) << raw.status().to_string();
  // One row per player's report, none beyond.
  ASSERT_EQ(static_cast<std::size_t>(raw->size()), preview->reports.size());
  int with_battles = 0, with_rejected = 0;
  const Result<Json> roundup = svc.turn_roundup(kReportsGame, 1);
  ASSERT_TRUE(roundup.ok()) << roundup.status().to_string();
  EXPECT_FALSE(roundup->empty());
  for (std::size_t i = 0; i < preview->reports.size(); ++i) {
    const ReportRecord& plain = preview->reports[i];
    ASSERT_EQ(plain.player, player(static_cast<int>(i)));
    const int row = static_cast<int>(i);
    ASSERT_EQ(raw->text(row, 0), plain.player);
    EXPECT_EQ(raw->text(row, 1), plain.text) << plain.player;
    EXPECT_EQ(raw->text(row, 2), plain.json.dump()) << plain.player;
    if (!plain.json["attacks_on_you"].empty()) ++with_battles;
    if (plain.json.contains("not_carried_out")) ++with_rejected;
    // Read back through the store, and as the player receives it (with the roundup).
    auto stored = store->report(kReportsGame, plain.player, 1);
    ASSERT_TRUE(stored.ok()) << stored.status().to_string();
    EXPECT_EQ(stored->text, plain.text) << plain.player;
    EXPECT_EQ(stored->json, plain.json) << plain.player;
    auto received = svc.report(kReportsGame, plain.player, 1);
    ASSERT_TRUE(received.ok()) << received.status().to_string();
    EXPECT_EQ(received->text, preview->full_text(plain)) << plain.player;
    // The same with the turn's roundup read once (as the report mails are queued).
    auto mailed = svc.report(kReportsGame, plain.player, 1, *roundup);
    ASSERT_TRUE(mailed.ok()) << mailed.status().to_string();
    EXPECT_EQ(mailed->text, received->text) << plain.player;
    EXPECT_EQ(mailed->json, received->json) << plain.player;
  }
  EXPECT_GT(with_battles, size.players / 2);
  int fifth = 0;  // every fifth player, less those who sent nothing
  for (int p = 0; p < size.players; p += 5) fifth += p % 7 != 3;
  EXPECT_EQ(with_rejected, fifth);
  if (size.players == 200) {
    EXPECT_EQ(fifth, 34);
  }
  EXPECT_NE(preview->reports[0].text.find("\xC3\x96xford \"the \\ old\""), std::string::npos);
}

}  // namespace
}  // namespace adj
