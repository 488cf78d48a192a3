// Report mails carry the map (server/mail/report_map.h, compose.h attachments): turn reports,
// RESEND answers and corrections attach map-turn-<N>.png, the map after turn N painted by the
// real renderer (server/render, librsvg); a failing painter never holds a report back. End to
// end: `adjutant serve` runs a turn on its scheduler and delivers the reports through its SMTP
// relay client to a real aiosmtpd, and the messages it received are read back with GMime.
#include <gmime/gmime.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "server/mail/compose.h"
#include "server/mail/notice_mailer.h"
#include "server/mail/report_map.h"
#include "server/render/map_png.h"
#include "server/render/state_map.h"
#include "tests/mail/mail_test_util.h"
#include "tests/mail/report_map_fixture.h"
#include "tests/support/cli_runner.h"
#include "tests/support/temp_dir.h"

namespace adj {
namespace {

namespace fs = std::filesystem;
using mail::MailAttachment;
using mail::OutgoingMail;
using mail_test::Aiosmtpd;
using mail_test::eventually;
using mail_test::free_port;
using report_map_test::map_contains;
using report_map_test::Message;
using report_map_test::Part;
using report_map_test::pngs;
using report_map_test::read_message;
using report_map_test::ReportMapMail;

TEST(ComposeAttachments, MultipartMixedKeepsTheTextAndCarriesTheBytes) {
  std::string bytes;
  for (int i = 0; i < 5000; ++i) bytes += static_cast<char>(i * 7 % 256);
  OutgoingMail m = report_map_test::report_mail({"map-turn-1.png", "image/png", bytes, {}});
  auto raw = mail::compose(m);
  ASSERT_TRUE(raw.ok()) << raw.status().to_string();
  EXPECT_EQ(*raw, *mail::compose(m));  // deterministic
  // 7-bit, short lines.
  std::size_t line = 0;
  for (char c : *raw) {
    ASSERT_LT(static_cast<unsigned char>(c), 128u);
    line = c == '\n' ? 0 : line + 1;
    ASSERT_LE(line, 998u);
  }
  const Message got = read_message(*raw);
  EXPECT_EQ(got.type, "multipart/mixed");
  ASSERT_EQ(got.parts.size(), 3u);
  EXPECT_EQ(got.parts[0].type, "text/plain");
  EXPECT_EQ(got.parts[1].type, "text/html");
  EXPECT_EQ(got.parts[2].type, "image/png");
  EXPECT_EQ(got.parts[2].filename, "map-turn-1.png");
  EXPECT_TRUE(got.parts[2].attachment);
  EXPECT_EQ(got.parts[2].data, bytes);
  EXPECT_TRUE(map_contains(*raw, "Content-Transfer-Encoding: base64"));
  // The project's own parser still finds the text (the orders rule reads replies this way).
  auto parsed = mail::parse_mail(*raw);
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->text, "Your report.\n");
  EXPECT_TRUE(parsed->has_html);

  // Without html: mixed(text/plain, image/png).
  m.html.reset();
  const Message plain = read_message(*mail::compose(m));
  EXPECT_EQ(plain.type, "multipart/mixed");
  ASSERT_EQ(plain.parts.size(), 2u);
  EXPECT_EQ(plain.parts[1].data, bytes);

  for (const MailAttachment& bad :
       {MailAttachment{"", "image/png", "x", {}}, MailAttachment{"a\"b.png", "image/png", "x", {}},
        MailAttachment{"a\r\nX-Evil: 1", "image/png", "x", {}},
        MailAttachment{"m.png", "image", "x", {}},
        MailAttachment{"m.png", "image/png\r\nX-Evil: 1", "x", {}},
        MailAttachment{"m.png", "image/p ng", "x", {}}}) {
    m.attachments = {bad};
    auto r = mail::compose(m);
    EXPECT_FALSE(r.ok()) << bad.filename << " " << bad.content_type;
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    }
  }
}

