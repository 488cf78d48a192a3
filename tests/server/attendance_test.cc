// Attendance (server/app/attendance.h) over a real SQLite file with a settable clock: missed
// turns from the turn records (and a rollback), civil disorder at the run with notices and
// takeover offers, takeover codes (single use, bound to the position, expiring), absences that
// excuse misses and extend a deadline once, the scheduler's treatment of positions in disorder,
// and the validation of options and absences.
#include "server/app/attendance.h"

#include <gtest/gtest.h>

#include <memory>
#include <regex>

#include "rules/game/scenario.h"
#include "server/app/admin.h"
#include "server/app/membership.h"
#include "server/app/press.h"
#include "storage/sqlite/sqlite_store.h"
#include "tests/support/cli_runner.h"
#include "tests/support/temp_dir.h"

namespace adj {
namespace {

constexpr const char* kAttendanceGame = "britain-1";
constexpr UnixTime kAttendanceDay = 86400;
constexpr UnixTime kAttendanceStart = 1'700'000'000;  // 2023-11-14T22:13:20Z

class AttendanceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = SqliteStore::open(dir_.file("adjutant.db"));
    ASSERT_TRUE(opened.ok()) << opened.status().to_string();
    store_ = std::move(opened).value();
    stores_ =
        std::make_unique<Stores>(Stores{*store_, *store_, *store_, *store_, *store_, *store_});
    const Clock clock = [this] { return now_; };
    svc_ = std::make_unique<Services>(*stores_, clock);
    admin_ = std::make_unique<GameAdmin>(*svc_, *stores_, *store_, clock);
    att_ = std::make_unique<Attendance>(*svc_, *stores_, *store_, *store_, clock,
                                        "https://pbm.example.net");
    auto scenario = bundled_scenario_published("dark-age-britain");
    ASSERT_TRUE(scenario.ok());
    ASSERT_TRUE(admin_->create_game(*scenario, 42, "gm").ok());
  }

  void submit(int turn, const std::string& player) {
    const std::string text = ::adj::testing::read_file(
        std::string(ADJ_SOURCE_DIR) + "/schemas/scenarios/dark-age-britain/turn" +
        std::to_string(turn) + "-" + player + ".txt");
    auto out = svc_->submit_orders(kAttendanceGame, text, "web");
    ASSERT_TRUE(out.ok()) << out.status().to_string();
    ASSERT_FALSE(out->ack.refused) << out->ack.refusal;
  }
  void run() {
    auto out = admin_->run_turn(kAttendanceGame, false, "gm");
    ASSERT_TRUE(out.ok()) << out.status().to_string();
  }
  PlayerAttendance of(const std::string& player) {
    auto ps = att_->players(kAttendanceGame);
    EXPECT_TRUE(ps.ok());
    for (const auto& p : *ps)
      if (p.player == player) return p;
    ADD_FAILURE() << "no " << player;
    return {};
  }
  std::vector<Notice> notices(const std::string& kind) {
    std::vector<Notice> out;
    const auto all = store_->notices(kAttendanceGame);
    for (const auto& n : *all)
      if (n.kind == kind) out.push_back(n);
    return out;
  }
  int audits(const std::string& action) {
    int n = 0;
    const auto log = admin_->audit_log(kAttendanceGame);
    for (const auto& e : *log) n += e.action == action;
    return n;
  }
  // The code of the offer for `player` (the TAKEOVER line of its notice).
  std::string offered_code(const std::string& player) {
    std::smatch m;
    const std::regex line("TAKEOVER britain-1 " + player + " (\\S+)");
    for (const auto& n : notices("takeover"))
      if (std::regex_search(n.text, m, line)) return m[1];
    return "";
  }
  // A Replacer that gives the position a new secret and records the call.
  Replacer replacer() {
    return [this](const std::string& game, const std::string& player, const std::string& email,
                  const std::string&) -> Result<TakeoverOutcome> {
      replaced_.push_back(player + ":" + email);
      auto secret = svc_->reset_secret(game, player);
      if (!secret.ok()) return secret.status();
      return TakeoverOutcome{game, player, email, *secret};
    };
  }

