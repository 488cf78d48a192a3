// The pages' pure views: the audit log in words (audit_text.h), the stale-turn
// answer (turn_guard.h), order files line by line (orders_view.h) and the outbox message view
// (outbox_view.h).
#include <gtest/gtest.h>

#include "server/app/audit_text.h"
#include "server/app/turn_guard.h"
#include "server/web/orders_view.h"
#include "server/web/outbox_view.h"

namespace adj {
namespace {

AuditEntry audit_entry_of(const std::string& actor, const std::string& action, Json detail) {
  AuditEntry e;
  e.actor = actor;
  e.action = action;
  e.detail = std::move(detail);
  return e;
}

TEST(PageViews, AuditEntriesInWords) {
  EXPECT_EQ(audit_actor_text("gm"), "the GM");
  EXPECT_EQ(audit_actor_text("gm:cli"), "the GM (command line)");
  EXPECT_EQ(audit_actor_text("scheduler"), "the scheduler");
  EXPECT_EQ(audit_actor_text("player:WSX"), "player WSX");
  EXPECT_EQ(audit_action_text(audit_entry_of("gm", "run",
                                             {{"turn", 3},
                                              {"players_without_orders", {"MRC"}},
                                              {"deadline", 1'796'063'400},
                                              {"released_hold", false}})),
            "ran turn 3; no orders from MRC; next deadline 2026-11-30 18:30 UTC");
  EXPECT_EQ(audit_action_text(audit_entry_of(
                "gm", "run", {{"turn", 1}, {"players_without_orders", Json::array()}})),
            "ran turn 1; every player had orders in");
  EXPECT_EQ(audit_action_text(
                audit_entry_of("gm", "deadline", {{"from", nullptr}, {"to", 1'796'063'400}})),
            "moved the deadline from none to 2026-11-30 18:30 UTC");
  EXPECT_EQ(
      audit_action_text(audit_entry_of("gm", "pause", {{"from", "open"}, {"remaining", 7200}})),
      "paused the game (it was open); 2 hours were left to the deadline");
  EXPECT_EQ(audit_action_text(audit_entry_of("gm", "schedule",
                                             {{"schedule",
                                               {{"kind", "interval"},
                                                {"interval_seconds", 172800},
                                                {"time_of_day", 64800},
                                                {"deadline", 1'796'063'400}}}})),
            "set the schedule to every 2 days at 18:00 UTC; next deadline 2026-11-30 18:30 UTC");
  EXPECT_EQ(audit_action_text(audit_entry_of("gm", "reset", {{"player", "NUM"}, {"what", "both"}})),
            "issued a new secret and sign-in link for NUM");
  EXPECT_EQ(audit_action_text(audit_entry_of("player:WSX", "secret", {{"what", "token"}})),
            "replaced their sign-in link");
  EXPECT_EQ(audit_action_text(audit_entry_of("scheduler", "hold", {{"message", "turn 3 held"}})),
            "turn 3 held");
  // The membership actions in words, and the GM's reason where one was given.
  EXPECT_EQ(audit_action_text(audit_entry_of("gm", "signup-open", {{"from", "new"}})),
            "opened the game for sign-ups");
  EXPECT_EQ(audit_action_text(audit_entry_of("gm", "invite", {{"address", "ann@example.net"}})),
            "invited ann@example.net to sign up");
  EXPECT_EQ(audit_action_text(audit_entry_of(
                "gm", "assign",
                {{"player", "WSX"}, {"address", "ann@example.net"}, {"preference_rank", 2}})),
            "gave WSX to ann@example.net (their choice 2)");
  EXPECT_EQ(audit_action_text(audit_entry_of(
                "gm", "assign",
                {{"player", "MRC"}, {"address", "bob@example.net"}, {"preference_rank", nullptr}})),
            "gave MRC to bob@example.net (none of their choices was free)");
  EXPECT_EQ(
      audit_action_text(audit_entry_of(
          "gm", "start",
          {{"assigned", 3}, {"vacant", {"EAN", "GWN"}}, {"unassigned", 1}, {"seed_used", true}})),
      "started the game with 3 players; vacant: EAN, GWN; 1 sign-up got no place");
  EXPECT_EQ(audit_action_text(audit_entry_of("gm", "replace",
                                             {{"player", "WSX"},
                                              {"from", "ann@example.net"},
                                              {"to", "dee@example.net"},
                                              {"name", "Dee"},
                                              {"why", "Ann left the group"}})),
            "gave WSX to dee@example.net (was ann@example.net); reason: Ann left the group");
  EXPECT_EQ(audit_action_text(audit_entry_of("gm", "rollback",
                                             {{"turn", 2},
                                              {"from_turn", 3},
                                              {"later_files", Json::array()},
                                              {"why", "the dice were wrong"}})),
            "rolled back from turn 3 to turn 2; reason: the dice were wrong");
  // Odd or missing details never throw.
  EXPECT_EQ(audit_action_text(audit_entry_of("gm", "run", Json::array())),
            "ran turn ?; every player had orders in");
  EXPECT_EQ(audit_action_text(audit_entry_of("gm", "something-new", Json::object())),
            "something-new");
}

TEST(PageViews, StaleTurnAnswers) {
  EXPECT_TRUE(stale_turn(3, 3).ok());
  const Status ran = stale_turn(2, 3);
  EXPECT_EQ(ran.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(ran.message().rfind("Turn 2 already ran; nothing was changed.", 0), 0u);
  EXPECT_NE(stale_turn(4, 2).message().find("rolled back"), std::string::npos);
  EXPECT_FALSE(parse_turn_field("")->has_value());
  EXPECT_EQ(**parse_turn_field("12"), 12);
  EXPECT_FALSE(parse_turn_field("0").ok());
  EXPECT_FALSE(parse_turn_field("-1").ok());
  EXPECT_FALSE(parse_turn_field("99999999999").ok());
}

TEST(PageViews, OrderLinesAreMarkedWhereTheyStand) {
  OrderAck ack;
  LineResult ok;
  ok.line = 2;
  ok.accepted = true;
  LineResult bad;
  bad.line = 4;
  bad.accepted = false;
  bad.reason = "unknown area XYZ";
  ack.lines = {ok, bad};
  const Json lines = web::marked_lines("TURN 1\r\n1. LEVY HAM 3\n# note\n2. MOVE HAM XYZ 4\n", ack);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0]["text"], "TURN 1");
  EXPECT_FALSE(lines[0]["accepted"].get<bool>());
  EXPECT_FALSE(lines[0]["rejected"].get<bool>());
  EXPECT_TRUE(lines[1]["accepted"].get<bool>());
  EXPECT_TRUE(lines[3]["rejected"].get<bool>());
  EXPECT_EQ(lines[3]["reason"], "unknown area XYZ");
  EXPECT_EQ(web::editable_text("GAME g\nPLAYER WSX ********\n  player WSX x\n1. X\n"),
            "GAME g\n1. X\n");
}

TEST(PageViews, OutboxMessageView) {
  const std::string multipart =
      "From: a@example.org\r\nTo: b@example.org\r\nSubject: Report\r\nMIME-Version: 1.0\r\n"
      "Content-Type: multipart/alternative; boundary=\"XX\"\r\n\r\n--XX\r\n"
      "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n"
      "VHVybiAzIHJlcG9ydA==\r\n--XX\r\nContent-Type: text/html\r\n\r\n<p>x</p>\r\n--XX--\r\n";
  const web::MessageView v = web::message_view(multipart, "report");
  EXPECT_FALSE(v.withheld);
  EXPECT_EQ(v.body, "Turn 3 report");
  ASSERT_GE(v.headers.size(), 3u);
  EXPECT_EQ(v.headers[0].first, "From");
  EXPECT_EQ(v.headers[2].second, "Report");
  const web::MessageView s = web::message_view("Subject: s\r\n\r\nsecret: abc\r\n", "secret");
  EXPECT_TRUE(s.withheld);
  EXPECT_EQ(s.body.find("abc"), std::string::npos);
  EXPECT_TRUE(web::outbox_body_withheld("takeover"));
  EXPECT_TRUE(web::outbox_body_withheld("join"));
  EXPECT_FALSE(web::outbox_body_withheld("ack"));
  EXPECT_FALSE(web::outbox_body_withheld("orders-entered"));
  // Garbage never throws.
  EXPECT_NO_THROW(web::message_view("\r\n\r\n=\r\n", "ack"));
  EXPECT_NO_THROW(web::message_view("Content-Type: multipart/mixed; boundary=\r\n\r\n--", "ack"));
}

}  // namespace
}  // namespace adj