TEST(ReportMapKeys, CorrectionTurnReadsBackTheKey) {
  Notice n;
  n.game = "britain-1";
  n.kind = "correction";
  n.dedupe_key = mail::correction_key("britain-1", 12, 2, "WSX");
  EXPECT_EQ(mail::correction_turn(n), 12);
  n.dedupe_key = mail::correction_key("britain-2", 4, 2, "WSX");
  EXPECT_EQ(mail::correction_turn(n), std::nullopt);  // another game's key
  n.game = "britain-2";
  EXPECT_EQ(mail::correction_turn(n), 4);
  for (const std::string key : {"correction:britain-1:3:1:", "correction:britain-1:x:1:WSX",
                                "correction:britain-1:", "correction:britain-1:0:2:WSX",
                                "correction:britain-1:99999999999999:2:WSX", "press:1"}) {
    n.game = "britain-1";
    n.dedupe_key = key;
    EXPECT_EQ(mail::correction_turn(n),
              key == "correction:britain-1:3:1:" ? std::optional(3) : std::nullopt)
        << key;
  }
  n.dedupe_key = mail::correction_key("britain-1", 3, 2, "WSX");
  n.kind = "press";
  EXPECT_EQ(mail::correction_turn(n), std::nullopt);
}

TEST_F(ReportMapMail, TurnReportsAttachTheMapAfterTheTurn) {
  auto n = ingest_->queue_turn_reports("britain-1", 1);
  ASSERT_TRUE(n.ok()) << n.status().to_string();
  ASSERT_EQ(*n, 5);
  EXPECT_EQ(prepared_, 1);  // the map of the turn, prepared once
  EXPECT_EQ(painted_, 5);   // then once per player: each map has that player's arrows
  const std::string plain = expected_map(1);
  auto before = store_->load_state("britain-1", 1);
  ASSERT_TRUE(before.ok());
  EXPECT_NE(plain, *render::state_map_png(to_json(*before))) << "the map after the turn";
  std::map<std::string, std::string> code_of;
  for (const auto& p : before->players) code_of[p.email] = p.code;
  for (const OutboxMessage& m : outbox()) {
    const std::string map = expected_map(1, code_of[m.to]);
    EXPECT_NE(map, plain) << m.to << ": the player's moves and battles are drawn";
    const auto size = render::png_size(map);
    ASSERT_TRUE(size.ok());
    const Message got = read_message(m.raw);
    EXPECT_EQ(got.type, "multipart/mixed");
    const auto maps = pngs(got);
    ASSERT_EQ(maps.size(), 1u) << m.to;
    EXPECT_EQ(maps[0].filename, "map-turn-1.png");
    EXPECT_TRUE(maps[0].attachment);
    EXPECT_EQ(maps[0].data, map);
    auto got_size = render::png_size(maps[0].data);
    ASSERT_TRUE(got_size.ok());
    EXPECT_EQ(*got_size, *size);
    // The text and HTML are as before.
    const auto p = parse(m);
    EXPECT_TRUE(p.has_html);
    EXPECT_TRUE(map_contains(p.text, "/games/britain-1/me/reports/1"));
    EXPECT_LT(m.raw.size(), 400u * 1024) << "a report with its map stays small";
    if (m.to == "wessex@example.org") {
      RecordProperty("map_png_bytes", static_cast<int>(map.size()));
      RecordProperty("report_mail_bytes", static_cast<int>(m.raw.size()));
    }
  }
}