  ::adj::testing::TempDir dir_;
  UnixTime now_ = kAttendanceStart;
  std::unique_ptr<SqliteStore> store_;
  std::unique_ptr<Stores> stores_;
  std::unique_ptr<Services> svc_;
  std::unique_ptr<GameAdmin> admin_;
  std::unique_ptr<Attendance> att_;
  std::vector<std::string> replaced_;
};

TEST_F(AttendanceTest, MissesComeFromTheTurnRecordsAndDisorderFollowsTheRunAndRollback) {
  submit(1, "WSX");
  run();
  EXPECT_EQ(of("WSX").missed, 0);
  EXPECT_EQ(of("MRC").missed, 1);
  EXPECT_FALSE(of("MRC").disorder);
  EXPECT_EQ(audits("civil-disorder"), 0);

  submit(2, "WSX");
  run();
  const PlayerAttendance mrc = of("MRC");
  EXPECT_EQ(mrc.missed, 2);
  EXPECT_TRUE(mrc.disorder);
  EXPECT_EQ(mrc.disorder_since, 3);
  EXPECT_FALSE(of("WSX").disorder);
  EXPECT_EQ(audits("civil-disorder"), 4);  // MRC, NUM, EAN, GWN
  const auto told = notices("disorder");
  ASSERT_EQ(told.size(), 4u);
  EXPECT_NE(told[0].text.find("civil disorder"), std::string::npos);
  EXPECT_EQ(*att_->in_disorder(kAttendanceGame),
            (std::set<std::string>{"EAN", "GWN", "MRC", "NUM"}));

  // A rollback to turn 2 takes the miss and the disorder back.
  ASSERT_TRUE(admin_->rollback(kAttendanceGame, 2, "gm").ok());
  EXPECT_EQ(of("MRC").missed, 1);
  EXPECT_FALSE(of("MRC").disorder);
  EXPECT_TRUE(att_->in_disorder(kAttendanceGame)->empty());
}

TEST_F(AttendanceTest, NeverWhenTheOptionIsZero) {
  AttendanceOptions o;
  o.civil_disorder_after = 0;
  ASSERT_TRUE(att_->set_options(kAttendanceGame, o, "gm").ok());
  run();
  run();
  run();
  EXPECT_EQ(of("MRC").missed, 3);
  EXPECT_FALSE(of("MRC").disorder);
  EXPECT_EQ(audits("civil-disorder"), 0);
}

