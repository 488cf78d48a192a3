// Membership: sign-ups, the start's assignment, invitations, address changes and replacing a
// player, over a real SQLite file with a settable clock.
#include "server/app/membership.h"

#include "server/app/confirmations.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "rules/game/scenario.h"
#include "server/app/admin.h"
#include "storage/sqlite/sqlite_store.h"
#include "tests/support/temp_dir.h"

namespace adj {
namespace {

constexpr const char* kMembershipGame = "britain-1";
constexpr UnixTime kMembershipStart = 1'700'000'000;

// One database with the bundled dark-age-britain game (5 positions).
struct World {
  explicit World(const std::string& path, Seed seed = 42) {
    auto opened = SqliteStore::open(path);
    EXPECT_TRUE(opened.ok()) << opened.status().to_string();
    store = std::move(opened).value();
    stores = std::make_unique<Stores>(Stores{*store, *store, *store, *store, *store, *store});
    const Clock clock = [this] { return now; };
    svc = std::make_unique<Services>(*stores, clock);
    admin = std::make_unique<GameAdmin>(*svc, *stores, *store, clock);
    members =
        std::make_unique<Membership>(*svc, *stores, *store, *store, clock, "http://adj.example");
    auto scenario = bundled_scenario_published("dark-age-britain");
    EXPECT_TRUE(scenario.ok());
    auto g = admin->create_game(*scenario, seed, "gm", true);
    EXPECT_TRUE(g.ok()) << g.status().to_string();
  }
  std::vector<AuditEntry> log(const std::string& action) {
    std::vector<AuditEntry> out;
    const auto all = admin->audit_log(kMembershipGame);
    for (const auto& e : *all)
      if (e.action == action) out.push_back(e);
    return out;
  }
  std::vector<Notice> notices(const std::string& kind) {
    std::vector<Notice> out;
    const auto all = store->notices(kMembershipGame);
    for (const auto& n : *all)
      if (n.kind == kind) out.push_back(n);
    return out;
  }
  std::string email_of(const std::string& code) {
    const auto state = store->load_state(kMembershipGame, std::nullopt);
    for (const Player& p : state->players)
      if (p.code == code) return p.email;
    return "?";
  }

  UnixTime now = kMembershipStart;
  std::unique_ptr<SqliteStore> store;
  std::unique_ptr<Stores> stores;
  std::unique_ptr<Services> svc;
  std::unique_ptr<GameAdmin> admin;
  std::unique_ptr<Membership> members;
};

class MembershipTest : public ::testing::Test {
 protected:
  void SetUp() override { w_ = std::make_unique<World>(dir_.file("adjutant.db")); }
  ::adj::testing::TempDir dir_;
  std::unique_ptr<World> w_;
};

// ---- replace (the attendance slice's TAKEOVER calls it) ----

TEST_F(MembershipTest, ReplaceGivesThePositionANewAddressSecretAndRevokesOldTokens) {
  auto link = w_->svc->issue_link_token(kMembershipGame, "WSX");
  ASSERT_TRUE(link.ok());
  auto r =
      w_->members->replace(kMembershipGame, "wsx", "new.player@example.net", "Ann Other", "gm");
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->player, "WSX");
  EXPECT_EQ(r->old_email, "wessex@example.org");
  EXPECT_EQ(w_->email_of("WSX"), "new.player@example.net");
  EXPECT_TRUE(w_->svc->authenticate_player(kMembershipGame, "WSX", r->secret).ok());
  EXPECT_EQ(w_->svc->token_owner(*link).status().code(), StatusCode::kNotFound);

  const auto audit = w_->log("replace");
  ASSERT_EQ(audit.size(), 1u);
  EXPECT_EQ(audit[0].actor, "gm");
  EXPECT_EQ(audit[0].detail["player"], "WSX");
  EXPECT_EQ(audit[0].detail["to"], "new.player@example.net");
  EXPECT_EQ(audit[0].detail["name"], "Ann Other");
  EXPECT_EQ(audit[0].detail.dump().find(r->secret), std::string::npos);