TEST_F(ReportMapMail, AFailingPainterNeverHoldsAReportBack) {
  // A painter whose preparation succeeds and whose player's map is `paint`.
  const auto painting = [](mail::PlayerMapPainter paint) -> mail::MapPainter {
    return [paint](const Json&) -> Result<mail::PlayerMapPainter> { return paint; };
  };
  const std::vector<std::pair<std::string, mail::MapPainter>> painters = {
      {"error",
       [](const Json&) -> Result<mail::PlayerMapPainter> { return Status::Internal("no fonts"); }},
      {"throws",
       [](const Json&) -> Result<mail::PlayerMapPainter> { throw std::runtime_error("boom"); }},
      {"player error",
       painting([](const Json*) -> Result<std::string> { return Status::Internal("no fonts"); })},
      {"player throws",
       painting([](const Json*) -> Result<std::string> { throw std::runtime_error("boom"); })},
      {"too big", painting([](const Json*) -> Result<std::string> {
         return std::string(mail::kMaxMapAttachmentBytes + 1, 'x');
       })}};
  // One RESEND per painter (each a new message, so a new answer).
  for (const auto& [what, painter] : painters) {
    config_.map_painter = painter;
    make_ingest();
    const std::string resend =
        "From: Wessex <wessex@example.org>\r\nTo: orders@pbm.example.net\r\n"
        "Subject: question\r\nMessage-ID: <resend-" +
        std::to_string(what.size()) + what.substr(0, 3) +
        "@mail.example.org>\r\n\r\nRESEND\r\nGAME britain-1\r\n"
        "PLAYER WSX cerdic\r\n";
    const auto r = ingest(resend);
    EXPECT_EQ(r.action, "resend") << what;
    EXPECT_EQ(r.queued, 1) << what;
    const OutboxMessage m = outbox().back();
    EXPECT_EQ(m.kind, "resend");
    EXPECT_TRUE(pngs(read_message(m.raw)).empty()) << what;
    EXPECT_TRUE(map_contains(parse(m).text, "Turn 1 report for WSX")) << what;
  }
  config_.map_painter = [](const Json&) -> Result<mail::PlayerMapPainter> {
    return Status::Internal("x");
  };
  make_ingest();
  auto n = ingest_->queue_turn_reports("britain-1", 1);
  ASSERT_TRUE(n.ok()) << n.status().to_string();
  EXPECT_EQ(*n, 5);
  for (const OutboxMessage& m : outbox())
    if (m.kind == "report") {
      EXPECT_EQ(read_message(m.raw).type, "multipart/alternative");
    }
}

TEST_F(ReportMapMail, ResendAttachesTheMapOfTheTurnItSends) {
  const auto r = ingest(mail_test::corpus("resend.eml"));
  EXPECT_EQ(r.action, "resend");
  const auto maps = pngs(read_message(outbox().at(0).raw));
  ASSERT_EQ(maps.size(), 1u);
  EXPECT_EQ(maps[0].filename, "map-turn-1.png");
  EXPECT_EQ(maps[0].data, expected_map(1, "WSX"));
}

TEST_F(ReportMapMail, TheMailMapIsAtLeast1000PixelsWide) {
  const auto size = render::png_size(expected_map(1, "WSX", render::kMailMapLimits));
  ASSERT_TRUE(size.ok());
  EXPECT_GE(size->first, 1000);  // the flat map's least width (1,200 for the full one)
  EXPECT_LE(size->first, 1800);
  const std::string png = expected_map(1, "WSX", render::kMailMapLimits);
  EXPECT_LE(png.size(), render::kMapPngBudget);
  std::printf("mail map of dark-age-britain: %d x %d px, %zu bytes\n", size->first, size->second,
              png.size());
}

TEST_F(ReportMapMail, CorrectionsAttachEachPlayersMapAndThePlainOneOncePerTurn) {
  auto n = ingest_->queue_corrections("britain-1", 1, 2);
  ASSERT_TRUE(n.ok()) << n.status().to_string();
  ASSERT_EQ(*n, 5);
  mail::NoticeMailer mailer(*services_, *store_, *store_, config_.from, config_.base_url,
                            [this] { return now_; });
  mailer.set_map_painter(config_.map_painter, true);
  prepared_ = painted_ = 0;
  auto sent = mailer.deliver();
  ASSERT_TRUE(sent.ok()) << sent.status().to_string();
  EXPECT_EQ(*sent, 5);
  EXPECT_EQ(prepared_, 1);  // once for the game, turn and run
  EXPECT_LE(painted_, 6);   // one per player with arrows, the plain map at most once
  auto st = store_->load_state("britain-1", 1);
  ASSERT_TRUE(st.ok());
  std::map<std::string, std::string> code_of;
  for (const auto& p : st->players) code_of[p.email] = p.code;
  int corrections = 0;
  for (const OutboxMessage& m : outbox()) {
    if (m.kind != "correction") continue;
    ++corrections;
    const auto maps = pngs(read_message(m.raw));
    ASSERT_EQ(maps.size(), 1u);
    EXPECT_EQ(maps[0].filename, "map-turn-1.png");
    EXPECT_EQ(maps[0].data, expected_map(1, code_of[m.to])) << m.to;
    EXPECT_TRUE(map_contains(parse(m).text, "This report replaces the turn 1 report"));
  }
  EXPECT_EQ(corrections, 5);
}