TEST_F(AttendanceTest, StandbyGetsAnOfferAndTheTakeoverEndsTheDisorderOnce) {
  auto text = att_->standby(kAttendanceGame, "Stand@Example.net");
  ASSERT_TRUE(text.ok()) << text.status().to_string();
  EXPECT_NE(text->find("standby list"), std::string::npos);
  ASSERT_EQ(notices("standby").size(), 1u);
  EXPECT_EQ(notices("standby")[0].addresses, std::vector<std::string>{"stand@example.net"});
  ASSERT_TRUE(att_->standby(kAttendanceGame, "stand@example.net").ok());  // again: no second notice
  EXPECT_EQ(notices("standby").size(), 1u);

  submit(1, "WSX");
  run();
  submit(2, "WSX");
  run();
  ASSERT_EQ(notices("takeover").size(), 4u);
  const std::string code = offered_code("MRC");
  ASSERT_FALSE(code.empty());
  for (const auto& n : notices("takeover")) {
    EXPECT_EQ(n.addresses, std::vector<std::string>{"stand@example.net"});
    EXPECT_NE(n.text.find("/games/britain-1/takeover"), std::string::npos);
  }
  // The code is stored only as its hash.
  const auto codes = store_->takeover_codes(kAttendanceGame);
  for (const auto& c : *codes) EXPECT_NE(c.code_hash, code);

  // Bound to its position: not for NUM.
  auto wrong =
      att_->takeover(kAttendanceGame, "NUM", code, "stand@example.net", replacer(), "test");
  EXPECT_EQ(wrong.status().code(), StatusCode::kPermissionDenied);
  EXPECT_NE(wrong.status().message().find("wrong, used or expired"), std::string::npos);

  auto t = att_->takeover(kAttendanceGame, "mrc", code, "stand@example.net", replacer(), "test");
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  EXPECT_EQ(t->player, "MRC");
  EXPECT_FALSE(t->secret.empty());
  EXPECT_EQ(replaced_, std::vector<std::string>{"MRC:stand@example.net"});
  EXPECT_FALSE(of("MRC").disorder);
  EXPECT_EQ(of("MRC").missed, 0);
  EXPECT_TRUE(att_->standby_list(kAttendanceGame)->empty());
  EXPECT_EQ(audits("takeover"), 1);
  EXPECT_TRUE(svc_->authenticate_player(kAttendanceGame, "MRC", t->secret).ok());

  // Used: refused, and the position is not replaced again.
  auto again =
      att_->takeover(kAttendanceGame, "MRC", code, "other@example.net", replacer(), "test");
  EXPECT_EQ(again.status().code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(replaced_.size(), 1u);

  // The new player's orders count: MRC is not missing after the next run.
  const std::string orders = "GAME britain-1\nPLAYER MRC " + t->secret + "\nDEFEND LEI\n";
  auto sub = svc_->submit_orders(kAttendanceGame, orders, "web");
  ASSERT_TRUE(sub.ok());
  ASSERT_FALSE(sub->ack.refused) << sub->ack.refusal;
  run();
  EXPECT_EQ(of("MRC").missed, 0);
  EXPECT_FALSE(of("MRC").disorder);
  EXPECT_EQ(of("NUM").missed, 3);
}

TEST_F(AttendanceTest, GmCodesExpireAndBadAddressesAreRefusedBeforeTheCodeIsSpent) {
  auto code = att_->issue_code(kAttendanceGame, "gwn", "gm");
  ASSERT_TRUE(code.ok()) << code.status().to_string();
  EXPECT_EQ(audits("takeover-code"), 1);
  const auto log = admin_->audit_log(kAttendanceGame);
  for (const auto& e : *log)
    EXPECT_EQ(e.detail.dump().find(*code), std::string::npos) << "never the code";
  auto bad = att_->takeover(kAttendanceGame, "GWN", *code, "not an address", replacer(), "test");
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  auto nobody = att_->takeover(kAttendanceGame, "XYZ", *code, "a@example.net", replacer(), "test");
  EXPECT_EQ(nobody.status().code(), StatusCode::kNotFound);
  EXPECT_NE(nobody.status().message().find("WSX"), std::string::npos) << "lists the kingdoms";

  now_ += 8 * kAttendanceDay;  // default validity: 7 days
  auto late = att_->takeover(kAttendanceGame, "GWN", *code, "a@example.net", replacer(), "test");
  EXPECT_EQ(late.status().code(), StatusCode::kPermissionDenied);
  EXPECT_TRUE(replaced_.empty());
}

// Wessex missed turn 1 and went into disorder; it sent orders for turn 2 and played it. The
// turn-1 offer no longer opens the position at turn 3, and Wessex's secret still works.
TEST_F(AttendanceTest, TakeoverWithAnOfferFromBeforeThePlayerCameBackIsRefused) {
  AttendanceOptions o;
  o.civil_disorder_after = 1;
  ASSERT_TRUE(att_->set_options(kAttendanceGame, o, "gm").ok());
  ASSERT_TRUE(att_->standby(kAttendanceGame, "thief@example.net").ok());
  run();
  ASSERT_TRUE(of("WSX").disorder);
  const std::string code = offered_code("WSX");
  ASSERT_FALSE(code.empty());
  now_ += 3600;
  submit(2, "WSX");
  run();
  now_ += 3600;
  auto t = att_->takeover(kAttendanceGame, "WSX", code, "thief@example.net", replacer(), "test");
  EXPECT_EQ(t.status().code(), StatusCode::kFailedPrecondition) << t.status().to_string();
  EXPECT_NE(t.status().message().find("no longer open"), std::string::npos) << t.status().message();
  EXPECT_TRUE(replaced_.empty());
  EXPECT_TRUE(svc_->authenticate_player(kAttendanceGame, "WSX", "cerdic").ok());
  EXPECT_EQ(audits("takeover"), 0);
}

TEST_F(AttendanceTest, TakeoverCodeIsUsedAtMostOnceAndVoidsTheOtherOffers) {
  AttendanceOptions o;
  o.civil_disorder_after = 1;
  ASSERT_TRUE(att_->set_options(kAttendanceGame, o, "gm").ok());
  ASSERT_TRUE(att_->standby(kAttendanceGame, "one@example.net").ok());
  ASSERT_TRUE(att_->standby(kAttendanceGame, "two@example.net").ok());
  run();
  std::vector<std::string> codes;
  std::smatch m;
  for (const auto& n : notices("takeover"))
    if (std::regex_search(n.text, m, std::regex("TAKEOVER britain-1 MRC (\\S+)")))
      codes.push_back(m[1]);
  ASSERT_EQ(codes.size(), 2u);
  ASSERT_TRUE(
      att_->takeover(kAttendanceGame, "MRC", codes[0], "one@example.net", replacer(), "t").ok());
  for (const auto& c : codes) {
    auto again = att_->takeover(kAttendanceGame, "MRC", c, "two@example.net", replacer(), "t");
    EXPECT_EQ(again.status().code(), StatusCode::kPermissionDenied);
  }
  EXPECT_EQ(replaced_.size(), 1u);
}

TEST_F(AttendanceTest, TakeoverCodeIsVoidedByOrdersForThePosition) {
  auto code = att_->issue_code(kAttendanceGame, "WSX", "gm");
  ASSERT_TRUE(code.ok());
  now_ += 60;
  submit(1, "WSX");
  auto t = att_->takeover(kAttendanceGame, "WSX", *code, "new@example.net", replacer(), "test");
  EXPECT_EQ(t.status().code(), StatusCode::kFailedPrecondition) << t.status().to_string();
  EXPECT_NE(t.status().message().find("orders for it arrived"), std::string::npos)
      << t.status().message();
  EXPECT_TRUE(replaced_.empty());
  // Another position's orders do not void it.
  auto mrc = att_->issue_code(kAttendanceGame, "MRC", "gm");
  now_ += 60;
  submit(1, "NUM");
  EXPECT_TRUE(
      att_->takeover(kAttendanceGame, "MRC", *mrc, "new@example.net", replacer(), "test").ok());
}

TEST_F(AttendanceTest, TakeoverCodeIsVoidedWhenTheGmActsOnThePosition) {
  for (const char* what : {"reset", "token"}) {
    now_ += 60;
    auto code = att_->issue_code(kAttendanceGame, "GWN", "gm");
    ASSERT_TRUE(code.ok());
    now_ += 60;
    if (std::string(what) == "reset")
      ASSERT_TRUE(admin_->reset_player(kAttendanceGame, "GWN", "secret", "gm").ok());
    else
      ASSERT_TRUE(admin_->issue_player_token(kAttendanceGame, "GWN", "gm").ok());
    auto t = att_->takeover(kAttendanceGame, "GWN", *code, "new@example.net", replacer(), "test");
    EXPECT_EQ(t.status().code(), StatusCode::kFailedPrecondition) << what;
    EXPECT_NE(t.status().message().find("the GM has acted on it"), std::string::npos)
        << t.status().message();
  }
  EXPECT_TRUE(replaced_.empty());
}

// The new player of a position taken over reads none of its private press from before, unless
// the GM sets new_holder_reads_earlier; press to everyone and press after the takeover they do.
TEST_F(AttendanceTest, PressOfThePositionFromBeforeTheTakeoverIsHiddenFromTheNewPlayer) {
  const Clock clock = [this] { return now_; };
  Press press(*svc_, *store_, clock, store_.get());
  Membership members(*svc_, *stores_, *store_, *store_, clock);
  PressDraft secret_plan{{"WSX"}, false, "Meet me at Bath.", "web"};
  ASSERT_TRUE(press.send(kAttendanceGame, "MRC", secret_plan).ok());
  PressDraft to_all{{"ALL"}, false, "Hello all.", "web"};
  ASSERT_TRUE(press.send(kAttendanceGame, "NUM", to_all).ok());
  ASSERT_EQ(press.mailbox(kAttendanceGame, "WSX")->size(), 2u);
  now_ += 60;
  auto code = att_->issue_code(kAttendanceGame, "WSX", "gm");
  ASSERT_TRUE(code.ok());
  const Replacer replace = [&](const std::string& game, const std::string& player,
                               const std::string& email,
                               const std::string& actor) -> Result<TakeoverOutcome> {
    auto r = members.replace(game, player, email, "", actor);
    if (!r.ok()) return r.status();
    return TakeoverOutcome{game, player, email, r->secret};
  };
  now_ += 60;
  ASSERT_TRUE(
      att_->takeover(kAttendanceGame, "WSX", *code, "new@example.net", replace, "test").ok());
  now_ += 60;
  PressDraft later{{"WSX"}, false, "Welcome.", "web"};
  ASSERT_TRUE(press.send(kAttendanceGame, "MRC", later).ok());
  auto box = press.mailbox(kAttendanceGame, "WSX");
  ASSERT_TRUE(box.ok());
  std::string seen;
  for (const auto& v : *box) seen += v.message.body + "|";
  EXPECT_EQ(seen, "Welcome.|Hello all.|");
  // The sender's own box is unchanged.
  EXPECT_EQ(press.mailbox(kAttendanceGame, "MRC")->size(), 3u);

  PressOptions o = *press.options(kAttendanceGame);
  o.new_holder_reads_earlier = true;
  ASSERT_TRUE(press.set_options(kAttendanceGame, o, "gm").ok());
  EXPECT_EQ(press.mailbox(kAttendanceGame, "WSX")->size(), 3u);
  EXPECT_TRUE(press.options(kAttendanceGame)->new_holder_reads_earlier);
}

TEST_F(AttendanceTest, AbsenceExcusesMissesAndExtendsTheDeadlineOncePerTurn) {
  // Away from today for three days (the turns run today).
  const std::string from = ymd_of(now_), to = ymd_of(now_ + 2 * kAttendanceDay);
  auto a = att_->declare_absence(kAttendanceGame, "mrc", from, to, "player:MRC");
  ASSERT_TRUE(a.ok()) << a.status().to_string();
  EXPECT_EQ(a->player, "MRC");
  EXPECT_EQ(audits("absence"), 1);
  EXPECT_EQ(of("MRC").absence_text(), from + " to " + to);
  run();
  run();
  EXPECT_EQ(of("MRC").missed, 2);
  EXPECT_EQ(of("MRC").counted, 0);
  EXPECT_FALSE(of("MRC").disorder) << "missed while away";
  EXPECT_TRUE(of("NUM").disorder);

  // The deadline passes during the absence: extended to after it, once.
  Schedule s;
  s.kind = "fixed";
  s.deadline = now_ + 3600;
  s.nmr_guard_ratio = 1;
  ASSERT_TRUE(admin_->set_schedule(kAttendanceGame, s, "gm").ok());
  now_ += 2 * 3600;
  auto acts = admin_->tick();
  ASSERT_EQ(acts.size(), 1u);
  EXPECT_EQ(acts[0].action, "extended") << acts[0].detail;
  EXPECT_NE(acts[0].detail.find("absence of MRC"), std::string::npos) << acts[0].detail;
  const UnixTime extended = *store_->schedule(kAttendanceGame)->deadline;
  EXPECT_EQ(extended,
            kAttendanceStart + 3600 + 3 * kAttendanceDay);  // to the same time after the last day
  now_ = extended + 60;
  acts = admin_->tick();
  ASSERT_EQ(acts.size(), 1u);
  EXPECT_EQ(acts[0].action, "ran") << acts[0].detail;
}

TEST_F(AttendanceTest, AbsenceExtensionIsCappedAndOffByPolicy) {
  AttendanceOptions o;
  o.absence_max_days = 1;
  ASSERT_TRUE(att_->set_options(kAttendanceGame, o, "gm").ok());
  ASSERT_TRUE(att_->declare_absence(kAttendanceGame, "MRC", ymd_of(now_),
                                    ymd_of(now_ + 10 * kAttendanceDay), "gm")
                  .ok());
  Schedule s;
  s.kind = "fixed";
  s.deadline = now_ + 3600;
  s.nmr_guard_ratio = 1;
  ASSERT_TRUE(admin_->set_schedule(kAttendanceGame, s, "gm").ok());
  now_ += 2 * 3600;
  ASSERT_EQ(admin_->tick()[0].action, "extended");
  EXPECT_EQ(*store_->schedule(kAttendanceGame)->deadline, kAttendanceStart + 3600 + kAttendanceDay);
  now_ = *store_->schedule(kAttendanceGame)->deadline + 1;
  EXPECT_EQ(admin_->tick()[0].action, "ran") << "once per turn";

  o.absence_extends = false;
  ASSERT_TRUE(att_->set_options(kAttendanceGame, o, "gm").ok());
  s.deadline = now_ + 3600;
  ASSERT_TRUE(admin_->set_schedule(kAttendanceGame, s, "gm").ok());
  now_ += 2 * 3600;
  EXPECT_EQ(admin_->tick()[0].action, "ran") << "the policy says no";
}

TEST_F(AttendanceTest, PositionsInDisorderDoNotHoldUpEarlyRunsOrTheNmrGuard) {
  AttendanceOptions o;
  o.civil_disorder_after = 1;
  ASSERT_TRUE(att_->set_options(kAttendanceGame, o, "gm").ok());
  submit(1, "WSX");
  run();
  ASSERT_EQ(att_->in_disorder(kAttendanceGame)->size(), 4u);
  Schedule s;
  s.kind = "fixed";
  s.deadline = now_ + 10 * kAttendanceDay;
  s.early_when_all_in = true;
  ASSERT_TRUE(admin_->set_schedule(kAttendanceGame, s, "gm").ok());
  EXPECT_EQ(admin_->tick()[0].action, "waiting");
  submit(2, "WSX");
  const auto acts = admin_->tick();
  ASSERT_EQ(acts.size(), 1u);
  EXPECT_EQ(acts[0].action, "ran") << acts[0].detail << " (4 of 5 without orders, all in disorder)";
}

TEST_F(AttendanceTest, OptionsAndAbsencesAreValidatedWithClearErrors) {
  AttendanceOptions o;
  o.civil_disorder_after = 21;
  Status s = att_->set_options(kAttendanceGame, o, "gm");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("civil_disorder_after"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("0 to 20"), std::string::npos) << s.message();
  AttendanceOptions j;
  s = Attendance::merge_json(Json{{"civil_disorder_afterr", 2}}, j);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("the options are"), std::string::npos);
  s = Attendance::merge_json(Json{{"absence_extends", "yes"}}, j);
  EXPECT_NE(s.message().find("true or false"), std::string::npos);
  ASSERT_TRUE(Attendance::merge_json(Json{{"civil_disorder_after", 3}}, j).ok());
  EXPECT_EQ(j.civil_disorder_after, 3);

  const auto refused = [&](const std::string& from, const std::string& to, const char* says) {
    auto a = att_->declare_absence(kAttendanceGame, "MRC", from, to, "gm");
    EXPECT_FALSE(a.ok()) << from << " " << to;
    EXPECT_NE(a.status().message().find(says), std::string::npos) << a.status().message();
  };
  refused("2023-13-01", "2023-12-01", "not a date");
  refused(ymd_of(now_ + 5 * kAttendanceDay), ymd_of(now_ + 2 * kAttendanceDay), "before it starts");
  refused(ymd_of(now_ - 5 * kAttendanceDay), ymd_of(now_ - 2 * kAttendanceDay), "over already");
  refused(ymd_of(now_), ymd_of(now_ + 200 * kAttendanceDay), "at most");
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(
        att_->declare_absence(kAttendanceGame, "MRC", ymd_of(now_), ymd_of(now_), "gm").ok());
  refused(ymd_of(now_), ymd_of(now_), "the most it allows");
  auto nobody = att_->declare_absence(kAttendanceGame, "ZZZ", ymd_of(now_), ymd_of(now_), "gm");
  EXPECT_EQ(nobody.status().code(), StatusCode::kNotFound);
}

TEST_F(AttendanceTest, StandbyListIsBoundedAndAddressesChecked) {
  EXPECT_EQ(att_->standby(kAttendanceGame, "no-at-sign").status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(att_->standby(kAttendanceGame, "a@b.c\r\nBcc: x@y.z").status().code(),
            StatusCode::kInvalidArgument);
  for (int i = 0; i < Attendance::kMaxStandby; ++i)
    ASSERT_TRUE(att_->standby(kAttendanceGame, "p" + std::to_string(i) + "@example.net").ok());
  auto full = att_->standby(kAttendanceGame, "late@example.net");
  EXPECT_EQ(full.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(full.status().message().find("full"), std::string::npos);
  EXPECT_EQ(static_cast<int>(notices("standby").size()), Attendance::kMaxStandby);
}

}  // namespace
}  // namespace adj