  const auto told = w_->notices("replace");
  ASSERT_EQ(told.size(), 1u);
  EXPECT_EQ(told[0].addresses, std::vector<std::string>{"wessex@example.org"});
  EXPECT_EQ(told[0].text.find(r->secret), std::string::npos);

  auto contacts = w_->members->contacts(kMembershipGame);
  ASSERT_TRUE(contacts.ok());
  ASSERT_EQ(contacts->size(), 1u);
  EXPECT_EQ((*contacts)[0].name, "Ann Other");
}

TEST_F(MembershipTest, ReplaceRefusesBadInputAndChangesNothing) {
  EXPECT_EQ(w_->members->replace(kMembershipGame, "XXX", "a@example.org", "", "gm").status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ(w_->members->replace("nope", "WSX", "a@example.org", "", "gm").status().code(),
            StatusCode::kNotFound);
  const auto bad = w_->members->replace(kMembershipGame, "WSX",
                                        "a@example.org\r\nBcc: x@evil.example", "", "gm");
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("line break"), std::string::npos);
  EXPECT_EQ(
      w_->members->replace(kMembershipGame, "WSX", "a@example.org", "x\ny", "gm").status().code(),
      StatusCode::kInvalidArgument);
  EXPECT_EQ(w_->email_of("WSX"), "wessex@example.org");
  EXPECT_TRUE(w_->log("replace").empty());
}

TEST_F(MembershipTest, AddressesSurviveARollback) {
  auto run = w_->admin->run_turn(kMembershipGame, false, "gm");
  ASSERT_TRUE(run.ok()) << run.status().to_string();
  ASSERT_TRUE(
      w_->members->change_address(kMembershipGame, "MRC", "penda@example.net", "player:MRC").ok());
  auto r = w_->members->replace(kMembershipGame, "NUM", "oswy@example.net", "", "gm");
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(w_->admin->rollback(kMembershipGame, 1, "gm").ok());
  EXPECT_EQ(w_->email_of("MRC"), "penda@example.net");
  EXPECT_EQ(w_->email_of("NUM"), "oswy@example.net");
  EXPECT_EQ((*w_->svc->show_game(kMembershipGame))["players"][2]["email"], "penda@example.net")
      << "players are sorted by code: EAN, GWN, MRC, ...";
}

// ---- address changes ----

TEST_F(MembershipTest, AddressChangeIsAuditedAndTellsBothAddresses) {
  ASSERT_TRUE(
      w_->members->change_address(kMembershipGame, "mrc", "Penda@Example.net", "player:MRC").ok());
  EXPECT_EQ(w_->email_of("MRC"), "Penda@Example.net");
  const auto audit = w_->log("address");
  ASSERT_EQ(audit.size(), 1u);
  EXPECT_EQ(audit[0].actor, "player:MRC");
  EXPECT_EQ(audit[0].detail["from"], "mercia@example.org");
  EXPECT_EQ(audit[0].detail["to"], "Penda@Example.net");
  const auto told = w_->notices("address");
  ASSERT_EQ(told.size(), 1u);
  EXPECT_EQ(told[0].addresses,
            (std::vector<std::string>{"Penda@Example.net", "mercia@example.org"}));
  EXPECT_NE(told[0].text.find("at the player's request"), std::string::npos);

  const Status same =
      w_->members->change_address(kMembershipGame, "MRC", "penda@example.net", "gm");
  EXPECT_EQ(same.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(same.message().find("already the address"), std::string::npos);
  for (const char* bad : {"no-at-sign", "two@@example.org", "a b@example.org", "<a@example.org>",
                          "a@example.org,b@example.org", "a@-bad", "a@exa_mple.org", ""})
    EXPECT_EQ(w_->members->change_address(kMembershipGame, "MRC", bad, "gm").code(),
              StatusCode::kInvalidArgument)
        << bad;
  EXPECT_EQ(w_->log("address").size(), 1u);
}

// ---- sign-ups and the start ----

TEST_F(MembershipTest, JoinNeedsAGameOpenForSignups) {
  const auto r = w_->members->join(kMembershipGame, "ann@example.net", "", "web");
  EXPECT_EQ(r.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(r.status().message().find("not open for sign-ups"), std::string::npos);
  EXPECT_EQ(w_->members->join("nope", "ann@example.net", "", "web").status().code(),
            StatusCode::kNotFound);
}

TEST_F(MembershipTest, AGameOpenForSignupsTakesNoOrdersAndRunsNoTurn) {
  ASSERT_TRUE(w_->members->open_signups(kMembershipGame, "gm").ok());
  auto out = w_->svc->submit_as(kMembershipGame, "WSX", std::nullopt, "HOLD\n", "web", false);
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_TRUE(out->ack.refused);
  EXPECT_NE(out->ack.refusal.find("has not started"), std::string::npos) << out->ack.refusal;
  const auto run = w_->admin->run_turn(kMembershipGame, false, "gm");
  EXPECT_EQ(run.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(run.status().message().find("has not started"), std::string::npos);
  EXPECT_EQ(w_->store->game_summary(kMembershipGame)->turn, 1);
}

TEST_F(MembershipTest, JoinChecksAddressPreferencesAndDuplicates) {
  ASSERT_TRUE(w_->members->open_signups(kMembershipGame, "gm").ok());
  EXPECT_EQ(w_->store->game_summary(kMembershipGame)->status, "signup");
  auto a = w_->members->join("Britain-1", "ann@example.net", "wsx, East Anglia mrc", "mail");
  ASSERT_TRUE(a.ok()) << a.status().to_string();
  EXPECT_EQ(a->preferences, (std::vector<std::string>{"WSX", "EAN", "MRC"}));
  EXPECT_EQ(a->position, 1);
  EXPECT_EQ(a->places, 5);
  EXPECT_NE(a->text.find("sign-up 1 of 5 places"), std::string::npos) << a->text;
  EXPECT_NE(a->text.find("East Anglia (EAN)"), std::string::npos) << a->text;

  const auto dup = w_->members->join(kMembershipGame, "ANN@example.net", "", "web");
  EXPECT_EQ(dup.status().code(), StatusCode::kAlreadyExists);
  EXPECT_NE(dup.status().message().find("already on the sign-up list"), std::string::npos);

  const auto bad = w_->members->join(kMembershipGame, "bob@example.net", "WSX Atlantis", "web");
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("\"Atlantis\" is not a kingdom"), std::string::npos);
  EXPECT_NE(bad.status().message().find("WSX (Wessex)"), std::string::npos);
  EXPECT_EQ(
      w_->members->join(kMembershipGame, "x@y.org\nBcc: z@evil.example", "", "web").status().code(),
      StatusCode::kInvalidArgument);
  EXPECT_EQ(w_->members->signups(kMembershipGame)->size(), 1u);
}

TEST_F(MembershipTest, TheSignupListIsBounded) {
  ASSERT_TRUE(w_->members->open_signups(kMembershipGame, "gm").ok());
  const int max = 5 * Membership::kSignupsPerPlace;
  for (int i = 0; i < max; ++i)
    ASSERT_TRUE(
        w_->members->join(kMembershipGame, "p" + std::to_string(i) + "@example.net", "", "mail")
            .ok());
  const auto full = w_->members->join(kMembershipGame, "late@example.net", "", "mail");
  EXPECT_EQ(full.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(full.status().message().find("is full"), std::string::npos);
  EXPECT_EQ(static_cast<int>(w_->members->signups(kMembershipGame)->size()), max);
}

TEST_F(MembershipTest, OpenSignupsOnlyBeforeTheFirstTurn) {
  ASSERT_TRUE(w_->admin->run_turn(kMembershipGame, false, "gm").ok());
  const Status s = w_->members->open_signups(kMembershipGame, "gm");
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("has started"), std::string::npos);
}

std::vector<Assignment> start_with_three(World& w) {
  EXPECT_TRUE(w.members->open_signups(kMembershipGame, "gm").ok());
  EXPECT_TRUE(w.members->join(kMembershipGame, "ann@example.net", "WSX MRC", "mail").ok());
  EXPECT_TRUE(w.members->join(kMembershipGame, "bob@example.net", "WSX", "web").ok());
  EXPECT_TRUE(w.members->join(kMembershipGame, "cy@example.net", "GWN", "api").ok());
  auto out = w.members->start(kMembershipGame, "gm");
  EXPECT_TRUE(out.ok()) << out.status().to_string();
  return out.ok() ? out->assigned : std::vector<Assignment>{};
}

TEST_F(MembershipTest, StartAssignsByPreferenceDeterministicallyAndOpensTheGame) {
  const auto a = start_with_three(*w_);
  ASSERT_EQ(a.size(), 3u);
  // The same sign-ups in another database with the same seed get the same kingdoms.
  World again(dir_.file("again.db"));
  const auto b = start_with_three(again);
  ASSERT_EQ(b.size(), 3u);
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].player, b[i].player);
    EXPECT_EQ(a[i].email, b[i].email);
  }
  std::map<std::string, Assignment> by_email;
  for (const auto& x : a) by_email[x.email] = x;
  EXPECT_EQ(by_email["cy@example.net"].player, "GWN");
  EXPECT_EQ(by_email["cy@example.net"].preference_rank, 1);
  // Ann and Bob both want WSX: one gets it; Ann otherwise gets MRC, her second choice.
  if (by_email["ann@example.net"].player == "WSX") {
    EXPECT_NE(by_email["bob@example.net"].player, "WSX");
    EXPECT_FALSE(by_email["bob@example.net"].preference_rank.has_value());
  } else {
    EXPECT_EQ(by_email["bob@example.net"].player, "WSX");
    EXPECT_EQ(by_email["ann@example.net"].player, "MRC");
    EXPECT_EQ(by_email["ann@example.net"].preference_rank, 2);
  }