// Turn 2 with orders from WSX and MRC only: one map prepared for the turn; each player whose
// report draws arrows gets a map with those arrows and no other player's (the same bytes as a
// map drawn for that report alone), two such players' maps differ, and a player whose report
// draws none gets the plain map.
TEST_F(ReportMapMail, EachPlayersMapHasOnlyItsOwnArrowsFromOnePreparedMap) {
  for (const char* p : {"WSX", "MRC"}) {
    const std::string text = ::adj::testing::read_file(
        std::string(ADJ_SOURCE_DIR) + "/schemas/scenarios/dark-age-britain/turn2-" + p + ".txt");
    ASSERT_TRUE(services_->submit_orders("britain-1", text, "cli").ok()) << p;
  }
  ASSERT_TRUE(services_->run_turn("britain-1", false).ok());
  prepared_ = painted_ = 0;
  auto n = ingest_->queue_turn_reports("britain-1", 2);
  ASSERT_TRUE(n.ok()) << n.status().to_string();
  ASSERT_EQ(*n, 5);
  EXPECT_EQ(prepared_, 1) << "one map prepared for the game and turn";
  auto st = store_->load_state("britain-1", 3);
  ASSERT_TRUE(st.ok());
  std::map<std::string, std::string> code_of, map_of;
  for (const auto& p : st->players) code_of[p.email] = p.code;
  for (const OutboxMessage& m : outbox()) {
    if (m.kind != "report" || m.dedupe_key.find(":2:") == std::string::npos) continue;
    const auto maps = pngs(read_message(m.raw));
    ASSERT_EQ(maps.size(), 1u) << m.to;
    map_of[code_of[m.to]] = maps[0].data;
  }
  ASSERT_EQ(map_of.size(), 5u);
  const std::string plain = expected_map(2);
  int with_arrows = 0, plain_ones = 0;
  for (const auto& [code, png] : map_of) {
    const bool arrows = mail::report_draws_arrows(services_->report("britain-1", code, 2)->json);
    if (arrows) {
      ++with_arrows;
      EXPECT_NE(png, plain) << code;
      EXPECT_EQ(png, expected_map(2, code)) << code << ": its own arrows and no one else's";
    } else {
      ++plain_ones;
      EXPECT_EQ(png, plain) << code;
    }
  }
  EXPECT_GE(with_arrows, 2);
  EXPECT_GE(plain_ones, 1);
  EXPECT_EQ(painted_, with_arrows + 1) << "each player's with arrows, the plain map once";
  EXPECT_NE(map_of["WSX"], map_of["MRC"]) << "different arrows, different maps";
}

