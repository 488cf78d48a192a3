// `adjutant ingest` and `adjutant outbox list|send` end to end: the real binary, a real SQLite
// file, a real aiosmtpd relay.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/mail/mail_test_util.h"

namespace adj {
namespace {

using ::adj::testing::read_file;
using ::adj::testing::run_cli;
using mail_test::Aiosmtpd;
using mail_test::corpus;
using mail_test::free_port;
using mail_test::HeldPort;
using mail_test::maildir_new;

class CliMail : public ::testing::Test {
 protected:
  void SetUp() override {
    auto r = cli({"game", "create", "bundled:dark-age-britain", "--demo-secrets"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  ::adj::testing::CliResult cli(std::vector<std::string> args, const std::string& input = "") {
    args.insert(args.begin(), {"--db", db_});
    return run_cli(args, input);
  }
  std::unique_ptr<SqliteStore> store() {
    auto s = SqliteStore::open(db_);
    EXPECT_TRUE(s.ok());
    return std::move(s).value();
  }

  ::adj::testing::TempDir dir_;
  std::string db_ = dir_.file("game.db");
};

TEST_F(CliMail, IngestStoresAnswersAndIsIdempotent) {
  auto r = cli(
      {"ingest", "--mail-from", "orders@pbm.example.net", "--base-url", "https://pbm.example.net",
       "--sender", "wessex@example.org", "--recipient", "orders@pbm.example.net"},
      corpus("plain.eml"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("stored as inbox message 1: from wessex@example.org: orders for "
                       "britain-1/WSX: 7 accepted, 2 rejected"),
            std::string::npos)
      << r.out;
  auto again = cli({"ingest"}, corpus("plain.eml"));
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("already stored as inbox message 1"), std::string::npos) << again.out;

  auto s = store();
  EXPECT_EQ(s->all_submissions("britain-1")->size(), 1u);
  auto out = s->outbox("", 10);
  ASSERT_EQ(out->size(), 1u);
  auto reply = mail::parse_mail(out->at(0).raw);
  ASSERT_TRUE(reply.ok());
  EXPECT_EQ(reply->from_address, "orders@pbm.example.net");
  EXPECT_EQ(reply->in_reply_to, "plain.7f3a@mail.example.org");
  EXPECT_NE(reply->text.find("https://pbm.example.net/games/britain-1"), std::string::npos);
  auto in = s->inbox_message(1);
  EXPECT_EQ(in->channel, "pipe");
  EXPECT_EQ(in->envelope_from, "wessex@example.org");
}

TEST_F(CliMail, IngestExitsZeroForContentItRefuses) {
  for (const char* f : {"empty.eml", "malformed.eml", "wrong_secret.eml", "html_no_orders.eml"}) {
    auto r = cli({"ingest"}, corpus(f));
    EXPECT_EQ(r.exit_code, 0) << f << "\n" << r.out << r.err;
    EXPECT_NE(r.out.find("stored as inbox message"), std::string::npos) << f << r.out;
  }
}

TEST_F(CliMail, IngestOfAnOversizedMessage) {
  std::string raw = "From: wessex@example.org\nMessage-ID: <big@x>\nSubject: big\n\n";
  raw += std::string(3 * 1024 * 1024, 'x');
  auto r = cli({"ingest", "--max-bytes", "1048576"}, raw);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("refused (too large)"), std::string::npos) << r.out;
  auto in = store()->inbox_message(1);
  EXPECT_LT(in->raw.size(), 200u);
}

TEST_F(CliMail, IngestThatCannotStoreAsksTheMtaToRetry) {
  // The database path is a directory: nothing can be stored, exit 75 (EX_TEMPFAIL).
  auto r = run_cli({"--db", dir_.path().string(), "ingest"}, corpus("plain.eml"));
  EXPECT_EQ(r.exit_code, 75) << r.out << r.err;
}

TEST_F(CliMail, OutboxListAndSendToTheDefaultMaildir) {
  ASSERT_EQ(cli({"ingest"}, corpus("plain.eml")).exit_code, 0);
  ASSERT_EQ(cli({"ingest"}, corpus("latin1_subject.eml")).exit_code, 0);
  auto list = cli({"outbox", "list"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find("pending"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("eastanglia@example.org"), std::string::npos) << list.out;
  auto json = cli({"outbox", "list", "--game", "britain-1", "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  auto doc = nlohmann::json::parse(json.out);
  ASSERT_EQ(doc.size(), 3u);  // two acks and one warning
  EXPECT_EQ(doc[0]["kind"], "warning");
  EXPECT_EQ(doc[0]["state"], "pending");

  auto send = cli({"outbox", "send"});
  ASSERT_EQ(send.exit_code, 0) << send.err;
  EXPECT_NE(send.out.find("3 sent"), std::string::npos) << send.out;
  EXPECT_EQ(maildir_new(dir_.path() / "outbox").size(), 3u);
  auto again = cli({"outbox", "send"});
  EXPECT_NE(again.out.find("0 sent"), std::string::npos) << again.out;
  EXPECT_EQ(maildir_new(dir_.path() / "outbox").size(), 3u);
  auto after = cli({"outbox", "list", "--json"});
  for (const auto& m : nlohmann::json::parse(after.out)) EXPECT_EQ(m["state"], "sent");
}

TEST_F(CliMail, IngestAnswersResendWithTheMapAsServeOptionsSayOrWithout) {
  ASSERT_EQ(cli({"turn", "run", "britain-1"}).exit_code, 0);
  const auto resend = [&](const std::string& id, std::vector<std::string> options) {
    options.insert(options.begin(), "ingest");
    const std::string raw =
        "From: Wessex <wessex@example.org>\r\nTo: orders@pbm.example.net\r\n"
        "Subject: question\r\nMessage-ID: <" +
        id +
        "@mail.example.org>\r\n\r\nRESEND\r\nGAME britain-1\r\n"
        "PLAYER WSX cerdic\r\n";
    auto r = cli(options, raw);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    auto out = store()->outbox("", 1);
    EXPECT_TRUE(out.ok() && out->size() == 1u);
    return out.ok() && !out->empty() ? out->front() : OutboxMessage{};
  };
  const OutboxMessage with_map = resend("r1", {});
  EXPECT_EQ(with_map.kind, "resend");
  EXPECT_FALSE(with_map.part_key.empty()) << "the map, stored once for the turn";
  const OutboxMessage without = resend("r2", {"--mail-maps", "off"});
  EXPECT_EQ(without.kind, "resend");
  EXPECT_TRUE(without.part_key.empty());
  EXPECT_EQ(without.raw.find("image/png"), std::string::npos);
  const OutboxMessage full = resend("r3", {"--mail-map-style", "full"});
  EXPECT_FALSE(full.part_key.empty());
  EXPECT_NE(full.part_key, with_map.part_key) << "another picture, another stored part";
  EXPECT_NE(cli({"ingest", "--mail-maps", "some"}, "").exit_code, 0);
}

TEST_F(CliMail, PlayerReplaceMailsTheSecretWithTheMapAsServeOptionsSayOrWithout) {
  const auto replace = [&](const std::string& player, std::vector<std::string> options) {
    std::vector<std::string> args = {"player", "replace", "britain-1", player,
                                     "new-" + player + "@example.org"};
    args.insert(args.end(), options.begin(), options.end());
    auto r = cli(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    OutboxMessage secret;
    const auto out = store()->outbox("", 100);
    EXPECT_TRUE(out.ok());
    if (out.ok())
      for (const OutboxMessage& m : *out)
        if (m.to == "new-" + player + "@example.org" && m.kind != "notice") secret = m;
    EXPECT_FALSE(secret.raw.empty()) << player;
    return secret;
  };
  const OutboxMessage with_map = replace("WSX", {});
  EXPECT_FALSE(with_map.part_key.empty()) << with_map.kind;
  const OutboxMessage without = replace("MRC", {"--mail-maps", "off"});
  EXPECT_TRUE(without.part_key.empty()) << without.kind;
  EXPECT_EQ(without.raw.find("image/png"), std::string::npos);
}

TEST_F(CliMail, OutboxSendToARelay) {
  if (!Aiosmtpd::available()) GTEST_SKIP() << "python3-aiosmtpd is not installed";
  ASSERT_EQ(cli({"ingest"}, corpus("alternative_qp.eml")).exit_code, 0);
  HeldPort held;  // the relay's port, refused until the relay takes it
  const int port = held.port();
  const std::string relay = "smtp://127.0.0.1:" + std::to_string(port);
  // Relay down: the message stays queued.
  auto down = cli({"outbox", "send", "--relay", relay});
  ASSERT_EQ(down.exit_code, 0) << down.err;
  EXPECT_NE(down.out.find("1 to retry later"), std::string::npos) << down.out;
  EXPECT_EQ(store()->pending_count().value(), 1);
  // Up, once the backoff has passed (the row is made due now instead of waiting 30 s).
  held.release();
  Aiosmtpd server(port, {"aiosmtpd.handlers.Mailbox", (dir_.path() / "relay").string()});
  ASSERT_TRUE(server.start());
  {
    auto s = store();
    auto m = s->outbox("", 1)->at(0);
    ASSERT_TRUE(s->mark_retry(m.id, m.last_error, 0, false).ok());
  }
  auto up = cli({"outbox", "send", "--relay", relay});
  ASSERT_EQ(up.exit_code, 0) << up.err;
  EXPECT_NE(up.out.find("1 sent"), std::string::npos) << up.out;
  const auto files = maildir_new(dir_.path() / "relay");
  ASSERT_EQ(files.size(), 1u);
  auto p = mail::parse_mail(read_file(files[0].string()));
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->to.at(0), "mercia@example.org");
  EXPECT_NE(p->text.find("5 accepted, 0 rejected"), std::string::npos);
}

TEST_F(CliMail, OutboxSendAuthenticatesToARelayThatRequiresIt) {
  if (!Aiosmtpd::available()) GTEST_SKIP() << "python3-aiosmtpd is not installed";
  ASSERT_EQ(cli({"ingest"}, corpus("alternative_qp.eml")).exit_code, 0);
  const int port = free_port();
  const std::string relay = "smtp://127.0.0.1:" + std::to_string(port);
  Aiosmtpd server =
      Aiosmtpd::script(port, std::string(ADJ_SOURCE_DIR) + "/tests/mail/auth_relay.py",
                       {(dir_.path() / "relay").string(), "gm", "pbm-relay-pw"});
  ASSERT_TRUE(server.start());
  // The password comes from the environment (never the command line, where ps shows it).
  ::setenv("ADJUTANT_RELAY_PASSWORD", "pbm-relay-pw", 1);
  auto sent = cli({"outbox", "send", "--relay", relay, "--user", "gm"});
  ::unsetenv("ADJUTANT_RELAY_PASSWORD");
  ASSERT_EQ(sent.exit_code, 0) << sent.err;
  EXPECT_NE(sent.out.find("1 sent"), std::string::npos) << sent.out;
  EXPECT_EQ(maildir_new(dir_.path() / "relay").size(), 1u);
  EXPECT_EQ(sent.out.find("pbm-relay-pw"), std::string::npos);
  EXPECT_EQ(sent.err.find("pbm-relay-pw"), std::string::npos);
}

TEST_F(CliMail, InboxListShowsFailedMessagesAndPruneKeepsTheRows) {
  ASSERT_EQ(cli({"ingest"}, corpus("empty.eml")).exit_code, 0);  // unreadable: failed
  ASSERT_EQ(cli({"ingest", "--sender", "wessex@example.org"}, corpus("plain.eml")).exit_code, 0);
  auto failed = cli({"inbox", "list", "--state", "failed", "--json"});
  ASSERT_EQ(failed.exit_code, 0) << failed.err;
  const Json j = Json::parse(failed.out);
  ASSERT_EQ(j.size(), 1u) << failed.out;
  EXPECT_EQ(j[0]["state"], "failed");
  EXPECT_EQ(j[0]["attempts"], 1);
  auto all = cli({"inbox", "list"});
  ASSERT_EQ(all.exit_code, 0);
  EXPECT_NE(all.out.find("processed"), std::string::npos) << all.out;
  EXPECT_NE(all.out.find("wessex@example.org"), std::string::npos) << all.out;
  // Both are younger than 30 days: nothing dropped.
  auto pruned = cli({"inbox", "prune"});
  ASSERT_EQ(pruned.exit_code, 0) << pruned.err;
  EXPECT_NE(pruned.out.find("raw bytes of 0 processed messages"), std::string::npos) << pruned.out;
  EXPECT_FALSE(store()->inbox_message(2)->raw.empty());
}

TEST_F(CliMail, HelpForTheMailCommands) {
  for (std::vector<std::string> cmd : {std::vector<std::string>{"ingest"},
                                       {"outbox"},
                                       {"outbox", "list"},
                                       {"outbox", "send"},
                                       {"inbox", "list"},
                                       {"inbox", "prune"}}) {
    cmd.push_back("--help");
    auto r = run_cli(cmd);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_FALSE(r.out.empty());
  }
}

}  // namespace
}  // namespace adj