  EXPECT_EQ(w_->store->game_summary(kMembershipGame)->status, "open");
  EXPECT_EQ(w_->log("assign").size(), 3u);
  ASSERT_EQ(w_->log("start").size(), 1u);
  EXPECT_EQ(w_->log("start")[0].detail["vacant"].size(), 2u);
  for (const auto& x : a) EXPECT_EQ(w_->email_of(x.player), x.email);
  // Vacant positions lose the scenario's address: nobody is mailed for them.
  const auto start_log = w_->log("start");
  for (const auto& code : start_log[0].detail["vacant"])
    EXPECT_EQ(w_->email_of(code.get<std::string>()), "");
  const auto signups = w_->members->signups(kMembershipGame);
  for (const auto& s : *signups) EXPECT_EQ(s.state, "assigned");
}

TEST_F(MembershipTest, StartGivesEachPlayerANewSecretAndTellsThoseLeftOut) {
  ASSERT_TRUE(w_->members->open_signups(kMembershipGame, "gm").ok());
  for (int i = 0; i < 7; ++i)
    ASSERT_TRUE(
        w_->members->join(kMembershipGame, "p" + std::to_string(i) + "@example.net", "", "mail")
            .ok());
  auto out = w_->members->start(kMembershipGame, "gm");
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ(out->assigned.size(), 5u);
  EXPECT_EQ(out->unassigned, (std::vector<std::string>{"p5@example.net", "p6@example.net"}));
  ASSERT_EQ(out->secrets.size(), 5u);
  for (const auto& [code, secret] : out->secrets)
    EXPECT_TRUE(w_->svc->authenticate_player(kMembershipGame, code, secret).ok()) << code;
  const auto told = w_->notices("join");
  ASSERT_EQ(told.size(), 2u);
  EXPECT_NE(told[0].text.find("STANDBY britain-1"), std::string::npos);
  // No secret ever goes into the notices table.
  const auto notices = w_->store->notices(kMembershipGame);
  for (const auto& n : *notices)
    for (const auto& [code, secret] : out->secrets)
      EXPECT_EQ(n.text.find(secret), std::string::npos);
  EXPECT_EQ(w_->members->start(kMembershipGame, "gm").status().code(),
            StatusCode::kFailedPrecondition);
}