// A turn re-run twice: run 3's corrections carry the map painted for run 3, not the one the
// same long-lived mailer painted for run 2's (the memo is per run and per deliver()).
TEST_F(ReportMapMail, ARerunsCorrectionsCarryItsOwnMap) {
  mail::NoticeMailer mailer(*services_, *store_, *store_, config_.from, config_.base_url,
                            [this] { return now_; });
  int prepares = 0, paints = 0;
  mailer.set_map_painter([&](const Json&) -> Result<mail::PlayerMapPainter> {
    ++prepares;
    return mail::PlayerMapPainter([&paints](const Json*) -> Result<std::string> {
      return "map of paint " + std::to_string(++paints);
    });
  });
  int after_run2 = 0;
  for (const int run : {2, 3}) {
    auto n = ingest_->queue_corrections("britain-1", 1, run);
    ASSERT_TRUE(n.ok()) << n.status().to_string();
    ASSERT_EQ(*n, 5);
    auto sent = mailer.deliver();
    ASSERT_TRUE(sent.ok()) << sent.status().to_string();
    EXPECT_EQ(*sent, 5) << "run " << run;
    EXPECT_LE(paints - after_run2, 6) << "each player's map, the plain one at most once";
    EXPECT_EQ(prepares, run - 1) << "one map prepared per run";
    if (run == 2) after_run2 = paints;
  }
  int corrections = 0;
  for (const OutboxMessage& m : outbox()) {
    if (m.kind != "correction") continue;
    const bool run3 = m.dedupe_key.find("correction:britain-1:1:3:") != std::string::npos;
    const auto maps = pngs(read_message(m.raw));
    ASSERT_EQ(maps.size(), 1u);
    const int paint = std::stoi(maps[0].data.substr(std::string("map of paint ").size()));
    EXPECT_EQ(paint > after_run2, run3) << m.dedupe_key << ": painted for its own run";
    ++corrections;
  }
  EXPECT_EQ(corrections, 10);
}

// `adjutant serve` with its scheduler and a relay (and `extra` arguments) runs turn 1 of Dark Age
// Britain (nobody sent orders); returns the five report mails as the relay got them, or fewer
// after a failure (reported). *db and *log name the daemon's database and log, in `dir`.
std::vector<std::string> scheduled_reports(::adj::testing::TempDir& dir,
                                           const std::vector<std::string>& extra, std::string* db,
                                           std::string* log) {
  *db = dir.file("map.db");
  *log = dir.file("serve.log");
  const fs::path relay_dir = dir.file("relay");
  const int relay_port = free_port();
  Aiosmtpd relay(relay_port, {"aiosmtpd.handlers.Mailbox", relay_dir.string()});
  if (!relay.start()) return ADD_FAILURE() << "the relay did not start", std::vector<std::string>();
  const std::string gm = "map-gm-token";
  std::vector<std::string> args = {
      "--tick",           "1",
      "--reminder-hours", "0",
      "--relay",          "smtp://127.0.0.1:" + std::to_string(relay_port),
      "--mail-from",      "orders@pbm.example.net",
      "--outbox",         dir.file("out")};
  args.insert(args.end(), extra.begin(), extra.end());
  mail_test::ServeProcess d(*db, free_port(), free_port(), *log, gm, args);
  if (!d.wait_ready())
    return ADD_FAILURE() << ::adj::testing::read_file(*log), std::vector<std::string>();
  const auto api = [&](const std::string& method, const std::string& path,
                       const std::string& body) {
    return ::adj::testing::run_shell("curl -s -m 10 -X " + method + " -H " +
                                     ::adj::testing::shell_quote("Authorization: Bearer " + gm) +
                                     " -H 'Content-Type: application/json' --data " +
                                     ::adj::testing::shell_quote(body) + " " +
                                     ::adj::testing::shell_quote(d.url(path)));
  };
  EXPECT_TRUE(
      map_contains(api("POST", "/api/games",
                       R"({"bundled": "dark-age-britain", "seed": 11, "demo_secrets": true})"),
                   "britain-1"));
  const long long deadline = static_cast<long long>(std::time(nullptr)) + 2;
  EXPECT_TRUE(map_contains(api("PUT", "/api/games/britain-1/schedule",
                               R"({"kind": "fixed", "deadline": )" + std::to_string(deadline) +
                                   R"(, "nmr_guard_ratio": 1})"),
                           "\"fixed\""));
  // The scheduler runs turn 1; the reports go through the relay.
  std::vector<std::string> reports;
  EXPECT_TRUE(eventually([&] {
    reports.clear();
    for (const std::string& m : mail_test::maildir_texts(relay_dir))
      if (map_contains(m, "turn 1 report for")) reports.push_back(m);
    return reports.size() == 5;
  })) << ::adj::testing::read_file(*log);
  return reports;
}