TEST_F(MembershipTest, StartUsesOnlyApprovedSignupsWhenTheGmApprovedSome) {
  ASSERT_TRUE(w_->members->open_signups(kMembershipGame, "gm").ok());
  auto a = w_->members->join(kMembershipGame, "ann@example.net", "", "mail");
  auto b = w_->members->join(kMembershipGame, "bob@example.net", "NUM", "mail");
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE(w_->members->approve(kMembershipGame, b->id, "gm").ok());
  EXPECT_EQ(w_->members->approve(kMembershipGame, 999, "gm").code(), StatusCode::kNotFound);
  auto out = w_->members->start(kMembershipGame, "gm");
  ASSERT_TRUE(out.ok());
  ASSERT_EQ(out->assigned.size(), 1u);
  EXPECT_EQ(out->assigned[0].email, "bob@example.net");
  EXPECT_EQ(out->assigned[0].player, "NUM");
  EXPECT_EQ(out->unassigned, std::vector<std::string>{"ann@example.net"});
  EXPECT_EQ(w_->log("approve").size(), 1u);
}

TEST_F(MembershipTest, StartWithNobodyIsRefused) {
  ASSERT_TRUE(w_->members->open_signups(kMembershipGame, "gm").ok());
  const auto r = w_->members->start(kMembershipGame, "gm");
  EXPECT_EQ(r.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(r.status().message().find("nobody has signed up"), std::string::npos);
  EXPECT_EQ(w_->store->game_summary(kMembershipGame)->status, "signup");
}

TEST_F(MembershipTest, InviteQueuesANoticeWithHowToJoinAndAcceptingEnrolsTheInvitee) {
  EXPECT_EQ(w_->members->invite(kMembershipGame, "friend@example.net", "gm").code(),
            StatusCode::kFailedPrecondition);
  ASSERT_TRUE(w_->members->open_signups(kMembershipGame, "gm").ok());
  ASSERT_TRUE(w_->members->invite(kMembershipGame, "friend@example.net", "gm").ok());
  const auto n = w_->notices("invite");
  ASSERT_EQ(n.size(), 1u);
  EXPECT_EQ(n[0].addresses, std::vector<std::string>{"friend@example.net"});
  EXPECT_NE(n[0].text.find("JOIN britain-1"), std::string::npos);
  EXPECT_NE(n[0].text.find("http://adj.example/games/britain-1/join"), std::string::npos);
  EXPECT_EQ(w_->log("invite").size(), 1u);
  // Accepting (the CONFIRM code of the invitation) puts the invitee on the list, approved.
  const std::size_t at = n[0].text.find("CONFIRM ");
  ASSERT_NE(at, std::string::npos) << n[0].text;
  const std::string code = n[0].text.substr(at + 8, n[0].text.find('\n', at) - at - 8);
  EXPECT_NE(n[0].text.find("/games/britain-1/confirm?code=" + code), std::string::npos);
  EXPECT_TRUE(w_->members->signups(kMembershipGame)->empty()) << "not before it is accepted";
  Confirmations confirmations(
      *w_->svc, *w_->store, [this] { return w_->now; }, "http://adj.example");
  auto accepted = confirmations.confirm(code, "mail");
  ASSERT_TRUE(accepted.ok()) << accepted.status().to_string();
  EXPECT_NE(accepted->text.find("invitation"), std::string::npos) << accepted->text;
  const auto list = w_->members->signups(kMembershipGame);
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ((*list)[0].email, "friend@example.net");
  EXPECT_EQ((*list)[0].state, "approved");
  EXPECT_EQ(confirmations.confirm(code, "mail").status().code(), StatusCode::kPermissionDenied)
      << "the code works once";
  EXPECT_EQ(w_->members->invite(kMembershipGame, "bad address", "gm").code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace adj