TEST(ReportMapServe, SchedulerReportsReachTheRelayWithTheMap) {
  if (!Aiosmtpd::available()) GTEST_SKIP() << "python3-aiosmtpd is not installed";
  ::adj::testing::TempDir dir;
  std::string db, log;
  const std::vector<std::string> reports = scheduled_reports(dir, {}, &db, &log);
  ASSERT_EQ(reports.size(), 5u);

  auto store = SqliteStore::open(db);
  ASSERT_TRUE(store.ok()) << store.status().to_string();
  auto after = (*store)->load_state("britain-1", 2);
  ASSERT_TRUE(after.ok()) << after.status().to_string();
  const auto plain = render::state_map_png(to_json(*after), render::kMailMapLimits);
  ASSERT_TRUE(plain.ok());
  for (const std::string& raw : reports) {
    EXPECT_TRUE(map_contains(raw, "X-Peer:")) << "received by the relay";
    const Message got = read_message(raw);
    EXPECT_EQ(got.type, "multipart/mixed");
    const auto maps = pngs(got);
    ASSERT_EQ(maps.size(), 1u);
    EXPECT_EQ(maps[0].filename, "map-turn-1.png");
    const auto size = render::png_size(maps[0].data);
    ASSERT_TRUE(size.ok()) << size.status().to_string();
    EXPECT_GE(size->first, 1000);  // render::kMailMapLimits
    EXPECT_LE(size->first, 1800);
    EXPECT_LE(size->second, 1800);
    // Nobody sent orders: no arrows, so each map is the plain one at the mail's size.
    EXPECT_EQ(maps[0].data, *plain);
  }
  EXPECT_FALSE(map_contains(::adj::testing::read_file(log), "report_map_failed"));
}

// --mail-maps off: the same reports, without a map.
TEST(ReportMapServe, MailMapsOffSendsTheReportsWithoutAMap) {
  if (!Aiosmtpd::available()) GTEST_SKIP() << "python3-aiosmtpd is not installed";
  ::adj::testing::TempDir dir;
  std::string db, log;
  const std::vector<std::string> reports =
      scheduled_reports(dir, {"--mail-maps", "off"}, &db, &log);
  ASSERT_EQ(reports.size(), 5u);
  for (const std::string& raw : reports) {
    const Message got = read_message(raw);
    EXPECT_TRUE(pngs(got).empty());
    std::string text;
    for (const Part& part : got.parts)
      if (part.type == "text/plain") text += part.data;
    EXPECT_TRUE(map_contains(text, "Your report on the web")) << "the web report draws the map";
  }
  EXPECT_TRUE(map_contains(::adj::testing::read_file(log), "maps=off"));
}

// --mail-map-style full: the map in the web map's look (render::kFullMailMapLimits), not the
// flat default.
TEST(ReportMapServe, MailMapStyleFullAttachesTheFullMap) {
  if (!Aiosmtpd::available()) GTEST_SKIP() << "python3-aiosmtpd is not installed";
  ::adj::testing::TempDir dir;
  std::string db, log;
  const auto reports = scheduled_reports(dir, {"--mail-map-style", "full"}, &db, &log);
  auto store = SqliteStore::open(db);
  ASSERT_TRUE(store.ok()) << store.status().to_string();
  const auto after = (*store)->load_state("britain-1", 2);
  ASSERT_TRUE(after.ok() && reports.size() == 5u) << after.status().to_string();
  const auto full = render::state_map_png(to_json(*after), render::kFullMailMapLimits);
  const auto flat = render::state_map_png(to_json(*after), render::kMailMapLimits);
  ASSERT_TRUE(full.ok() && flat.ok());
  ASSERT_NE(*full, *flat);
  for (const std::string& raw : reports) {
    const auto maps = pngs(read_message(raw));
    ASSERT_EQ(maps.size(), 1u);
    EXPECT_EQ(maps[0].data, *full) << "the full map, not the flat default";
  }
}

}  // namespace
}  // namespace adj
